#!/usr/bin/env bash
# serial-path.sh - the part of a vmlinux encode no thread count shortens,
# and what it predicts for more CPUs.
#
# For each kernel and each dwarf2btf given, round-robin, --runs times:
#  * at -j2, from -V: the writer thread's CPU time and the wall time of the
#    phases after the loads (merge, funcs, dedup, write); the serial path is
#    their sum;
#  * at -j1, under /usr/bin/time: wall, CPU (user + sys), peak RSS, and the
#    Amdahl split of that CPU time: serial S = the open phase's wall + the
#    writer's CPU + the phases after the loads, parallel P = the rest;
#    predicted -jN wall = S + P / N (a prediction, labelled as one: the
#    batch dedups run at most 4 at once, and memory bandwidth is shared).
# Prints medians, one table per kernel, Markdown. Every output is cmp'ed
# against the first dwarf2btf's, so the binaries compared give the same
# bytes.
#
# Usage: bash bench/serial-path.sh [--runs N] [--kernels "6.1 7.2"] [--cpus N]
#                                  [--bin PATH]...
#   --bin PATH   a dwarf2btf to measure (default: build/dwarf2btf, built if
#                missing); give it twice to compare two builds
#   --cpus N     the N of the prediction (default 16)
#   --runs N     runs per binary and -j (default 5)
#
# Inputs: Debian's cloud debug vmlinux (tests/fetch.sh kernel61, kernel72),
# each with the flags its Kbuild passes pahole 1.30 (tests/lib.sh).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
runs=5
kernels="6.1 7.2"
cpus=16
bins=()

die() { echo "serial-path.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--kernels) kernels=${2:?}; shift 2 ;;
	--cpus) cpus=${2:?}; shift 2 ;;
	--bin) bins+=("$(realpath "${2:?}")"); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "--cpus wants a positive number"
if [ ${#bins[@]} -eq 0 ]; then
	[ -x "$top/build/dwarf2btf" ] || { cmake -S "$top" -B "$top/build" >/dev/null &&
		cmake --build "$top/build" -j"$(nproc)" --target dwarf2btf >/dev/null; }
	bins=("$top/build/dwarf2btf")
fi
unset DWARF2BTF_PAHOLE_VERSION
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-serial.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for k in $kernels; do
	case $k in 6.1) flags=$FLAGS_61 ;; 6.12) flags=$FLAGS_612 ;; 7.2) flags=$FLAGS_72 ;;
	*) die "--kernels wants 6.1, 6.12 or 7.2, not $k" ;; esac
	"$top/tests/fetch.sh" "kernel${k//./}" >/dev/null
	vmlinux=$CACHE/linux-$k/vmlinux
	for r in $(seq "$runs"); do
		for i in "${!bins[@]}"; do
			b=${bins[$i]}
			# shellcheck disable=SC2086
			"$b" -J -j2 -V $flags --btf_encode_detached="$tmp/out" "$vmlinux" 2>"$tmp/v"
			if [ "$i" -eq 0 ]; then cp "$tmp/out" "$tmp/ref"; else cmp -s "$tmp/ref" "$tmp/out" ||
				die "$b: $k: not the bytes of ${bins[0]}"; fi
			awk -v f="$tmp/$k.$i" '
				/^dwarf2btf: (merge|funcs|dedup|write) / { t += $4; p[$2] = $4 }
				/writer thread/ { for (i = 1; i <= NF; i++) if ($i == "writer") w = $(i + 2) }
				END { printf "%s %s %s %s %s %s\n", w, p["merge"], p["funcs"], p["dedup"],
				      p["write"], w + t >> f }' "$tmp/v"
			# shellcheck disable=SC2086
			/usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$b" -J -j1 -V $flags \
				--btf_encode_detached="$tmp/out" "$vmlinux" 2>"$tmp/v"
			cmp -s "$tmp/ref" "$tmp/out" || die "$b: $k: -j1 is not the bytes of -j2"
			awk -v f="$tmp/$k.$i.j1" -v t="$(cat "$tmp/t")" '
				/^dwarf2btf: open / { s += $4 }
				/^dwarf2btf: (merge|funcs|dedup|write) / { s += $4 }
				/writer thread/ { for (i = 1; i <= NF; i++) if ($i == "writer") s += $(i + 2) }
				END { split(t, a, " "); c = a[2] + a[3]
				      printf "%s %s %s %s %s\n", a[1], c, a[4] / 1024, s, c - s >> f }' "$tmp/v"
		done
	done
	echo
	echo "$k vmlinux, medians of $runs; -j2 from -V (s), -j1 under /usr/bin/time:"
	echo
	echo "| dwarf2btf | writer CPU | merge | funcs | dedup | write | **serial path** | -j1 wall | -j1 CPU | -j1 RSS | S | P | predicted -j$cpus |"
	echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	for i in "${!bins[@]}"; do
		row="| \`${bins[$i]}\`"
		for c in 1 2 3 4 5; do row+=" | $(cut -d' ' -f$c "$tmp/$k.$i" | median)"; done
		row+=" | **$(cut -d' ' -f6 "$tmp/$k.$i" | median) s**"
		row+=" | $(cut -d' ' -f1 "$tmp/$k.$i.j1" | median) s | $(cut -d' ' -f2 "$tmp/$k.$i.j1" | median) s"
		row+=" | $(cut -d' ' -f3 "$tmp/$k.$i.j1" | median) MiB"
		s=$(cut -d' ' -f4 "$tmp/$k.$i.j1" | median)
		p=$(cut -d' ' -f5 "$tmp/$k.$i.j1" | median)
		row+=" | $s | $p | $(awk -v s="$s" -v p="$p" -v n="$cpus" 'BEGIN { printf "%.3f", s + p / n }') s |"
		echo "$row"
	done
done
