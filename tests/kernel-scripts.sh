#!/usr/bin/env bash
# kernel-scripts.sh - dwarf2btf driven by the kernel's own scripts and tools.
#
# Usage: tests/kernel-scripts.sh DWARF2BTF WORKDIR 6.1|6.12|7.2
#
# Fetches (once, cached under $CACHE/linux-source-<ver>/) Debian's
# linux-source-<ver> of the same version as the cached debug vmlinux, takes
# from its tarball only the flag scripts (6.1: scripts/pahole-flags.sh and
# pahole-version.sh; 6.12: scripts/Makefile.btf, Kbuild.include,
# pahole-version.sh, lib/Kconfig.debug) and what tools/bpf/resolve_btfids
# needs, and builds resolve_btfids (the binary is cached, the tree is not).
# Then, with PAHOLE=DWARF2BTF:
#   1. derives PAHOLE_FLAGS exactly as that kernel does and checks them
#      against what README says;
#   2. runs link-vmlinux.sh's gen_btf sequence on a copy of the vmlinux whose
#      own .BTF is renamed away (as on a fresh .tmp_vmlinux): in-place -J with
#      LLVM_OBJCOPY=objcopy, objcopy --only-section=.BTF, the ET_REL dd; then
#      resolve_btfids on the vmlinux;
#   3. runs Makefile.modfinal's cmd_btf_ko on a few modules: -J --btf_base
#      vmlinux in place, then resolve_btfids -b vmlinux;
#   4. runs the 7.x flow: --btf_encode_detached, then objcopy --add-section;
#   5. runs the README's bpftool commands: the vmlinux's .BTF dumped raw and
#      as a vmlinux.h that clang compiles for BPF, a module's dumped with
#      -B vmlinux.
# resolve_btfids must exit 0 and print nothing about unresolved symbols or
# errors; if it does complain, the same step is run on pahole 1.30's BTF as
# a control, and dwarf2btf passes only if the complaints are identical.
#
# 7.2 (sid) builds BTF through scripts/gen-btf.sh, and its resolve_btfids
# rewrites the BTF (btf2btf) before it is linked in. From Debian's
# linux-kbuild-<ver> of the cached debug vmlinux (its Makefile.btf,
# Kbuild.include, pahole-version.sh, gen-btf.sh and the resolve_btfids it
# ships, run through pahole 1.30's unpacked C library: it needs glibc
# 2.38), with PAHOLE=DWARF2BTF and again with pahole 1.30:
#   1. PAHOLE_FLAGS as 7.2 derives them for a v1.30 pahole;
#   2. gen-btf.sh on the vmlinux: resolve_btfids silent (no "multiple IDs",
#      nothing unresolved), and its .btf.o and .BTF_ids identical to pahole
#      1.30's;
#   3. gen-btf.sh --btf_base on modules (against the vmlinux carrying that
#      .BTF), each whole .ko identical to pahole 1.30's.
#
# KS_MODULES overrides the module list (names without .ko); KS_FORCE_CONTROL=1
# runs the pahole 1.30 control for every resolve_btfids step (6.x).
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 3 ] || { echo "usage: $0 DWARF2BTF WORKDIR 6.1|6.12|7.2" >&2; exit 2; }
D2B=$(readlink -f "$1") WORKDIR=$2 KVER=$3
case $KVER in 6.1 | 6.12 | 7.2) ;; *) echo "$0: kernel must be 6.1, 6.12 or 7.2" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

t0=$(date +%s)
die() { echo "FAIL (setup): $*"; tally_fail; tally_end; exit 1; }
log() { echo "kernel-scripts.sh: $*" >&2; }
# expect_flags WHERE GOT WANT: the PAHOLE_FLAGS a kernel's scripts derive
expect_flags() {
	if [ "$2" = "$3" ]; then
		tally_ok "PAHOLE_FLAGS from $1: $2"
	else
		tally_fail "PAHOLE_FLAGS from $1: got '$2', want '$3'"
	fi
	[ -n "$2" ] || die "no PAHOLE_FLAGS"
}

