#!/usr/bin/env bash
# compressed.sh - compressed debug sections against pahole 1.30 (or
# $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh), on real kernels.
#
# Usage: tests/compressed.sh DWARF2BTF BTFDIFF WORKDIR
#
# Each input is compressed in the three forms pahole's libelf reads:
# SHF_COMPRESSED with ELFCOMPRESS_ZSTD and with ELFCOMPRESS_ZLIB, and GNU's
# .zdebug_X sections; a check that .debug_info, .debug_abbrev and .debug_str
# came out in that form (its ch_type read from the file) keeps a test from
# passing on an uncompressed file. pahole and dwarf2btf then encode the
# same file with the kernel's flags, and dwarf2btf's output is cmp'd with
# pahole's and with its own on the uncompressed file:
#  - modules, by Debian 12's objcopy (--compress-debug-sections=zstd, =zlib,
#    =zlib-gnu): 7.2's fat.ko and 6.1's esp4.ko in all three forms, and
#    7.2's xfs.ko, the most relocations, in zstd (pahole takes 15 s on
#    it); split BTF against their vmlinux, detached and in place (-J on
#    copies, LLVM_OBJCOPY=objcopy as Kbuild sets it, whole files cmp'd);
#  - the big-endian s390x's and the 32-bit armhf's fat.ko (7.2), which GNU
#    objcopy cannot read, compressed the same three ways by elfz.py below,
#    in their own byte order and Elf64_Chdr or Elf32_Chdr; detached, no base;
#  - 7.2's vmlinux as bench/bench.sh --pack packs it (no code, relocations
#    or line tables: the same BTF as the whole file's, checked), detached.
# The damaged forms (headers, streams, sizes, ch_type) are tests/bad-input.sh's.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 3 ] || { echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR" >&2; exit 2; }
D2B=$1 BTFDIFF=$2 WORKDIR=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

for what in "$PAHOLE_FETCH" kernel72 modules72 kernel61 modules61 arch-s390x-7.2 arch-armhf-7.2; do
	"$here/fetch.sh" "$what"
done
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
export LLVM_OBJCOPY=objcopy

# elfz.py forms FILE: "NAME FORM" for each debug section (FORM: zstd, zlib,
# zlib-gnu, none, or ch_type-N); elfz.py compress FORM IN OUT: IN's debug
# sections compressed as objcopy's --compress-debug-sections=FORM does
# (zstd through libzstd's ZSTD_compress, as binutils), whatever IN's class
# and byte order. The new contents go at the end of the file, the section
# headers point there; the old bytes stay, unreferenced.
elfz=$WORKDIR/elfz.py
cat >"$elfz" <<'PY'
import ctypes, struct, sys, zlib

