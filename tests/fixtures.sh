#!/usr/bin/env bash
# fixtures.sh - differential test of dwarf2btf against pahole 1.30 (or
# $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh) on the
# fixture program in tests/fixtures/.
#
# Usage: tests/fixtures.sh DWARF2BTF BTFDIFF WORKDIR CC OPT DWARFVER [VARIANT]
#   e.g. tests/fixtures.sh build/dwarf2btf build/btfdiff \
#            build/tests/fixtures_gcc_O2_dwarf5 gcc 2 5
# CC is gcc, clang, or sid's gcc-13 to gcc-16 or clang-21 (tests/fetch.sh ccsid), or
# gcc-ARCH or clang-ARCH for Debian 12's cross compilers (tests/fetch.sh
# cross; clang --target with their binutils and C library), ARCH one of
# arm64, armhf, riscv64, ppc64el, s390x.
#
# VARIANT "lto" builds with -flto (clang links with lld, as kernels do):
# the DWARF then has cross-unit DW_FORM_ref_addr references, and both tools
# read all units as one merged CU. "ltonote" adds the kernel's LTO_INFO ELF
# note (owner "Linux", type 0x101, value 1) to a plain build, which makes
# pahole merge the units too. "reloc" links with -r, one relocatable file
# as a kernel module is: its debug sections reach their strings, locations
# and code through relocations. "typeunits" builds with -fdebug-types-section
# (type units: .debug_types for DWARF 4, DW_UT_type units for DWARF 5), which
# pahole 1.30 does not follow (it crashes or emits empty anonymous structs):
# pahole encodes the same program built without it, and ours must be the
# same BTF up to type order (btfdiff --semantic) and identical across -j.
#
# Compiles every tests/fixtures/*.c with CC -O$OPT -g -gdwarf-$DWARFVER
# (c89.c with -std=gnu89 too: a unit of another language), links them into
# WORKDIR/fixture (tests/fixtures/percpu.lds keeps ".data..percpu" a section
# of its own), then for each flag set (the 6.1 and 6.12 kernel ones,
# pahole's defaults, the 6.12 one with global_var, and the 6.12 one that
# also leaves out C89 units)
# encodes it with pahole 1.30 (the reference) and with DWARF2BTF at -j1 and
# -j3 and with --exact (no shortcut), and cmp's each of ours against the
# reference; a mismatch runs BTFDIFF to show what differs.
# The last line printed is "N passed, M failed"; exit status 0 iff M is 0.
set -euo pipefail

if [ $# -ne 6 ] && [ $# -ne 7 ]; then
	echo "usage: $0 DWARF2BTF BTFDIFF WORKDIR CC OPT DWARFVER [lto|ltonote|reloc|typeunits]" >&2
	exit 2
fi
DWARF2BTF=$1
BTFDIFF=$2
WORKDIR=$3
CC=$4
OPT=$5
DWARFVER=$6
VARIANT=${7:-}

export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
fixdir=$here/fixtures

"$here/fetch.sh" "$PAHOLE_FETCH"
[ -x "$PAHOLE" ] || { echo "fixtures.sh: $PAHOLE not found" >&2; exit 1; }
# the newest compilers Debian has, from sid (tests/fetch.sh ccsid)
rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
# the objcopy that can write the fixture's machine, for the in-place runs
objcopies=(objcopy llvm-objcopy)
case $CC in
gcc-1[3-6] | clang-21)
	"$here/fetch.sh" ccsid
	CC=$CACHE/cc-sid/bin/$CC
	;;
gcc-* | clang-*)
	"$here/fetch.sh" cross
	case ${CC#*-} in
	arm64) triplet=aarch64-linux-gnu ;;
	armhf) triplet=arm-linux-gnueabihf ;;
	riscv64) triplet=riscv64-linux-gnu ;;
	ppc64el) triplet=powerpc64le-linux-gnu ;;
	s390x) triplet=s390x-linux-gnu ;;
	*) echo "fixtures.sh: unknown compiler '$CC'" >&2; exit 2 ;;
	esac
	if [ "${CC%%-*}" = gcc ]; then
		CC=$triplet-gcc
	else
		printf '#!/bin/sh\nexec clang --target=%s "$@"\n' "$triplet" >"$WORKDIR/clang-$triplet"
		chmod +x "$WORKDIR/clang-$triplet"
		CC=$WORKDIR/clang-$triplet
	fi
	objcopies=("$triplet-objcopy" llvm-objcopy)
	;;
esac

# ---- build the fixture -------------------------------------------------

