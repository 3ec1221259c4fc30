#!/usr/bin/env bash
# modules.sh - split BTF of real kernel modules against pahole 1.30 (or
# $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh).
#
# Usage: tests/modules.sh DWARF2BTF BTFDIFF WORKDIR 6.1|6.12|7.2
#
# For every cached module of that Debian kernel (tests/fetch.sh modules61 /
# modules612 / modules72: xfs, btrfs, mlx5_core and smaller ones) and each
# flag set the kernel generation passes, encodes split BTF against the
# kernel's vmlinux with pahole 1.30 and with dwarf2btf (-j1, -j2 and -j3 in
# turn; all three for the three largest modules; and --exact, the path
# without shortcuts), and cmp's them. Two modules are also encoded in
# place, as Makefile.modfinal does, and whole files compared.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 4 ] || { echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR 6.1|6.12|7.2" >&2; exit 2; }
D2B=$1 BTFDIFF=$2 WORKDIR=$3 KVER=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

"$here/fetch.sh" "$PAHOLE_FETCH"
"$here/fetch.sh" "modules${KVER/./}"
BASE=$CACHE/linux-$KVER/vmlinux
MODDIR=$CACHE/linux-$KVER/modules
echo "kernel: $(cat "$CACHE/linux-$KVER/package"), $(find "$MODDIR" -name '*.ko' | wc -l) modules"

case $KVER in
6.1) sets=("61:$FLAGS_61" "612:$FLAGS_612") ;;
6.12) sets=("612:$FLAGS_612") ;;
7.2) sets=("72:$FLAGS_72") ;;
*) echo "modules.sh: unknown kernel $KVER" >&2; exit 2 ;;
esac

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

for set in "${sets[@]}"; do
	name=${set%%:*} flags=${set#*:}
	for ko in "$MODDIR"/*.ko; do
		module_compare "$name $(basename "$ko" .ko)" "$ko" "$BASE" "$flags"
	done
	echo "set $name: done, $tally_passed passed, $tally_failed failed so far"
done

flags=${sets[0]#*:}
# in place, as Makefile.modfinal runs it (the modules already have a .BTF;
# the first flag set, as above)
for mod in xfs vfat; do
	ko=$MODDIR/$mod.ko
	[ -e "$ko" ] || continue
	cp "$ko" "$WORKDIR/ref.ko"
	cp "$ko" "$WORKDIR/out.ko"
	# shellcheck disable=SC2086
	LLVM_OBJCOPY=objcopy "$PAHOLE" -J $flags --btf_base "$BASE" "$WORKDIR/ref.ko"
	# shellcheck disable=SC2086
	if LLVM_OBJCOPY=objcopy "$D2B" -J -j2 $flags --btf_base "$BASE" "$WORKDIR/out.ko"; then
		if cmp -s "$WORKDIR/ref.ko" "$WORKDIR/out.ko"; then
			tally_ok
		else
			tally_fail "in place $mod: files differ"
		fi
	else
		tally_fail "in place $mod: dwarf2btf failed"
	fi
done
tally_end
