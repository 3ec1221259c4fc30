#!/usr/bin/env bash
# module-tree.sh - every module of one of Debian's cloud kernels (7.2 by
# default, 6.1 or 6.12) against pahole 1.30 (or $DWARF2BTF_PAHOLE_VERSION:
# tests/lib.sh), as a kernel build encodes them.
#
# Usage: tests/module-tree.sh DWARF2BTF WORKDIR [6.1|6.12|7.2]
#
# Fetches (once, cached: tests/fetch.sh moduletree72 and the like, 1 to
# 2 GB unpacked) every .ko of the kernel's debug package, and encodes each
# as Makefile.modfinal does: split BTF against the vmlinux, with that
# kernel's flags (kbuild_flags) and the bare -j Kbuild passes, by pahole and
# by dwarf2btf, and by dwarf2btf --exact (the path without shortcuts);
# cmp's both against pahole's. Modules run $(nproc) at a time (2 CPUs: 260 s
# for 7.2's 1,018 modules, 4.4 minutes with the fetch cached). The last
# line is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 DWARF2BTF WORKDIR [6.1|6.12|7.2]" >&2; exit 2; }
D2B=$1 WORKDIR=$2 KVER=${3:-7.2}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
FLAGS=$(kbuild_flags "$KVER")
[ -n "$FLAGS" ] || { echo "$0: kernel must be 6.1, 6.12 or 7.2" >&2; exit 2; }

"$here/fetch.sh" "$PAHOLE_FETCH"
"$here/fetch.sh" "moduletree${KVER/./}"
BASE=$CACHE/linux-$KVER/vmlinux
MODDIR=$CACHE/linux-$KVER/module-tree
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# one_module KO: prints "ok: NAME" or "FAIL: NAME: why" (several lines)
one_module() {
	local ko=$1 mod w
	mod=$(basename "$ko" .ko)
	w=$WORKDIR/$mod
	mkdir -p "$w"
	# shellcheck disable=SC2086
	if ! "$PAHOLE" -J $FLAGS -j --btf_base "$BASE" --btf_encode_detached="$w/ref.btf" \
		"$ko" >"$w/log" 2>&1; then
		echo "FAIL: $mod: pahole $PAHOLE_RELEASE failed: $(head -c 300 "$w/log")"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$D2B" -J $FLAGS -j --btf_base "$BASE" --btf_encode_detached="$w/out.btf" \
		"$ko" >"$w/log" 2>&1; then
		echo "FAIL: $mod: dwarf2btf failed: $(head -c 300 "$w/log")"
	elif ! cmp -s "$w/ref.btf" "$w/out.btf"; then
		echo "FAIL: $mod: differs from pahole $PAHOLE_RELEASE"
	# shellcheck disable=SC2086
	elif ! "$D2B" -J $FLAGS --exact --btf_base "$BASE" \
		--btf_encode_detached="$w/exact.btf" "$ko" >"$w/log" 2>&1; then
		echo "FAIL: $mod: dwarf2btf --exact failed: $(head -c 300 "$w/log")"
	elif ! cmp -s "$w/ref.btf" "$w/exact.btf"; then
		echo "FAIL: $mod: --exact differs from pahole $PAHOLE_RELEASE"
	else
		echo "ok: $mod"
		rm -rf "$w"
	fi
}
export -f one_module
export D2B PAHOLE PAHOLE_RELEASE FLAGS BASE WORKDIR

start=$(date +%s)
find "$MODDIR" -name '*.ko' | sort >"$WORKDIR/list"
echo "kernel: $(cat "$CACHE/linux-$KVER/package"), $(wc -l <"$WORKDIR/list") modules"
xargs -P "$(nproc)" -I{} bash -c 'one_module "$1"' _ {} <"$WORKDIR/list" >"$WORKDIR/results"
grep -v '^ok: ' "$WORKDIR/results" || true
while read -r line; do
	case $line in
	ok:*) tally_ok ;;
	FAIL:*) tally_fail ;;
	esac
done <"$WORKDIR/results"
[ "$tally_passed" -eq "$(wc -l <"$WORKDIR/list")" ] ||
	tally_fail "$(wc -l <"$WORKDIR/list") modules, $tally_passed identical"
echo "$(($(date +%s) - start)) s for $(wc -l <"$WORKDIR/list") modules"
tally_end
