#!/usr/bin/env bash
# bench.sh - benchmark dwarf2btf against pahole 1.30 (and pahole 1.24, the
# release before reproducible -j) on Debian's 6.1, 6.12 and 7.2 cloud
# kernels, each with the flags its own Kbuild passes pahole 1.30
# (tests/lib.sh), next to a "floor" (bench/dwarf_walk.c: a bare parallel
# libdw walk over every DIE), optionally with a kernel build's module step
# (bench/module-tree.sh); and write the results as one Markdown table per
# machine and a PNG plot.
#
# Usage: bash bench/bench.sh [--runs N] [--jobs "1 2 N"] [--kernels "6.1 6.12 7.2"]
#                            [--module-tree ROUNDS] [--out FILE] [--build DIR]
#        bash bench/bench.sh --pack DIR [--kernels ...] [--build DIR]
#        bash bench/bench.sh --packed DIR [--packed DIR] [--out FILE] [--runs N]
#                            [--jobs ...] [--module-tree ROUNDS]
#        bash bench/bench.sh --results FILE [--out FILE]
#
#   --runs N       timed runs per tool, kernel and -j value (default 5); the
#                  table shows medians
#   --jobs LIST    thread counts to measure (default "1 2 $(nproc)")
#   --kernels LIST Debian cloud debug vmlinux to encode, of 6.1, 6.12 and 7.2
#                  (default all three)
#   --module-tree ROUNDS
#                  also time bench/module-tree.sh (7.2's 1,018 modules, a
#                  process each, $(nproc) at once) for ROUNDS rounds; with
#                  --packed, by the packed dwarf2btf, where the tree can be
#                  fetched (it is 2 GB: not on the 16-core machine)
#   --out FILE     Markdown file to write (default Documentation/performance.md
#                  in the repository). Each machine size has its own region:
#                  only the one between "<!-- bench:begin Ncpu -->" and
#                  "<!-- bench:end Ncpu -->" (N: the measuring machine's CPU
#                  count) is replaced, or appended if missing, so hand-written
#                  text and other machines' results survive. The plot goes
#                  next to it as performance-scaling-Ncpu.png (none without
#                  gnuplot, nor for fewer than three -j values: two points a
#                  line show no scaling), and the raw results as
#                  performance-results-Ncpu.txt.
#   --build DIR    build directory (default build-bench in the repository)
#   --pack DIR     build and fetch as usual, then write into DIR (ignored by
#                  git as .scaling) everything a run needs on a machine that
#                  has neither Debian packages nor a network: each kernel's
#                  vmlinux without code, relocations and line tables (objcopy
#                  --only-keep-debug, .BTF_ids kept; xz, about 54 MB for
#                  6.1), vmlinux-VER.xz, and the four programs with the
#                  libraries they load (ld.so --library-path), about 7 MB. A
#                  vmlinux of the same package already in DIR is kept, one
#                  of a kernel not asked for is removed. Nothing is measured.
#   --packed DIR   measure the kernels DIR holds, with what --pack wrote
#                  (unpacked with python3, so no xz or tar is needed), without
#                  installing or building; timing through /usr/bin/time, or
#                  python3's wait4() if it is missing. Given more than once:
#                  the kernels of every DIR, whose programs must be the same
#                  bytes.
#   --results FILE only report: the Markdown section and plot from the raw
#                  results of an earlier run (its performance-results-*.txt)
#
# The 2-CPU and 16-CPU tables on the same input, where the 16-core machine
# has neither Debian packages nor network and takes at most 64 MiB of
# working tree (one packed kernel a call; 7.2's, 85 MB, in two parts over
# two calls, joined there: Documentation/performance.md):
#   bash bench/bench.sh --pack .scaling/6.1 --kernels 6.1    # here, once
#   bash bench/bench.sh --pack .scaling/7.2 --kernels 7.2    # per kernel
#   bash bench/bench.sh --packed .scaling/6.1 --out $OUT/6.1/performance.md \
#       --jobs "1 2 4 8 16"              # there, carrying .scaling/6.1; then 7.2
#   bash bench/bench.sh --results F/6.1/performance-results-16cpu.txt \
#       --results F/7.2/performance-results-16cpu.txt    # here, F: fetched
#   bash bench/bench.sh --packed .scaling/6.1 --packed .scaling/7.2 \
#       --jobs "1 2" --module-tree 3                     # here, 2 CPUs
#
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="bash bench/bench.sh$(printf ' %q' "$@")"
runs=5
jobs="1 2 $(nproc)"
kernels="6.1 6.12 7.2"
tree_rounds=0
out=$top/Documentation/performance.md
build=$top/build-bench
pack=
packed=()
from_results=()
CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}

