#!/usr/bin/env bash
# boot.sh - the kernel itself accepts dwarf2btf's BTF, and rejects a corrupted one.
#
# Usage: tests/boot.sh DWARF2BTF WORKDIR [6.1|6.12|7.2]
#
# Boots Debian's own 6.1 (6.12, 7.2) cloud kernel (the image of the same
# version as the debug vmlinux the other tests use; tests/fetch.sh boot61,
# boot612, boot72)
# under qemu (TCG) with an initramfs whose /init is tests/btf_load_init.c,
# built static here with gcc. It runs:
#
#   1. cmp /sys/kernel/btf/vmlinux with the .BTF of the debug vmlinux: the
#      running kernel's own BTF is the base the module below is encoded on;
#   2. bpf(BPF_BTF_LOAD) of /sys/kernel/btf/vmlinux (Debian's own BTF, made
#      by Debian's pahole): a control for the loader itself;
#   3. BPF_BTF_LOAD of the vmlinux BTF dwarf2btf encodes here with that
#      kernel's flag set (-j2, detached): must load;
#   4. BPF_BTF_LOAD of two corrupted copies of it, which must be rejected
#      with EINVAL and the kernel verifier message the corruption calls for:
#      the last member of the first struct moved past the struct's end
#      ("Member bits_offset exceeds its struct size", found while checking
#      each type), and the last pointer in the file pointed past the last
#      type ("Invalid type_id", found while resolving, so after every type
#      has been logged: it checks that the whole log is read);
#   5. finit_module of fat.ko (no dependencies, loads without hardware) from
#      the debug package, its .BTF replaced in place as Makefile.modfinal
#      does (dwarf2btf -J --btf_base vmlinux; fat.ko has no .BTF_ids, so
#      its resolve_btfids step has nothing to do): first with that split BTF
#      corrupted the same way as in 4, then as encoded. The kernel validates
#      a module's BTF against its own vmlinux BTF when the module comes in;
#      Debian sets CONFIG_MODULE_ALLOW_BTF_MISMATCH, so a bad one does not
#      stop the module loading, it only leaves it without BTF: the corrupted
#      one must leave no /sys/kernel/btf/fat and log the verifier's message
#      and "failed to validate module [fat] BTF: -22"; the good one must
#      give a /sys/kernel/btf/fat with exactly the bytes dwarf2btf wrote;
#   6. (6.12, 7.2: from 6.11 the kernel relocates a distilled base)
#      finit_module of an out-of-tree module with .BTF and .BTF.base: on
#      6.12, tests/extmod.sh's d2b_extmod.ko, built by Kbuild against
#      Debian's headers with PAHOLE=dwarf2btf and distilled_base; on 7.2
#      (whose Kbuild distills in resolve_btfids instead), fat.ko without its
#      .BTF, encoded by dwarf2btf -J --btf_features=distilled_base
#      --btf_base vmlinux in place. The kernel relocates the module's .BTF
#      from its .BTF.base onto its own BTF, and /sys/kernel/btf/NAME must
#      hold exactly what libbpf's btf__relocate (trixie's libbpf 1.5,
#      tests/libbpf_distill.c, run through pahole 1.30's unpacked
#      libraries) makes of the two sections on that BTF.
#
# What cannot be tested on 6.1: module split BTF against dwarf2btf's own
# vmlinux BTF. BPF_BTF_LOAD has no way to name a base BTF (6.1's attribute
# is btf, btf_size and the log fields; the kernel parses what it is given as
# base-less BTF, so split BTF from user space cannot load), and a module's BTF
# is always checked against the BTF built into the running kernel, which is
# Debian's (made by Debian's pahole, not byte-identical to dwarf2btf's, and
# split BTF refers to its base by type id and string offset). So the module is
# encoded against Debian's vmlinux BTF (which is what --btf_base reads from
# the debug vmlinux, and step 1 shows the kernel has exactly that), and
# dwarf2btf's vmlinux BTF is loaded on its own, as base-less BTF.
#
# BOOT_VMLINUX_BTF=FILE loads FILE in step 3 instead of dwarf2btf's output
# (a corrupted one makes the test fail, as it should). BOOT_ACCEL=kvm uses
# KVM instead of TCG; BOOT_TIMEOUT (default 600) bounds qemu in seconds.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 DWARF2BTF WORKDIR [6.1|6.12|7.2]" >&2; exit 2; }
D2B=$(readlink -f "$1") WORKDIR=$2 KVER=${3:-6.1}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

t0=$(date +%s)
die() { echo "FAIL (setup): $*"; tally_fail; tally_end; exit 1; }

