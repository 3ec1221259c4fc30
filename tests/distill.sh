#!/usr/bin/env bash
# distill.sh - distilled_base (an out-of-tree module's .BTF and .BTF.base)
# against pahole 1.30 (or $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh).
#
# Usage: tests/distill.sh DWARF2BTF BTFDIFF WORKDIR KERNEL
#   KERNEL: 6.12 or 7.2 (Debian's amd64, tests/fetch.sh modules612 /
#   modules72: every cached module), or an ARCH-VERSION key of
#   tests/arch.sh (the modules of its sample)
#
# From 6.12, Kbuild's Makefile.modfinal adds --btf_features=distilled_base
# for an external module (M=...) and runs the encoder in place on the .ko
# it just linked, which has no .BTF yet. For every cached module of
# KERNEL, with that kernel's flags plus distilled_base:
#  - the module without its .BTF (as Makefile.modfinal has it), encoded
#    in place by pahole and by dwarf2btf (-j1 to -j3 in turn, and --exact
#    for every third module), whole files cmp'd; the run must have added
#    both .BTF and .BTF.base, so that an encoder that ignored the feature
#    fails;
#  - the first module's result encoded again in place (both sections
#    there: libelf replaces them), whole files cmp'd;
#  - detached (--btf_encode_detached), where pahole writes the split BTF
#    as it is, distilled_base or not: cmp'd with pahole's;
#  - a small object that refers to no base type (an empty distilled base);
#  - without --btf_base, where there is nothing to distill: both fail, the
#    file unchanged.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR KERNEL" >&2; exit 2; }
D2B=$1 BTFDIFF=$2 WORKDIR=$3 KERNEL=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

"$here/fetch.sh" "$PAHOLE_FETCH"
only= # module names, or every cached module
case $KERNEL in
6.12 | 7.2)
	"$here/fetch.sh" "modules${KERNEL/./}"
	dir=$CACHE/linux-$KERNEL
	flags=$(kbuild_flags "$KERNEL")
	objcopy=objcopy # (the kernel's $(OBJCOPY))
	;;
*-*)
	"$here/fetch.sh" "arch-$KERNEL"
	dir=$CACHE/linux-$KERNEL
	flags=$(kbuild_flags "${KERNEL#*-}")
	# (arch.sh's sample: its whole module set takes minutes)
	only="fat vfat msdos tcp_bbr esp4 xfs btrfs mlx5_core"
	objcopy=llvm-objcopy # (any machine's, as arch.sh)
	;;
*) echo "distill.sh: unknown kernel $KERNEL" >&2; exit 2 ;;
esac
BASE=$dir/vmlinux
flags="$flags --btf_features=distilled_base"
export LLVM_OBJCOPY=$objcopy
echo "kernel: $(cat "$dir/package"), $(find "$dir/modules" -name '*.ko' | wc -l) modules;" \
	"pahole $PAHOLE_RELEASE, flags: $flags"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
fresh=$WORKDIR/fresh.ko ref=$WORKDIR/ref.ko out=$WORKDIR/out.ko

