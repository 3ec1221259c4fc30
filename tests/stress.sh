#!/usr/bin/env bash
# stress.sh - concurrency stress on real inputs (tests/stress_kernel.c):
# injected worker delays, a CU 0 held until the window is full, identical
# output at every -j, the window bound, memory within it, no deadlock.
#
# Usage: tests/stress.sh STRESS_KERNEL WORKDIR full|quick
#
#   full   Debian's 6.1 vmlinux at every -j from 1 to 64, 6.12 flags
#          (CTest test stress_kernel, label kernel; about 10 minutes on 2 cores)
#   quick  xfs.ko's split BTF against that vmlinux at -j 1,2,3,8,17,64;
#          xfs.ko alone (no base: its BTF goes through the dedup batches,
#          whose size varies with -j, down to one CU per batch at -j3) at
#          -j 1-5,8; then
#          three self-tests on xfs.ko (104 CUs, more than the window) at
#          -j2, which must fail:
#          a bound asserted one below the window, a pipeline run without
#          its window, and a CU 0 that never loads (the watchdog)
#          (CTest test stress_module, label reliability: it also runs in
#          the ASan/UBSan and TSan builds)
#
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 3 ] || { echo "usage: $0 STRESS_KERNEL WORKDIR full|quick" >&2; exit 2; }
STRESS=$1 WORKDIR=$2 MODE=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

VMLINUX=$CACHE/linux-6.1/vmlinux
MODDIR=$CACHE/linux-6.1/modules
read -r -a flags <<<"$FLAGS_612"
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

case $MODE in
full)
	"$here/fetch.sh" kernel61 || exit 1
	exec "$STRESS" --jobs 1-64 "$VMLINUX" "$WORKDIR" "${flags[@]}"
	;;
quick)
	"$here/fetch.sh" modules61 || exit 1
	if "$STRESS" --jobs 1,2,3,8,17,64 "$MODDIR/xfs.ko" "$WORKDIR/xfs" "${flags[@]}" \
		--btf_base="$VMLINUX"; then
		tally_ok
	else
		tally_fail
	fi
	if "$STRESS" --jobs 1-5,8 "$MODDIR/xfs.ko" "$WORKDIR/xfs-alone" "${flags[@]}"; then
		tally_ok
	else
		tally_fail
	fi
	# the checks must bite: each self-test has to fail at -j2, and say why
	for t in 'bound:in flight [0-9]* > window' \
		'unbounded:[0-9]* units >= the window started' \
		'hang:no result after 20 s (deadlock?)'; do
		name=${t%%:*} want=${t#*:}
		out=$WORKDIR/self-test-$name.log
		if "$STRESS" --self-test="$name" --watchdog 20 --jobs 1,2 "$MODDIR/xfs.ko" \
			"$WORKDIR/$name" "${flags[@]}" --btf_base="$VMLINUX" >"$out" 2>&1; then
			tally_fail "self-test $name: the stress test passed with the fault injected"
		elif grep -q -- "FAIL: -j2: $want" "$out"; then
			tally_ok "self-test $name: caught ($(grep -m1 -- "FAIL: -j2: $want" "$out"))"
		else
			tally_fail "self-test $name: failed, but not as expected:"
			cat "$out"
		fi
	done
	tally_end
	;;
*)
	echo "usage: $0 STRESS_KERNEL WORKDIR full|quick" >&2
	exit 2
	;;
esac