die() { echo "bench.sh: $*" >&2; exit 1; }
log() { echo "bench.sh: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--kernels) kernels=${2:?}; shift 2 ;;
	--module-tree) tree_rounds=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--build) build=${2:?}; shift 2 ;;
	--pack) pack=${2:?}; shift 2 ;;
	--packed) packed+=("${2:?}"); shift 2 ;;
	--results) from_results+=("${2:?}"); shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
modes=0
for m in "$pack" "${packed[*]}" "${from_results[*]}"; do [ -z "$m" ] || modes=$((modes + 1)); done
[ $modes -le 1 ] || die "--pack, --packed and --results exclude each other"
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
[[ $tree_rounds =~ ^[0-9]+$ ]] || die "--module-tree wants a number of rounds"
[ "$tree_rounds" -eq 0 ] || [ -z "$pack${from_results[*]}" ] || die "--module-tree measures: not with --pack or --results"
read -ra jobs <<<"$jobs"
[ ${#jobs[@]} -gt 0 ] || die "--jobs wants at least one number"
for j in "${jobs[@]}"; do [[ $j =~ ^[1-9][0-9]*$ ]] || die "--jobs wants numbers: ${jobs[*]}"; done
mapfile -t jobs < <(printf '%s\n' "${jobs[@]}" | sort -nu)	# "1 2 $(nproc)" may repeat
read -ra kernels <<<"$kernels"
[ ${#kernels[@]} -gt 0 ] || die "--kernels wants at least one kernel"
for k in "${kernels[@]}"; do
	case $k in 6.1 | 6.12 | 7.2) ;; *) die "--kernels wants 6.1, 6.12 or 7.2, not $k" ;; esac
done
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
raw=$(dirname "$out")/performance-results-$(nproc)cpu.txt	# a --results run keeps its own
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Each kernel's flags are those its Kbuild passes pahole 1.30; dwarf2btf
# reproduces 1.30 (not a release named in the environment).
unset DWARF2BTF_PAHOLE_VERSION
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
tools="d2b p130 p124 floor"
declare -A name=([d2b]=dwarf2btf [p130]="pahole 1.30" [p124]="pahole 1.24"
		 [floor]="floor (dwarf_walk)")
declare -A vmlinux=() package=()

# --- dependencies and build (not with --packed or --results) ----------------
build_cmds=()
if [ -z "${packed[*]}${from_results[*]}" ]; then
	for what in deps pahole130 pahole124 "${kernels[@]/#/kernel}"; do
		"$top/tests/fetch.sh" "${what//./}"
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
	for k in "${kernels[@]}"; do
		vmlinux[$k]=$CACHE/linux-$k/vmlinux
		package[$k]=$(cat "$CACHE/linux-$k/package")
	done
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
	: >"$tmp/manifest"
	for k in "${kernels[@]}"; do
		# the same package's vmlinux packed before is kept: only the tools
		# change from commit to commit, and xz -9 takes minutes
		if [ -f "$pack/vmlinux-$k.xz" ] &&
			grep -qxF "package $k ${package[$k]}" "$pack/manifest" 2>/dev/null; then
			log "keeping the packed vmlinux of ${package[$k]}"
			grep "^vmlinux $k " "$pack/manifest" >>"$tmp/manifest"
		else
			log "packing the vmlinux of ${package[$k]} (xz -9: minutes)"
			# no code, relocations or line tables; .BTF_ids keeps its contents, which
			# --only-keep-debug drops (the kfunc sets: pahole 1.30 would read other bytes)
			objcopy -O binary --only-section=.BTF_ids "${vmlinux[$k]}" "$tmp/btf_ids"
			objcopy --only-keep-debug -R '.rela*' -R .debug_line -R .debug_line_str \
				"${vmlinux[$k]}" "$tmp/vmlinux"
			objcopy --set-section-flags .BTF_ids=alloc,load,contents,data \
				--update-section .BTF_ids="$tmp/btf_ids" "$tmp/vmlinux"
			xz -9 -T"$(nproc)" -c "$tmp/vmlinux" >"$pack/vmlinux-$k.xz"
			echo "vmlinux $k $(stat -c %s "$tmp/vmlinux") bytes, sha256 $(sha256sum <"$tmp/vmlinux" | cut -d' ' -f1)" >>"$tmp/manifest"
		fi
		echo "package $k ${package[$k]}" >>"$tmp/manifest"
	done
	for f in "$pack"/vmlinux-*.xz; do
		[ -e "$f" ] || continue
		k=${f##*/vmlinux-}; k=${k%.xz}
		grep -q "^package $k " "$tmp/manifest" || rm -f "$f"
	done
	echo "made $(date -u '+%Y-%m-%d %H:%M UTC') from $(git -C "$top" describe --always --dirty)" >>"$tmp/manifest"
	cp "$tmp/manifest" "$pack/manifest"
	du -b "$pack"/* >&2
	log "wrote $pack; a run there: bash bench/bench.sh --packed ${pack#"$top"/} --out DIR/performance.md"
	exit 0
fi

# --- --packed: unpack ---------------------------------------------------------
if [ ${#packed[@]} -gt 0 ]; then
	kernels=()
	for i in "${!packed[@]}"; do
		dir=${packed[$i]} u=$tmp/packed$i
		[ -f "$dir/manifest" ] || die "$dir: no manifest (made by --pack?)"
		log "unpacking $dir"
		mkdir "$u"
		python3 "$top/bench/unpack.py" "$dir" "$u"
		# one set of programs measures every kernel
		[ "$i" -eq 0 ] || diff -rq "$tmp/packed0/tools" "$u/tools" >&2 ||
			die "$dir: its programs differ from ${packed[0]}'s (--pack both from one commit)"
		while read -r k; do
			[ -z "${vmlinux[$k]:-}" ] || die "$dir: kernel $k is packed twice"
			kernels+=("$k")
			vmlinux[$k]=$u/vmlinux-$k
			package[$k]="$(sed -n "s/^package $k //p" "$dir/manifest"), packed"
		done < <(sed -n 's/^package \([^ ]*\) .*/\1/p' "$dir/manifest")
		build_cmds+=("bash bench/bench.sh --pack, made $(sed -n 's/^made //p' "$dir/manifest")")
	done
	ln -s packed0/tools "$tmp/tools"
	d2b=("$tmp/tools/d2b/run-dwarf2btf")
	floor=("$tmp/tools/d2b/run-dwarf_walk")
	p130=$tmp/tools/pahole-1.30/bin/pahole130
	p124=$tmp/tools/pahole-1.24/bin/pahole124
fi

# --- measure (not with --results) -------------------------------------------
# lines: KERNEL J TOOL wall user sys rss_kib; "tree TOOL ..." (module-tree.sh);
# "# key: value" notes
results=$tmp/results

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

if [ ${#from_results[@]} -gt 0 ]; then
	cat "${from_results[@]}" >"$results"
else
	# pahole 1.24 predates --btf_features: the closest legacy flags it accepts.
	flags124=() dropped124=()
	for f in $FLAGS_61; do
		if "$p124" "$f" --version >/dev/null 2>&1; then flags124+=("$f"); else dropped124+=("$f"); fi
	done
	[ ${#dropped124[@]} -eq 0 ] || log "pahole 1.24 rejects ${dropped124[*]}: running it without them"

	# run_one KERNEL TOOL J : one timed run, its numbers appended to $results
	run_one() {
		local k=$1 tool=$2 j=$3 cmd flags
		read -ra flags <<<"$(kbuild_flags "$k")"
		case $tool in
		d2b) cmd=("${d2b[@]}" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/d2b.btf" "${vmlinux[$k]}") ;;
		p130) cmd=("$p130" -J "-j$j" "${flags[@]}" "--btf_encode_detached=$tmp/p130.btf" "${vmlinux[$k]}") ;;
		p124) cmd=("$p124" -J "-j$j" "${flags124[@]}" "--btf_encode_detached=$tmp/p124.btf" "${vmlinux[$k]}") ;;
		floor) cmd=("${floor[@]}" "-j$j" "${vmlinux[$k]}") ;;
		esac
		rm -f "$tmp/$tool.btf"
		if ! timed "$tmp/time" "${cmd[@]}" >"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			die "failed: ${cmd[*]}"
		fi
		echo "$k $j $tool $(tail -n1 "$tmp/time")" >>"$results"
		cp "$results" "$raw"	# what was measured survives a run stopped early
		log "$k -j$j ${name[$tool]}: $(tail -n1 "$tmp/time") (wall user sys KiB)"
	}

	model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
	{
		echo "# command: $cmdline"
		echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "# machine: $(nproc) CPUs (nproc), ${model:-unknown model}, $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) memory; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "# code: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "# runs: $runs"
		echo "# flags124: ${flags124[*]}"
		echo "# dropped124: ${dropped124[*]}"
		# shellcheck disable=SC2016 # backquotes are Markdown here
		echo "# builds: $(printf '`%s`; ' "${build_cmds[@]}" | sed 's/; $//')"
	} >"$results"
	for k in "${kernels[@]}"; do
		log "input ${vmlinux[$k]} (${package[$k]}); reading it into the page cache"
		cat "${vmlinux[$k]}" >/dev/null
		echo "# input $k: \`${package[$k]}\` ($(stat -c %s "${vmlinux[$k]}") bytes of vmlinux)" >>"$results"
		echo "# flags $k: $(kbuild_flags "$k")" >>"$results"
		for j in "${jobs[@]}"; do
			for ((r = 1; r <= runs; r++)); do
				for tool in $tools; do
					run_one "$k" "$tool" "$j"
				done
				# A benchmark of wrong output is meaningless.
				if ! cmp "$tmp/d2b.btf" "$tmp/p130.btf"; then
					echo "bench.sh: *** dwarf2btf -j$j output on $k DIFFERS from pahole 1.30's (run $r) ***" >&2
					exit 1
				fi
			done
		done
		# where the time goes at the largest -j: dwarf2btf's -V phase report
		read -ra flags <<<"$(kbuild_flags "$k")"
		"${d2b[@]}" -V -J "-j${jobs[-1]}" "${flags[@]}" "--btf_encode_detached=$tmp/v.btf" "${vmlinux[$k]}" \
			2>&1 | grep -v 'not supported, ignored' | sed "s/^/# phases $k: /" >>"$results"
	done
	if [ "$tree_rounds" -gt 0 ]; then
		log "the module tree, $tree_rounds round(s)"
		# the dwarf2btf measured above: the packed program is a plain build's
		bash "$top/bench/module-tree.sh" --runs "$tree_rounds" --build "$(dirname "$(readlink -f "${d2b[0]}")")" \
			--results "$results" >&2
	fi
	cp "$results" "$raw"
fi

# --- report -----------------------------------------------------------------
# median K J TOOL FIELD : median over the runs; FIELD is wall, cpu or rss (MiB)
median() {
	awk -v k="$1" -v j="$2" -v t="$3" -v f="$4" '$1 == k && $2 == j && $3 == t {
		v = f == "wall" ? $4 : f == "cpu" ? $5 + $6 : $7 / 1024; print v }' "$results" |
		sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit } m = int((NR + 1) / 2)
			printf "%.2f\n", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
# cell K J TOOL : "wall s, CPU s, RSS MiB"
cell() { echo "$(median "$@" wall) s, $(median "$@" cpu) s, $(median "$@" rss) MiB"; }

# note KEY : the "# KEY: value" line of the results
note() { sed -n "s/^# $1: //p" "$results" | head -n1; }
# notes KEY [FORMAT] : every distinct value of KEY, each printf'd with FORMAT,
# joined by "and" (results joined from several runs by --results)
notes() {
	sed -n "s/^# $1: //p" "$results" |
		awk -v f="${2:-%s}" '!seen[$0]++ { printf((n++ ? " and " : "") f, $0) }'
}
mapfile -t kernels < <(awk '!/^#/ && $1 != "tree" { print $1 }' "$results" | sort -Vu)
[ ${#kernels[@]} -gt 0 ] || die "no measurements in the results"
runs=$(note runs)
# the region, plot and raw results are named for the measuring machine's size
tag=$(note machine | sed -n 's/^\([0-9]*\) CPUs.*/\1cpu/p')
[ -n "$tag" ] || die "the results name no CPU count (# machine: N CPUs)"
png=$(dirname "$out")/performance-scaling-$tag.png
# results fetched from another machine are kept next to the report as well
[ ${#from_results[@]} -eq 0 ] || cp "$results" "$(dirname "$out")/performance-results-$tag.txt"
section=$tmp/section.md
plot=
[ "$(awk '!/^#/ && $1 != "tree" { print $2 }' "$results" | sort -u | wc -l)" -lt 3 ] ||
	! command -v gnuplot >/dev/null || plot=yes
plotdata=$tmp/scaling.dat
: >"$plotdata"
{
	echo "<!-- bench:begin $tag -->"
	echo "<!-- Generated by bench/bench.sh; edits between these markers are overwritten. -->"
	echo
	echo "## ${tag%cpu} CPUs: dwarf2btf against pahole 1.30"
	echo
	# shellcheck disable=SC2016 # backquotes are Markdown here
	echo "* date: $(notes date); code: $(notes code); command: $(notes command '`%s`')"
	[ ${#from_results[@]} -eq 0 ] || echo "* reported by: \`$cmdline\`"
	echo "* machine: $(notes machine)"
	for k in "${kernels[@]}"; do
		echo "* $k: $(note "input $k"); flags \`$(note "flags $k")\`"
	done
	echo "* pahole 1.24: the same with \`$(note flags124)\`$(
		[ -z "$(note dropped124)" ] || echo " (it rejects \`$(note dropped124)\`)")"
	echo "* floor: \`dwarf_walk -jN\` (bench/dwarf_walk.c: every DIE's tag and attributes read"
	echo "  with libdw, parallel over CUs, nothing else)"
	[ -z "$(note builds)" ] || echo "* builds: $(notes builds)"
	echo "* method: median of $runs run(s) per cell, programs round-robin, each under"
	echo "  \`/usr/bin/time\` (or python3's \`wait4()\`); CPU is user + sys; RSS the maximum resident"
	echo "  set. Every dwarf2btf output was \`cmp\`-checked to equal pahole 1.30's."
	echo
	echo "| vmlinux | -j | dwarf2btf: wall, CPU, RSS | pahole 1.30 | dwarf2btf / pahole 1.30 | pahole 1.24 wall | floor wall |"
	echo "|---|--:|--:|--:|--:|--:|--:|"
	for k in "${kernels[@]}"; do
		mapfile -t jobs < <(awk -v k="$k" '!/^#/ && $1 == k { print $2 }' "$results" | sort -nu)
		for j in "${jobs[@]}"; do
			echo "| $k | $j | $(cell "$k" "$j" d2b) | $(cell "$k" "$j" p130) |" \
			     "**$(ratio "$(median "$k" "$j" d2b wall)" "$(median "$k" "$j" p130 wall)")×," \
			     "$(ratio "$(median "$k" "$j" d2b cpu)" "$(median "$k" "$j" p130 cpu)")×," \
			     "$(ratio "$(median "$k" "$j" d2b rss)" "$(median "$k" "$j" p130 rss)")×** |" \
			     "$(median "$k" "$j" p124 wall) s | $(median "$k" "$j" floor wall) s |"
			echo "$j $(median "$k" "$j" d2b wall) $(median "$k" "$j" p130 wall)" >>"$plotdata"
		done
		printf '\n\n' >>"$plotdata"	# a gnuplot data block per kernel
	done
	if grep -q '^tree ' "$results"; then
		echo
		echo "Module step of a kernel build: $(note tree)."
		echo
		echo "| module tree | wall | CPU | largest peak RSS | slowest module |"
		echo "|---|--:|--:|--:|--:|"
		awk '$1 == "tree" { printf "| %s | %.1f s | %.1f s | %.1f MiB (%s) | %s %.1f s |\n",
			$2 == "pahole" ? "pahole 1.30" : $2, $3, $4, $5 / 1024, $6, $7, $8 }' "$results"
		awk '$1 == "tree" { w[$2] = $3; c[$2] = $4; r[$2] = $5 } END {
			printf "| **dwarf2btf / pahole 1.30** | **%.2f×** | **%.2f×** | **%.2f×** | |\n",
				w["dwarf2btf"] / w["pahole"], c["dwarf2btf"] / c["pahole"], r["dwarf2btf"] / r["pahole"] }' "$results"
	fi
	echo
	echo "dwarf2btf \`-V\` at the largest -j, one run after the others:"
	echo
	echo '```'
	for k in "${kernels[@]}"; do
		sed -n "s/^# phases $k: dwarf2btf: /$k: /p" "$results"
	done
	echo '```'
	if [ -n "$plot" ]; then
		echo
		echo "![wall time against -j](performance-scaling-$tag.png)"
	fi
	echo
	echo "<!-- bench:end $tag -->"
} >"$section"

[ -n "$plot" ] || log "no plot: gnuplot missing, or fewer than three -j values"
[ -z "$plot" ] || gnuplot <<PLOT
set terminal pngcairo size 800,500 font ",10" noenhanced
set output "$png"
set title "BTF encoding of a vmlinux on ${tag%cpu} CPUs: wall time, median of $runs"
set xlabel "threads (-j)"
set ylabel "wall time, s"
set logscale x 2
set yrange [0:*]
set key top right
set grid
array K[${#kernels[@]}] = [$(printf '"%s",' "${kernels[@]}" | sed 's/,$//')]
plot for [i=0:${#kernels[@]}-1] "$plotdata" index i using 1:2 with linespoints lw 2 pt 7 lc i+1 \
	title "dwarf2btf ".K[i+1], \
     for [i=0:${#kernels[@]}-1] "$plotdata" index i using 1:3 with linespoints lw 2 pt 6 dt 2 lc i+1 \
	title "pahole 1.30 ".K[i+1]
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
log "wrote $out${plot:+ and $png}"