# has FILE both sections?
both_sections() {
	local names
	names=$(readelf -SW "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\.BTF/) print $i }')
	[ "$(echo "$names" | grep -cx -e .BTF -e .BTF.base)" -eq 2 ]
}

# in_place LABEL OPT: $fresh encoded in place by pahole into $ref and by
# dwarf2btf with OPT into $out, the whole files compared
in_place() {
	local label=$1 opt=$2
	cp "$fresh" "$ref"
	cp "$fresh" "$out"
	# shellcheck disable=SC2086
	if ! "$PAHOLE" -J $flags --btf_base "$BASE" "$ref" >"$WORKDIR/pahole.log" 2>&1; then
		tally_fail "$label: pahole failed: $(head -1 "$WORKDIR/pahole.log")"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$D2B" -J $opt $flags --btf_base "$BASE" "$out"; then
		tally_fail "$label $opt: dwarf2btf failed"
	elif ! both_sections "$out"; then
		tally_fail "$label $opt: no .BTF and .BTF.base in the result"
	elif cmp -s "$ref" "$out"; then
		tally_ok
	else
		tally_fail "$label $opt: files differ from pahole $PAHOLE_RELEASE's"
		"$objcopy" --dump-section .BTF="$WORKDIR/ref.BTF" "$ref" "$WORKDIR/junk" 2>/dev/null &&
			"$objcopy" --dump-section .BTF="$WORKDIR/out.BTF" "$out" "$WORKDIR/junk" 2>/dev/null &&
			cmp "$WORKDIR/ref.BTF" "$WORKDIR/out.BTF" || true
	fi
}

n=0 first=
for ko in "$dir"/modules/*.ko; do
	mod=$(basename "$ko" .ko)
	[ -z "$only" ] || [[ " $only " == *" $mod "* ]] || continue
	"$objcopy" --remove-section .BTF --remove-section .BTF.base "$ko" "$fresh"
	n=$((n + 1))
	in_place "$mod" -j$((n % 3 + 1))
	[ $((n % 3)) -ne 0 ] || in_place "$mod" --exact
	[ -n "$first" ] || first=$ko
done
echo "modules: $n, $tally_passed passed, $tally_failed failed so far"

# both sections there already: replaced, not added
"$objcopy" --remove-section .BTF --remove-section .BTF.base "$first" "$fresh"
# shellcheck disable=SC2086
"$PAHOLE" -J $flags --btf_base "$BASE" "$fresh"
if both_sections "$fresh"; then
	tally_ok
	in_place "$(basename "$first" .ko) (again)" -j2
else
	tally_fail "pahole wrote no .BTF.base into $first"
fi

# detached: the split BTF as it is
rm -f "$WORKDIR/ref.btf" "$WORKDIR/out.btf" "$WORKDIR/plain.btf"
# shellcheck disable=SC2086
"$PAHOLE" -J $flags --btf_base "$BASE" --btf_encode_detached="$WORKDIR/ref.btf" "$first"
# shellcheck disable=SC2086
"$D2B" -J $flags --btf_base "$BASE" --btf_encode_detached="$WORKDIR/out.btf" "$first"
# shellcheck disable=SC2086
"$D2B" -J ${flags% --btf_features=distilled_base} --btf_base "$BASE" \
	--btf_encode_detached="$WORKDIR/plain.btf" "$first"
if cmp -s "$WORKDIR/ref.btf" "$WORKDIR/out.btf" && cmp -s "$WORKDIR/out.btf" "$WORKDIR/plain.btf"; then
	tally_ok
else
	tally_fail "detached: differs from pahole's or from the plain split BTF"
	"$BTFDIFF" --base "$BASE" "$WORKDIR/ref.btf" "$WORKDIR/out.btf" || true
fi

# a module that refers to no base type: an empty distilled base
printf 'int base_var;\n' >"$WORKDIR/base.c"
printf 'struct own { char c; };\nstruct own own_var;\n' >"$WORKDIR/own.c"
gcc -g -c -o "$WORKDIR/base.o" "$WORKDIR/base.c" && gcc -g -c -o "$WORKDIR/own.o" "$WORKDIR/own.c" &&
	"$D2B" -J "$WORKDIR/base.o" || { tally_fail "cannot build the small base"; tally_end; exit 1; }
cp "$WORKDIR/own.o" "$WORKDIR/own-ref.o"
cp "$WORKDIR/own.o" "$WORKDIR/own-out.o"
"$PAHOLE" -J --btf_features=default,distilled_base --btf_base "$WORKDIR/base.o" "$WORKDIR/own-ref.o"
if "$D2B" -J --btf_features=default,distilled_base --btf_base "$WORKDIR/base.o" \
	"$WORKDIR/own-out.o" && both_sections "$WORKDIR/own-out.o" &&
	cmp -s "$WORKDIR/own-ref.o" "$WORKDIR/own-out.o"; then
	tally_ok
else
	tally_fail "a module that refers to no base type: not pahole's file"
fi

# no base: nothing to distill; both fail and leave the file as it was
"$objcopy" --remove-section .BTF --remove-section .BTF.base "$first" "$fresh"
sum=$(sha256sum <"$fresh")
for tool in "$PAHOLE" "$D2B"; do
	cp "$fresh" "$out"
	# shellcheck disable=SC2086
	if "$tool" -J $flags "$out" >"$WORKDIR/nobase.log" 2>&1; then
		tally_fail "$(basename "$tool") without --btf_base: succeeded"
	elif [ "$(sha256sum <"$out")" != "$sum" ]; then
		tally_fail "$(basename "$tool") without --btf_base: the file changed"
	else
		tally_ok
	fi
done
echo "dwarf2btf without --btf_base: $(cat "$WORKDIR/nobase.log")"
[ "$(wc -l <"$WORKDIR/nobase.log")" -eq 1 ] && tally_ok || tally_fail "not one line: $(cat "$WORKDIR/nobase.log")"
tally_end