case $KVER in
6.1) FLAGS=$FLAGS_61 ;;
6.12) FLAGS=$FLAGS_612 ;;
7.2) FLAGS=$FLAGS_72 ;;
*) echo "$0: kernel must be 6.1, 6.12 or 7.2" >&2; exit 2 ;;
esac
"$here/fetch.sh" "boot${KVER/./}" || die "fetch.sh boot${KVER/./}"
"$here/fetch.sh" "modules${KVER/./}" || die "fetch.sh modules${KVER/./}"
KDIR=$CACHE/linux-$KVER
VMLINUX=$KDIR/vmlinux
VMLINUZ=$KDIR/boot/vmlinuz
MODULE=fat
echo "kernel: $(cat "$KDIR/boot/package"), debug vmlinux and modules: $(cat "$KDIR/package")"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR/root/btf" "$WORKDIR/root/dev" "$WORKDIR/root/sys"
W=$(readlink -f "$WORKDIR")
R=$W/root

# --- the initramfs contents ---------------------------------------------------
gcc -static -O2 -Wall -o "$R/init" "$here/btf_load_init.c" || die "cannot build the static /init (libc6-dev)"

# shellcheck disable=SC2086
"$D2B" -J -j2 $FLAGS --btf_encode_detached="$W/vmlinux.btf" "$VMLINUX" ||
	die "dwarf2btf failed on $VMLINUX"
if [ -n "${BOOT_VMLINUX_BTF:-}" ]; then
	echo "BOOT_VMLINUX_BTF: loading $BOOT_VMLINUX_BTF in place of dwarf2btf's output"
	cp "$BOOT_VMLINUX_BTF" "$R/btf/vmlinux.btf"
else
	cp "$W/vmlinux.btf" "$R/btf/vmlinux.btf"
fi
objcopy --dump-section .BTF="$R/btf/debian-vmlinux.btf" "$VMLINUX" "$W/junk" ||
	die "no .BTF in $VMLINUX"
rm -f "$W/junk"

# corrupt.py MODE IN OUT [BASE]: writes OUT, prints the verifier message the
# corruption must produce. MODE member-offset: the last member of the first
# plain struct is moved past the struct's end (check_meta phase);
# type-ref: the last PTR points past the last type (resolve phase).
cat >"$W/corrupt.py" <<'PY'
import struct, sys

KIND_EXTRA = {1: lambda v: 4, 3: lambda v: 12, 4: lambda v: 12 * v, 5: lambda v: 12 * v,
	      6: lambda v: 8 * v, 13: lambda v: 8 * v, 14: lambda v: 4, 15: lambda v: 12 * v,
	      17: lambda v: 4, 19: lambda v: 12 * v}

def parse(data):
	magic, ver, flags, hdr_len, type_off, type_len, str_off, str_len = \
		struct.unpack_from("<HBBIIIII", data, 0)
	assert magic == 0xeb9f, "not BTF"
	types, pos, end = [], hdr_len + type_off, hdr_len + type_off + type_len
	while pos < end:
		name_off, info, size = struct.unpack_from("<III", data, pos)
		kind, vlen = (info >> 24) & 0x1f, info & 0xffff
		types.append((pos, name_off, info, size))
		pos += 12 + KIND_EXTRA.get(kind, lambda v: 0)(vlen)
	assert pos == end, "type section does not parse"
	return types, hdr_len + str_off, str_len

mode, src, dst = sys.argv[1:4]
data = bytearray(open(src, "rb").read())
types, str_start, _ = parse(data)
first_id, base_str_len, base = 1, 0, None
if len(sys.argv) > 4:
	base = open(sys.argv[4], "rb").read()
	btypes, bstr_start, base_str_len = parse(base)
	first_id = len(btypes) + 1

def name(off):
	if off == 0:
		return "(anon)"
	if off < base_str_len:
		s, o = base, bstr_start + off
	else:
		s, o = data, str_start + off - base_str_len
	return bytes(s[o:s.index(b"\0", o)]).decode()

if mode == "member-offset":
	for i, (pos, name_off, info, size) in enumerate(types):
		kind, vlen, kflag = (info >> 24) & 0x1f, info & 0xffff, info >> 31
		if kind == 4 and vlen > 0 and not kflag and 0 < size < (1 << 20):
			break
	else:
		sys.exit("no struct to corrupt")
	m = pos + 12 + 12 * (vlen - 1)
	m_name, m_type, m_off = struct.unpack_from("<III", data, m)
	bad = (size + 1) * 8
	struct.pack_into("<I", data, m + 8, bad)
	print(f"{name(m_name)} type_id={m_type} bits_offset={bad} Member bits_offset exceeds its struct size")
	print(f"corrupt.py: [{first_id + i}] STRUCT {name(name_off)} size={size}: member "
	      f"{name(m_name)} bits_offset {m_off} -> {bad}", file=sys.stderr)
