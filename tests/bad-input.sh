#!/usr/bin/env bash
# bad-input.sh - bad inputs and faults, table-driven. The rule: bad input gets
# a clear one-line error naming the file and the section, CU or DIE offset, a
# non-zero exit status, no partial output file, no temporary file left, and an
# untouched input ELF. Nothing is ever lost. A case whose input may be fine
# (a flipped byte inside a name) may also succeed, but never crash: an exit
# status >= 128 or a sanitizer report is a failure.
#
# Usage: tests/bad-input.sh DWARF2BTF
#
# With $BAD_INPUT_SEEDS set to a directory, the cases' inputs are also copied
# there, as fuzz seeds.
#
# Needs gcc, binutils (objcopy, readelf) and python3 (byte edits). Uses, when
# present, Debian's 6.1 vmlinux from $DWARF2BTF_CACHE (tests/fetch.sh) for
# the signal cases, and a tmpfs (mount, as root) for the ENOSPC and
# read-only cases; without them those cases print "skip:".
set -uo pipefail

D2B=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
VMLINUX=$CACHE/linux-6.1/vmlinux
work=$(mktemp -d)
mnt=$work/mnt
mounted=0

cleanup() {
	local pid
	# an objcopy orphaned by an interrupted run (reported below) must end
	# before its directory goes
	for _ in $(seq 100); do
		pid=$(pgrep -f -- "$work/" | head -1)
		[ -z "$pid" ] && break
		sleep 0.2
	done
	[ "$mounted" = 1 ] && umount "$mnt" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

skip() { echo "skip: $1: $2"; }

# an ERE matching the string $1 literally
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }
one_line() { head -c 400 "$1" | tr '\n' '|'; }

# ---------------------------------------------------------------------------
# helpers: byte edits of ELF64 LE files, single-byte flips, raw BTF check

tool=$work/tool.py
cat >"$tool" <<'PY'
import random, struct, sys, zlib

def sections(b):
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    hdrs = []
    for i in range(shnum):
        o = shoff + i * shentsize
        name, typ, flags, addr, off, size = struct.unpack_from('<IIQQQQ', b, o)
        hdrs.append(dict(hdr=o, name=name, type=typ, off=off, size=size))
    stroff = hdrs[shstrndx]['off']
    for h in hdrs:
        h['sname'] = b[stroff + h['name']:b.index(b'\0', stroff + h['name'])].decode()
    return {h['sname']: h for h in hdrs}

def sec(b, name):
    s = sections(b).get(name)
    if not s:
        sys.exit('no section ' + name)
    return s

def uleb(b, p):
    v = sh = 0
    while True:
        c = b[p]; p += 1; v |= (c & 0x7f) << sh; sh += 7
        if not c & 0x80:
            return v, p

def check_btf(path):
    b = open(path, 'rb').read()
    magic, ver, flags, hlen, toff, tlen, soff, slen = struct.unpack_from('<HBBIIIII', b, 0)
    if magic != 0xeb9f: return 'bad magic'
    if hlen + max(toff + tlen, soff + slen) != len(b): return 'section sizes do not add up'
    t, end, types = hlen + toff, hlen + toff + tlen, []
    extra = {1: 4, 3: 12, 14: 4, 17: 4}
    per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
    while t < end:
        name, info, st = struct.unpack_from('<III', b, t)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        if not 1 <= kind <= 19: return 'type %d: bad kind %d' % (len(types) + 1, kind)
        if name >= slen: return 'type %d: bad name offset' % (len(types) + 1)
        refs = [st] if kind in (2, 8, 9, 10, 11, 12, 13, 14, 17, 18) else []
        if kind == 3: refs += list(struct.unpack_from('<II', b, t + 12))
        for i in range(vlen):
            p = t + 12 + extra.get(kind, 0) + i * per.get(kind, 0)
            if kind in (4, 5): refs.append(struct.unpack_from('<I', b, p + 4)[0])
            if kind == 13: refs.append(struct.unpack_from('<I', b, p + 4)[0])
            if kind == 15: refs.append(struct.unpack_from('<I', b, p)[0])
        types.append(refs)
        t += 12 + extra.get(kind, 0) + vlen * per.get(kind, 0)
    if t != end: return 'types overrun the type section'
    for i, refs in enumerate(types):
        if any(r > len(types) for r in refs): return 'type %d refers past the last type' % (i + 1)
    return None