def elf(b):
    is64, e = b[4] == 2, '<' if b[5] == 1 else '>'
    if is64:
        shoff, = struct.unpack_from(e + 'Q', b, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from(e + 'HHH', b, 0x3a)
        fmts = e + 'IIQQQQIIQQ', e + 'IIQQ'
    else:
        shoff, = struct.unpack_from(e + 'I', b, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from(e + 'HHH', b, 0x2e)
        fmts = e + 'IIIIIIIIII', e + 'III'
    # name, type, flags, addr, offset, size, link, info, addralign, entsize
    hdrs = [list(struct.unpack_from(fmts[0], b, shoff + i * shentsize)) for i in range(shnum)]
    s = hdrs[shstrndx]
    return is64, e, fmts, shoff, shentsize, shstrndx, hdrs, bytearray(b[s[4]:s[4] + s[5]])

def name(strs, h):
    return strs[h[0]:strs.index(b'\0', h[0])].decode()

def zstd(data):
    z = ctypes.CDLL('libzstd.so.1')
    z.ZSTD_compressBound.restype = z.ZSTD_compress.restype = ctypes.c_size_t
    z.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t, ctypes.c_int]
    z.ZSTD_isError.argtypes = [ctypes.c_size_t]
    bound = z.ZSTD_compressBound(len(data))
    out = ctypes.create_string_buffer(bound)
    n = z.ZSTD_compress(out, bound, data, len(data), 3)
    if z.ZSTD_isError(n):
        sys.exit('ZSTD_compress failed')
    return out.raw[:n]

def forms(path):
    b = open(path, 'rb').read()
    is64, e, fmts, _, _, _, hdrs, strs = elf(b)
    for h in hdrs:
        n = name(strs, h)
        if not n.startswith(('.debug_', '.zdebug_')) or h[1] == 8:
            continue
        form = 'none'
        if h[2] & 0x800:
            t, = struct.unpack_from(e + 'I', b, h[4])
            form = {1: 'zlib', 2: 'zstd'}.get(t, 'ch_type-%d' % t)
        elif n.startswith('.zdebug_') and b[h[4]:h[4] + 4] == b'ZLIB':
            form = 'zlib-gnu'
        print(n, form)

def compress(form, src, dst):
    b = bytearray(open(src, 'rb').read())
    is64, e, fmts, shoff, shentsize, shstrndx, hdrs, strs = elf(b)
    done = 0
    for h in hdrs:
        n = name(strs, h)
        if not n.startswith('.debug_') or h[1] == 8 or h[2] & 0x802 or not h[5]:
            continue
        data = bytes(b[h[4]:h[4] + h[5]])
        if form == 'zlib-gnu':
            new, align = b'ZLIB' + struct.pack('>Q', len(data)) + zlib.compress(data), 1
            h[0] = len(strs)
            strs += b'.z' + n[1:].encode() + b'\0'
        else:
            t = 2 if form == 'zstd' else 1
            chdr = struct.pack(fmts[1], *((t, 0, len(data), h[8]) if is64 else (t, len(data), h[8])))
            new, align = chdr + (zstd(data) if t == 2 else zlib.compress(data)), 8 if is64 else 4
            h[2] |= 0x800
        b += bytes(-len(b) % align)
        h[4], h[5], h[8] = len(b), len(new), align
        b += new
        done += 1
    if not done:
        sys.exit('elfz.py: %s: no debug section to compress' % src)
    if form == 'zlib-gnu':
        hdrs[shstrndx][4], hdrs[shstrndx][5] = len(b), len(strs)
        b += strs
    for i, h in enumerate(hdrs):
        struct.pack_into(fmts[0], b, shoff + i * shentsize, *h)
    open(dst, 'wb').write(b)

if sys.argv[1] == 'forms':
    forms(sys.argv[2])
else:
    compress(*sys.argv[2:5])
PY

# compress FORM IN OUT [python]: IN's debug sections as FORM into OUT, by
# objcopy (or elfz.py); false, with a FAIL, unless .debug_info,
# .debug_abbrev and .debug_str all came out as FORM
compress() {
	local form=$1 in=$2 out=$3 by=${4:-objcopy} sec want got
	if [ "$by" = python ]; then
		python3 "$elfz" compress "$form" "$in" "$out"
	else
		objcopy --compress-debug-sections="$form" "$in" "$out"
	fi || { tally_fail "$out: $by could not compress it ($form)"; return 1; }
	got=$(python3 "$elfz" forms "$out")
	for sec in info abbrev str; do
		want=".debug_$sec $form"
		[ "$form" = zlib-gnu ] && want=".zdebug_$sec $form"
		if ! grep -qxF "$want" <<<"$got"; then
			tally_fail "$out: .debug_$sec is not $form-compressed: $(tr '\n' ' ' <<<"$got")"
			return 1
		fi
	done
	echo "$(basename "$out"): $(stat -c %s "$in") -> $(stat -c %s "$out") bytes"
}

# same NAME REF OUT [BASE]: cmp, and btfdiff on a mismatch
same() {
	if cmp -s "$2" "$3"; then
		tally_ok "$1"
	else
		tally_fail "$1: $2 and $3 differ"
		"$BTFDIFF" ${4:+--base "$4"} "$2" "$3" || true
	fi
}

# encode NAME OUT ARGS...: dwarf2btf -J -j2 ARGS... detached to OUT; false,
# with a FAIL, if it fails
encode() {
	local name=$1 out=$2; shift 2
	rm -f "$out"
	"$D2B" -J -j2 "$@" --btf_encode_detached="$out" || { tally_fail "$name: dwarf2btf failed"; return 1; }
}

# module NAME KO BASE FLAGS FORMS [python]: KO in each of FORMS against
# pahole, detached and (with BASE) in place; BASE "" encodes without one
module() {
	local name=$1 ko=$2 base=$3 flags=$4 forms=$5 by=${6:-objcopy} form f plain
	local -a b=()
	[ -n "$base" ] && b=(--btf_base "$base")
	plain=$WORKDIR/$name.btf
	# shellcheck disable=SC2086
	encode "$name uncompressed" "$plain" $flags "${b[@]}" "$ko" || return 0
	for form in $forms; do
		f=$WORKDIR/$name-$form.ko
		compress "$form" "$ko" "$f" "$by" || continue
		rm -f "$WORKDIR/ref.btf"
		# shellcheck disable=SC2086
		"$PAHOLE" -J $flags "${b[@]}" --btf_encode_detached="$WORKDIR/ref.btf" "$f"
		# shellcheck disable=SC2086
		if encode "$name $form" "$WORKDIR/out.btf" $flags "${b[@]}" "$f"; then
			same "$name $form: as pahole $PAHOLE_RELEASE" "$WORKDIR/ref.btf" \
				"$WORKDIR/out.btf" "$base"
			same "$name $form: as uncompressed" "$plain" "$WORKDIR/out.btf" "$base"
		fi
		[ -n "$base" ] || continue
		cp "$f" "$WORKDIR/ref.ko"
		cp "$f" "$WORKDIR/out.ko"
		# shellcheck disable=SC2086
		"$PAHOLE" -J $flags "${b[@]}" "$WORKDIR/ref.ko"
		# shellcheck disable=SC2086
		if "$D2B" -J -j2 $flags "${b[@]}" "$WORKDIR/out.ko"; then
			if cmp -s "$WORKDIR/ref.ko" "$WORKDIR/out.ko"; then
				tally_ok "$name $form: in place, the whole file as pahole's"
			else
				tally_fail "$name $form: in place, the file differs from pahole's"
			fi
		else
			tally_fail "$name $form: in place: dwarf2btf failed"
		fi
		rm -f "$f" "$WORKDIR/ref.ko" "$WORKDIR/out.ko"
	done
}

K72=$CACHE/linux-7.2 K61=$CACHE/linux-6.1
module fat-7.2 "$K72/modules/fat.ko" "$K72/vmlinux" "$FLAGS_72" "zstd zlib zlib-gnu"
module esp4-6.1 "$K61/modules/esp4.ko" "$K61/vmlinux" "$FLAGS_61" "zstd zlib zlib-gnu"
module xfs-7.2 "$K72/modules/xfs.ko" "$K72/vmlinux" "$FLAGS_72" zstd
for arch in s390x armhf; do
	module "fat-$arch-7.2" "$CACHE/linux-$arch-7.2/modules/fat.ko" "" "$FLAGS_72" \
		"zstd zlib zlib-gnu" python
done

# 7.2's vmlinux, packed as bench/bench.sh --pack does (.BTF_ids keeps its
# contents, the kfunc sets pahole reads)
vmlinux=$WORKDIR/vmlinux
objcopy -O binary --only-section=.BTF_ids "$K72/vmlinux" "$WORKDIR/btf_ids"
objcopy --only-keep-debug -R '.rela*' -R .debug_line -R .debug_line_str "$K72/vmlinux" "$vmlinux"
objcopy --set-section-flags .BTF_ids=alloc,load,contents,data \
	--update-section .BTF_ids="$WORKDIR/btf_ids" "$vmlinux"
# shellcheck disable=SC2086
if encode "vmlinux-7.2" "$WORKDIR/vmlinux-whole.btf" $FLAGS_72 "$K72/vmlinux" &&
	encode "vmlinux-7.2 packed" "$WORKDIR/vmlinux.btf" $FLAGS_72 "$vmlinux"; then
	same "vmlinux-7.2: packed as the whole file" "$WORKDIR/vmlinux-whole.btf" "$WORKDIR/vmlinux.btf"
	for form in zstd zlib zlib-gnu; do
		f=$WORKDIR/vmlinux-$form
		compress "$form" "$vmlinux" "$f" || continue
		rm -f "$WORKDIR/ref.btf"
		# shellcheck disable=SC2086
		"$PAHOLE" -J -j2 $FLAGS_72 --btf_encode_detached="$WORKDIR/ref.btf" "$f"
		# shellcheck disable=SC2086
		if encode "vmlinux-7.2 $form" "$WORKDIR/out.btf" $FLAGS_72 "$f"; then
			same "vmlinux-7.2 $form: as pahole $PAHOLE_RELEASE" "$WORKDIR/ref.btf" "$WORKDIR/out.btf"
			same "vmlinux-7.2 $form: as uncompressed" "$WORKDIR/vmlinux.btf" "$WORKDIR/out.btf"
		fi
		rm -f "$f"
	done
fi
rm -f "$vmlinux"

tally_end