elif mode == "type-ref":
	i = max(i for i, t in enumerate(types) if (t[2] >> 24) & 0x1f == 2)
	pos, _, _, target = types[i]
	bad = first_id + len(types) + 1000
	struct.pack_into("<I", data, pos + 8, bad)
	print(f"[{first_id + i}] PTR (anon) type_id={bad} Invalid type_id")
	print(f"corrupt.py: [{first_id + i}] PTR type_id {target} -> {bad} "
	      f"(the last type is [{first_id + len(types) - 1}])", file=sys.stderr)
else:
	sys.exit("unknown mode " + mode)
open(dst, "wb").write(data)
PY
expect_member=$(python3 "$W/corrupt.py" member-offset "$W/vmlinux.btf" "$R/btf/corrupt-member-offset.btf") ||
	die "corrupt.py member-offset"
expect_typeref=$(python3 "$W/corrupt.py" type-ref "$W/vmlinux.btf" "$R/btf/corrupt-type-ref.btf") ||
	die "corrupt.py type-ref"

# the module, encoded in place as Makefile.modfinal does, and a corrupted twin
cp "$KDIR/modules/$MODULE.ko" "$R/btf/$MODULE.ko"
# shellcheck disable=SC2086
LLVM_OBJCOPY=objcopy "$D2B" -J $FLAGS --btf_base "$VMLINUX" "$R/btf/$MODULE.ko" ||
	die "dwarf2btf -J --btf_base failed on $MODULE.ko"
objcopy --dump-section .BTF="$R/btf/$MODULE.btf" "$R/btf/$MODULE.ko" "$W/junk" || die "no .BTF in $MODULE.ko"
rm -f "$W/junk"
expect_mod=$(python3 "$W/corrupt.py" member-offset "$R/btf/$MODULE.btf" "$R/btf/$MODULE-corrupt.btf" \
	"$R/btf/debian-vmlinux.btf") || die "corrupt.py on $MODULE's split BTF"
objcopy --update-section .BTF="$R/btf/$MODULE-corrupt.btf" "$R/btf/$MODULE.ko" "$R/btf/$MODULE-corrupt.ko" ||
	die "objcopy --update-section"

# An out-of-tree module (from 6.11 the kernel relocates a distilled base):
# its .BTF and .BTF.base, and what libbpf's btf__relocate makes of them on
# the running kernel's BTF, /btf/NAME-relocated.btf
distilled=()
# distilled_expect KO NAME: KO's sections relocated by libbpf
distilled_expect() {
	local ko=$1 name=$2 lib=$CACHE/pahole-1.30/usr/lib/x86_64-linux-gnu
	objcopy --dump-section .BTF="$W/$name.btf" --dump-section .BTF.base="$W/$name.base" \
		"$ko" "$W/junk" || die "no .BTF and .BTF.base in $ko"
	rm -f "$W/junk"
	"$lib/ld-linux-x86-64.so.2" --library-path "$lib" "$W/libbpf_distill" relocate \
		"$W/$name.base" "$W/$name.btf" "$R/btf/debian-vmlinux.btf" \
		"$R/btf/$name-relocated.btf" || die "libbpf's btf__relocate failed on $ko"
	echo "$(basename "$ko"): .BTF $(stat -c %s "$W/$name.btf") bytes, .BTF.base" \
		"$(stat -c %s "$W/$name.base") bytes; relocated by libbpf:" \
		"$(stat -c %s "$R/btf/$name-relocated.btf") bytes"
	cp "$ko" "$R/btf/$name-distilled.ko"
	distilled+=("$name")
}
if [ "$KVER" != 6.1 ]; then
	"$here/fetch.sh" pahole130 || die "fetch.sh pahole130"
	gcc -O2 -Wall -o "$W/libbpf_distill" "$here/libbpf_distill.c" -lbpf ||
		die "cannot build libbpf_distill (libbpf-dev)"
fi
case $KVER in
6.12)
	# built by Kbuild against Debian's headers, as DKMS builds it
	"$here/extmod.sh" "$D2B" "$W/extmod" >"$W/extmod.log" 2>&1 ||
		{ sed 's/^/  | /' "$W/extmod.log"; die "tests/extmod.sh"; }
	distilled_expect "$W/extmod/d2b_extmod.ko" d2b_extmod
	;;