srcs=("$fixdir"/*.c)
[ -e "${srcs[0]}" ] || { echo "fixtures.sh: no sources in $fixdir" >&2; exit 1; }

cflags=(-O"$OPT" -g -gdwarf-"$DWARFVER")
ldflags=()
case $VARIANT in
'') ;;
lto)
	cflags+=(-flto)
	[ "$CC" = clang ] && ldflags+=(-fuse-ld=lld)
	;;
ltonote)
	cat >"$WORKDIR/ltonote.c" <<'EOF'
/* the kernel's LINUX_ELFNOTE_LTO_INFO note, value 1 (include/linux/elfnote-lto.h) */
asm(".pushsection .note.Linux, \"a\", @note\n"
    ".balign 4\n.long 6\n.long 4\n.long 0x101\n.asciz \"Linux\"\n"
    ".balign 4\n.long 1\n.popsection");
EOF
	srcs+=("$WORKDIR/ltonote.c")
	;;
typeunits)
	cflags+=(-fdebug-types-section)
	;;
reloc) ;;
*)
	echo "fixtures.sh: unknown variant '$VARIANT'" >&2
	exit 2
	;;
esac
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

# build OUT CFLAGS...: every source compiled with CFLAGS, linked into OUT
build() {
	local out=$1 src obj objs=() std
	shift
	for src in "${srcs[@]}"; do
		obj=${out}-$(basename "${src%.c}").o
		std=()
		[ "$(basename "$src")" = c89.c ] && std=(-std=gnu89)
		run_logged "$CC" "$@" ${std[@]+"${std[@]}"} -c "$src" -o "$obj"
		objs+=("$obj")
	done
	if [ "$VARIANT" = reloc ]; then
		run_logged "$CC" "$@" -r -nostdlib -o "$out" "${objs[@]}"
	else
		run_logged "$CC" "$@" ${ldflags[@]+"${ldflags[@]}"} -Wl,-T,"$fixdir/percpu.lds" \
			-o "$out" "${objs[@]}"
	fi
}

build "$WORKDIR/fixture" "${cflags[@]}"
# the input pahole encodes: the fixture itself, or for typeunits the same
# sources built without type units
refinput=$WORKDIR/fixture
if [ "$VARIANT" = typeunits ]; then
	refinput=$WORKDIR/fixture-plain
	build "$refinput" -O"$OPT" -g -gdwarf-"$DWARFVER"
	# (grep -c reads all: grep -q would end readelf with SIGPIPE)
	if ! readelf -S "$WORKDIR/fixture" | grep -c '\.debug_types' >/dev/null &&
		! readelf --debug-dump=info "$WORKDIR/fixture" | grep -c 'DW_UT_type' >/dev/null; then
		echo "fixtures.sh: FAIL (setup): $CC made no type units" >&2
		exit 1
	fi
fi

# ---- encode and compare --------------------------------------------------

FLAGS_default=""
FLAGS_globalvar=$FLAGS_GLOBALVAR
# a list, as the kernel's "rust" is: one more language left out
FLAGS_langexclude="--btf_features=$FEATURES_612,decl_tag_kfuncs --lang_exclude=rust,c89"

# the feature list: the reference's, less what dwarf2btf does not do
# (Documentation/compat.md): 1.32's true_signature and force_cu_merging
want=$("$PAHOLE" --supported_btf_features | sed -e 's/,true_signature//' -e 's/,force_cu_merging//')
if [ "$("$DWARF2BTF" --supported_btf_features)" = "$want" ]; then
	tally_ok
else
	tally_fail "--supported_btf_features: '$("$DWARF2BTF" --supported_btf_features)', want '$want'"
fi