def main():
    op, a = sys.argv[1], sys.argv[2:]
    if op == 'btf-check':          # btf-check FILE...: print the bad ones
        for p in a:
            why = check_btf(p)
            if why: print('%s: %s' % (p, why))
        return
    if op == 'btf-refs':           # btf-refs OUT KIND:REF...: raw BTF of those unnamed types, ids from 1
        kinds = {'ptr': 2, 'volatile': 9, 'const': 10}
        ts = b''.join(struct.pack('<III', 0, kinds[k] << 24, int(r))
                      for k, r in (x.split(':') for x in a[1:]))
        open(a[0], 'wb').write(struct.pack('<HBBIIIII', 0xeb9f, 1, 0, 24, 0, len(ts), len(ts), 1)
                               + ts + b'\0')
        return
    if op == 'zlib-zeros':         # zlib-zeros OUT SIZE: an Elf64_Chdr and SIZE zero bytes, deflated
        c = zlib.compressobj(9); n = int(a[1], 0); z = bytearray()
        for _ in range(n >> 20): z += c.compress(bytes(1 << 20))
        z += c.flush()
        open(a[0], 'wb').write(struct.pack('<IIQQ', 1, 0, n, 1) + z)
        return
    path, a = a[0], a[1:]
    b = bytearray(open(path, 'rb').read())
    if op == 'zero':               # zero SECTION
        s = sec(b, a[0]); b[s['off']:s['off'] + s['size']] = bytes(s['size'])
    elif op == 'shsize':           # shsize SECTION SIZE
        struct.pack_into('<Q', b, sec(b, a[0])['hdr'] + 0x20, int(a[1], 0))
    elif op == 'shoff':            # shoff SECTION OFFSET
        struct.pack_into('<Q', b, sec(b, a[0])['hdr'] + 0x18, int(a[1], 0))
    elif op == 'shtype':           # shtype SECTION TYPE
        struct.pack_into('<I', b, sec(b, a[0])['hdr'] + 4, int(a[1], 0))
    elif op == 'btf-corrupt':      # btf-corrupt CASE: raw BTF, one structural fault
        hlen, toff, tlen, soff, slen = struct.unpack_from('<IIIII', b, 4)
        t, end, tid, done = hlen + toff, hlen + toff + tlen, 0, False
        sec_id, ptr_at = 0, 0
        extra = {1: 4, 3: 12, 14: 4, 17: 4}
        per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
        while t < end and not done:
            tid += 1
            name, info = struct.unpack_from('<II', b, t)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            if a[0] == 'ptr-oob' and kind == 2:
                struct.pack_into('<I', b, t + 8, 0xfffff); done = True
            elif a[0] == 'name-oob' and name:
                struct.pack_into('<I', b, t, slen + 100); done = True
            elif a[0] == 'const-loop' and kind == 10:
                struct.pack_into('<I', b, t + 8, tid); done = True
            elif a[0] == 'kind':
                struct.pack_into('<I', b, t + 4, (25 << 24) | vlen); done = True
            elif a[0] == 'int-bits' and kind == 1:
                struct.pack_into('<I', b, t + 12, 200); done = True
            elif a[0] == 'member-past' and kind == 4 and vlen:
                size = struct.unpack_from('<I', b, t + 8)[0]
                struct.pack_into('<I', b, t + 12 + 8, size * 8 + 8); done = True
            elif a[0] == 'ptr-datasec' and kind == 12:
                # the first FUNC made an empty DATASEC (12 bytes too),
                # the first PTR pointed at it
                struct.pack_into('<I', b, t + 4, 15 << 24); sec_id = tid
            elif a[0] == 'ptr-datasec' and kind == 2 and not ptr_at:
                ptr_at = t
            t += 12 + extra.get(kind, 0) + vlen * per.get(kind, 0)
        if a[0] == 'ptr-datasec' and sec_id and ptr_at:
            struct.pack_into('<I', b, ptr_at + 8, sec_id); done = True
        if not done:
            sys.exit('btf-corrupt: no type for ' + a[0])
    elif op == 'root-tag':         # root-tag TAG: the first unit's root DIE gets that tag's abbrev code
        p = sec(b, '.debug_abbrev')['off']
        while True:
            code, p = uleb(b, p)
            if not code: sys.exit('no abbreviation of tag ' + a[0])
            tag, p = uleb(b, p); p += 1
            if tag == int(a[0], 0): break
            while True:
                at, p = uleb(b, p); form, p = uleb(b, p)
                if form == 0x21: _, p = uleb(b, p)
                if not at and not form: break
        i = sec(b, '.debug_info')['off']
        version, = struct.unpack_from('<H', b, i + 4)
        b[i + (12 if version >= 5 else 11)] = code
    elif op == 'tu-typeoff':       # tu-typeoff VALUE: the first DWARF 5 type unit's type_offset
        s = sec(b, '.debug_info'); p = s['off']
        while p < s['off'] + s['size']:
            length, version, ut = struct.unpack_from('<IHB', b, p)
            if version == 5 and ut == 2:
                struct.pack_into('<I', b, p + 20, int(a[0], 0)); break
            p += 4 + length
        else:
            sys.exit('no DWARF 5 type unit')
    elif op == 'shname':           # shname SECTION VALUE
        struct.pack_into('<I', b, sec(b, a[0])['hdr'], int(a[1], 0))
    elif op == 'shstrndx':         # shstrndx VALUE (the ELF header's e_shstrndx)
        struct.pack_into('<H', b, 0x3e, int(a[0], 0))
    elif op == 'shlink0':          # shlink0 VALUE (section 0's sh_link)
        shoff, = struct.unpack_from('<Q', b, 0x28); struct.pack_into('<I', b, shoff + 0x28, int(a[0], 0))
    elif op == 'shlink':           # shlink SECTION VALUE
        struct.pack_into('<I', b, sec(b, a[0])['hdr'] + 0x28, int(a[1], 0))
    elif op == 'shentsize':        # shentsize SECTION VALUE
        struct.pack_into('<Q', b, sec(b, a[0])['hdr'] + 0x38, int(a[1], 0))
    elif op == 'shflags-or':       # shflags-or SECTION BITS
        o = sec(b, a[0])['hdr'] + 8; f, = struct.unpack_from('<Q', b, o)
        struct.pack_into('<Q', b, o, f | int(a[1], 0))
    elif op == 'chsize':           # chsize SECTION SIZE: a compressed section's Elf64_Chdr ch_size
        struct.pack_into('<Q', b, sec(b, a[0])['off'] + 8, int(a[1], 0))
    elif op == 'chsize-add':       # chsize-add SECTION DELTA: ch_size plus DELTA
        o = sec(b, a[0])['off'] + 8; v, = struct.unpack_from('<Q', b, o)
        struct.pack_into('<Q', b, o, v + int(a[1], 0))
    elif op == 'gnusize-add':      # gnusize-add SECTION DELTA: a .zdebug_X's big-endian size plus DELTA
        o = sec(b, a[0])['off'] + 4; v, = struct.unpack_from('>Q', b, o)
        struct.pack_into('>Q', b, o, v + int(a[1], 0))
    elif op == 'shsize-add':       # shsize-add SECTION DELTA
        o = sec(b, a[0])['hdr'] + 0x20; v, = struct.unpack_from('<Q', b, o)
        struct.pack_into('<Q', b, o, v + int(a[1], 0))
    elif op == 'flip':             # flip SECTION OFFSET|mid: that byte of the section XOR 0xff
        s = sec(b, a[0]); b[s['off'] + (s['size'] // 2 if a[1] == 'mid' else int(a[1], 0))] ^= 0xff
    elif op == 'symname':          # symname VALUE: every symbol's st_name but the first's
        s = sec(b, '.symtab')
        for o in range(s['off'] + 24, s['off'] + s['size'], 24):
            struct.pack_into('<I', b, o, int(a[0], 0))
    elif op == 'machine':          # machine E_MACHINE
        struct.pack_into('<H', b, 0x12, int(a[0], 0))
    elif op == 'poke':             # poke SECTION OFFSET HEXBYTES
        o = sec(b, a[0])['off'] + int(a[1], 0); v = bytes.fromhex(a[2]); b[o:o + len(v)] = v
    elif op == 'peek':             # peek SECTION OFFSET N
        o = sec(b, a[0])['off'] + int(a[1], 0); print(b[o:o + int(a[2], 0)].hex()); return
    elif op == 'abbrev-form':      # offset of a 1-byte form in the first abbreviation
        s = sec(b, '.debug_abbrev'); p = s['off']
        _, p = uleb(b, p); _, p = uleb(b, p); p += 1
        while True:
            at, p = uleb(b, p); fp = p; form, p = uleb(b, p)
            if not at and not form: sys.exit('no attribute')
            if form == 0x21: _, p = uleb(b, p); continue
            if p - fp == 1: print(fp - s['off']); return
    elif op == 'flips':            # flips SEED N OUTPREFIX SECTION...
        rnd = random.Random(int(a[0])); secs = [sec(b, x) for x in a[3:]]
        for i in range(int(a[1])):
            s = secs[i % len(secs)]
            o = rnd.randrange(s['size']); x = rnd.choice([0x01, 0x80, 0xff, rnd.randrange(1, 256)])
            c = bytearray(b); c[s['off'] + o] ^= x
            open('%s%03d' % (a[2], i), 'wb').write(c)
            print('%s%03d %s+%#x^%#04x' % (a[2], i, s['sname'], o, x))
        return
    else:
        sys.exit('unknown op ' + op)
    open(path, 'wb').write(b)

main()
PY
edit() { python3 "$tool" "$2" "$1" "${@:3}"; }
le32() { printf '%08x' $(($1)) | sed -E 's/(..)(..)(..)(..)/\4\3\2\1/'; }
has_btf() { grep -q ' \.BTF ' <<<"$(readelf -S -W "$1" 2>/dev/null)"; }

# a fresh directory for case $1 holding a copy of $2 named "in"; prints the copy
mkcase() {
	mkdir -p "$work/c/$1"
	cp "${2:-$prog}" "$work/c/$1/in"
	echo "$work/c/$1/in"
}

# ---------------------------------------------------------------------------
# the runner

# listing of the directories a run may touch
snap() { for d in "$@"; do ls -A "$d" 2>/dev/null; done | sort; }
# entries of listing $2 that are not in listing $1, on one line
added() { comm -13 <(grep -v '^$' <<<"$1") <(grep -v '^$' <<<"$2") | tr '\n' ' '; }

RUN_ENV=()	# VAR=value settings for the next run
BTF_CHECK=1	# check the output of successful runs
WHY=""		# what was wrong with the last run; empty if nothing

# run IN OUT KIND RE ARGS...: run dwarf2btf ARGS... on IN, detached to OUT
# (in place with -J if OUT is empty), and set WHY. KIND: error (must fail),
# success (must succeed), any (clean error or success). RE: the ERE the one
# stderr line of a failing run must match after "dwarf2btf: ".
run() {
	local in=$1 out=$2 kind=$3 rx=$4; shift 4
	local sum1 sum2 before after rc err=$work/stderr lines new outdir="" mode=detached existed=0
	if [ -n "$out" ]; then
		outdir=$(dirname "$out")
		set -- "$@" --btf_encode_detached="$out"
	else
		mode=inplace
		set -- "$@" -J
	fi
	WHY=""
	[ -n "$out" ] && [ -e "$out" ] && existed=1
	sum1=
	# (not reading a FIFO, which would wait for a writer)
	[ -f "$in" ] && sum1=$({ sha256sum <"$in"; } 2>/dev/null)
	before=$(snap "$(dirname "$in")" $outdir)
	# (the braces keep bash's own "Segmentation fault" notice out of the report)
	{ timeout -s KILL 120 env ${RUN_ENV[@]+"${RUN_ENV[@]}"} "$D2B" "$@" "$in" >/dev/null 2>"$err"; } 2>/dev/null
	rc=$?
	lines=$(wc -l <"$err")
	if [ $rc -eq 137 ]; then
		WHY+="killed (SIGKILL, or the 120 s timeout); "
	elif [ $rc -ge 128 ]; then
		WHY+="crashed with signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null)); "
	fi
	if grep -qE 'Sanitizer|runtime error:' "$err"; then
		WHY+="sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$err"); "
	fi
	case $kind in
	error) [ $rc -eq 0 ] && WHY+="exit status 0, expected an error; " ;;
	success) [ $rc -ne 0 ] && WHY+="exit status $rc, expected success; " ;;
	esac
	if [ $rc -ne 0 ] && [ $rc -lt 128 ]; then
		if [ "$lines" -eq 0 ]; then
			WHY+="no error message; "
		else
			[ "$lines" -gt 1 ] && WHY+="$lines lines on stderr, expected one; "
			head -1 "$err" | grep -qE -- "^dwarf2btf: $rx" ||
				WHY+="first stderr line does not match '^dwarf2btf: $rx'; "
		fi
	fi
	if [ $rc -ne 0 ] && [ -n "$out" ] && [ -e "$out" ] && [ $existed = 0 ]; then
		WHY+="output file left after a failure; "
	fi
	after=$(snap "$(dirname "$in")" $outdir)
	# (a new output is no leftover; one that existed stays where it was)
	[ $rc -eq 0 ] && [ -n "$out" ] && [ $existed = 0 ] && after=$(grep -vxF -- "$(basename "$out")" <<<"$after")
	new=$(added "$before" "$after")
	[ -n "$new" ] && WHY+="left behind: $new; "
	new=$(added "$after" "$before")
	[ -n "$new" ] && WHY+="removed: $new; "
	sum2=
	[ -f "$in" ] && sum2=$({ sha256sum <"$in"; } 2>/dev/null)
	if [ "$sum1" != "$sum2" ] && { [ $mode = detached ] || [ $rc -ne 0 ]; }; then
		WHY+="input changed; "
	fi
	if [ $rc -eq 0 ] && [ -n "$out" ] && [ -e "$out" ] && [ "$BTF_CHECK" = 1 ]; then
		new=$(python3 "$tool" btf-check "$out")
		[ -n "$new" ] && WHY+="output is not valid BTF: $new; "
	fi
	[ $rc -eq 0 ] && [ $mode = inplace ] && ! has_btf "$in" && WHY+="exit status 0 but no .BTF section; "
	if [ -n "$WHY" ]; then
		WHY+="exit status $rc; stderr: $(one_line "$err")"
		return 1
	fi
	return 0
}

