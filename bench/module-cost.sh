#!/usr/bin/env bash
# module-cost.sh - one small module's CPU time, the fixed cost every module
# of a kernel build pays: split BTF of a cached 7.2 module against the 7.2
# vmlinux, with 7.2's flags and the bare -j Makefile.modfinal passes, by
# each dwarf2btf binary given, round-robin. A benchmark, not a test.
#
# Usage: bash bench/module-cost.sh [--rounds N] [--module NAME] BINARY...
#
#   --rounds N     rounds (default 8), each binary once a round, each time
#                  as `perf stat -r 20`
#   --module NAME  the cached module (default ah4: tests/fetch.sh modules72)
#
# Prints, per binary, the median over the rounds of the mean task-clock
# (CPU time, ms) of its 20 runs, the smallest and largest, and its page
# faults. Every output is cmp'd with the first binary's. Needs perf.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rounds=8
module=ah4
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--module) module=${2:?}; shift 2 ;;
	-*) echo "usage: $0 [--rounds N] [--module NAME] BINARY..." >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--rounds N] [--module NAME] BINARY..." >&2; exit 2; }
unset DWARF2BTF_PAHOLE_VERSION
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
"$top/tests/fetch.sh" kernel72
"$top/tests/fetch.sh" modules72
ko=$CACHE/linux-7.2/modules/$module.ko
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < rounds; r++)); do
	for ((i = 1; i <= $#; i++)); do
		bin=${!i}
		# shellcheck disable=SC2086
		perf stat -x, -e task-clock,page-faults -r 20 -o "$tmp/stat" "$bin" -J $FLAGS_72 -j \
			--btf_base "$CACHE/linux-7.2/vmlinux" --btf_encode_detached="$tmp/$i.btf" "$ko"
		awk -F, '$3 == "task-clock" { t = $1 } $3 == "page-faults" { f = $1 }
			END { print t, f }' "$tmp/stat" >>"$tmp/$i.times"
		cmp -s "$tmp/1.btf" "$tmp/$i.btf" || { echo "$bin: output differs from $1's" >&2; exit 1; }
	done
done
echo "$module.ko of \`$(cat "$CACHE/linux-7.2/package")\`, 7.2's flags, bare -j, $(nproc) CPUs;" \
	"$rounds rounds of 20 runs, round-robin; every output the same"
for ((i = 1; i <= $#; i++)); do
	sort -n "$tmp/$i.times" | awk -v b="${!i}" '{ t[NR] = $1; f = $2 }
		END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
		      printf "%s: task-clock %.2f ms (%.2f to %.2f), %d page faults\n", b, m, t[1], t[NR], f }'
done
