#!/usr/bin/env bash
# bench.sh - benchmark dwarf2btf against pahole 1.30 and pahole 1.24 on a real
# Debian kernel, next to a "floor" (bench/dwarf_walk.c: a bare parallel libdw
# walk over every DIE), and write the results as Markdown and a PNG plot.
#
# Usage: bash bench/bench.sh [--runs N] [--jobs "1 2 N"] [--kernel 6.1|6.12]
#                            [--out FILE] [--build DIR]
#        bash bench/bench.sh --pack DIR [--kernel 6.1|6.12] [--build DIR]
#        bash bench/bench.sh --packed DIR --out FILE [--runs N] [--jobs ...]
#        bash bench/bench.sh --results FILE [--out FILE]
#
#   --runs N       timed runs per tool and -j value (default 5); the table
#                  shows medians
#   --jobs LIST    thread counts to measure (default "1 2 $(nproc)")
#   --kernel VER   Debian cloud debug vmlinux to encode: 6.1 or 6.12 (default 6.1)
#   --out FILE     Markdown file to write (default Documentation/performance.md
#                  in the repository). Each machine size has its own region:
#                  only the one between "<!-- bench:begin Ncpu -->" and
#                  "<!-- bench:end Ncpu -->" (N: the measuring machine's CPU
#                  count) is replaced, or appended if missing, so hand-written
#                  text and other machines' results survive. The plot goes
#                  next to it as performance-scaling-Ncpu.png, and the raw
#                  results as performance-results-Ncpu.txt.
#   --build DIR    build directory (default build-bench in the repository)
#   --pack DIR     build and fetch as usual, then write into DIR (ignored by
#                  git as .scaling) everything a run needs on a machine that
#                  has neither Debian packages nor a network: the vmlinux
#                  without code, relocations and line tables (objcopy
#                  --only-keep-debug, .BTF_ids kept; xz, about 54 MB) and the
#                  four programs with the libraries they load (ld.so
#                  --library-path), about 7 MB. A vmlinux of the same
#                  package already in DIR is kept. Nothing is measured.
#   --packed DIR   measure with what --pack wrote (unpacked with python3, so
#                  no xz or tar is needed), without installing or building;
#                  timing through /usr/bin/time, or python3's wait4() if it is
#                  missing; no plot if gnuplot is missing.
#   --results FILE only report: the Markdown section and plot from the raw
#                  results of an earlier run (its performance-results-*.txt)
#
# On a 16-core machine without Debian packages or network, which takes at
# most 64 MiB of working tree:
#   bash bench/bench.sh --pack .scaling                 # here, once
#   bash bench/bench.sh --packed .scaling --out $OUT/performance.md \
#       --jobs "1 2 4 8 16"                             # there, carry .scaling
# then here: bash bench/bench.sh --results FETCHED/performance-results-16cpu.txt
#
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="bash bench/bench.sh$(printf ' %q' "$@")"
runs=5
jobs="1 2 $(nproc)"
kver=6.1
out=$top/Documentation/performance.md
build=$top/build-bench
pack=
packed=
from_results=
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
	--pack) pack=${2:?}; shift 2 ;;
	--packed) packed=${2:?}; shift 2 ;;
	--results) from_results=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
modes=0
for m in "$pack" "$packed" "$from_results"; do [ -z "$m" ] || modes=$((modes + 1)); done
[ $modes -le 1 ] || die "--pack, --packed and --results exclude each other"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
read -ra jobs <<<"$jobs"
[ ${#jobs[@]} -gt 0 ] || die "--jobs wants at least one number"
for j in "${jobs[@]}"; do [[ $j =~ ^[1-9][0-9]*$ ]] || die "--jobs wants numbers: ${jobs[*]}"; done
mapfile -t jobs < <(printf '%s\n' "${jobs[@]}" | sort -nu)	# "1 2 $(nproc)" may repeat
case $kver in 6.1 | 6.12) ;; *) die "--kernel wants 6.1 or 6.12" ;; esac
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
raw=$(dirname "$out")/performance-results-$(nproc)cpu.txt	# a --results run keeps its own
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2054 # the commas are part of the argument
flags=(--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
       --lang_exclude=rust)