# the case's input file and --btf_base file, as fuzz seeds (fuzz/make-seeds.sh):
# regular files up to the fuzzer's 300,000 bytes, in $BAD_INPUT_SEEDS if set
keep_seeds() {
	local name=$1 f n=0; shift
	[ -n "${BAD_INPUT_SEEDS:-}" ] || return 0
	for f in "$@"; do
		f=${f#--btf_base=}
		[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 300000 ] || continue
		cp "$f" "$BAD_INPUT_SEEDS/bad-$(printf '%s' "$name" | tr -c 'A-Za-z0-9.-' _)-$n"
		n=$((n + 1))
	done
}

# expect NAME KIND RE IN OUT ARGS...: one case (see run)
expect() {
	local name=$1; shift
	keep_seeds "$name" "$3" $(printf '%s\n' "${@:5}" | grep '^--btf_base=')
	if run "$3" "$4" "$1" "$2" "${@:5}"; then tally_ok "$name"; else tally_fail "$name: $WHY"; fi
	RUN_ENV=()
}

# ---------------------------------------------------------------------------
# fixtures

src=$work/src
mkdir -p "$src"
cat >"$src/a.c" <<'C'
enum color { RED, GREEN = 5, BLUE = -1 };
struct point { int x, y; };
struct shape {
	const char *name;
	struct point corners[4];
	enum color color;
	unsigned int flags : 3, visible : 1;
	struct shape *next;
};
typedef struct shape shape_t;
int area(const shape_t *s);
int area(const shape_t *s)
{
	return (s->corners[1].x - s->corners[0].x) * (s->corners[1].y - s->corners[0].y);
}
C
cat >"$src/b.c" <<'C'
struct list { struct list *next; long value; };
union number { long l; double d; };
struct shape;
int area(const struct shape *s);
static long sum(const struct list *l) { long n = 0; for (; l; l = l->next) n += l->value; return n; }
long total(struct list *l, union number *u) { return sum(l) + u->l; }
int main(int argc, char **argv)
{
	struct list l = { 0, argc };
	union number u = { 1 };
	return (int)total(&l, &u) + area(0) * 0;
}
C
# kfunc sets in .BTF_ids that do not hold together: a set8 running far past
# the section, a set8 at its very end, func entries without the __<id> suffix
cat >"$src/kf.c" <<'C'
int kf_one(int x) { return x + 1; }
int kf_two(int x) { return x + 2; }
int main(void) { return kf_one(1) + kf_two(2); }
__asm__(".pushsection .BTF_ids,\"a\"\n"
	"__BTF_ID__set8__huge: .long 5\n .long 1\n"
	"__BTF_ID__func__kf_one__1: .long 0\n .long 0xffffffff\n"
	"__BTF_ID__func__kf_two: .long 0\n .long 1\n"
	"__BTF_ID__func____: .long 0\n .long 1\n"
	".size __BTF_ID__set8__huge, 0x7fffffffffff\n"
	"__BTF_ID__set8__atend:\n"
	".size __BTF_ID__set8__atend, 8\n"
	".popsection\n");
C
prog=$src/prog
if ! gcc -g -O1 -o "$prog" "$src/a.c" "$src/b.c" || ! gcc -O1 -o "$src/nodebug" "$src/a.c" "$src/b.c"; then
	tally_fail "fixture: cannot build the fixture with gcc"
	tally_end
	exit 1
fi
gcc -g -O1 -o "$src/kf" "$src/kf.c" || tally_fail "fixture: cannot build kf.c"
# a kfunc inside its set whose (id, flags) pair runs past .BTF_ids
cat >"$src/kfpast.c" <<'C'
int kf_one(int x) { return x + 1; }
int main(void) { return kf_one(1); }
__asm__(".pushsection .BTF_ids,\"a\"\n"
	"__BTF_ID__set8__huge: .long 5\n .long 1\n"
	"__BTF_ID__func__kf_one__1: .long 0\n"
	".size __BTF_ID__set8__huge, 0x100\n"
	".popsection\n");
C
gcc -g -O1 -o "$src/kfpast" "$src/kfpast.c" || tally_fail "fixture: cannot build kfpast.c"

# a fixture whose BTF is about 50 KB (300 structs of 8 members)
python3 - >"$src/many.c" <<'EOF'
for i in range(300):
    print("struct s%d { %s };" % (i, " ".join("long f%d_%d;" % (i, j) for j in range(8))))
    print("struct s%d *p%d;" % (i, i))
print("int main(void) { return 0; }")
EOF
gcc -g -O1 -o "$src/many" "$src/many.c" || tally_fail "fixture: cannot build many.c"

# crafted DWARF 4: `crafted NAME <BODY` links an executable whose only DWARF
# is one CU with int and char base types followed by the DIEs of BODY
echo 'int main(void) { return 0; }' >"$src/main.c"
gcc -O1 -c -o "$src/main.o" "$src/main.c"
crafted() {
	{ cat <<'S'
	.section .note.GNU-stack,"",@progbits
	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1, 0x11; .byte 1; .uleb128 0x25, 0x08, 0x13, 0x0b, 0x03, 0x08, 0, 0 # compile_unit
	.uleb128 2, 0x13; .byte 1; .uleb128 0x03, 0x08, 0x0b, 0x0f, 0, 0             # structure_type
	.uleb128 3, 0x0d; .byte 0; .uleb128 0x03, 0x08, 0x49, 0x13, 0x38, 0x0f, 0, 0 # member
	.uleb128 4, 0x24; .byte 0; .uleb128 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0 # base_type
	.uleb128 5, 0x01; .byte 1; .uleb128 0x49, 0x13, 0, 0                         # array_type
	.uleb128 6, 0x21; .byte 0; .uleb128 0x49, 0x13, 0x2f, 0x07, 0, 0             # subrange_type
	.uleb128 7, 0x04; .byte 1; .uleb128 0x03, 0x08, 0x0b, 0x0b, 0, 0             # enumeration_type
	.uleb128 8, 0x28; .byte 0; .uleb128 0x03, 0x08, 0x1c, 0x0d, 0, 0             # enumerator
	.uleb128 9, 0x2e; .byte 1; .uleb128 0x03, 0x08, 0, 0                         # subprogram
	.uleb128 10, 0x0b; .byte 1; .uleb128 0, 0                                    # lexical_block
	.uleb128 11, 0x16; .byte 0; .uleb128 0x03, 0x08, 0x49, 0x13, 0, 0            # typedef
	.uleb128 12, 0x0f; .byte 0; .uleb128 0x0b, 0x0b, 0x49, 0x13, 0, 0            # pointer_type
	.uleb128 13, 0x26; .byte 0; .uleb128 0x49, 0x13, 0, 0                        # const_type
	.uleb128 14, 0x35; .byte 0; .uleb128 0x49, 0x13, 0, 0                        # volatile_type
	.byte 0
	.section .debug_info,"",@progbits
.Lcu:
	.long .Lcu_end - .Lcu_start
.Lcu_start:
	.value 4
	.long .Labbrev
	.byte 8
	.uleb128 1; .string "crafted"; .byte 0x0c; .string "crafted.c"
.Lint:	.uleb128 4; .string "int"; .byte 4, 5
.Lchar:	.uleb128 4; .string "char"; .byte 1, 6
S
	  cat
	  printf '\t.byte 0\n.Lcu_end:\n'; } >"$src/$1.s"
	gcc -o "$src/$1" "$src/main.o" "$src/$1.s" || tally_fail "fixture: cannot assemble $1"
}
# struct in struct, 200000 deep (C flattens nested structs; C++ and crafted
# DWARF do not)
crafted deep <<'S'
	.rept 200000
	.uleb128 2; .string "s"; .uleb128 4
	.endr
	.rept 200000
	.byte 0
	.endr
S
# lexical blocks 600 deep in a function
crafted blocks <<'S'
	.uleb128 9; .string "f"
	.rept 600
	.uleb128 10
	.endr
	.rept 601
	.byte 0
	.endr
S
# sizes BTF cannot hold: an array of 2^40 chars, a struct of 2^40 + 8 bytes,
# a member 2^40 bytes in
crafted huge <<'S'
.Lbig:	.uleb128 5; .long .Lchar - .Lcu
	.uleb128 6; .long .Lint - .Lcu; .quad 0xffffffffff
	.byte 0
	.uleb128 2; .string "huge"; .uleb128 0x10000000008
	.uleb128 3; .string "big"; .long .Lbig - .Lcu; .uleb128 0
	.uleb128 3; .string "after"; .long .Lint - .Lcu; .uleb128 0x10000000000
	.byte 0
S
# more members and enumerators than BTF's 16-bit vlen
crafted vlen <<'S'
	.uleb128 2; .string "wide"; .uleb128 4
	.rept 70000
	.uleb128 3; .string "m"; .long .Lint - .Lcu; .uleb128 0
	.endr
	.byte 0
	.uleb128 7; .string "many"; .byte 4
	.rept 70000
	.uleb128 8; .string "e"; .sleb128 1
	.endr
	.byte 0
S
# reference chains: typedef to typedef 4096 long (the longest taken), then
# 100000 long, and pointer to pointer (each DIE refers to the next: its
# reference is its last 4 bytes)
crafted typedef-chain-4096 <<'S'
	.rept 4095
	.uleb128 11; .string "t"; .long . + 4 - .Lcu
	.endr
	.uleb128 11; .string "t"; .long .Lint - .Lcu
S
crafted typedef-chain <<'S'
	.rept 100000
	.uleb128 11; .string "t"; .long . + 4 - .Lcu
	.endr
	.uleb128 11; .string "t"; .long .Lint - .Lcu
S
crafted pointer-chain <<'S'
	.rept 100000
	.uleb128 12; .byte 8; .long . + 4 - .Lcu
	.endr
	.uleb128 12; .byte 8; .long .Lint - .Lcu
S
# loops of reference types: typedef a -> typedef b -> a; const -> volatile ->
# typedef -> const; pointer -> pointer -> (the first)
crafted typedef-loop <<'S'
.La:	.uleb128 11; .string "a"; .long .Lb - .Lcu
.Lb:	.uleb128 11; .string "b"; .long .La - .Lcu
S
crafted qualifier-loop <<'S'
.Lc:	.uleb128 13; .long .Lv - .Lcu
.Lv:	.uleb128 14; .long .Lt - .Lcu
.Lt:	.uleb128 11; .string "t"; .long .Lc - .Lcu
S
crafted pointer-loop <<'S'
.Lp:	.uleb128 12; .byte 8; .long .Lq - .Lcu
.Lq:	.uleb128 12; .byte 8; .long .Lp - .Lcu
S

# crafted DWARF 5: `crafted5 NAME STR_OFFSETS_BASE ADDR_BASE <BODY`, one CU
# with string (DW_FORM_strx1) and address (DW_FORM_addrx) indexes into
# two-entry tables; a base type named by index (abbrev 15), a function whose
# low_pc is an index (abbrev 16)
crafted5() {
	{ cat <<'S'
	.section .note.GNU-stack,"",@progbits
	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1, 0x11; .byte 1; .uleb128 0x25, 0x08, 0x13, 0x0b, 0x03, 0x08, 0x72, 0x17, 0x73, 0x17, 0, 0
	.uleb128 4, 0x24; .byte 0; .uleb128 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0
	.uleb128 15, 0x24; .byte 0; .uleb128 0x03, 0x25, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0
	.uleb128 16, 0x2e; .byte 0; .uleb128 0x03, 0x08, 0x3f, 0x19, 0x11, 0x1b, 0x12, 0x07, 0x49, 0x13, 0, 0
	.byte 0
	.section .debug_str_offsets,"",@progbits
	.long 12; .value 5, 0
.Lstroffs:
	.long .Lsname - .Lstr, .Lsname - .Lstr
	.section .debug_str,"MS",@progbits,1
.Lstr:
.Lsname: .string "long"
	.section .debug_addr,"",@progbits
	.long 20; .value 5; .byte 8, 0
.Laddrs:
	.quad main, main
	.section .debug_info,"",@progbits
.Lcu:
	.long .Lcu_end - .Lcu_start
.Lcu_start:
	.value 5
	.byte 1, 8
	.long .Labbrev
	.uleb128 1; .string "crafted"; .byte 0x0c; .string "crafted.c"
S
	  printf '	.long %s, %s
.Lint:	.uleb128 4; .string "int"; .byte 4, 5
' "$2" "$3"
	  cat
	  printf '	.byte 0
.Lcu_end:
'; } >"$src/$1.s"
	gcc -o "$src/$1" "$src/main.o" "$src/$1.s" || tally_fail "fixture: cannot assemble $1"
}
crafted5 index-control .Lstroffs .Laddrs <<'S'
	.uleb128 15; .byte 1; .byte 8, 5
	.uleb128 16; .string "main"; .byte 1; .quad 0x10; .long .Lint - .Lcu
S
crafted5 strx-past .Lstroffs .Laddrs <<'S'
	.uleb128 15; .byte 100; .byte 8, 5
S
crafted5 str-offsets-base-past 0x7ffffff0 .Laddrs <<'S'
	.uleb128 15; .byte 1; .byte 8, 5
S
crafted5 addrx-past .Lstroffs .Laddrs <<'S'
	.uleb128 16; .string "main"; .byte 100; .quad 0x10; .long .Lint - .Lcu
S
crafted5 addr-base-past .Lstroffs 0x7ffffff0 <<'S'
	.uleb128 16; .string "main"; .byte 0; .quad 0x10; .long .Lint - .Lcu
S

# offset in .debug_info of the value of attribute $3 of the first DIE tagged
# $2 in ELF $1, and the offset of that DIE
attr_off() {
	readelf --debug-dump=info "$1" 2>/dev/null | awk -v tag="($2)" -v at="$3" '
		/Abbrev Number/ { intag = index($0, tag) > 0 }
		intag && $2 == at { gsub(/[<>]/, "", $1); print "0x" $1; exit }'
}
die_off() {
	readelf --debug-dump=info "$1" 2>/dev/null |
		sed -nE "/\\($2\\)/{s/^ *<[0-9]+><([0-9a-f]+)>.*/0x\\1/p;q}"
}

# ---------------------------------------------------------------------------
# files that are not (whole) ELF files with DWARF

size=$(stat -c %s "$prog")
in=$(mkcase empty); : >"$in"
expect "empty file" error "$(re "$in"): not an ELF file" "$in" "${in%/*}/out.btf"
in=$(mkcase text); echo "not an ELF file, just text" >"$in"
expect "text file" error "$(re "$in"): not an ELF file" "$in" "${in%/*}/out.btf"
in=$(mkcase header-only); truncate -s 64 "$in"
expect "ELF header only (64 bytes)" error "$(re "$in"): .*(truncated|section header)" "$in" "${in%/*}/out.btf"
in=$(mkcase trunc50); truncate -s $((size / 2)) "$in"
expect "ELF truncated at 50%" error "$(re "$in"): .*(truncated|section header)" "$in" "${in%/*}/out.btf"
in=$(mkcase trunc90); truncate -s $((size * 9 / 10)) "$in"
expect "ELF truncated at 90%" error "$(re "$in"): .*(truncated|section header)" "$in" "${in%/*}/out.btf"
in=$(mkcase nodebug "$src/nodebug")
expect "ELF without DWARF" error "$(re "$in"): no DWARF" "$in" "${in%/*}/out.btf"
mkdir -p "$work/c/missing"
expect "non-existent input" error "$(re "$work/c/missing/in"): No such file or directory" \
	"$work/c/missing/in" "$work/c/missing/out.btf"
mkdir -p "$work/c/dir/in"
expect "input is a directory" error "$(re "$work/c/dir/in"): not a regular file \(a directory\)" \
	"$work/c/dir/in" "$work/c/dir/out.btf"
# refused at once, where opening a FIFO would wait for a writer
mkdir -p "$work/c/fifo"
mkfifo "$work/c/fifo/in"
expect "input is a FIFO" error "$(re "$work/c/fifo/in"): not a regular file \(a FIFO\)" \
	"$work/c/fifo/in" "$work/c/fifo/out.btf"
in=$(mkcase base-fifo)
expect "--btf_base is a FIFO" error "$(re "$work/c/fifo/in"): cannot read base BTF \(--btf_base\): not a regular file" \
	"$in" "${in%/*}/out.btf" --btf_base="$work/c/fifo/in"
mkdir -p "$work/c/chr"
ln -s /dev/zero "$work/c/chr/in"
expect "input is /dev/zero" error "$(re "$work/c/chr/in"): not a regular file \(a character device\)" \
	"$work/c/chr/in" "$work/c/chr/out.btf"
# section names that cannot be read: a message all the same
in=$(mkcase shname); edit "$in" shname .debug_info 0x7fffffff
expect "sh_name past the section name table" error "$(re "$in"): section [0-9]+: cannot read its header or name" \
	"$in" "${in%/*}/out.btf"
in=$(mkcase shstrndx-xindex); edit "$in" shstrndx 0xffff; edit "$in" shlink0 0x7fff
expect "e_shstrndx SHN_XINDEX, section 0's sh_link bogus" error \
	"$(re "$in"): (cannot find the section name table|section [0-9]+: cannot read)" "$in" "${in%/*}/out.btf"

# ---------------------------------------------------------------------------
# damaged DWARF sections

cu='CU 0x[0-9a-f]+: '
die='CU 0x[0-9a-f]+: DIE 0x[0-9a-f]+: '
in=$(mkcase zero-info); edit "$in" zero .debug_info
expect ".debug_info zeroed" error "$(re "$in"): \.debug_info: .*offset 0" "$in" "${in%/*}/out.btf"
in=$(mkcase zero-abbrev); edit "$in" zero .debug_abbrev
expect ".debug_abbrev zeroed" error "$(re "$in"): $cu" "$in" "${in%/*}/out.btf"
in=$(mkcase zero-str); edit "$in" zero .debug_str
expect ".debug_str zeroed" any "$(re "$in"): $die" "$in" "${in%/*}/out.btf"
in=$(mkcase shsize-info); edit "$in" shsize .debug_info 0x100
expect ".debug_info sh_size cut to 0x100" error "$(re "$in"): \.debug_info: " "$in" "${in%/*}/out.btf"
in=$(mkcase shsize-big); edit "$in" shsize .debug_info 0x10000000
expect ".debug_info sh_size past the end of the file" error "$(re "$in"): \.debug_info: " \
	"$in" "${in%/*}/out.btf"
in=$(mkcase shoff-big); edit "$in" shoff .debug_info 0x10000000
expect ".debug_info sh_offset past the end of the file" error "$(re "$in"): \.debug_info: " \
	"$in" "${in%/*}/out.btf"
in=$(mkcase unit-length); edit "$in" poke .debug_info 0 efffffff
expect "unit length 0xffffffef" error "$(re "$in"): \.debug_info: .*offset 0" "$in" "${in%/*}/out.btf"
in=$(mkcase unit-length64); edit "$in" poke .debug_info 0 ffffffffffffffffffffff7f
expect "64-bit unit length 2^63" error "$(re "$in"): \.debug_info: .*offset 0" "$in" "${in%/*}/out.btf"
cudie=$(die_off "$prog" DW_TAG_compile_unit)
in=$(mkcase bad-code-cu); edit "$in" poke .debug_info "$cudie" 7f
expect "abbrev code 0x7f in the CU DIE" error "$(re "$in"): CU $cudie: " "$in" "${in%/*}/out.btf"
off=$(die_off "$prog" DW_TAG_structure_type)
in=$(mkcase bad-code); edit "$in" poke .debug_info "$off" 7f
expect "abbrev code 0x7f in a DIE" error "$(re "$in"): CU $cudie: DIE $off: " "$in" "${in%/*}/out.btf"
# Two bad CUs: the one reported is the first in unit order at every -j and
# every run (as -j1 meets them), not the first to fail. Unit 4 is big and
# bad at its end, unit 12 small and bad at its start, so at -j8 unit 12
# usually fails first. Then the same with unit 4 failing in the encoder's
# writer thread instead (a variable BTF cannot name, with global_var and
# without encode_force, which the collector sees too and stops at; or an
# enum of 65536 values, which only the writer sees, so the collector may
# meet the next unit's bad DWARF first): it still comes first, and alone.
python3 - "$src" <<'EOF2'
import sys
for i in range(16):
    n = 3000 if i == 4 else 3
    with open('%s/m%02d.c' % (sys.argv[1], i), 'w') as f:
        for j in range(n):
            f.write('struct m%d_%d { long a; int b; }; struct m%d_%d *p%d_%d;\n' % (i, j, i, j, i, j))
        if i == 0:
            f.write('int main(void) { return 0; }\n')
        if i == 4:
            f.write('int in$valid = 1;\n')
            f.write('#ifdef BIG_ENUM\nenum big { %s } big_var;\n#endif\n' %
                    ', '.join('b%d' % k for k in range(65536)))
EOF2
if gcc -g -O1 -o "$src/units" "$src"/m??.c; then
	# the CU DIE, and the first and the last struct DIE, of unit $2
	unit_dies() {
		readelf --debug-dump=info "$1" 2>/dev/null | awk -v want="$2" '
			/\(DW_TAG_compile_unit\)/ { u++; if (u - 1 == want) cu = $1 }
			u - 1 == want && /\(DW_TAG_structure_type\)/ { if (!first) first = $1; last = $1 }
			END { print cu, first, last }' | sed -E 's/<[0-9]+><([0-9a-f]+)>:/0x\1/g'
	}
	read -r cu4 _ last4 <<<"$(unit_dies "$src/units" 4)"
	read -r _ first12 _ <<<"$(unit_dies "$src/units" 12)"
	in=$(mkcase two-bad-units "$src/units")
	edit "$in" poke .debug_info "$last4" 7f
	edit "$in" poke .debug_info "$first12" 7f
	for j in 1 8 8 8 8 8; do
		expect "two bad units, -j$j: the first in unit order" error \
			"$(re "$in"): CU $cu4: DIE $last4: " "$in" "${in%/*}/out.btf" -j$j
	done
	in=$(mkcase bad-var-then-bad-unit "$src/units")
	edit "$in" poke .debug_info "$first12" 7f
	for j in 1 8 8 8 8 8; do
		expect "a writer error, then a bad unit, -j$j: the writer's" error \
			"$(re "$in"): CU $cu4: DIE 0x[0-9a-f]+: variable 'in\\\$valid' has an invalid name" \
			"$in" "${in%/*}/out.btf" -j$j --btf_features=var,global_var
	done
	if gcc -DBIG_ENUM -g -O1 -o "$src/units-big" "$src"/m??.c; then
		read -r _ first5 _ <<<"$(unit_dies "$src/units-big" 5)"
		in=$(mkcase big-enum-then-bad-unit "$src/units-big")
		edit "$in" poke .debug_info "$first5" 7f
		for j in 1 8 8 8 8 8; do
			expect "a writer-only error, then a bad unit, -j$j: the writer's" error \
				"$(re "$in"): CU $cu4: DIE 0x[0-9a-f]+: 65536 members, values or parameters" \
				"$in" "${in%/*}/out.btf" -j$j
		done
	else
		tally_fail "a writer-only error: cannot build the fixture with gcc"
	fi
else
	tally_fail "two bad units: cannot build the 16-unit fixture with gcc"
fi
off=$(edit "$prog" abbrev-form)
in=$(mkcase bad-form); edit "$in" poke .debug_abbrev "$off" 7f
expect "DW_FORM 0x7f in .debug_abbrev" error "$(re "$in"): $cu" "$in" "${in%/*}/out.btf"

# references: a member's DW_AT_type (DW_FORM_ref4, CU-relative)
cuend=$((0x$(edit "$prog" peek .debug_info 0 4 | sed -E 's/(..)(..)(..)(..)/\4\3\2\1/') + 4))
ref=$(attr_off "$prog" DW_TAG_member DW_AT_type)
if [ -z "$ref" ] || [ "$(edit "$prog" peek .debug_info "$ref" 4)" = "" ]; then
	tally_fail "fixture: no DW_AT_type of a DW_TAG_member found"
else
	for c in "past the unit:0x7fffffff" "at the unit end:$cuend" "at the unit's last byte:$((cuend - 1))" \
		"into the middle of a DIE:$((cudie + 1))"; do
		in=$(mkcase "ref-${c##*:}"); edit "$in" poke .debug_info "$ref" "$(le32 "${c##*:}")"
		expect "member DW_AT_type ${c%:*}" error "$(re "$in"): $die" "$in" "${in%/*}/out.btf"
	done
fi
# reference cycles the DWARF cannot mean: const of itself, typedef of itself
for t in DW_TAG_const_type DW_TAG_typedef; do
	in=$(mkcase "cycle-$t")
	edit "$in" poke .debug_info "$(attr_off "$prog" $t DW_AT_type)" "$(le32 "$(die_off "$prog" $t)")"
	expect "$t referring to itself" error "$(re "$in"): $die" "$in" "${in%/*}/out.btf"
done

# cross-unit references (an LTO build, read as one merged CU) and type units
if gcc -g -O1 -flto -o "$src/lto" "$src/a.c" "$src/b.c" &&
	gcc -g -O1 -gdwarf-4 -fdebug-types-section -o "$src/tu4" "$src/a.c" "$src/b.c" &&
	gcc -g -O1 -gdwarf-5 -fdebug-types-section -o "$src/tu5" "$src/a.c" "$src/b.c"; then
	# a DW_AT_abstract_origin of the first (LTRANS) unit that points past
	# it is a DW_FORM_ref_addr: point it past .debug_info
	ltoend=$((0x$(edit "$src/lto" peek .debug_info 0 4 | sed -E 's/(..)(..)(..)(..)/\4\3\2\1/') + 4))
	ref=""
	while read -r at target; do
		if [ $((target)) -ge $ltoend ]; then ref=$at; break; fi
	done < <(readelf --debug-dump=info "$src/lto" 2>/dev/null |
		awk '$2 == "DW_AT_abstract_origin:" { gsub(/[<>]/, ""); print "0x" $1, $3 }')
	if [ -z "$ref" ]; then
		tally_fail "fixture: no cross-unit DW_AT_abstract_origin in the LTO build"
	else
		in=$(mkcase lto-ref-addr "$src/lto"); edit "$in" poke .debug_info "$ref" "$(le32 0x7fffffff)"
		expect "LTO: DW_FORM_ref_addr past .debug_info" error \
			"$(re "$in"): CU 0x[0-9a-f]+: DIE 0x[0-9a-f]+: reference to no DIE of \.debug_info" \
			"$in" "${in%/*}/out.btf"
	fi
	in=$(mkcase zero-types "$src/tu4"); edit "$in" zero .debug_types
	expect ".debug_types zeroed" error "$(re "$in"): \.debug_types: bad unit header at offset 0\$" \
		"$in" "${in%/*}/out.btf"
	# the skeleton's DW_AT_signature: no type unit has it any more
	sig=$(attr_off "$src/tu5" DW_TAG_structure_type DW_AT_signature)
	in=$(mkcase bad-signature "$src/tu5"); edit "$in" poke .debug_info "$sig" 0102030405060708
	expect "DW_AT_signature naming no type unit" any "$(re "$in"): " "$in" "${in%/*}/out.btf"
	# a type unit whose type_offset points out of it (its type would be void)
	in=$(mkcase tu-type-offset "$src/tu5"); edit "$in" tu-typeoff 0x7fffffff
	expect "type unit: type_offset outside the unit" error \
		"$(re "$in"): \.debug_info: type unit at offset (0|0x[0-9a-f]+): type offset 0x[0-9a-f]+ is outside the unit" \
		"$in" "${in%/*}/out.btf"
else
	tally_fail "fixture: cannot build the LTO and type-unit fixtures with gcc"
fi

# deterministic single-byte flips: none may crash, fail without a clean
# one-line error, leave output or temporary files, or write invalid BTF
flip_sweep() {
	local name=$1 n=$2 seed=$3 sect=$4 dir=$work/c/flips-$4 f what bads=0 first="" outs=$work/c/flipouts-$4
	mkdir -p "$dir" "$outs"
	BTF_CHECK=0
	edit "$prog" flips "$seed" "$n" "$dir/f" "$sect" >"$work/flips.list" || tally_fail "$name: cannot make the flips"
	while read -r f what; do
		if ! run "$f" "$outs/out.btf" any "$(re "$f"): "; then
			bads=$((bads + 1))
			[ $bads -le 3 ] && first+=" [$what: $WHY]"
		fi
		[ -e "$outs/out.btf" ] && mv "$outs/out.btf" "$outs/${f##*/}.btf"
	done <"$work/flips.list"
	BTF_CHECK=1
	while read -r f; do
		bads=$((bads + 1))
		[ $bads -le 3 ] && first+=" [$f]"
	done < <(find "$outs" -name '*.btf' -print0 | xargs -0 -r python3 "$tool" btf-check)
	if [ $bads -eq 0 ]; then tally_ok "$name"; else tally_fail "$name: $bads of $n flips went wrong:$first"; fi
}
flip_sweep "120 single-byte flips in .debug_info" 120 1 .debug_info
flip_sweep "80 single-byte flips in .debug_abbrev" 80 2 .debug_abbrev

# crafted DWARF
in=$(mkcase deep "$src/deep")
expect "structs nested 200000 deep" error "$(re "$in"): $die" "$in" "${in%/*}/out.btf"
in=$(mkcase blocks "$src/blocks")
expect "lexical blocks nested 600 deep" error "$(re "$in"): ${die}nesting deeper" "$in" "${in%/*}/out.btf"
in=$(mkcase huge "$src/huge")
expect "array of 2^40, struct of 2^40 bytes, member 2^40 bytes in" any "$(re "$in"): $die" \
	"$in" "${in%/*}/out.btf"
# a unit whose root DIE is a struct, not a unit DIE (pahole 1.30 fails too)
in=$(mkcase root-struct); edit "$in" root-tag 0x13
expect "unit root DIE is a struct" error "$(re "$in"): CU 0x[0-9a-f]+: (root DIE of tag 0x13 is no unit DIE|bad abbreviation table or unit DIE)" \
	"$in" "${in%/*}/out.btf"
in=$(mkcase vlen "$src/vlen")
expect "70000 members, 70000 enumerators (BTF vlen is 16 bits)" error "$(re "$in"): $die" \
	"$in" "${in%/*}/out.btf"
in=$(mkcase typedef-chain-4096 "$src/typedef-chain-4096")
expect "typedef chain 4096 long" success "" "$in" "${in%/*}/out.btf"
# (libbpf's dedup follows a chain recursively: 100000 overflowed its stack
# under ThreadSanitizer, 1000000 without)
in=$(mkcase typedef-chain "$src/typedef-chain")
expect "typedef chain 100000 long" error "$(re "$in"): ${die}chain of reference types longer than 4096" \
	"$in" "${in%/*}/out.btf"
in=$(mkcase pointer-chain "$src/pointer-chain")
expect "pointer chain 100000 long" error "$(re "$in"): ${die}chain of reference types longer than 4096" \
	"$in" "${in%/*}/out.btf"
for c in typedef-loop qualifier-loop pointer-loop; do
	in=$(mkcase $c "$src/$c")
	expect "$c" error "$(re "$in"): ${die}type refers to itself" "$in" "${in%/*}/out.btf"
done
# DWARF 5 indexes and bases past their tables (libdw, and so pahole, reads
# them as absent: an anonymous type, a function without address)
in=$(mkcase index-control "$src/index-control")
expect "DWARF 5 string and address indexes (control)" success "" "$in" "${in%/*}/out.btf"
in=$(mkcase strx-past "$src/strx-past")
expect "DW_FORM_strx1 index past .debug_str_offsets" error \
	"$(re "$in"): ${die}DW_AT_name: index or offset outside its section" "$in" "${in%/*}/out.btf"
in=$(mkcase str-offsets-base-past "$src/str-offsets-base-past")
expect "DW_AT_str_offsets_base past .debug_str_offsets" error \
	"$(re "$in"): ${die}DW_AT_name: index or offset outside its section" "$in" "${in%/*}/out.btf"
in=$(mkcase addrx-past "$src/addrx-past")
expect "DW_FORM_addrx index past .debug_addr" error \
	"$(re "$in"): ${die}DW_AT_low_pc: index or offset outside its section" "$in" "${in%/*}/out.btf"
in=$(mkcase addr-base-past "$src/addr-base-past")
expect "DW_AT_addr_base past .debug_addr" error \
	"$(re "$in"): ${die}DW_AT_low_pc: index or offset outside its section" "$in" "${in%/*}/out.btf"
# unit headers (prog is DWARF 5: version, unit_type, address_size, debug_abbrev_offset)
for c in "version 6:4:0600" "version 1:4:0100" "unit type 0x7f:6:7f" "address size 3:7:03"; do
	IFS=: read -r what at hex <<<"$c"
	in=$(mkcase "unit-${what// /-}"); edit "$in" poke .debug_info "$at" "$hex"
	expect "unit header: $what" error "$(re "$in"): \.debug_info: bad unit header at offset 0" \
		"$in" "${in%/*}/out.btf"
done
in=$(mkcase unit-abbrev-off); edit "$in" poke .debug_info 8 ffffff7f
expect "unit header: .debug_abbrev offset past the section" error \
	"$(re "$in"): ${cu}bad abbreviation table or unit DIE" "$in" "${in%/*}/out.btf"
# compressed .debug_info: a size that lies, and a deflate bomb (256 MiB of
# zeros in 256 KB, zlib's own ratio): libelf inflates it, the zeros are no unit
objcopy --compress-debug-sections=zlib "$prog" "$src/prog-z" || tally_fail "fixture: cannot compress"
in=$(mkcase compressed-control "$src/prog-z")
expect "compressed debug sections (control)" success "" "$in" "${in%/*}/out.btf"
for v in 0x10000000000 0x10; do
	in=$(mkcase "ch-size-$v" "$src/prog-z"); edit "$in" chsize .debug_info $v
	expect "compressed .debug_info claiming $v bytes" error \
		"$(re "$in"): \.debug_info: cannot decompress: " "$in" "${in%/*}/out.btf"
done
python3 "$tool" zlib-zeros "$src/bomb.z" 0x10000000
in=$(mkcase zlib-bomb)
objcopy --update-section .debug_info="$src/bomb.z" --set-section-alignment .debug_info=8 "$prog" "$in"
edit "$in" shflags-or .debug_info 0x800
expect "compressed .debug_info: 256 MiB of zeros" error \
	"$(re "$in"): \.debug_info: bad unit header at offset 0" "$in" "${in%/*}/out.btf"
# the three forms pahole's libelf reads: SHF_COMPRESSED with ELFCOMPRESS_ZLIB
# (above) and ELFCOMPRESS_ZSTD (libzstd), and GNU's .zdebug_X ("ZLIB", the
# size in 8 big-endian bytes, a zlib stream); each header, stream and size
# damaged (tests/compressed.sh compares the good ones with pahole)
objcopy --compress-debug-sections=zstd "$prog" "$src/prog-zst" || tally_fail "fixture: cannot compress (zstd)"
objcopy --compress-debug-sections=zlib-gnu "$prog" "$src/prog-gnu" ||
	tally_fail "fixture: cannot compress (zlib-gnu)"
in=$(mkcase compressed-zstd-control "$src/prog-zst")
expect "zstd debug sections (control)" success "" "$in" "${in%/*}/out.btf"
in=$(mkcase compressed-gnu-control "$src/prog-gnu")
expect "GNU .zdebug_ sections (control)" success "" "$in" "${in%/*}/out.btf"
# (an Elf64_Chdr is 24 bytes; a .zdebug_X header 12)
for c in "zst:ch_size one byte short:chsize-add .debug_info -1" \
	"zst:ch_size one byte long:chsize-add .debug_info 1" \
	"zst:ch_size 1 TiB:chsize .debug_info 0x10000000000" \
	"zst:unknown ch_type 3:poke .debug_info 0 $(le32 3)" \
	"zst:compression header cut short:shsize .debug_info 20" \
	"zst:zstd frame magic damaged:flip .debug_info 24" \
	"zst:zstd stream cut short:shsize-add .debug_info -16" \
	"z:ch_size one byte short:chsize-add .debug_info -1" \
	"z:ch_size one byte long:chsize-add .debug_info 1" \
	"z:unknown ch_type 0x7f:poke .debug_info 0 $(le32 0x7f)" \
	"z:zlib stream header damaged:flip .debug_info 24" \
	"z:zlib stream, a byte mid-way flipped:flip .debug_info mid" \
	"z:zlib stream cut short:shsize-add .debug_info -16" \
	"gnu:ZLIB magic damaged:poke .zdebug_info 0 5a4c4958" \
	"gnu:size one byte short:gnusize-add .zdebug_info -1" \
	"gnu:size one byte long:gnusize-add .zdebug_info 1" \
	"gnu:zlib stream, a byte mid-way flipped:flip .zdebug_info mid" \
	"gnu:zlib stream cut short:shsize-add .zdebug_info -16"; do
	IFS=: read -r form what op <<<"$c"
	case $form in
	zst) file=$src/prog-zst sect=.debug_info label="zstd .debug_info" ;;
	z) file=$src/prog-z sect=.debug_info label="zlib .debug_info" ;;
	gnu) file=$src/prog-gnu sect=.zdebug_info label=".zdebug_info" ;;
	esac
	in=$(mkcase "compressed-$form-${what//[^a-zA-Z0-9]/-}" "$file")
	# shellcheck disable=SC2086 # op: the edit and its arguments
	edit "$in" $op
	expect "$label: $what" error "$(re "$in"): $(re "$sect"): cannot decompress: " \
		"$in" "${in%/*}/out.btf"