7.2)
	# 7.x distills in resolve_btfids, not through the encoder: fat.ko encoded by hand
	objcopy --remove-section .BTF "$KDIR/modules/$MODULE.ko" "$W/$MODULE.ko" ||
		die "objcopy --remove-section"
	# shellcheck disable=SC2086
	LLVM_OBJCOPY=objcopy "$D2B" -J $FLAGS --btf_features=distilled_base --btf_base "$VMLINUX" \
		"$W/$MODULE.ko" || die "dwarf2btf -J distilled_base failed on $MODULE.ko"
	distilled_expect "$W/$MODULE.ko" "$MODULE"
	;;
esac

cat >"$R/btf/list" <<LIST
cmp /sys/kernel/btf/vmlinux /btf/debian-vmlinux.btf
load /sys/kernel/btf/vmlinux
load /btf/vmlinux.btf
load /btf/corrupt-member-offset.btf
load /btf/corrupt-type-ref.btf
insmod /btf/$MODULE-corrupt.ko $MODULE /btf/$MODULE-corrupt.btf
insmod /btf/$MODULE.ko $MODULE /btf/$MODULE.btf
LIST
for name in ${distilled[@]+"${distilled[@]}"}; do
	echo "insmod /btf/$name-distilled.ko $name /btf/$name-relocated.btf" >>"$R/btf/list"
done

# newc cpio of root/ (plus /dev/console), no cpio(1) needed
python3 - "$R" "$W/initramfs.cpio" <<'PY' || die "initramfs"
import os, stat, sys
root, dst = sys.argv[1:3]
out, ino = bytearray(), [300000]
def entry(name, mode, data=b"", rdev=(0, 0)):
	ino[0] += 1
	nb = name.encode() + b"\0"
	hdr = "070701" + "".join("%08X" % v for v in (ino[0], mode, 0, 0, 1, 0, len(data), 0, 0,
						      rdev[0], rdev[1], len(nb), 0))
	out.extend(hdr.encode() + nb)
	out.extend(b"\0" * (-len(out) % 4))
	out.extend(data)
	out.extend(b"\0" * (-len(out) % 4))
for d, dirs, files in os.walk(root):
	dirs.sort()
	rel = os.path.relpath(d, root)
	if rel != ".":
		entry(rel, stat.S_IFDIR | 0o755)
	for f in sorted(files):
		p = os.path.join(d, f)
		entry(os.path.normpath(os.path.join(rel, f)), stat.S_IFREG | (os.stat(p).st_mode & 0o777),
		      open(p, "rb").read())