tools="d2b p130 p124 floor"
declare -A name=([d2b]=dwarf2btf [p130]="pahole 1.30" [p124]="pahole 1.24"
		 [floor]="floor (dwarf_walk)")

# --- dependencies and build (not with --packed or --results) ----------------
build_cmds=()
if [ -z "$packed$from_results" ]; then
	for what in deps pahole130 pahole124 "kernel${kver/./}"; do
		"$top/tests/fetch.sh" "$what"
	done
	need=()
	command -v gnuplot >/dev/null || need+=(gnuplot-nox)
	[ -x /usr/bin/time ] || need+=(time)
	command -v xz >/dev/null || need+=(xz-utils)
	if [ ${#need[@]} -gt 0 ]; then
		log "installing ${need[*]}"
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
	fi
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
	d2b=("$build/dwarf2btf")
	floor=("$build/dwarf_walk")
	p130=$CACHE/pahole-1.30/bin/pahole130
	p124=$CACHE/pahole-1.24/bin/pahole124
fi

# --- --pack: what a run needs, for a machine without packages or network ----

# bundle DIR PROG... : PROGs and the libraries ldd finds for them into DIR,
# each PROG run through that ld.so by DIR/run-PROG
bundle() {
	local dir=$1 prog lib; shift
	mkdir -p "$dir/lib"
	for prog in "$@"; do
		cp "$prog" "$dir/"
		ldd "$prog" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' |
			while read -r lib; do cp -L "$lib" "$dir/lib/"; done
		cat >"$dir/run-$(basename "$prog")" <<'SH'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
p=$(basename "$0"); p=${p#run-}
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/$p" "$@"
SH
		chmod +x "$dir/run-$(basename "$prog")"
	done
}

if [ -n "$pack" ]; then
	mkdir -p "$pack"
	pack=$(cd "$pack" && pwd)
	log "packing the tools"
	bundle "$tmp/tools/d2b" "$build/dwarf2btf" "$build/dwarf_walk"
	for p in pahole-1.30 pahole-1.24; do
		# the wrappers, pahole itself and the libraries (no docs, locales, gconv)
		(cd "$CACHE" && shopt -s nullglob && tar -cf - --exclude='*/gconv' --exclude=usr/share \
			"$p/bin" "$p/usr/bin/pahole" "$p/usr/lib" "$p"/lib*) | tar -xf - -C "$tmp/tools"
	done
	(cd "$tmp" && tar -cf - tools) | xz -9 -T"$(nproc)" >"$pack/tools.tar.xz"
	# the same package's vmlinux packed before is kept: only the tools change
	# from commit to commit, and xz -9 takes minutes
	if [ -f "$pack/vmlinux.xz" ] && grep -qxF "package $package" "$pack/manifest" 2>/dev/null; then
		log "keeping the packed vmlinux of $package"
		vmline=$(grep '^vmlinux ' "$pack/manifest")
	else
		log "packing the vmlinux (xz -9: minutes)"
		# no code, relocations or line tables; .BTF_ids keeps its contents, which
		# --only-keep-debug drops (the kfunc sets: pahole 1.30 would read other bytes)
		objcopy -O binary --only-section=.BTF_ids "$vmlinux" "$tmp/btf_ids"
		objcopy --only-keep-debug -R '.rela*' -R .debug_line -R .debug_line_str "$vmlinux" "$tmp/vmlinux"
		objcopy --set-section-flags .BTF_ids=alloc,load,contents,data \
			--update-section .BTF_ids="$tmp/btf_ids" "$tmp/vmlinux"
		xz -9 -T"$(nproc)" -c "$tmp/vmlinux" >"$pack/vmlinux.xz"
		vmline="vmlinux $(stat -c %s "$tmp/vmlinux") bytes, sha256 $(sha256sum <"$tmp/vmlinux" | cut -d' ' -f1)"
	fi
	{
		echo "package $package"
		echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from $(git -C "$top" describe --always --dirty)"
		echo "$vmline"
	} >"$pack/manifest"
	du -b "$pack"/* >&2
	log "wrote $pack; a run there: bash bench/bench.sh --packed ${pack#"$top"/} --out DIR/performance.md"
	exit 0
fi

# --- --packed: unpack ---------------------------------------------------------
if [ -n "$packed" ]; then
	[ -f "$packed/manifest" ] || die "$packed: no manifest (made by --pack?)"
	log "unpacking $packed"
	python3 "$top/bench/unpack.py" "$packed" "$tmp"
	vmlinux=$tmp/vmlinux
	package="$(sed -n 's/^package //p' "$packed/manifest"), packed"
	build_cmds=("bash bench/bench.sh --pack, made $(sed -n 's/^made //p' "$packed/manifest"); vmlinux $(sed -n 's/^vmlinux //p' "$packed/manifest")")
	d2b=("$tmp/tools/d2b/run-dwarf2btf")
	floor=("$tmp/tools/d2b/run-dwarf_walk")
	p130=$tmp/tools/pahole-1.30/bin/pahole130
	p124=$tmp/tools/pahole-1.24/bin/pahole124
fi

# --- measure (not with --results) -------------------------------------------
results=$tmp/results		# lines: j tool wall user sys rss_kib; "# key: value" notes

# timed FILE CMD... : run CMD, its "wall user sys maxrss_kib" into FILE
timed() {
	local f=$1; shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$f" "$@"
	else
		python3 -c '
import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    print("%.2f %.2f %.2f %d" % (time.monotonic() - t, ru.ru_utime, ru.ru_stime, ru.ru_maxrss), file=f)
sys.exit(os.waitstatus_to_exitcode(status) & 255)' "$f" "$@"
	fi
}

if [ -n "$from_results" ]; then
	cp "$from_results" "$results"
else
	# pahole 1.24 predates --btf_features: the closest legacy flags it accepts.
	flags124=() dropped124=()
	for f in --btf_gen_floats --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized; do
		if "$p124" "$f" --version >/dev/null 2>&1; then flags124+=("$f"); else dropped124+=("$f"); fi
	done
	[ ${#dropped124[@]} -eq 0 ] || log "pahole 1.24 rejects ${dropped124[*]}: running it without them"

	# run_one TOOL J : one timed run, its numbers appended to $results
	run_one() {
		local tool=$1 j=$2 cmd
		case $tool in
		d2b) cmd=("${d2b[@]}" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/d2b-j$j.btf" "$vmlinux") ;;
		p130) cmd=("$p130" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/p130-j$j.btf" "$vmlinux") ;;
		p124) cmd=("$p124" -J "-j$j" "${flags124[@]}" "--btf_encode_detached=$tmp/p124-j$j.btf" "$vmlinux") ;;
		floor) cmd=("${floor[@]}" "-j$j" "$vmlinux") ;;
		esac
		rm -f "$tmp/$tool-j$j.btf"
		if ! timed "$tmp/time" "${cmd[@]}" >"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			die "failed: ${cmd[*]}"
		fi
		echo "$j $tool $(tail -n1 "$tmp/time")" >>"$results"
		cp "$results" "$raw"	# what was measured survives a run stopped early
		log "-j$j ${name[$tool]}: $(tail -n1 "$tmp/time") (wall user sys KiB)"
	}

	log "input $vmlinux ($package); reading it into the page cache"
	cat "$vmlinux" >/dev/null
	model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
	{
		echo "# command: $cmdline"
		echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "# machine: $(nproc) CPUs (nproc), ${model:-unknown model}, $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) memory; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "# input: \`$package\` ($(stat -c %s "$vmlinux") bytes of vmlinux)"
		echo "# kernel: $kver"
		echo "# runs: $runs"
		echo "# flags124: ${flags124[*]}"
		echo "# dropped124: ${dropped124[*]}"
		# shellcheck disable=SC2016 # backquotes are Markdown here
		echo "# builds: $(printf '`%s`; ' "${build_cmds[@]}" | sed 's/; $//')"
	} >"$results"
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
	# where the time goes at the largest -j: dwarf2btf's -V phase report
	"${d2b[@]}" -V -J "-j${jobs[-1]}" "${flags[@]}" "--btf_encode_detached=$tmp/v.btf" "$vmlinux" \
		2>&1 | sed 's/^/# phases: /' >>"$results"
	cp "$results" "$raw"
fi

# --- report -----------------------------------------------------------------
# median J TOOL FIELD : median over the runs; FIELD is wall, cpu or rss (MiB)
median() {
	awk -v j="$1" -v t="$2" -v f="$3" '$1 == j && $2 == t {
		v = f == "wall" ? $3 : f == "cpu" ? $4 + $5 : $6 / 1024; print v }' "$results" |
		sort -g | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2)
			printf "%.2f\n", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# note KEY : the "# KEY: value" line of the results
note() { sed -n "s/^# $1: //p" "$results" | head -n1; }
mapfile -t jobs < <(awk '!/^#/ { print $1 }' "$results" | sort -nu)
[ ${#jobs[@]} -gt 0 ] || die "no measurements in the results"
runs=$(note runs)
kver=$(note kernel)
# shellcheck disable=SC2016 # a literal backquote
package=$(note input | sed 's/^`\(.*\)` (.*/\1/')
# the region, plot and raw results are named for the measuring machine's size
tag=$(note machine | sed -n 's/^\([0-9]*\) CPUs.*/\1cpu/p')
[ -n "$tag" ] || die "the results name no CPU count (# machine: N CPUs)"
png=$(dirname "$out")/performance-scaling-$tag.png
# results fetched from another machine are kept next to the report as well
[ -z "$from_results" ] || cp "$results" "$(dirname "$out")/performance-results-$tag.txt"
section=$tmp/section.md
plotdata=$tmp/scaling.dat
{
	echo "<!-- bench:begin $tag -->"
	echo "<!-- Generated by bench/bench.sh; edits between these markers are overwritten. -->"
	echo
	echo "## Kernel $kver on ${tag%cpu} CPUs: dwarf2btf, pahole 1.30, pahole 1.24 and the floor"
	echo
	echo "* date: $(note date)"
	echo "* command: \`$(note command)\`"
	[ -z "$from_results" ] || echo "* reported by: \`$cmdline\`"
	echo "* machine: $(note machine)"
	echo "* input: $(note input)"
	echo "* dwarf2btf and pahole 1.30: \`-J -jN ${flags[*]} --btf_encode_detached=FILE\`"
	echo "* pahole 1.24: \`-J -jN $(note flags124) --btf_encode_detached=FILE\`$(
		[ -z "$(note dropped124)" ] || echo " (it rejects \`$(note dropped124)\`, so runs without them)")"
	echo "* floor: \`dwarf_walk -jN\` (bench/dwarf_walk.c: every DIE's tag and attributes"
	echo "  read with libdw, parallel over CUs, nothing else)"
	[ -z "$(note builds)" ] || echo "* builds: $(note builds)"
	echo "* method: median of $runs run(s) per cell, programs run round-robin, each under"
	echo "  \`/usr/bin/time\` (or python3's \`wait4()\`); CPU is user + sys; RSS is the maximum"
	echo "  resident set. Every dwarf2btf output was checked with \`cmp\` to equal pahole 1.30's."
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
	echo "dwarf2btf \`-V\` at -j${jobs[-1]}, one run after the others:"
	echo
	echo '```'
	sed -n 's/^# phases: //p' "$results"
	echo '```'
	if command -v gnuplot >/dev/null; then
		echo
		echo "![wall time against -j](performance-scaling-$tag.png)"
	fi
	echo
	echo "<!-- bench:end $tag -->"
} >"$section"

command -v gnuplot >/dev/null || log "no gnuplot: no plot"
command -v gnuplot >/dev/null && gnuplot <<PLOT
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
if grep -qxF "<!-- bench:begin $tag -->" "$out" && grep -qxF "<!-- bench:end $tag -->" "$out"; then
	awk -v sec="$section" -v b="<!-- bench:begin $tag -->" -v e="<!-- bench:end $tag -->" '
		$0 == b { while ((getline l < sec) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$out" >"$tmp/out.md"
	cat "$tmp/out.md" >"$out"
else
	cat "$section" >>"$out"
fi

sed '/^<!--/d; /^!\[/d' "$section"
log "wrote $out$(command -v gnuplot >/dev/null && echo " and $png")"