done
# zstd as objcopy writes it has no checksum: a flipped byte may decode to
# other bytes of the same size, then read as DWARF (an error or success)
in=$(mkcase compressed-zst-flip-mid "$src/prog-zst"); edit "$in" flip .debug_info mid
expect "zstd .debug_info: a byte mid-way flipped" any \
	"$(re "$in"): " "$in" "${in%/*}/out.btf"

# ---------------------------------------------------------------------------
# relocatable files (modules): a machine or a relocation type without a rule
# is refused, named, rather than guessed at

gcc -g -O1 -c -o "$src/a.o" "$src/a.c" || tally_fail "fixture: cannot compile a.o"
in=$(mkcase reloc-control "$src/a.o")
expect "relocatable file (control)" success "" "$in" "${in%/*}/out.btf"
in=$(mkcase reloc-machine "$src/a.o"); edit "$in" machine 8
expect "relocatable file of an unsupported machine (EM_MIPS)" error \
	"$(re "$in"): EM_MIPS: section \.rela\.debug_[a-z_]*: relocations of this machine are not supported, type 10$" \
	"$in" "${in%/*}/out.btf"
in=$(mkcase reloc-machine-unnamed "$src/a.o"); edit "$in" machine 0x4242
expect "relocatable file of an unknown machine (0x4242)" error \
	"$(re "$in"): e_machine 16962: section \.rela\.debug_[a-z_]*: relocations of this machine" \
	"$in" "${in%/*}/out.btf"
