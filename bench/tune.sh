#!/usr/bin/env bash
# tune.sh - measure a tuning constant on a real kernel: one dwarf2btf build
# per value of a compile-time constant (-DNAME=VALUE), run round-robin at
# each -j; median wall time, CPU time (user + sys) and peak RSS per value,
# as a Markdown table on standard output. Every output is compared with cmp
# to the first value's: a tuning constant must not change a byte.
#
# Usage: bash bench/tune.sh --define NAME --values "V1 V2 ..." [--runs N]
#                           [--jobs "1 2"] [--kernel 6.1|6.12]
#
#   BTF_BATCH_TYPES         types per dedup batch (btf_batches.h; 0: none)
#   EMIT_ORDERED_WINDOW_PER_JOB
#                           units loaded ahead of the encoder, per -j
#                           (dwarves_emit_ordered.h)
#
# Not a test: it asserts no timing. The tables in Documentation/performance.md
# came from it, with the command lines it prints.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="bash bench/tune.sh$(printf ' %q' "$@")"
runs=3
jobs="1 2"
kver=6.1
define=
values=
CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}

die() { echo "tune.sh: $*" >&2; exit 1; }
log() { echo "tune.sh: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--kernel) kver=${2:?}; shift 2 ;;
	--define) define=${2:?}; shift 2 ;;
	--values) values=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
read -ra jobs <<<"$jobs"
[[ $define =~ ^[A-Z_][A-Z0-9_]*$ ]] || die "--define wants a constant's name"
read -ra vals <<<"$values"
[ ${#vals[@]} -gt 0 ] || die "--values wants at least one value"
for n in "${jobs[@]}" "${vals[@]}"; do [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"; done
case $kver in 6.1 | 6.12) ;; *) die "--kernel wants 6.1 or 6.12" ;; esac

"$top/tests/fetch.sh" deps
"$top/tests/fetch.sh" "kernel${kver/./}"
[ -x /usr/bin/time ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-tune.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for n in "${vals[@]}"; do
	log "building with $define=$n"
	cmake -S "$top" -B "$tmp/build-$n" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="-D$define=$n" >/dev/null
	cmake --build "$tmp/build-$n" -j"$(nproc)" --target dwarf2btf >/dev/null
done

vmlinux=$CACHE/linux-$kver/vmlinux
# shellcheck disable=SC2054 # the commas are part of the argument
flags=(--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
       --lang_exclude=rust)
cat "$vmlinux" >/dev/null
results=$tmp/results # lines: j size wall user sys rss_kib
for j in "${jobs[@]}"; do
	for ((r = 1; r <= runs; r++)); do
		for n in "${vals[@]}"; do
			out=$tmp/out-$n.btf
			rm -f "$out"
			/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$tmp/build-$n/dwarf2btf" -J "-j$j" \
				"${flags[@]}" --btf_encode_detached="$out" "$vmlinux"
			echo "$j $n $(cat "$tmp/time")" >>"$results"
			log "-j$j $define=$n: $(cat "$tmp/time") (wall user sys KiB)"
			cmp "$out" "$tmp/out-${vals[0]}.btf" || die "$define=$n: output differs from ${vals[0]}'s"
		done
	done
done

median() {
	awk -v j="$1" -v n="$2" -v f="$3" '$1 == j && $2 == n {
		print f == "wall" ? $3 : f == "cpu" ? $4 + $5 : $6 / 1024 }' "$results" |
		sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2)
			printf "%.2f\n", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
echo "Command: \`$cmdline\` ($(date -u +%Y-%m-%d), $(nproc) CPUs, kernel $kver, $runs runs," \
	"medians; every output identical to ${vals[0]}'s)"
echo
hdr="| $define |" sep="|---|"
for j in "${jobs[@]}"; do
	hdr+=" -j$j wall s | -j$j CPU s | -j$j peak RSS MiB |"
	sep+="---|---|---|"
done
echo "$hdr"
echo "$sep"
for n in "${vals[@]}"; do
	printf '| %s |' "$n"
	for j in "${jobs[@]}"; do
		printf ' %s | %s | %s |' "$(median "$j" "$n" wall)" "$(median "$j" "$n" cpu)" \
			"$(median "$j" "$n" rss)"
	done
	echo
done