sets="61 612 default globalvar langexclude"
# With -flto, other units refer to c89.c's DIEs (abstract origins): pahole
# 1.30 then fails ("couldn't find ... abstract_origin") when the unit is
# left out, so there is nothing to compare with (ours encodes it).
[ "$VARIANT" = lto ] && sets=${sets% langexclude}
for set in $sets; do
	flagvar=FLAGS_$set
	read -r -a flags <<<"${!flagvar}"
	ref=$WORKDIR/ref-$set.btf

	echo "+ $(shquote "$PAHOLE" -J ${flags[@]+"${flags[@]}"} --btf_encode_detached="$ref" "$refinput")"
	if ! "$PAHOLE" -J ${flags[@]+"${flags[@]}"} --btf_encode_detached="$ref" "$refinput"; then
		echo "fixtures.sh: FAIL (setup): pahole $PAHOLE_RELEASE failed on set $set" >&2
		exit 1
	fi
	if [ ! -s "$ref" ]; then
		echo "fixtures.sh: FAIL (setup): pahole $PAHOLE_RELEASE produced no BTF for set $set ($ref)" >&2
		exit 1
	fi

	for j in 1 3 exact; do
		opt=-j$j
		[ "$j" = exact ] && opt=--exact
		out=$WORKDIR/out-$set-j$j.btf
		echo "+ $(shquote "$DWARF2BTF" -J $opt ${flags[@]+"${flags[@]}"} --btf_encode_detached="$out" "$WORKDIR/fixture")"
		rc=0
		"$DWARF2BTF" -J $opt ${flags[@]+"${flags[@]}"} --btf_encode_detached="$out" "$WORKDIR/fixture" || rc=$?
		if [ "$rc" -ne 0 ]; then
			tally_fail "set $set -j$j: $DWARF2BTF exited with status $rc"
		elif [ ! -e "$out" ]; then
			tally_fail "set $set -j$j: $DWARF2BTF wrote no $out"
		elif [ "$VARIANT" = typeunits ] && [ "$j" != 1 ] &&
			! cmp "$WORKDIR/out-$set-j1.btf" "$out"; then
			tally_fail "set $set -j$j: $out differs from -j1's"
		elif [ "$VARIANT" = typeunits ] && "$BTFDIFF" --semantic "$ref" "$out" >"$out.diff"; then
			tally_ok "set $set -j$j (same BTF as pahole's without type units, up to order)"
		elif [ "$VARIANT" = typeunits ]; then
			tally_fail "set $set -j$j: $out is not the BTF of $ref"
			cat "$out.diff"
		elif cmp "$ref" "$out"; then
			tally_ok "set $set -j$j"
		else
			tally_fail "set $set -j$j: $out differs from $ref"
			"$BTFDIFF" "$ref" "$out" || true
		fi
	done
done

# The C89 unit must be what the langexclude set leaves out, or that set
# tested nothing: pahole's BTF with it differs from the 6.12 set's.
if [ -e "$WORKDIR/ref-langexclude.btf" ]; then
	if cmp -s "$WORKDIR/ref-612.btf" "$WORKDIR/ref-langexclude.btf"; then
		tally_fail "--lang_exclude=rust,c89: pahole $PAHOLE_RELEASE left nothing out (c89.c not DW_LANG_C89?)"
	else
		tally_ok "--lang_exclude=rust,c89 leaves a unit out"
	fi
fi

# ---- shared prototypes ------------------------------------------------------
# The comparison with --exact above only tests the shared function prototypes
# (btf_funcs.c, func_proto) if some were shared: the fixture has
# functions with the same signature.
read -r -a flags <<<"$FLAGS_612"
shared=$("$DWARF2BTF" -V -j1 ${flags[@]+"${flags[@]}"} \
	--btf_encode_detached="$WORKDIR/shared.btf" "$WORKDIR/fixture" 2>&1 |
	sed -n 's/.*[^0-9]\([0-9]*\) function prototypes shared.*/\1/p')
if [ "${shared:-0}" -gt 0 ]; then
	tally_ok "$shared function prototypes shared"
else
	tally_fail "no function prototype shared (-V: '${shared:-}')"
fi

# ---- in place (-J without --btf_encode_detached) -------------------------
# The fixture has no .BTF: both tools add it with $LLVM_OBJCOPY (GNU objcopy,
# as the kernel passes it, and the llvm-objcopy default). Running -J again on
# the result replaces the existing .BTF through libelf. Whole files are
# compared.
read -r -a flags <<<"$FLAGS_612"
[ "$VARIANT" = typeunits ] && objcopies=() # no pahole output to compare with
for objcopy in ${objcopies[@]+"${objcopies[@]}"}; do
	ref=$WORKDIR/inplace-ref-$objcopy
	out=$WORKDIR/inplace-out-$objcopy
	cp "$WORKDIR/fixture" "$ref"
	cp "$WORKDIR/fixture" "$out"
	for step in add replace; do
		if ! LLVM_OBJCOPY=$objcopy "$PAHOLE" -J "${flags[@]}" "$ref"; then
			echo "fixtures.sh: FAIL (setup): pahole $PAHOLE_RELEASE -J in place failed" >&2
			exit 1
		fi
		rc=0
		LLVM_OBJCOPY=$objcopy "$DWARF2BTF" -J -j2 "${flags[@]}" "$out" || rc=$?
		if [ "$rc" -ne 0 ]; then
			tally_fail "in place ($step, $objcopy): exit status $rc"
		elif cmp "$ref" "$out"; then
			tally_ok "in place ($step, $objcopy)"
		else
			tally_fail "in place ($step, $objcopy): $out differs from $ref"
		fi
	done
done

tally_end
