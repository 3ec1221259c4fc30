#!/usr/bin/env bash
# bench.sh - benchmark dwarf2btf against pahole 1.30 and pahole 1.24 on a real
# Debian kernel, next to a "floor" (bench/dwarf_walk.c: a bare parallel libdw
# walk over every DIE), and write the results as Markdown and a PNG plot.
#
# Usage: bash bench/bench.sh [--runs N] [--jobs "1 2 N"] [--kernel 6.1|6.12]
#                            [--out FILE] [--build DIR]
#
#   --runs N       timed runs per tool and -j value (default 5); the table
#                  shows medians
#   --jobs LIST    thread counts to measure (default "1 2 $(nproc)")
#   --kernel VER   Debian cloud debug vmlinux to encode: 6.1 or 6.12 (default 6.1)
#   --out FILE     Markdown file to write (default Documentation/performance.md
#                  in the repository); only the region between
#                  "<!-- bench:begin -->" and "<!-- bench:end -->" is replaced,
#                  so hand-written text around it survives. The plot goes next
#                  to it as performance-scaling.png.
#   --build DIR    build directory (default build-bench in the repository)
#
# Runs on a fresh Debian 12 machine as root: it installs what it needs
# (tests/fetch.sh, gnuplot-nox, time), builds dwarf2btf and dwarf_walk, then
# for every -j value runs the four programs round-robin (dwarf2btf, pahole
# 1.30, pahole 1.24, floor, dwarf2btf, ...) under /usr/bin/time, so that
# drifting machine load spreads evenly over them. After every round it checks
# with cmp that dwarf2btf wrote exactly pahole 1.30's bytes, and aborts if not.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="bash bench/bench.sh$(printf ' %q' "$@")"
runs=5
jobs="1 2 $(nproc)"
kver=6.1
out=$top/Documentation/performance.md
build=$top/build-bench
CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}

die() { echo "bench.sh: $*" >&2; exit 1; }
log() { echo "bench.sh: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--kernel) kver=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--build) build=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
read -ra jobs <<<"$jobs"
[ ${#jobs[@]} -gt 0 ] || die "--jobs wants at least one number"
for j in "${jobs[@]}"; do [[ $j =~ ^[1-9][0-9]*$ ]] || die "--jobs wants numbers: ${jobs[*]}"; done
mapfile -t jobs < <(printf '%s\n' "${jobs[@]}" | sort -nu)	# "1 2 $(nproc)" may repeat
case $kver in 6.1 | 6.12) ;; *) die "--kernel wants 6.1 or 6.12" ;; esac
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
png=$(dirname "$out")/performance-scaling.png

# --- dependencies -----------------------------------------------------------
for what in deps pahole130 pahole124 "kernel${kver/./}"; do
	"$top/tests/fetch.sh" "$what"
done
need=()
command -v gnuplot >/dev/null || need+=(gnuplot-nox)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
	log "installing ${need[*]}"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# --- build ------------------------------------------------------------------
qb=$(printf %q "$build")
build_cmds=(
	"cmake -S . -B $qb -DCMAKE_BUILD_TYPE=RelWithDebInfo"
	"cmake --build $qb -j$(nproc)"
	"gcc -O2 -o $qb/dwarf_walk bench/dwarf_walk.c -ldw -lelf -lpthread"
)
for c in "${build_cmds[@]}"; do
	log "$c"
	(cd "$top" && eval "$c") >/dev/null
done

vmlinux=$CACHE/linux-$kver/vmlinux
package=$(cat "$CACHE/linux-$kver/package")
p130=$CACHE/pahole-1.30/bin/pahole130
p124=$CACHE/pahole-1.24/bin/pahole124
# shellcheck disable=SC2054 # the commas are part of the argument
flags=(--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
       --lang_exclude=rust)
# pahole 1.24 predates --btf_features: the closest legacy flags it accepts.
flags124=() dropped124=()
for f in --btf_gen_floats --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized; do
	if "$p124" "$f" --version >/dev/null 2>&1; then flags124+=("$f"); else dropped124+=("$f"); fi
done
[ ${#dropped124[@]} -eq 0 ] || log "pahole 1.24 rejects ${dropped124[*]}: running it without them"

# --- measure ----------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
results=$tmp/results		# lines: j tool wall user sys rss_kib
tools="d2b p130 p124 floor"
declare -A name=([d2b]=dwarf2btf [p130]="pahole 1.30" [p124]="pahole 1.24"
		 [floor]="floor (dwarf_walk)")

# run_one TOOL J : one timed run, its numbers appended to $results
run_one() {
	local tool=$1 j=$2 cmd
	case $tool in
	d2b) cmd=("$build/dwarf2btf" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/d2b-j$j.btf" "$vmlinux") ;;
	p130) cmd=("$p130" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/p130-j$j.btf" "$vmlinux") ;;
	p124) cmd=("$p124" -J "-j$j" "${flags124[@]}" "--btf_encode_detached=$tmp/p124-j$j.btf" "$vmlinux") ;;
	floor) cmd=("$build/dwarf_walk" "-j$j" "$vmlinux") ;;
	esac
	rm -f "$tmp/$tool-j$j.btf"
	if ! /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "${cmd[@]}" >"$tmp/log" 2>&1; then
		cat "$tmp/log" >&2
		die "failed: ${cmd[*]}"
	fi
	echo "$j $tool $(tail -n1 "$tmp/time")" >>"$results"
	log "-j$j ${name[$tool]}: $(tail -n1 "$tmp/time") (wall user sys KiB)"
}

log "input $vmlinux ($package); reading it into the page cache"
cat "$vmlinux" >/dev/null
load=$(cut -d' ' -f1-3 /proc/loadavg)
for j in "${jobs[@]}"; do
	for ((r = 1; r <= runs; r++)); do
		for tool in $tools; do
			run_one "$tool" "$j"
		done
		# A benchmark of wrong output is meaningless.
		if ! cmp "$tmp/d2b-j$j.btf" "$tmp/p130-j$j.btf"; then
			echo "bench.sh: *** dwarf2btf -j$j output DIFFERS from pahole 1.30 -j$j (run $r) ***" >&2
			exit 1
		fi
	done
done

# --- report -----------------------------------------------------------------
# median J TOOL FIELD : median over the runs; FIELD is wall, cpu or rss (MiB)
median() {
	awk -v j="$1" -v t="$2" -v f="$3" '$1 == j && $2 == t {
		v = f == "wall" ? $3 : f == "cpu" ? $4 + $5 : $6 / 1024; print v }' "$results" |
		sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2)
			printf "%.2f\n", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