entry("dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
entry("TRAILER!!!", 0)
open(dst, "wb").write(out)
PY
echo "initramfs: $(stat -c %s "$W/initramfs.cpio") bytes; vmlinux.btf $(stat -c %s "$R/btf/vmlinux.btf") bytes"

# --- boot --------------------------------------------------------------------
# TCG unless told: it boots, loads and powers off in about 10 s, and a
# /dev/kvm that opens is no proof that KVM works (nested, it can hang)
accel=${BOOT_ACCEL:-tcg}
echo "booting $VMLINUZ under qemu ($accel), timeout ${BOOT_TIMEOUT:-600} s"
b0=$(date +%s%N)
timeout "${BOOT_TIMEOUT:-600}" qemu-system-x86_64 -accel "$accel" -m 1G \
	-nodefaults -display none -monitor none -no-reboot \
	-serial file:"$W/console.log" \
	-kernel "$VMLINUZ" -initrd "$W/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 quiet" </dev/null >"$W/qemu.log" 2>&1
qrc=$?
boot_ms=$((($(date +%s%N) - b0) / 1000000))
tr -d '\r' <"$W/console.log" >"$W/console.txt"
echo "qemu exited with $qrc after ${boot_ms} ms"
[ -s "$W/qemu.log" ] && sed 's/^/qemu: /' "$W/qemu.log"

# --- verdict -----------------------------------------------------------------
C=$W/console.txt
has() { grep -aqF -- "$1" "$C"; }
show() { grep -aE -- "$1" "$C" | sed 's/^/  | /'; }

if has "BTFLOAD-DONE"; then
	tally_ok "init ran to the end ($accel, ${boot_ms} ms from qemu start to power-off)"
else
	tally_fail "no BTFLOAD-DONE on the console (qemu exit $qrc); the console's last lines:"
	tail -n 40 "$C" | sed 's/^/  | /'
fi
show '^INIT '

if has "CMP same /sys/kernel/btf/vmlinux /btf/debian-vmlinux.btf"; then
	tally_ok "the running kernel's /sys/kernel/btf/vmlinux is the debug vmlinux's .BTF (the modules' base)"
else
	tally_fail "/sys/kernel/btf/vmlinux is not the debug vmlinux's .BTF"
	show '^CMP '
fi

if has "BTFLOAD ok /sys/kernel/btf/vmlinux "; then
	tally_ok "control: Debian's own vmlinux BTF loads through BPF_BTF_LOAD"
else
	tally_fail "control: Debian's own vmlinux BTF does not load"
fi
show '^BTF(LOAD [a-z]+|LOG) /sys/kernel/btf/vmlinux'

if has "BTFLOAD ok /btf/vmlinux.btf "; then
	tally_ok "dwarf2btf's $KVER vmlinux BTF loads: the kernel's BTF verifier accepts it"
else
	tally_fail "dwarf2btf's $KVER vmlinux BTF is rejected by the kernel"
fi
show '^BTF(LOAD [a-z]+|LOG) /btf/vmlinux.btf'

# corrupted NAME EXPECTED
corrupted() {
	local f=/btf/$1 want=$2
	if has "BTFLOAD fail $f errno=22 " && grep -aF "BTFLOG $f: " "$C" | grep -qF -- "$want"; then
		tally_ok "corrupted copy $1 rejected: EINVAL, log says \"$want\""
	else
		tally_fail "corrupted copy $1: not rejected with \"$want\""
	fi
	show "^BTFLOAD [a-z]+ $f "
	show "^BTFLOG $f: " | tail -n 3
}
corrupted corrupt-member-offset.btf "$expect_member"
corrupted corrupt-type-ref.btf "$expect_typeref"

# modules: Debian allows a module whose BTF is bad to load without its BTF
if grep -q '^CONFIG_MODULE_ALLOW_BTF_MISMATCH=y' "$KDIR/boot/config"; then
	corrupt_load="MODLOAD ok /btf/$MODULE-corrupt.ko"
else
	corrupt_load="MODLOAD fail /btf/$MODULE-corrupt.ko errno=22"
fi
# the kernel logs the member and the message as separate "BPF:" lines
klog() { grep -aF "KLOG $MODULE: " "$C" | grep -qF -- "$1"; }
# (6.12 with CONFIG_MODULE_ALLOW_BTF_MISMATCH logs no verifier message, only the mismatch)
verifier_logged() {
	if [ "$KVER" = 6.12 ] && grep -q '^CONFIG_MODULE_ALLOW_BTF_MISMATCH=y' "$KDIR/boot/config"; then
		klog "Kernel module BTF mismatch detected"
	else
		klog "failed to validate module [$MODULE] BTF: -22" &&
			klog "BPF: 	${expect_mod% Member bits_offset exceeds its struct size}" &&
			klog "BPF: Member bits_offset exceeds its struct size"
	fi
}
if has "$corrupt_load" && has "MODBTF absent $MODULE" && verifier_logged; then
	tally_ok "$MODULE.ko with corrupted split BTF: the kernel refuses its BTF (\"$expect_mod\")"
else
	tally_fail "$MODULE.ko with corrupted split BTF: not refused as expected ($corrupt_load, no BTF, verifier message)"
fi
if has "MODLOAD ok /btf/$MODULE.ko " &&
	has "MODBTF present $MODULE size=$(stat -c %s "$R/btf/$MODULE.btf") same=yes"; then
	tally_ok "$MODULE.ko with dwarf2btf's split BTF: loaded, /sys/kernel/btf/$MODULE holds exactly that BTF"
else
	tally_fail "$MODULE.ko with dwarf2btf's split BTF: not accepted"
fi
for name in ${distilled[@]+"${distilled[@]}"}; do
	if has "MODLOAD ok /btf/$name-distilled.ko " &&
		has "MODBTF present $name size=$(stat -c %s "$R/btf/$name-relocated.btf") same=yes"; then
		tally_ok "$name.ko with a distilled base: loaded, relocated by the kernel as by libbpf"
	else
		tally_fail "$name.ko with a distilled base: not loaded, or /sys/kernel/btf/$name is not libbpf's relocation"
	fi
	show "^(MODLOAD|MODBTF|RMMOD) [^ ]*$name"
done
show "^(MODLOAD|MODBTF|RMMOD|KLOG $MODULE: .*(BPF|BTF))"

echo "boot.sh: $(($(date +%s) - t0)) s in all"
tally_end
