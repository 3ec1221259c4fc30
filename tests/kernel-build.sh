#!/usr/bin/env bash
# kernel-build.sh - a kernel built from source with make PAHOLE=dwarf2btf has
# the BTF that pahole 1.30 gives it.
#
# Usage: tests/kernel-build.sh DWARF2BTF WORKDIR CONFIG
#   CONFIG: gcc-dwarf4, gcc-dwarf5, clang-dwarf4, clang-dwarf5 (LLVM=1) or
#   clang-thinlto (LLVM=1, CONFIG_LTO_CLANG_THIN, DWARF 5)
#
# Debian 12's linux-source-6.1 (tests/fetch.sh source61), configured small:
# tinyconfig plus 64-bit, modules, BPF, BTF for vmlinux and modules, ftrace
# and kprobes, networking (INET and unix; packet and TCP congestion controls
# as modules) and block with ext2, fat, vfat, msdos and two NLS tables as
# modules. The tree is compiled once per CONFIG, with PAHOLE=pahole 1.30,
# into $CACHE/kernel-build-6.1/CONFIG (9 to 12 minutes on 2 CPUs), and kept
# there. Each run then relinks it twice, the objects untouched: vmlinux and
# every .ko removed, make vmlinux modules with PAHOLE=pahole 1.30, then the
# same with PAHOLE=dwarf2btf. link-vmlinux.sh's BTF step, resolve_btfids and
# Makefile.modfinal run as in any kernel build. Compared, with cmp: the
# vmlinux's .BTF and .BTF_ids, and every module's .BTF. Neither build may
# print a warning (resolve_btfids reports what it cannot resolve on stderr).
# KBUILD_BUILD_* are fixed, so the two links differ in nothing but the
# encoder.
#
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 3 ] || { echo "usage: $0 DWARF2BTF WORKDIR CONFIG" >&2; exit 2; }
D2B=$(readlink -f "$1") WORKDIR=$2 CONFIG=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

die() { echo "FAIL (setup): $*"; tally_fail; tally_end; exit 1; }
case $CONFIG in
gcc-dwarf4 | gcc-dwarf5) llvm=() ;;
clang-dwarf4 | clang-dwarf5 | clang-thinlto) llvm=(LLVM=1) ;;
*) echo "$0: CONFIG: gcc-dwarf4, gcc-dwarf5, clang-dwarf4, clang-dwarf5 or clang-thinlto" >&2; exit 2 ;;
esac
dwarf=5
[ "${CONFIG#*-dwarf}" = 4 ] && dwarf=4
[ "$PAHOLE_RELEASE" = 1.30 ] || die "the cached tree is configured for pahole 1.30"
"$here/fetch.sh" pahole130 || die "fetch.sh pahole130"
"$here/fetch.sh" source61 || die "fetch.sh source61"
SRC=$CACHE/linux-6.1/source
OUT=$CACHE/kernel-build-6.1/$CONFIG
export KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=dwarf2btf KBUILD_BUILD_HOST=dwarf2btf \
	KBUILD_BUILD_VERSION=1

kmake() { make -C "$SRC" O="$OUT" ${llvm[@]+"${llvm[@]}"} -j"$(nproc)" "$@"; }

configure() {
	local s=$SRC/scripts/config
	kmake PAHOLE="$PAHOLE" tinyconfig >/dev/null || return 1
	"$s" --file "$OUT/.config" --enable 64BIT --enable MODULES --enable MODULE_UNLOAD \
		--enable BPF_SYSCALL --enable BPF_JIT --enable DEBUG_KERNEL --enable DEBUG_INFO \
		--disable DEBUG_INFO_NONE --enable "DEBUG_INFO_DWARF$dwarf" \
		--enable DEBUG_INFO_BTF --enable DEBUG_INFO_BTF_MODULES \
		--enable FTRACE --enable FUNCTION_TRACER --enable KPROBES \
		--enable PROC_FS --enable SYSFS --enable NET --enable INET --module PACKET --enable UNIX \
		--enable TCP_CONG_ADVANCED --module TCP_CONG_BBR --enable BLOCK \
		--module EXT2_FS --module FAT_FS --module VFAT_FS --module MSDOS_FS \
		--enable NLS --module NLS_CODEPAGE_437 --module NLS_ISO8859_1 || return 1
	[ "$CONFIG" != clang-thinlto ] || "$s" --file "$OUT/.config" --disable LTO_NONE \
		--enable LTO_CLANG_THIN || return 1
	kmake PAHOLE="$PAHOLE" olddefconfig >/dev/null || return 1
}