section=$tmp/section.md
plotdata=$tmp/scaling.dat
model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
{
	echo "<!-- bench:begin -->"
	echo "<!-- Generated by bench/bench.sh; edits between these markers are overwritten. -->"
	echo
	echo "## Kernel $kver: dwarf2btf, pahole 1.30, pahole 1.24 and the floor"
	echo
	echo "* date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "* command: \`$cmdline\`"
	echo "* machine: $(nproc) CPUs (nproc), $model, $mem memory; load average at start: $load"
	echo "* input: \`$package\` ($(stat -c %s "$vmlinux") bytes of vmlinux)"
	echo "* dwarf2btf and pahole 1.30: \`-J -jN ${flags[*]} --btf_encode_detached=FILE\`"
	echo "* pahole 1.24: \`-J -jN ${flags124[*]} --btf_encode_detached=FILE\`$(
		[ ${#dropped124[@]} -eq 0 ] || echo " (it rejects \`${dropped124[*]}\`, so runs without them)")"
	echo "* floor: \`dwarf_walk -jN\` (bench/dwarf_walk.c: every DIE's tag and attributes"
	echo "  read with libdw, parallel over CUs, nothing else)"
	# shellcheck disable=SC2016 # backquotes are Markdown here
	echo "* builds: $(printf '`%s`; ' "${build_cmds[@]}" | sed 's/; $//')"
	echo "* method: median of $runs run(s) per cell, programs run round-robin, each under"
	echo "  \`/usr/bin/time\`; CPU is user + sys; RSS is the maximum resident set. Every"
	echo "  dwarf2btf output was checked with \`cmp\` to equal pahole 1.30's."
	for j in "${jobs[@]}"; do
		echo
		echo "### -j$j"
		echo
		echo "| program | wall s | CPU s | max RSS MiB |"
		echo "|---|--:|--:|--:|"
		for tool in $tools; do
			echo "| ${name[$tool]} | $(median "$j" "$tool" wall) | $(median "$j" "$tool" cpu) | $(median "$j" "$tool" rss) |"
		done
		echo "| **dwarf2btf / pahole 1.30** | $(ratio "$(median "$j" d2b wall)" "$(median "$j" p130 wall)")x" \
		     "| $(ratio "$(median "$j" d2b cpu)" "$(median "$j" p130 cpu)")x" \
		     "| $(ratio "$(median "$j" d2b rss)" "$(median "$j" p130 rss)")x |"
		echo "$j $(for tool in $tools; do median "$j" "$tool" wall; done | tr '\n' ' ')" >>"$plotdata"
	done
	echo
	echo "![wall time against -j](performance-scaling.png)"
	echo
	echo "<!-- bench:end -->"
} >"$section"

gnuplot <<PLOT
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "$png"
set title "BTF encoding of $package: wall time (median of $runs)"
set xlabel "threads (-j)"
set ylabel "wall time, s"
set logscale x 2
set xrange [${jobs[0]} * 0.8 : ${jobs[-1]} * 1.25]
set xtics ($(IFS=,; echo "${jobs[*]}"))
set yrange [0:*]
set key top right
set grid
plot for [c=2:5] "$plotdata" using 1:c with linespoints lw 2 pt 7 \
	title word("dwarf2btf pahole-1.30 pahole-1.24 floor", c - 1)
PLOT

# Replace the generated region of $out, or create/extend the file.
if [ ! -f "$out" ]; then
	cat >"$out" <<'HEADER'
# Performance

How fast dwarf2btf encodes a real kernel, next to pahole 1.30, pahole 1.24
and a bare libdw walk (the floor). The section between the bench markers is
generated by `bench/bench.sh`; text outside them survives a rerun.

HEADER
fi
if grep -q '^<!-- bench:begin -->' "$out" && grep -q '^<!-- bench:end -->' "$out"; then
	awk -v sec="$section" '
		/^<!-- bench:begin -->/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/^<!-- bench:end -->/ { skip = 0; next }
		!skip' "$out" >"$tmp/out.md"
	cat "$tmp/out.md" >"$out"
else
	cat "$section" >>"$out"
fi

sed '/^<!--/d; /^!\[/d' "$section"
log "wrote $out and $png"
