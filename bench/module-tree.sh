#!/usr/bin/env bash
# module-tree.sh - the module step of a kernel build, timed: every module of
# Debian's 7.2 cloud kernel encoded as Makefile.modfinal encodes it (split
# BTF against the vmlinux, 7.2's flags, the bare -j Kbuild passes, one
# process per module, $(nproc) at once), by pahole 1.30 and by dwarf2btf,
# in turn, each output cmp'd with pahole's. A benchmark, not a test.
#
# Usage: bash bench/module-tree.sh [--runs N] [--build DIR] [--results FILE]
#
#   --runs N        rounds, each tool once a round (default 3); medians
#   --build DIR     the build whose dwarf2btf runs (default build)
#   --results FILE  also append the numbers to FILE as bench/bench.sh
#                   reports them: "tree TOOL WALL CPU RSS_KIB MODULE SLOWEST
#                   SECONDS" lines and a "# tree: ..." note
#
# Prints, per tool, the median wall time of the whole tree, the CPU time
# (user + system, every process), the largest peak RSS of one process, and
# the slowest module; then the ratios. Needs tests/fetch.sh's moduletree72
# (fetched here, 2 GB unpacked) and pahole130.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=3
build=$top/build
results=
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--build) build=${2:?}; shift 2 ;;
	--results) results=${2:?}; shift 2 ;;
	*) echo "usage: $0 [--runs N] [--build DIR] [--results FILE]" >&2; exit 2 ;;
	esac
done
# pahole 1.30's flags and bytes, whatever release the environment names
unset DWARF2BTF_PAHOLE_VERSION
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
"$top/tests/fetch.sh" pahole130
"$top/tests/fetch.sh" moduletree72
base=$CACHE/linux-7.2/vmlinux
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find "$CACHE/linux-7.2/module-tree" -name '*.ko' | sort >"$tmp/list"
declare -A prog=([pahole]=$CACHE/pahole-1.30/bin/pahole130 [dwarf2btf]=$build/dwarf2btf)

# one_tree TOOL ROUND: the tree by TOOL, $(nproc) at once; one line per module
# in $tmp/TOOL.ROUND: wall, user, system (s), peak RSS (KB), module
one_tree() {
	local tool=$1 r=$2 start
	# (pahole 1.30 does not truncate an output file that exists)
	rm -rf "${tmp:?}/$tool"
	mkdir -p "$tmp/$tool"
	start=$(date +%s.%N)
	# shellcheck disable=SC2016
	xargs -P "$(nproc)" -I{} sh -c '/usr/bin/time -a -o "$1" -f "%e %U %S %M $(basename "$3")" \
		"$2" -J $4 -j --btf_base "$5" --btf_encode_detached="$6/$(basename "$3").btf" "$3" \
		>/dev/null 2>&1' _ "$tmp/$tool.$r" "${prog[$tool]}" {} "$FLAGS_72" "$base" "$tmp/$tool" \
		<"$tmp/list"
	awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }' >>"$tmp/$tool.wall"
}

for ((r = 1; r <= runs; r++)); do
	for tool in pahole dwarf2btf; do
		one_tree "$tool" "$r"
	done
done
differ=0
while read -r ko; do
	cmp -s "$tmp/pahole/$(basename "$ko").btf" "$tmp/dwarf2btf/$(basename "$ko").btf" ||
		differ=$((differ + 1))
done <"$tmp/list"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
what="$(wc -l <"$tmp/list") modules of \`$(cat "$CACHE/linux-7.2/package")\`, a process each"
what+=" with 7.2's flags and the bare -j, $(nproc) at once, $runs round(s)"
echo "$what; outputs differing from pahole 1.30's: $differ"
[ -z "$results" ] || echo "# tree: $what; outputs differing from pahole 1.30's: $differ" >>"$results"
for tool in pahole dwarf2btf; do
	wall=$(median <"$tmp/$tool.wall")
	cpu=$(for ((r = 1; r <= runs; r++)); do
		awk '{ s += $2 + $3 } END { print s }' "$tmp/$tool.$r"; done | median)
	rss=$(cat "$tmp/$tool".[0-9]* | sort -k4 -n | tail -1 | awk '{ print $4 / 1024 " MiB (" $5 ")" }')
	slow=$(cat "$tmp/$tool".[0-9]* | sort -k1 -n | tail -1 | awk '{ print $5 " " $1 " s" }')
	printf '%s: wall %.1f s, CPU %.1f s, largest peak RSS %s, slowest %s\n' \
		"$tool" "$wall" "$cpu" "$rss" "$slow"
	[ -z "$results" ] || cat "$tmp/$tool".[0-9]* | sort -k4 -n | tail -1 | {
		read -r _ _ _ rss_kib rss_ko
		read -r slow_s slow_ko < <(cat "$tmp/$tool".[0-9]* | sort -k1 -n | tail -1 | awk '{ print $1, $5 }')
		echo "tree $tool $wall $cpu $rss_kib $rss_ko $slow_ko $slow_s" >>"$results"
	}
	echo "$wall $cpu" >"$tmp/$tool.sum"
done
read -r pw pc <"$tmp/pahole.sum"
read -r dw dc <"$tmp/dwarf2btf.sum"
awk -v pw="$pw" -v pc="$pc" -v dw="$dw" -v dc="$dc" \
	'BEGIN { printf "dwarf2btf / pahole 1.30: wall %.2fx, CPU %.2fx\n", dw / pw, dc / pc }'
[ "$differ" -eq 0 ]
