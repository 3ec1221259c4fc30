#!/usr/bin/env bash
# arch.sh - byte comparison against pahole 1.30 (or $DWARF2BTF_PAHOLE_VERSION:
# tests/lib.sh) on Debian's kernel of another
# architecture: big-endian ELF (s390x), 32-bit ELF with SHT_REL relocations
# (armhf), and each machine's relocation types in the modules' debug
# sections (RISC-V's ADD/SUB pairs among them).
#
# Usage: tests/arch.sh DWARF2BTF BTFDIFF WORKDIR ARCH-VERSION sample|all
#   ARCH-VERSION: arm64-6.1 (bookworm's), arm64-6.12, armhf-6.12,
#   riscv64-6.12 (trixie's), arm64-7.2, armhf-7.2, riscv64-7.2, ppc64el-7.2,
#   s390x-7.2 (sid's)
#
# Fetches (once, cached) the debug vmlinux and the modules of fs/, net/ipv4/
# and mlx5_core (tests/fetch.sh arch-ARCH-VERSION), with the flag set of the
# kernel's own generation:
#  - sample: the vmlinux, encoded by pahole 1.30 and by dwarf2btf at -j1,
#    -j2 and -j3 and with --exact, each cmp'd with pahole's; then the
#    modules SAMPLE_MODULES names, against that vmlinux (or, where it has
#    no .BTF, armhf's, pahole's encoding of it), -j1 to -j3 and --exact, and
#    one of them in place, whole files compared;
#  - all: every cached module of the kernel the same way.
# Where Debian's kernel was built with pahole 1.30 (trixie's), the .BTF it
# shipped in the vmlinux and in each module must be our bytes too (when
# reproducing 1.30).
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 5 ] || { echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR ARCH-VERSION sample|all" >&2; exit 2; }
D2B=$1 BTFDIFF=$2 WORKDIR=$3 KEY=$4 MODE=$5
case $MODE in sample | all) ;; *) echo "$0: sample or all, not $MODE" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

"$here/fetch.sh" "$PAHOLE_FETCH"
"$here/fetch.sh" "arch-$KEY"
dir=$CACHE/linux-$KEY
VMLINUX=$dir/vmlinux
suite=$(cat "$dir/suite")
echo "kernel: $(cat "$dir/package") ($suite), $(find "$dir/modules" -name '*.ko' | wc -l) modules"
case $suite in
bookworm) flags=$FLAGS_61 shipped_by_130= ;; # bookworm's kernels: pahole 1.24
trixie) flags=$FLAGS_612 shipped_by_130=1 ;;
sid) flags=$FLAGS_72 shipped_by_130= ;; # sid's kernels: pahole 1.32
*) echo "arch.sh: unknown suite $suite" >&2; exit 2 ;;
esac
# the modules of the CI run: small ones of fs/ and net/ipv4/, the largest
# file systems, and the driver with the most relocations
SAMPLE_MODULES="fat vfat msdos tcp_bbr esp4 xfs btrfs mlx5_core"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# compare NAME REF OUT [BASE]: cmp, and btfdiff on a mismatch
compare() {
	if cmp -s "$2" "$3"; then
		tally_ok "$1"
	else
		tally_fail "$1: differs from pahole $PAHOLE_RELEASE"
		"$BTFDIFF" ${4:+--base "$4"} "$2" "$3" || true
	fi
}

# shipped_btf FILE OUT: the bytes of FILE's .BTF section into OUT; false if
# it has none with contents
shipped_btf() {
	local off size
	read -r off size < <(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
		awk '$1 == ".BTF" && $2 == "PROGBITS" { print $4, $5 }') || return 1
	[ -n "${size:-}" ] || return 1
	dd if="$1" of="$2" bs=64K iflag=skip_bytes,count_bytes skip=$((0x$off)) \
		count=$((0x$size)) status=none
}

# ---- vmlinux ----------------------------------------------------------------
ref=$WORKDIR/vmlinux-ref.btf
# shellcheck disable=SC2086
"$PAHOLE" -J -j2 $flags --btf_encode_detached="$ref" "$VMLINUX"
[ -s "$ref" ] || { echo "FAIL (setup): pahole $PAHOLE_RELEASE wrote no $ref"; exit 1; }
if shipped_btf "$VMLINUX" "$WORKDIR/vmlinux-shipped.btf"; then
	BASE=$VMLINUX
else
	BASE=$ref
fi
if [ "$MODE" != all ]; then
	if [ -n "$shipped_by_130" ] && [ "$BASE" = "$VMLINUX" ] && [ "$PAHOLE_RELEASE" = 1.30 ]; then
		compare "vmlinux: pahole $PAHOLE_RELEASE gives Debian's shipped .BTF" \
			"$WORKDIR/vmlinux-shipped.btf" "$ref"
	fi
	for opt in -j1 -j2 -j3 --exact; do
		out=$WORKDIR/vmlinux-out.btf
		rm -f "$out"
		# shellcheck disable=SC2086
		if "$D2B" -J $opt $flags --btf_encode_detached="$out" "$VMLINUX"; then
			compare "vmlinux $opt ($(stat -c %s "$out") bytes)" "$ref" "$out"
		else
			tally_fail "vmlinux $opt: dwarf2btf failed"
		fi
	done
fi

# ---- modules ----------------------------------------------------------------
if [ "$MODE" = sample ]; then
	mods=()
	for m in $SAMPLE_MODULES; do
		[ -e "$dir/modules/$m.ko" ] && mods+=("$dir/modules/$m.ko")
	done
	[ ${#mods[@]} -ge 6 ] || { echo "FAIL (setup): ${#mods[@]} sample modules cached"; exit 1; }
else
	mods=("$dir"/modules/*.ko)
fi
for ko in ${mods[@]+"${mods[@]}"}; do
	mod=$(basename "$ko" .ko)
	module_compare "$mod" "$ko" "$BASE" "$flags"
	# (module_compare leaves the --exact output in $WORKDIR/out.btf)
	if [ -n "$shipped_by_130" ] && [ "$PAHOLE_RELEASE" = 1.30 ] &&
		shipped_btf "$ko" "$WORKDIR/shipped.btf"; then
		compare "$mod: Debian's shipped .BTF" "$WORKDIR/shipped.btf" "$WORKDIR/out.btf" "$BASE"
	fi
done

# in place, as Makefile.modfinal runs it: the module's .BTF replaced through
# libelf, in the module's own byte order and class
if [ "$MODE" = sample ]; then
	ko=$dir/modules/vfat.ko
	cp "$ko" "$WORKDIR/ref.ko"
	cp "$ko" "$WORKDIR/out.ko"
	# shellcheck disable=SC2086
	LLVM_OBJCOPY=llvm-objcopy "$PAHOLE" -J $flags --btf_base "$BASE" "$WORKDIR/ref.ko"
	# shellcheck disable=SC2086
	if ! LLVM_OBJCOPY=llvm-objcopy "$D2B" -J -j2 $flags --btf_base "$BASE" "$WORKDIR/out.ko"; then
		tally_fail "in place vfat: dwarf2btf failed"
	elif cmp -s "$WORKDIR/ref.ko" "$WORKDIR/out.ko"; then
		tally_ok "in place vfat: identical to pahole $PAHOLE_RELEASE's file"
	else
		tally_fail "in place vfat: files differ"
	fi
fi
tally_end