# r_info's type of .rela.debug_info's first entry: R_X86_64_PC32 (2)
in=$(mkcase reloc-type "$src/a.o"); edit "$in" poke .rela.debug_info 8 "$(le32 2)"
expect "R_X86_64_PC32 in .debug_info" error \
	"$(re "$in"): EM_X86_64: section \.rela\.debug_info: unsupported relocation type 2\$" \
	"$in" "${in%/*}/out.btf"
# a linked file of an unknown machine has nothing to relocate: encoded
in=$(mkcase exec-machine-unnamed); edit "$in" machine 0x4242
expect "linked file of an unknown machine" success "" "$in" "${in%/*}/out.btf"

# ---------------------------------------------------------------------------
# ELF symbols

in=$(mkcase no-symtab); edit "$in" shtype .symtab 1
expect "no .symtab" error "$(re "$in"): .*\.symtab" "$in" "${in%/*}/out.btf"
# the symbols are read on a thread while the DWARF is indexed: when both
# fail, the DWARF's error comes alone, as when one ran after the other
in=$(mkcase no-symtab-unit-length); edit "$in" shtype .symtab 1; edit "$in" poke .debug_info 0 efffffff
expect "no .symtab and unit length 0xffffffef: the DWARF's error" error \
	"$(re "$in"): \.debug_info: .*offset 0" "$in" "${in%/*}/out.btf"
