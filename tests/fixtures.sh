#!/usr/bin/env bash
# fixtures.sh - differential test of dwarf2btf against pahole 1.30 on the
# fixture program in tests/fixtures/.
#
# Usage: tests/fixtures.sh DWARF2BTF BTFDIFF WORKDIR CC OPT DWARFVER
#   e.g. tests/fixtures.sh build/dwarf2btf build/btfdiff \
#            build/tests/fixtures_gcc_O2_dwarf5 gcc 2 5
#
# Compiles every tests/fixtures/*.c with CC -O$OPT -g -gdwarf-$DWARFVER,
# links them into WORKDIR/fixture (tests/fixtures/percpu.lds keeps
# ".data..percpu" a section of its own), then for each flag set (the 6.1
# and 6.12 kernel ones and pahole's defaults) encodes it with pahole 1.30
# (the reference) and with DWARF2BTF at -j1 and -j3, and cmp's each of
# ours against the reference; a mismatch runs BTFDIFF to show what differs.
# The last line printed is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

if [ $# -ne 6 ]; then
	echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR CC OPT DWARFVER" >&2
	exit 2
fi
DWARF2BTF=$1
BTFDIFF=$2
WORKDIR=$3
CC=$4
OPT=$5
DWARFVER=$6

export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
fixdir=$here/fixtures

"$here/fetch.sh" pahole130
[ -x "$PAHOLE" ] || { echo "fixtures.sh: $PAHOLE not found" >&2; exit 1; }

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# ---- build the fixture -------------------------------------------------

srcs=("$fixdir"/*.c)
[ -e "${srcs[0]}" ] || { echo "fixtures.sh: no sources in $fixdir" >&2; exit 1; }

cflags=(-O"$OPT" -g -gdwarf-"$DWARFVER")
buildlog=$WORKDIR/build.log
: >"$buildlog"

# shquote WORD...: the words as one shell command line, quoted only where needed
shquote() {
	local w line=
	for w in "$@"; do
		if [[ -n $w && $w != *[!A-Za-z0-9_./=,:+@%-]* ]]; then
			line+="$w "
		else
			line+="$(printf '%q' "$w") "
		fi
	done
	echo "${line% }"
}

# run_logged CMD...: print CMD, append it to build.log, run it
run_logged() {
	local line
	line=$(shquote "$@")
	echo "$line" >>"$buildlog"
	echo "+ $line"
	"$@"
}

objs=()
for src in "${srcs[@]}"; do
	obj=$WORKDIR/$(basename "${src%.c}").o
	run_logged "$CC" "${cflags[@]}" -c "$src" -o "$obj"
	objs+=("$obj")
done
run_logged "$CC" "${cflags[@]}" -Wl,-T,"$fixdir/percpu.lds" -o "$WORKDIR/fixture" "${objs[@]}"

# ---- encode and compare --------------------------------------------------

FLAGS_default=""

passed=0
failed=0

# the feature list: pahole 1.30's, less what Debian 12's libbpf 1.1 cannot do
# (distilled_base needs btf__distill_base, libbpf 1.5)
want=$("$PAHOLE" --supported_btf_features | sed -e 's/,distilled_base//')
if [ "$("$DWARF2BTF" --supported_btf_features)" = "$want" ]; then
	passed=$((passed + 1))
else
	echo "FAIL: --supported_btf_features: '$("$DWARF2BTF" --supported_btf_features)', want '$want'"
	failed=$((failed + 1))
fi

for set in 61 612 default; do
	flagvar=FLAGS_$set
	read -r -a flags <<<"${!flagvar}"
	ref=$WORKDIR/ref-$set.btf

	echo "+ $(shquote "$PAHOLE" -J ${flags[@]+"${flags[@]}"} --btf_encode_detached="$ref" "$WORKDIR/fixture")"
	if ! "$PAHOLE" -J ${flags[@]+"${flags[@]}"} --btf_encode_detached="$ref" "$WORKDIR/fixture"; then
		echo "fixtures.sh: FAIL (setup): pahole 1.30 failed on set $set" >&2
		exit 1
	fi
	if [ ! -s "$ref" ]; then
		echo "fixtures.sh: FAIL (setup): pahole 1.30 produced no BTF for set $set ($ref)" >&2
		exit 1
	fi

	for j in 1 3; do
		out=$WORKDIR/out-$set-j$j.btf
		echo "+ $(shquote "$DWARF2BTF" -J -j$j ${flags[@]+"${flags[@]}"} --btf_encode_detached="$out" "$WORKDIR/fixture")"
		rc=0
		"$DWARF2BTF" -J -j$j ${flags[@]+"${flags[@]}"} --btf_encode_detached="$out" "$WORKDIR/fixture" || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "FAIL: set $set -j$j: $DWARF2BTF exited with status $rc"
			failed=$((failed + 1))
		elif [ ! -e "$out" ]; then
			echo "FAIL: set $set -j$j: $DWARF2BTF wrote no $out"
			failed=$((failed + 1))
		elif cmp "$ref" "$out"; then
			echo "ok: set $set -j$j"
			passed=$((passed + 1))
		else
			echo "FAIL: set $set -j$j: $out differs from $ref"
			"$BTFDIFF" "$ref" "$out" || true
			failed=$((failed + 1))
		fi
	done
done

# ---- in place (-J without --btf_encode_detached) -------------------------
# The fixture has no .BTF: both tools add it with $LLVM_OBJCOPY (GNU objcopy,
# as the kernel passes it, and the llvm-objcopy default). Running -J again on
# the result replaces the existing .BTF through libelf. Whole files are
# compared.
read -r -a flags <<<"$FLAGS_612"
for objcopy in objcopy llvm-objcopy; do
	ref=$WORKDIR/inplace-ref-$objcopy
	out=$WORKDIR/inplace-out-$objcopy
	cp "$WORKDIR/fixture" "$ref"
	cp "$WORKDIR/fixture" "$out"
	for step in add replace; do
		if ! LLVM_OBJCOPY=$objcopy "$PAHOLE" -J "${flags[@]}" "$ref"; then
			echo "fixtures.sh: FAIL (setup): pahole 1.30 -J in place failed" >&2
			exit 1
		fi
		rc=0
		LLVM_OBJCOPY=$objcopy "$DWARF2BTF" -J -j2 "${flags[@]}" "$out" || rc=$?
		if [ "$rc" -ne 0 ]; then
			echo "FAIL: in place ($step, $objcopy): exit status $rc"
			failed=$((failed + 1))
		elif cmp "$ref" "$out"; then
			echo "ok: in place ($step, $objcopy)"
			passed=$((passed + 1))
		else
			echo "FAIL: in place ($step, $objcopy): $out differs from $ref"
			failed=$((failed + 1))
		fi
	done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