"$here/fetch.sh" "$PAHOLE_FETCH" || die "fetch.sh $PAHOLE_FETCH"
"$here/fetch.sh" "modules${KVER/./}" || die "fetch.sh modules${KVER/./}"
KDIR=$CACHE/linux-$KVER
VMLINUX=$KDIR/vmlinux
SRC=$CACHE/linux-source-$KVER
RESOLVE_BTFIDS=$SRC/bin/resolve_btfids

# --- 7.2: linux-kbuild-<ver>'s gen-btf.sh and resolve_btfids ----------------
# fetch_kbuild: $CACHE/linux-kbuild-7.2/kbuild, the package's tree
fetch_kbuild() {
	local out=$CACHE/linux-kbuild-$KVER abi pkg tmp
	[ -x "$out/kbuild/tools/bpf/resolve_btfids/resolve_btfids" ] && return 0
	# linux-image-7.2.13+deb14-cloud-amd64-dbg: linux-kbuild-7.2.13+deb14
	abi=$(sed -n 's/^linux-image-\(.*\)-cloud-amd64-dbg$/\1/p' "$KDIR/package")
	[ -n "$abi" ] || { log "no kernel version in $(cat "$KDIR/package")"; return 1; }
	pkg=linux-kbuild-$abi
	log "fetching $pkg"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "$pkg/$(cat "$KDIR/suite")" >&2) || return 1
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	dpkg -x "$tmp"/*.deb "$tmp/x" || return 1
	mv "$tmp/x/usr/lib/$pkg" "$out.tmp/kbuild"
	echo "$pkg" >"$out.tmp/package"
	rm -rf "$tmp" "$out"
	mv "$out.tmp" "$out"
}

flow72() {
	local kb=$CACHE/linux-kbuild-$KVER/kbuild libs=$CACHE/pahole-1.30/usr/lib/x86_64-linux-gnu
	local pver flags expect m ko tool
	fetch_kbuild || die "linux-kbuild for $KVER: fetch failed"
	echo "kernel: $(cat "$KDIR/package"), kbuild: $(cat "$CACHE/linux-kbuild-$KVER/package")"
	rm -rf "$WORKDIR"
	mkdir -p "$WORKDIR/include/config"
	W=$(readlink -f "$WORKDIR")
	: >"$W/include/config/auto.conf" # (gen-btf.sh reads CONFIG_CPU_BIG_ENDIAN)
	cat >"$W/resolve_btfids" <<RB
#!/bin/sh
exec "$libs/ld-linux-x86-64.so.2" --library-path "$libs" \
	"$kb/tools/bpf/resolve_btfids/resolve_btfids" "\$@"
RB
	chmod +x "$W/resolve_btfids"

	# 1. Kconfig: CONFIG_PAHOLE_VERSION=$(shell scripts/pahole-version.sh
	# $(PAHOLE)); Debian sets KBUILD_BUILD_TIMESTAMP
	pver=$(sh "$kb/scripts/pahole-version.sh" "$D2B")
	cat >"$W/flags.mk" <<MK
include $kb/scripts/Kbuild.include
include $kb/scripts/Makefile.btf
all: ; @echo \$(PAHOLE_FLAGS)
MK
	flags=$(KBUILD_BUILD_TIMESTAMP=1 make -s -f "$W/flags.mk" \
		CONFIG_PAHOLE_VERSION="$pver" CONFIG_PAHOLE_HAS_LANG_EXCLUDE=y)
	# (-j twice: the >= 1.26 line, and again with +reproducible_build)
	expect="-j --btf_features=$FEATURES_612,decl_tag_kfuncs --btf_features=attributes -j --btf_features=+reproducible_build --lang_exclude=rust"
	expect_flags "7.2's Makefile.btf" "$flags" "$expect"

	# gen_btf TOOL ARGS...: gen-btf.sh ARGS in $W/TOOL with PAHOLE=TOOL's
	# binary; its output in $W/TOOL/log. Returns its exit status.
	gen_btf() {
		local t=$1 bin=$D2B
		shift
		[ "$t" = pahole ] && bin=$PAHOLE
		(cd "$W/$t" && PAHOLE=$bin PAHOLE_FLAGS=$flags RESOLVE_BTFIDS=$W/resolve_btfids \
			RESOLVE_BTFIDS_FLAGS= OBJCOPY=objcopy CC=gcc objtree=$W \
			sh "$kb/scripts/gen-btf.sh" "$@" >>"$W/$t/log" 2>&1)
	}
	# 2. vmlinux: .btf.o and .BTF_ids for link-vmlinux.sh
	for tool in dwarf2btf pahole; do
		mkdir -p "$W/$tool"
		cp "$VMLINUX" "$W/$tool/.tmp_vmlinux1"
		if ! gen_btf $tool .tmp_vmlinux1; then
			tally_fail "gen-btf.sh vmlinux with $tool failed"
			sed 's/^/    /' "$W/$tool/log" | head -n 20
		fi
	done
	if [ -s "$W/dwarf2btf/log" ]; then
		tally_fail "gen-btf.sh vmlinux: resolve_btfids or dwarf2btf printed something"
		sed 's/^/    /' "$W/dwarf2btf/log" | head -n 20
	else
		tally_ok "gen-btf.sh vmlinux: silent (no multiple IDs, nothing unresolved)"
	fi
	if cmp -s "$W/dwarf2btf/.tmp_vmlinux1.btf.o" "$W/pahole/.tmp_vmlinux1.btf.o" &&
		cmp -s "$W/dwarf2btf/.tmp_vmlinux1.BTF_ids" "$W/pahole/.tmp_vmlinux1.BTF_ids"; then
		tally_ok "gen-btf.sh vmlinux: .btf.o ($(stat -c %s "$W/dwarf2btf/.tmp_vmlinux1.btf.o") bytes) and .BTF_ids identical to pahole 1.30's"
	else
		tally_fail "gen-btf.sh vmlinux: .btf.o or .BTF_ids differ from pahole 1.30's"
	fi
	# the vmlinux the modules are built against carries that .BTF
	for tool in dwarf2btf pahole; do
		objcopy --dump-section .BTF="$W/$tool/vmlinux.BTF" "$W/$tool/.tmp_vmlinux1.btf.o" &&
			objcopy --remove-section .BTF "$W/$tool/.tmp_vmlinux1" "$W/$tool/vmlinux" &&
			objcopy --add-section .BTF="$W/$tool/vmlinux.BTF" "$W/$tool/vmlinux" ||
			die "$tool: vmlinux with the generated .BTF"
		rm -f "$W/$tool/.tmp_vmlinux1"
	done

	# 3. modules (Makefile.modfinal): gen-btf.sh --btf_base vmlinux foo.ko
	for m in ${KS_MODULES:-tcp_bbr fou nf_nat_h323 vfat configfs efivarfs nfs xfs}; do
		ko=$KDIR/modules/$m.ko
		[ -f "$ko" ] || { tally_fail "module $m: $ko not in the cache"; continue; }
		for tool in dwarf2btf pahole; do
			: >"$W/$tool/log"
			# a freshly linked .ko has no .BTF yet
			objcopy --remove-section .BTF "$ko" "$W/$tool/$m.ko" &&
				gen_btf $tool --btf_base vmlinux "$m.ko" ||
				{ tally_fail "module $m: gen-btf.sh with $tool failed"; sed 's/^/    /' "$W/$tool/log" | head -n 20; }
		done
		if [ -s "$W/dwarf2btf/log" ]; then
			tally_fail "module $m: gen-btf.sh printed something"
			sed 's/^/    /' "$W/dwarf2btf/log" | head -n 20
		elif cmp -s "$W/dwarf2btf/$m.ko" "$W/pahole/$m.ko"; then
			tally_ok "module $m: gen-btf.sh --btf_base vmlinux: the .ko identical to pahole 1.30's"
		else
			tally_fail "module $m: the .ko differs from pahole 1.30's"
		fi
		rm -f "$W/dwarf2btf/$m.ko" "$W/pahole/$m.ko"
	done
	rm -rf "$W/dwarf2btf" "$W/pahole"
	echo "time: $(($(date +%s) - t0)) s"
	tally_end
	exit
}
[ "$KVER" = 7.2 ] && flow72

# --- linux-source-<ver>: the flag scripts and a built resolve_btfids ---------
fetch_source() {
	[ -x "$RESOLVE_BTFIDS" ] && return 0
	local kpkg ver tmp p
	kpkg=$(cat "$KDIR/package")
	ver=$(apt-cache show "$kpkg" | awk '/^Version:/ { print $2; exit }')
	[ -n "$ver" ] || { log "no version for $kpkg"; return 1; }
	log "fetching linux-source-$KVER=$ver and building resolve_btfids"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "linux-source-$KVER=$ver" >&2) || return 1
	p=linux-source-$KVER
	local want=("$p/tools/bpf/resolve_btfids/*" "$p/tools/lib/*" "$p/tools/include/*"
		"$p/tools/arch/x86/include/*" "$p/tools/scripts/*" "$p/tools/build/*"
		"$p/scripts/bpf_doc.py" "$p/include/uapi/linux/bpf.h"
		"$p/scripts/pahole-version.sh")
	case $KVER in
	6.1) want+=("$p/scripts/pahole-flags.sh") ;;
	6.12) want+=("$p/scripts/Makefile.btf" "$p/scripts/Kbuild.include" "$p/lib/Kconfig.debug") ;;
	esac
	rm -rf "$SRC.tmp"
	mkdir -p "$SRC.tmp/tree"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -xO "./usr/src/$p.tar.xz" | xz -dc |
		tar -x -C "$SRC.tmp/tree" --strip-components=1 --wildcards "${want[@]}" ||
		{ rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	# gcc and make from deps; libelf and zlib headers too (fetch.sh deps)
	if ! make -C "$SRC.tmp/tree/tools/bpf/resolve_btfids" -j2 >"$SRC.tmp/build.log" 2>&1; then
		tail -n 30 "$SRC.tmp/build.log" >&2
		return 1
	fi
	mkdir -p "$SRC.tmp/bin" "$SRC.tmp/scripts" "$SRC.tmp/lib"
	cp "$SRC.tmp/tree/tools/bpf/resolve_btfids/resolve_btfids" "$SRC.tmp/bin/"
	cp "$SRC.tmp/tree/scripts/pahole-"* "$SRC.tmp/scripts/"
	if [ "$KVER" = 6.12 ]; then
		cp "$SRC.tmp/tree/scripts/Makefile.btf" "$SRC.tmp/tree/scripts/Kbuild.include" "$SRC.tmp/scripts/"
		cp "$SRC.tmp/tree/lib/Kconfig.debug" "$SRC.tmp/lib/"
	fi
	echo "linux-source-$KVER=$ver" >"$SRC.tmp/package"
	rm -rf "$SRC.tmp/tree" "$SRC"
	mv "$SRC.tmp" "$SRC"
}
fetch_source || die "linux-source-$KVER: fetch or resolve_btfids build failed"
echo "kernel: $(cat "$KDIR/package"), source: $(cat "$SRC/package")"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
W=$(readlink -f "$WORKDIR")

# --- 1. PAHOLE_FLAGS, as the kernel derives them --------------------------
case $KVER in
6.1)
	# top-level Makefile: PAHOLE_FLAGS = $(shell PAHOLE=$(PAHOLE) scripts/pahole-flags.sh)
	FLAGS=$(PAHOLE=$D2B sh "$SRC/scripts/pahole-flags.sh")
	expect="--btf_gen_floats -j --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"
	;;
6.12)
	# Kconfig: CONFIG_PAHOLE_VERSION=$(shell scripts/pahole-version.sh $(PAHOLE))
	# and PAHOLE_HAS_LANG_EXCLUDE def_bool PAHOLE_VERSION >= N (lib/Kconfig.debug);
	# the top-level Makefile includes scripts/Makefile.btf after Kbuild.include.
	pver=$(sh "$SRC/scripts/pahole-version.sh" "$D2B")
	lang_min=$(awk '/^config PAHOLE_HAS_LANG_EXCLUDE/ { f = 1; next }
		f && /def_bool/ { print $NF; exit }' "$SRC/lib/Kconfig.debug")
	[ -n "$lang_min" ] || die "no PAHOLE_HAS_LANG_EXCLUDE in lib/Kconfig.debug"
	lang=
	[ "$pver" -ge "$lang_min" ] && lang=y
	cat >"$W/flags.mk" <<MK
include $SRC/scripts/Kbuild.include
include $SRC/scripts/Makefile.btf
all: ; @echo \$(PAHOLE_FLAGS) \$(MODULE_PAHOLE_FLAGS)
MK
	FLAGS=$(env -u KBUILD_BUILD_TIMESTAMP -u KBUILD_EXTMOD make -s -f "$W/flags.mk" \
		CONFIG_PAHOLE_VERSION="$pver" CONFIG_PAHOLE_HAS_LANG_EXCLUDE="$lang")
	# Debian's Makefile.btf passes -j twice (the ≥1.26 line and its own block)
	expect="-j --btf_features=$FEATURES_612,decl_tag_kfuncs -j --lang_exclude=rust"
	;;
esac
expect_flags "the kernel's scripts" "$FLAGS" "$expect"

# run_btfids NAME ARGS... : resolve_btfids ARGS, output to $W/NAME.btfids,
# with the work directory's paths written as W; returns its exit status
run_btfids() {
	local name=$1; shift
	local rc=0
	"$RESOLVE_BTFIDS" "$@" >"$W/$name.btfids.raw" 2>&1 || rc=$?
	sed "s|$W/[^ :]*|FILE|g" "$W/$name.btfids.raw" >"$W/$name.btfids"
	echo "exit $rc" >>"$W/$name.btfids"
	return $rc
}
clean_btfids() { # FILE : exit 0, no unresolved symbol, no error
	# KS_FORCE_CONTROL=1 treats every run as a complaint, to exercise the control
	[ "${KS_FORCE_CONTROL:-0}" = 1 ] && return 1
	grep -qx 'exit 0' "$1" && ! grep -qiE 'unresolved|error|fail' "$1"
}
# check_btfids WHAT NAME CONTROL_FN : judge $W/NAME.btfids; if it complains,
# CONTROL_FN produces $W/NAME-pahole.btfids with pahole 1.30's BTF
check_btfids() {
	local what=$1 name=$2 control=$3
	local n
	n=$(($(wc -l <"$W/$name.btfids") - 1))
	if clean_btfids "$W/$name.btfids"; then
		tally_ok "$what: resolve_btfids exit 0, no unresolved symbols ($n lines of output)"
		return
	fi
	if ! $control; then
		tally_fail "$what: resolve_btfids complains and the pahole 1.30 control failed"
		sed 's/^/    /' "$W/$name.btfids" | head -n 20
	elif cmp -s "$W/$name.btfids" "$W/$name-pahole.btfids"; then
		tally_ok "$what: resolve_btfids output identical to that on pahole 1.30's BTF ($n lines)"
	else
		tally_fail "$what: resolve_btfids output differs from that on pahole 1.30's BTF"
		diff -u "$W/$name-pahole.btfids" "$W/$name.btfids" | head -n 40
	fi
}

secsize() { # ELF SECTION : size in bytes, empty if absent
	local hex
	hex=$(readelf -SW "$1" | awk -v s="$2" '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == s { print $5; exit }')
	[ -n "$hex" ] && printf '%d\n' "0x$hex"
}

# --- 2. link-vmlinux.sh gen_btf on a vmlinux without .BTF -------------------
BASE=$W/vmlinux.nobtf
objcopy --rename-section .BTF=.BTF.debian "$VMLINUX" "$BASE" ||
	die "objcopy --rename-section on $VMLINUX"
[ -z "$(secsize "$BASE" .BTF)" ] || die "$BASE still has a .BTF"
TMPV=$W/.tmp_vmlinux.btf
cp "$BASE" "$TMPV"
start=$(date +%s%N)
# shellcheck disable=SC2086
if LLVM_OBJCOPY=objcopy "$D2B" -J $FLAGS "$TMPV" 2>"$W/gen_btf.err"; then
	sz=$(secsize "$TMPV" .BTF)
	if [ -n "$sz" ] && [ "$sz" -gt 0 ]; then
		tally_ok "gen_btf: LLVM_OBJCOPY=objcopy dwarf2btf -J \$PAHOLE_FLAGS added .BTF ($sz bytes, $((($(date +%s%N) - start) / 1000000)) ms)"
	else
		tally_fail "gen_btf: dwarf2btf -J exited 0 but left no .BTF"
	fi
else
	tally_fail "gen_btf: dwarf2btf -J failed"
	sed 's/^/    /' "$W/gen_btf.err" | head -n 20
fi
BTFO=$W/.btf.vmlinux.bin.o
if objcopy --only-section=.BTF --set-section-flags .BTF=alloc,readonly \
	--strip-all "$TMPV" "$BTFO" 2>/dev/null &&
	printf '\1' | dd of="$BTFO" conv=notrunc bs=1 seek=16 status=none; then
	objcopy --dump-section .BTF="$W/inplace.BTF" "$TMPV" 2>/dev/null
	objcopy --dump-section .BTF="$W/btfo.BTF" "$BTFO" 2>/dev/null
	etype=$(readelf -h "$BTFO" | awk '/Type:/ { print $2 }')
	flags=$(readelf -SW "$BTFO" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".BTF" { print $7 }')
	if [ "$etype" = REL ] && [ "$flags" = A ] && [ -s "$W/btfo.BTF" ] &&
	   cmp -s "$W/inplace.BTF" "$W/btfo.BTF" &&
	   ld -r -o "$W/linked.o" "$BTFO" 2>"$W/ld.err"; then
		tally_ok "gen_btf: objcopy --only-section=.BTF + dd: ET_REL with an alloc .BTF equal to the encoded one, ld accepts it"
	else
		tally_fail "gen_btf: .btf.vmlinux.bin.o: type '$etype', .BTF flags '$flags', or its bytes or ld -r are wrong"
		cat "$W/ld.err" 2>/dev/null
	fi
else
	tally_fail "gen_btf: objcopy --only-section=.BTF or the dd failed"
fi
rm -f "$BTFO" "$W/btfo.BTF" "$W/linked.o"

# The final vmlinux carries those .BTF bytes; resolve_btfids patches .BTF_ids.
# Run it on $TMPV, which then serves as the modules' base, like vmlinux.
run_btfids vmlinux "$TMPV"
vmlinux_control() {
	local p=$W/vmlinux-pahole
	cp "$BASE" "$p"
	# shellcheck disable=SC2086
	LLVM_OBJCOPY=objcopy "$PAHOLE" -J $FLAGS "$p" 2>/dev/null || return 1
	run_btfids vmlinux-pahole "$p"
	rm -f "$p"
	return 0
}
check_btfids "resolve_btfids vmlinux" vmlinux vmlinux_control

# --- 3. Makefile.modfinal cmd_btf_ko -----------------------------------------
case $KVER in
6.1) mods="tcp_bbr tcp_dctcp nf_nat_h323 fat vfat xfs" ;;
6.12) mods="tcp_bbr tcp_dctcp fou nf_nat_h323 fat vfat xfs" ;;
esac
mods=${KS_MODULES:-$mods}
PBASE=
for m in $mods; do
	ko=$KDIR/modules/$m.ko
	[ -f "$ko" ] || { tally_fail "module $m: $ko not in the cache"; continue; }
	# a freshly linked .ko has no .BTF yet: rename Debian's away
	mko=$W/$m.ko
	objcopy --rename-section .BTF=.BTF.debian "$ko" "$mko" || { tally_fail "module $m: objcopy"; continue; }
	# shellcheck disable=SC2086
	if ! LLVM_OBJCOPY=objcopy "$D2B" -J $FLAGS --btf_base "$TMPV" "$mko" 2>"$W/$m.err"; then
		tally_fail "module $m: dwarf2btf -J --btf_base vmlinux failed"
		sed 's/^/    /' "$W/$m.err" | head -n 20
		continue
	fi
	sz=$(secsize "$mko" .BTF)
	if [ -z "$sz" ] || [ "$sz" -eq 0 ]; then
		tally_fail "module $m: no .BTF after -J --btf_base"
		continue
	fi
	run_btfids "$m" -b "$TMPV" "$mko"
	module_control() {
		if [ -z "$PBASE" ]; then
			PBASE=$W/vmlinux-pahole-base
			cp "$BASE" "$PBASE"
			# shellcheck disable=SC2086
			LLVM_OBJCOPY=objcopy "$PAHOLE" -J $FLAGS "$PBASE" 2>/dev/null || return 1
		fi
		local p=$W/$m-pahole.ko
		objcopy --rename-section .BTF=.BTF.debian "$ko" "$p" || return 1
		# shellcheck disable=SC2086
		LLVM_OBJCOPY=objcopy "$PAHOLE" -J $FLAGS --btf_base "$PBASE" "$p" 2>/dev/null || return 1
		run_btfids "$m-pahole" -b "$PBASE" "$p"
		rm -f "$p"
		return 0
	}
	check_btfids "module $m (split .BTF $sz bytes): resolve_btfids -b vmlinux" "$m" module_control
	rm -f "$mko"
done
rm -f "$W/vmlinux-pahole-base"

# --- 4. 7.x gen-btf.sh: detached BTF, then objcopy --add-section ------------
# shellcheck disable=SC2086
if ! "$D2B" -J $FLAGS --btf_encode_detached="$W/vmlinux.BTF.1" "$BASE" 2>"$W/detached.err"; then
	tally_fail "7.x: dwarf2btf --btf_encode_detached failed"
	sed 's/^/    /' "$W/detached.err" | head -n 20
elif [ ! -s "$W/vmlinux.BTF.1" ]; then
	tally_fail "7.x: dwarf2btf --btf_encode_detached exited 0 but wrote no file"
elif [ -n "$(secsize "$BASE" .BTF)" ]; then
	tally_fail "7.x: --btf_encode_detached modified its input"
elif ! objcopy --add-section .BTF="$W/vmlinux.BTF.1" "$BASE" "$W/vmlinux.7x"; then
	tally_fail "7.x: objcopy --add-section .BTF= failed"
else
	objcopy --dump-section .BTF="$W/7x.BTF" "$W/vmlinux.7x" 2>/dev/null
	if cmp -s "$W/vmlinux.BTF.1" "$W/7x.BTF" && cmp -s "$W/vmlinux.BTF.1" "$W/inplace.BTF"; then
		tally_ok "7.x: --btf_encode_detached + objcopy --add-section: .BTF equals the in-place one ($(stat -c %s "$W/7x.BTF") bytes)"
	else
		tally_fail "7.x: .BTF after objcopy --add-section differs from the detached file or the in-place .BTF"
	fi
fi

# --- 5. the README's bpftool checks ----------------------------------------
# the vmlinux's .BTF dumped raw and as C, the header compiled for BPF; a
# module's split .BTF dumped against it, its ids following the base's
if bpftool btf dump file "$TMPV" >"$W/vmlinux.dump" 2>"$W/bpftool.err" &&
	bpftool btf dump file "$TMPV" format c >"$W/vmlinux.h" 2>>"$W/bpftool.err" &&
	printf '#include "vmlinux.h"\nint pid_of(struct task_struct *t) { return t->pid; }\n' |
	clang -target bpf -fsyntax-only -I "$W" -x c - 2>>"$W/bpftool.err"; then
	tally_ok "bpftool btf dump file vmlinux: $(wc -l <"$W/vmlinux.dump") lines raw; format c compiles for BPF"
else
	tally_fail "bpftool btf dump file vmlinux, or its vmlinux.h, failed"
	head -n 20 "$W/bpftool.err"
fi
m=${mods%% *}
ids() { sed -n 's/^\[\([0-9]*\)\] .*/\1/p' "$1"; } # FILE: a raw dump's type ids
nbase=$(ids "$W/vmlinux.dump" | tail -n 1)
# shellcheck disable=SC2086
if objcopy --rename-section .BTF=.BTF.debian "$KDIR/modules/$m.ko" "$W/$m.ko" &&
	"$D2B" -J $FLAGS --btf_base "$TMPV" "$W/$m.ko" &&
	bpftool -B "$TMPV" btf dump file "$W/$m.ko" >"$W/$m.dump" 2>"$W/bpftool.err"; then
	first=$(ids "$W/$m.dump" | head -n 1)
	if [ -n "$nbase" ] && [ "$first" = $((nbase + 1)) ]; then
		tally_ok "bpftool -B vmlinux btf dump file $m.ko: ids $first to $(ids "$W/$m.dump" | tail -n 1)"
	else
		tally_fail "bpftool -B vmlinux btf dump file $m.ko: first id '$first', base's last '$nbase'"
	fi
else
	tally_fail "$m.ko: encoding or bpftool -B vmlinux btf dump file failed"
	head -n 20 "$W/bpftool.err"
fi
rm -f "$W/$m.ko" "$W/$m.dump" "$W/vmlinux.dump" "$W/vmlinux.h"

rm -rf "$W/vmlinux.7x" "$BASE" "$TMPV"
echo "time: $(($(date +%s) - t0)) s"
tally_end