# the configuration must hold what it was asked for, or the test says so
checked_config() {
	local want=(CONFIG_DEBUG_INFO_BTF=y CONFIG_DEBUG_INFO_BTF_MODULES=y CONFIG_MODULES=y
		CONFIG_PAHOLE_VERSION=130 "CONFIG_DEBUG_INFO_DWARF$dwarf=y" CONFIG_FAT_FS=m CONFIG_UNIX=y) w
	[ "$CONFIG" != clang-thinlto ] || want+=(CONFIG_LTO_CLANG_THIN=y)
	[ -n "${llvm[*]-}" ] && want+=(CONFIG_CC_IS_CLANG=y) || want+=(CONFIG_CC_IS_GCC=y)
	for w in "${want[@]}"; do
		grep -qx "$w" "$OUT/.config" || { echo "$w: not in the configuration"; return 1; }
	done
}

if [ ! -f "$OUT/done" ]; then
	echo "compiling linux-6.1 ($CONFIG) into $OUT, once (9 to 12 minutes on 2 CPUs)"
	rm -rf "$OUT"
	mkdir -p "$OUT"
	configure || die "cannot configure $CONFIG"
	checked_config || die "$CONFIG: the configuration lacks what the test needs"
	kmake PAHOLE="$PAHOLE" vmlinux modules >"$OUT/build.log" 2>&1 ||
		{ tail -n 30 "$OUT/build.log"; die "cannot build $CONFIG"; }
	touch "$OUT/done"
fi
checked_config || die "$CONFIG: the cached configuration lacks what the test needs"
echo "linux-6.1 $CONFIG: $(sed -n 's/^CONFIG_CC_VERSION_TEXT=//p' "$OUT/.config")," \
	"$(find "$OUT" -name '*.ko' | wc -l) modules"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# relink ENCODER NAME: vmlinux and the modules linked again with
# PAHOLE=ENCODER; their BTF sections into $WORKDIR/NAME
relink() {
	local encoder=$1 dir=$WORKDIR/$2 ko
	rm -f "$OUT/vmlinux" "$OUT"/.tmp_vmlinux*
	find "$OUT" -name '*.ko' -delete
	if ! kmake PAHOLE="$encoder" vmlinux modules >"$dir.log" 2>"$dir.err"; then
		tail -n 30 "$dir.err"
		return 1
	fi
	if grep -v '^make\(\[[0-9]*\]\)\?: \(Entering\|Leaving\)' "$dir.err" | grep -q .; then
		echo "stderr of the build with $encoder:"
		sed 's/^/  | /' "$dir.err"
		return 1
	fi
	mkdir -p "$dir"
	objcopy --dump-section .BTF="$dir/vmlinux.BTF" --dump-section .BTF_ids="$dir/vmlinux.BTF_ids" \
		"$OUT/vmlinux" "$dir/junk" || return 1
	while read -r ko; do
		objcopy --dump-section .BTF="$dir/$(basename "$ko" .ko).BTF" "$ko" "$dir/junk" || return 1
	done < <(find "$OUT" -name '*.ko' | sort)
	rm -f "$dir/junk"
}

relink "$PAHOLE" ref || die "the relink with pahole 1.30 failed"
if ! relink "$D2B" out; then
	tally_fail "the relink with PAHOLE=dwarf2btf failed"
	tally_end
	exit 1
fi
for f in "$WORKDIR"/ref/*; do
	n=$(basename "$f")
	if cmp -s "$f" "$WORKDIR/out/$n"; then
		tally_ok
	else
		tally_fail "$n: differs from pahole 1.30's"
	fi
done
echo "compared: $(find "$WORKDIR/ref" -type f | wc -l) sections (vmlinux .BTF and .BTF_ids, each module's .BTF)"
[ "$(find "$WORKDIR/ref" -type f | wc -l)" -eq "$(find "$WORKDIR/out" -type f | wc -l)" ] &&
	tally_ok || tally_fail "not as many sections from dwarf2btf's build"
tally_end