in=$(mkcase symtab-names); edit "$in" symname 0xfffffff
expect "symbol names past .strtab" error \
	"$(re "$in"): \.symtab: symbol 1: no name at 0xfffffff of section [0-9]+: " "$in" "${in%/*}/out.btf"
in=$(mkcase symtab-link); edit "$in" shlink .symtab 999
expect ".symtab's sh_link names no section" error \
	"$(re "$in"): \.symtab: symbol 0: no name at 0 of section 999: " "$in" "${in%/*}/out.btf"
in=$(mkcase symtab-entsize); edit "$in" shentsize .symtab 7
expect ".symtab entry size 7" error "$(re "$in"): \.symtab: entry size 7, not 24" \
	"$in" "${in%/*}/out.btf"
head -c 1000 /dev/urandom >"$src/garbage"
in=$(mkcase btf-ids-garbage); objcopy --add-section .BTF_ids="$src/garbage" "$prog" "$in"
expect ".BTF_ids of random bytes, decl_tag_kfuncs" any "$(re "$in"): " "$in" "${in%/*}/out.btf" \
	--btf_features=default,decl_tag_kfuncs
in=$(mkcase btf-ids-past "$src/kfpast")
expect ".BTF_ids: a kfunc's pair past the section (pahole 1.30 fails too)" error \
	"$(re "$in"): \.BTF_ids: kfunc 'kf_one' at offset 0x8, past the section's 12 bytes" \
	"$in" "${in%/*}/out.btf" --btf_features=default,decl_tag_kfuncs
