#!/usr/bin/env bash
# tune.sh - measure a tuning constant, or a change, on a real kernel: one
# dwarf2btf build per value of a compile-time constant (-DNAME=VALUE) or per
# git revision, run round-robin at each -j; median wall time, CPU time
# (user + sys) and peak RSS per build, as a Markdown table on standard
# output. Every output is compared with cmp to the first build's: neither a
# tuning constant nor a speed-up may change a byte.
#
# Usage: bash bench/tune.sh --define NAME --values "V1 V2 ..." [--runs N]
#                           [--jobs "1 2"] [--kernel 6.1|6.12|7.2]
#        bash bench/tune.sh --revs "REV1 REV2 ..." [--runs N] [--jobs ...]
#                           [--kernel ...]
#
#   --revs builds each git revision of this repository (a commit, a branch)
#   from a temporary worktree.
#
# Each kernel is encoded with the flags its Kbuild passes pahole 1.30
# (tests/lib.sh). For a 16-CPU machine without packages or network, next
# to what bench.sh --pack wrote there (the vmlinux and the libraries):
#        bash bench/tune.sh --pack DIR (--define ... | --revs ...)   # here
#        bash bench/tune.sh --packed DIR [--runs N] [--jobs ...]     # there
#   --pack builds as usual and puts the binaries into DIR/tune, measuring
#   nothing; --packed measures those binaries on DIR's vmlinux.
#
# The constants are in tuning.h, each with what it trades:
#   WRITER_SLOTS            CUs planned ahead of the encoder's writer
#   BTF_BATCH_TYPES         types per dedup batch (0: none)
#   EMIT_ORDERED_WINDOW_PER_JOB
#                           units loaded ahead of the encoder, per -j
#   D2B_MMAP_THRESHOLD      malloc's mmap threshold (0: glibc's default)
#   RING_UNIT_BYTES, RING_SLACK_UNITS
#                           the units' ring: bytes per unit of the window,
#                           and units beyond it
#   BTF_BATCH_DEDUPS, BTF_BATCH_DEDUPS_MAX, BTF_BATCH_JOBS_PER_DEDUP,
#   BTF_BATCH_SINGLE_UPTO   batch dedups at once: at least, at most, -j per
#                           dedup in between, and the loaders running at
#                           once up to which one is enough
#   D2B_HELPER_NICE         how much nicer the loaders and batch dedups run
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
revs=
pack=
packed=
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
	--revs) revs=${2:?}; shift 2 ;;
	--pack) pack=${2:?}; shift 2 ;;
	--packed) packed=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs wants a positive number"
read -ra jobs <<<"$jobs"
if [ -n "$packed" ]; then
	[ -z "$pack$define$values$revs" ] || die "--packed takes what --pack built: no other build options"
	[ -f "$packed/tune/labels" ] || die "$packed: nothing built by tune.sh --pack"
	label=$(sed -n 1p "$packed/tune/labels")
	read -ra vals <<<"$(sed -n 2p "$packed/tune/labels")"
	kver=$(sed -n 3p "$packed/tune/labels")
elif [ -n "$revs" ]; then
	[ -z "$define$values" ] || die "--revs or --define/--values, not both"
	read -ra vals <<<"$revs"
	label=revision
else
	[[ $define =~ ^[A-Z_][A-Z0-9_]*$ ]] || die "--define wants a constant's name"
	read -ra vals <<<"$values"
	for n in "${vals[@]}"; do [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"; done
	label=$define
fi
[ ${#vals[@]} -gt 0 ] || die "--values or --revs wants at least one"
for n in "${jobs[@]}"; do [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"; done
case $kver in 6.1 | 6.12 | 7.2) ;; *) die "--kernel wants 6.1, 6.12 or 7.2" ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-tune.XXXXXX")
trap 'rm -rf "$tmp"; git -C "$top" worktree prune' EXIT
if [ -z "$packed" ]; then
	"$top/tests/fetch.sh" deps
	"$top/tests/fetch.sh" "kernel${kver/./}"
	[ -x /usr/bin/time ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >&2
fi
[ -n "$packed" ] || for i in "${!vals[@]}"; do
	n=${vals[$i]} src=$top cflags=
	if [ -n "$revs" ]; then
		log "building revision $n"
		src=$tmp/src-$i
		git -C "$top" worktree add -q --detach "$src" "$n" || die "no revision $n"
	else
		log "building with $define=$n"
		cflags=-D$define=$n
	fi
	cmake -S "$src" -B "$tmp/build-$i" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="$cflags" >/dev/null
	cmake --build "$tmp/build-$i" -j"$(nproc)" --target dwarf2btf >/dev/null
done

# d2b I : the command line of build I
if [ -n "$pack" ]; then
	mkdir -p "$pack/tune"
	for i in "${!vals[@]}"; do cp "$tmp/build-$i/dwarf2btf" "$pack/tune/$i"; done
	printf '%s\n' "$label" "${vals[*]}" "$kver" "$cmdline" >"$pack/tune/labels"
	log "wrote $pack/tune; there: bash bench/tune.sh --packed ${pack#"$top"/} --jobs \"...\""
	exit 0
elif [ -n "$packed" ]; then
	log "unpacking $packed"
	python3 "$top/bench/unpack.py" "$packed" "$tmp"
	vmlinux=$tmp/vmlinux-$kver
	[ -f "$vmlinux" ] || die "$packed holds no $kver vmlinux (bench.sh --pack --kernels $kver)"
	d2b() { echo "$tmp/tools/d2b/lib/ld-linux-x86-64.so.2 --library-path $tmp/tools/d2b/lib $packed/tune/$1"; }
	cmdline+=" (builds: $(sed -n 4p "$packed/tune/labels"))"
else
	vmlinux=$CACHE/linux-$kver/vmlinux
	d2b() { echo "$tmp/build-$1/dwarf2btf"; }
fi
unset DWARF2BTF_PAHOLE_VERSION # (1.30's flags, and what dwarf2btf reproduces)
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
read -ra flags <<<"$(kbuild_flags "$kver")"
cat "$vmlinux" >/dev/null
results=$tmp/results # lines: j size wall user sys rss_kib
for j in "${jobs[@]}"; do
	for ((r = 1; r <= runs; r++)); do
		for i in "${!vals[@]}"; do
			out=$tmp/out-$i.btf
			rm -f "$out"
			# shellcheck disable=SC2046 # d2b's words are the command
			/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" $(d2b "$i") -J "-j$j" \
				"${flags[@]}" --btf_encode_detached="$out" "$vmlinux"
			echo "$j $i $(cat "$tmp/time")" >>"$results"
			log "-j$j $label=${vals[$i]}: $(cat "$tmp/time") (wall user sys KiB)"
			cmp "$out" "$tmp/out-0.btf" || die "$label=${vals[$i]}: output differs from ${vals[0]}'s"
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
hdr="| $label |" sep="|---|"
for j in "${jobs[@]}"; do
	hdr+=" -j$j wall s | -j$j CPU s | -j$j peak RSS MiB |"
	sep+="---|---|---|"
done
echo "$hdr"
echo "$sep"
for i in "${!vals[@]}"; do
	printf '| %s |' "${vals[$i]}"
	for j in "${jobs[@]}"; do
		printf ' %s | %s | %s |' "$(median "$j" "$i" wall)" "$(median "$j" "$i" cpu)" \
			"$(median "$j" "$i" rss)"
	done
	echo
done
