#!/usr/bin/env bash
# kernel.sh - byte comparison against pahole 1.30 (or
# $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh) on a real Debian kernel.
#
# Usage: tests/kernel.sh DWARF2BTF BTFDIFF WORKDIR 6.1|6.12|7.2
#
# KERNEL_JOBS (default "1 2 3 8 2") lists the -j of each run; KERNEL_INPLACE=0
# skips the in-place comparisons (the sanitizer builds use both to stay fast).
#
# Fetches (once, cached) Debian's debug vmlinux and pahole 1.30, encodes the
# vmlinux with pahole 1.30 and with dwarf2btf at -j1, -j2, -j3, -j8 and -j2
# again, and once with --exact (no shortcut: the path the others must
# equal), for the flag sets that kernel generation passes (and, on 6.1, the
# 6.12 set plus global_var, which encodes every variable; on 7.2, also the
# 6.12 set), and cmp's every output against pahole's. A mismatch runs
# BTFDIFF to say what differs.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR 6.1|6.12|7.2" >&2; exit 2; }
D2B=$1 BTFDIFF=$2 WORKDIR=$3 KVER=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

"$here/fetch.sh" "$PAHOLE_FETCH"
"$here/fetch.sh" "kernel${KVER/./}"
VMLINUX=$CACHE/linux-$KVER/vmlinux
echo "kernel: $(cat "$CACHE/linux-$KVER/package")"

# scripts/pahole-flags.sh (6.1) and scripts/Makefile.btf (6.12) for pahole 1.30
case $KVER in
6.1) sets=("61:$FLAGS_61" "612:$FLAGS_612" "globalvar:$FLAGS_GLOBALVAR") ;;
# 6.12 has KFUNCS sets in .BTF_ids, so decl_tag_kfuncs changes its output
6.12) sets=("612:$FLAGS_612"
	    "612-nokfuncs:$FLAGS_612_NOKFUNCS") ;;
# GCC 16: per-CPU pointers in address space 2 (DW_AT_address_class)
7.2) sets=("72:$FLAGS_72" "612:$FLAGS_612") ;;
*) echo "kernel.sh: unknown kernel $KVER" >&2; exit 2 ;;
esac

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
for set in "${sets[@]}"; do
	name=${set%%:*} flags=${set#*:}
	ref=$WORKDIR/ref-$name.btf
	# shellcheck disable=SC2086
	"$PAHOLE" -J -j2 $flags --btf_encode_detached="$ref" "$VMLINUX"
	[ -s "$ref" ] || { echo "FAIL (setup): pahole $PAHOLE_RELEASE wrote no $ref"; exit 1; }
	i=0
	for j in ${KERNEL_JOBS:-1 2 3 8 2} exact; do
		i=$((i + 1))
		opt=-j$j
		[ "$j" = exact ] && opt="--exact -j2"
		out=$WORKDIR/out-$name-run$i-j$j.btf
		start=$(date +%s%N)
		# shellcheck disable=SC2086
		if ! "$D2B" -J $opt $flags --btf_encode_detached="$out" "$VMLINUX"; then
			tally_fail "$name $opt: dwarf2btf failed"
			continue
		fi
		ms=$((($(date +%s%N) - start) / 1000000))
		if cmp "$ref" "$out"; then
			tally_ok "$name $opt: identical to pahole $PAHOLE_RELEASE ($(stat -c %s "$out") bytes, ${ms} ms)"
			rm -f "$out"
		else
			tally_fail "$name $opt: differs from pahole $PAHOLE_RELEASE"
			"$BTFDIFF" "$ref" "$out" || true
		fi
	done
done
# In place, as the kernel's link-vmlinux.sh runs it (LLVM_OBJCOPY=$OBJCOPY):
# Debian's vmlinux already has a .BTF (replaced through libelf); with it
# renamed away, the section is added with objcopy. Whole files compared.
if [ "$KVER" = 6.1 ] && [ "${KERNEL_INPLACE:-1}" = 1 ]; then
	name=${sets[0]%%:*} flags=${sets[0]#*:}
	for step in replace add; do
		ref=$WORKDIR/inplace-ref out=$WORKDIR/inplace-out
		if [ $step = replace ]; then
			cp "$VMLINUX" "$ref"
		else
			objcopy --rename-section .BTF=.BTF.debian "$VMLINUX" "$ref"
		fi
		cp "$ref" "$out"
		# shellcheck disable=SC2086
		LLVM_OBJCOPY=objcopy "$PAHOLE" -J -j2 $flags "$ref"
		# shellcheck disable=SC2086
		if ! LLVM_OBJCOPY=objcopy "$D2B" -J -j2 $flags "$out"; then
			tally_fail "in place ($step): dwarf2btf failed"
		elif cmp "$ref" "$out"; then
			tally_ok "in place ($step): identical to pahole $PAHOLE_RELEASE's file"
		else
			tally_fail "in place ($step): files differ"
		fi
		rm -f "$ref" "$out"
	done
fi
tally_end