in=$(mkcase btf-ids-sets "$src/kf")
expect ".BTF_ids with broken set8 ranges, decl_tag_kfuncs" any "$(re "$in"): " "$in" "${in%/*}/out.btf" \
	--btf_features=default,decl_tag_kfuncs
# a debug-only copy (objcopy --only-keep-debug) keeps .BTF_ids as NOBITS: no contents to read
in=$(mkcase btf-ids-nobits "$src/kf"); objcopy --only-keep-debug "$in"
expect "debug-only file, .BTF_ids without contents (NOBITS), decl_tag_kfuncs" success "" "$in" \
	"${in%/*}/out.btf" --btf_features=default,decl_tag_kfuncs

# ---------------------------------------------------------------------------
# --btf_base

"$D2B" -J --btf_encode_detached="$src/prog.btf" "$prog" 2>/dev/null || tally_fail "fixture: cannot encode prog"
mkdir -p "$work/c/base"
cp "$src/a.c" "$work/c/base/text"
: >"$work/c/base/empty"
head -c 100 "$src/prog.btf" >"$work/c/base/trunc.btf"
head -c 24 "$src/prog.btf" >"$work/c/base/header.btf"
for c in "text:text file" "empty:empty file" "trunc.btf:BTF cut at 100 bytes" \
	"header.btf:BTF header only" "../../src/nodebug:ELF without .BTF" "missing:missing file"; do
	b=$work/c/base/${c%%:*}
	in=$(mkcase "base-${c%%:*}")
	expect "--btf_base: ${c#*:}" error \
		"$(re "$b"): (cannot read base BTF|no \.BTF section|No such file|invalid base BTF)" \
		"$in" "${in%/*}/out.btf" --btf_base="$b"
done
# bases of valid layout and broken structure, raw and as an ELF's .BTF:
# libbpf 1.1 would take them (btf_check.c checks them first)
cp "$prog" "$work/c/base/elf"
LLVM_OBJCOPY=objcopy "$D2B" -J "$work/c/base/elf" 2>/dev/null || tally_fail "fixture: cannot give the base a .BTF"
for c in "ptr-oob:refers to type 1048575, past the last type" "name-oob:name offset [0-9]+ past the strings" \
	"const-loop:a loop of reference types" "kind:kind 25" "ptr-datasec:PTR refers to type [0-9]+, a DATASEC" \
	"int-bits:INT bits 200 at 0" "member-past:STRUCT member 0 at bit [0-9]+ past its [0-9]+ bytes"; do
	b=$work/c/base/${c%%:*}.btf
	cp "$src/prog.btf" "$b"
	edit "$b" btf-corrupt "${c%%:*}"
	in=$(mkcase "base-raw-${c%%:*}")
	expect "--btf_base, raw: ${c%%:*}" error "$(re "$b"): invalid base BTF \(--btf_base\): .*${c#*:}" \
		"$in" "${in%/*}/out.btf" --btf_base="$b"
	objcopy --update-section .BTF="$b" "$work/c/base/elf" "$work/c/base/elf-${c%%:*}"
	in=$(mkcase "base-elf-${c%%:*}")
	expect "--btf_base, ELF .BTF: ${c%%:*}, in place" error \
		"$(re "$work/c/base/elf-${c%%:*}"): invalid base BTF \(--btf_base\): .*${c#*:}" \
		"$in" "" --btf_base="$work/c/base/elf-${c%%:*}"
done

# loops of reference types in a base, each with one step to an id no lower
# (btf_check.c walks from such steps only), and a chain going up and down
for c in "self:const:1" "two:ptr:2 ptr:1" "three:ptr:3 ptr:1 ptr:2" \
	"past-one:ptr:0 ptr:3 volatile:4 const:2"; do
	b=$work/c/base/loop-${c%%:*}.btf
	# shellcheck disable=SC2086 # (one argument a type)
	python3 "$tool" btf-refs "$b" ${c#*:}
	in=$(mkcase "base-loop-${c%%:*}")
	expect "--btf_base: loop ${c#*:}" error \
		"$(re "$b"): invalid base BTF \(--btf_base\): type [0-9]+: a loop of reference types" \
		"$in" "${in%/*}/out.btf" --btf_base="$b"
done
b=$work/c/base/chain.btf
python3 "$tool" btf-refs "$b" ptr:3 const:0 volatile:2 ptr:1
in=$(mkcase base-chain)
if "$D2B" -J --btf_base="$b" --btf_encode_detached="${in%/*}/out.btf" "$in" 2>"${in%/*}/err" &&
	[ -s "${in%/*}/out.btf" ]; then
	tally_ok "--btf_base: a chain up and down, no loop"
else
	tally_fail "--btf_base: a chain up and down, no loop: $(head -1 "${in%/*}/err")"
fi

# ---------------------------------------------------------------------------
# output faults

in=$(mkcase out-nodir)
expect "output in a missing directory" error "$(re "${in%/*}/no/such/out.btf"): " "$in" "${in%/*}/no/such/out.btf"
in=$(mkcase out-isdir); mkdir "${in%/*}/out.btf"
expect "output is a directory" error "$(re "${in%/*}/out.btf"): " "$in" "${in%/*}/out.btf"
# an output that is a device is written into, never replaced by a file (as
# root, a rename over /dev/null would replace the system's /dev/null)
in=$(mkcase out-chardev); mknod -m 666 "${in%/*}/out.btf" c 1 3
BTF_CHECK=0
expect "output is a character device (/dev/null's numbers)" success "" "$in" "${in%/*}/out.btf"
BTF_CHECK=1
if [ -c "${in%/*}/out.btf" ]; then tally_ok "the device is still a device"
else tally_fail "output device replaced by $(stat -c %F "${in%/*}/out.btf")"; fi
# through a symbolic link: its target is replaced, the link kept
in=$(mkcase out-symlink); : >"${in%/*}/target.btf"; ln -s target.btf "${in%/*}/out.btf"
expect "output is a symbolic link" success "" "$in" "${in%/*}/out.btf"
if [ -L "${in%/*}/out.btf" ] && [ -s "${in%/*}/target.btf" ]; then tally_ok "the link is kept, its target written"
else tally_fail "output link: link $(stat -c %F "${in%/*}/out.btf"), target $(stat -c %s "${in%/*}/target.btf") bytes"; fi

mkdir -p "$mnt"
if mount -t tmpfs -o size=16k tmpfs "$mnt" 2>/dev/null; then
	mounted=1
	in=$(mkcase enospc "$src/many")
	expect "ENOSPC: 50 KB of BTF into a 16 KB tmpfs" error "$(re "$mnt/out.btf"): .*No space left" \
		"$in" "$mnt/out.btf"
	umount "$mnt" && mounted=0
else
	skip "ENOSPC detached" "cannot mount a tmpfs"
fi
if mount -t tmpfs -o size=128k tmpfs "$mnt" 2>/dev/null; then
	mounted=1
	cp "$src/many" "$mnt/in"	# 84 KB: no room for a second copy
	expect "ENOSPC: in place, no room for the copy" error "$(re "$mnt/in"): .*No space left" "$mnt/in" ""
	mount -o remount,ro "$mnt"
	expect "in place on a read-only file system" error "$(re "$mnt/in"): .*Read-only file system" "$mnt/in" ""
	in=$(mkcase out-rofs)
	expect "output on a read-only file system" error "$(re "$mnt/out.btf"): .*Read-only file system" \
		"$in" "$mnt/out.btf"
	umount "$mnt" && mounted=0
else
	skip "ENOSPC in place, read-only file system" "cannot mount a tmpfs"
fi

# ---------------------------------------------------------------------------
# in place

in=$(mkcase inplace-false)
RUN_ENV=(LLVM_OBJCOPY=false)
expect "in place, \$LLVM_OBJCOPY fails" error "$(re "$in"): " "$in" ""
in=$(mkcase inplace-ok)
RUN_ENV=(LLVM_OBJCOPY=objcopy)
expect "in place adds .BTF (control)" success "" "$in" ""
RUN_ENV=(LLVM_OBJCOPY=false)
expect "in place replaces .BTF without objcopy (control)" success "" "$in" ""

# in place through a symbolic link or on a file with two names: the names stay
# as they were and the file gains .BTF, as with pahole (objcopy, or libelf in
# place, writes the file itself)
d=$work/c/symlink; mkdir -p "$d"; cp "$prog" "$d/target"; ln -s target "$d/link"
if LLVM_OBJCOPY=objcopy "$D2B" -J "$d/link" 2>"$work/stderr" && [ -L "$d/link" ] && has_btf "$d/target"; then
	tally_ok "in place through a symbolic link"
else
	tally_fail "in place through a symbolic link: link is $(stat -c %F "$d/link"), target $(has_btf "$d/target" &&
		echo has || echo lacks) .BTF; stderr: $(one_line "$work/stderr")"
fi
d=$work/c/hardlink; mkdir -p "$d"; cp "$prog" "$d/one"; ln "$d/one" "$d/two"
if LLVM_OBJCOPY=objcopy "$D2B" -J "$d/two" 2>"$work/stderr" && [ "$d/one" -ef "$d/two" ] && has_btf "$d/one"; then
	tally_ok "in place on a file with two hard links"
else
	tally_fail "in place on a file with two hard links: names now $([ "$d/one" -ef "$d/two" ] && echo same ||
		echo different) files, first name $(has_btf "$d/one" && echo has || echo lacks) .BTF"
fi

# ---------------------------------------------------------------------------
# signals. SIGINT goes to the process group, as a terminal's ^C does (an
# objcopy child gets it too); SIGTERM to the process only, as kill(1).

# sig_case NAME SIG WHEN IN OUT ARGS...: WHEN is "cpu:SECONDS" (signal once
# dwarf2btf's threads have used that much CPU time), "tmp:REGEX" (once a
# directory entry matching REGEX appears) or "child:REGEX" (once one appears
# and dwarf2btf has a child process)
sig_case() {
	local name=$1 sig=$2 when=$3 in=$4 out=$5; shift 5
	local dir before after sum1 sum2 pid rc why="" left orphan
	dir=$(dirname "$in")
	sum1=$(sha256sum <"$in")
	before=$(snap "$dir" ${out:+"$(dirname "$out")"})
	if [ -n "$out" ]; then set -- "$@" --btf_encode_detached="$out"; else set -- "$@" -J; fi
	LLVM_OBJCOPY=objcopy setsid "$D2B" "$@" "$in" 2>"$work/stderr" >/dev/null &
	pid=$!
	case $when in
	cpu:*)
		# (CPU time, not wall time: other jobs on the machine do not move it)
		local ticks tck
		tck=$(getconf CLK_TCK)
		for _ in $(seq 12000); do
			ticks=$(awk '{ print $14 + $15 }' /proc/$pid/stat 2>/dev/null) || break
			awk -v t="$ticks" -v hz="$tck" -v s="${when#cpu:}" 'BEGIN { exit !(t / hz >= s) }' && break
			sleep 0.01
		done ;;
	tmp:* | child:*)
		for _ in $(seq 3000); do
			kill -0 $pid 2>/dev/null || break
			if grep -qE "${when#*:}" <<<"$(ls -A "$dir")"; then
				[ "${when%%:*}" = tmp ] && break
				pgrep -P $pid >/dev/null && { sleep 0.2; break; }
			fi
			sleep 0.01
		done ;;
	esac
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		tally_fail "$name: dwarf2btf ended (status $?) before the signal could be sent"
		return
	fi
	if [ "$sig" = INT ]; then kill -INT -- -$pid; else kill -TERM $pid; fi
	for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		why+="still running 30 s after SIG$sig; "
		kill -KILL $pid
	fi
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && why+="exit status 0 after SIG$sig; "
	grep -qE 'Sanitizer|runtime error:' "$work/stderr" && why+="sanitizer report; "
	[ -n "$out" ] && [ -e "$out" ] && why+="output file left; "
	after=$(snap "$dir" ${out:+"$(dirname "$out")"})
	left=$(added "$before" "$after")
	[ -n "$left" ] && why+="left behind when it exited: $left; "
	orphan=$(pgrep -f -- "$work/c/" | paste -sd, -)
	if [ -n "$orphan" ]; then
		why+="still running after dwarf2btf exited: $(ps -o pid=,args= -p "$orphan" | cut -c1-160 | tr '\n' ' '); "
		for _ in $(seq 300); do [ -z "$(pgrep -f -- "$work/c/")" ] && break; sleep 0.1; done
		after=$(snap "$dir" ${out:+"$(dirname "$out")"})
		left=$(added "$before" "$after")
		[ -n "$left" ] && why+="left behind once that ended: $left; "
	fi
	sum2=$(sha256sum <"$in")
	[ "$sum1" != "$sum2" ] && why+="input changed; "
	if [ -z "$why" ]; then tally_ok "$name"; else tally_fail "$name: ${why}exit status $rc; stderr: $(one_line "$work/stderr")"; fi
}

# in place, interrupted while the temporary copy is made and while objcopy
# runs: a 200 MB input with little DWARF makes those phases long
d=$work/c/padded; mkdir -p "$d"
head -c 200M /dev/zero >"$work/zeros"
objcopy --add-section .pad="$work/zeros" "$prog" "$d/padded.orig"
rm -f "$work/zeros"
cp "$d/padded.orig" "$d/in"
sig_case "SIGTERM in place, during the copy" TERM 'tmp:^\.in\.tmp\.' "$d/in" ""
cp "$d/padded.orig" "$d/in"
sig_case "SIGTERM in place, while objcopy runs" TERM 'child:^\.in\.btf\.' "$d/in" ""
cp "$d/padded.orig" "$d/in"
sig_case "SIGINT (^C) in place, while objcopy runs" INT 'child:^\.in\.btf\.' "$d/in" ""
rm -rf "$d"

if [ -r "$VMLINUX" ]; then
	d=$work/c/vmlinux; mkdir -p "$d"
	# in the middle of the encoding: a run left alone first says how much
	# CPU time it takes on this machine and build, and the signal comes
	# once a third of it is used, while the loaders run (a fixed delay
	# outlived the run once it got faster, and would end too soon under a
	# sanitizer; half of one run's wall time outlived the next run once,
	# when the first ran beside a heavier test)
	if { TIMEFORMAT='%3U %3S'; time "$D2B" -j2 --btf_encode_detached="$d/whole.btf" "$VMLINUX" \
		2>"$work/stderr"; } 2>"$work/time"; then
		mid=$(awk '{ printf "%.2f", ($1 + $2) / 3 }' "$work/time")
		rm -f "$d/whole.btf"
		sig_case "SIGINT (^C) detached, vmlinux, mid-run ($mid s of CPU)" INT "cpu:$mid" "$VMLINUX" "$d/out.btf" -j2
		sig_case "SIGTERM detached, vmlinux, mid-run ($mid s of CPU)" TERM "cpu:$mid" "$VMLINUX" "$d/out.btf" -j2
		cp "$VMLINUX" "$d/vmlinux"
		sig_case "SIGINT (^C) in place, vmlinux, mid-run ($mid s of CPU)" INT "cpu:$mid" "$d/vmlinux" "" -j2
		sig_case "SIGTERM in place, vmlinux, mid-run ($mid s of CPU)" TERM "cpu:$mid" "$d/vmlinux" "" -j2
	else
		tally_fail "signals on vmlinux: the run to time them by failed: $(one_line "$work/stderr")"
	fi
	rm -rf "$d"
else
	skip "signals on vmlinux" "$VMLINUX not present (tests/fetch.sh)"
fi

tally_end
