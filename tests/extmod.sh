#!/usr/bin/env bash
# extmod.sh - an out-of-tree module built by Kbuild with PAHOLE=dwarf2btf
# gives the .ko that pahole 1.30 (or $DWARF2BTF_PAHOLE_VERSION: tests/lib.sh)
# gives.
#
# Usage: tests/extmod.sh DWARF2BTF WORKDIR
#
# Builds tests/extmod/ (d2b_extmod.ko) against Debian 12's 6.12 headers
# (tests/fetch.sh headers612), as DKMS does: make -C <headers> M=<dir>
# modules. Makefile.modfinal links the .ko, runs the encoder on it in place
# with --btf_base <headers>/vmlinux (Debian ships that vmlinux with the
# kernel's .BTF for this), then resolve_btfids. Each build below is done
# with PAHOLE=pahole and again with PAHOLE=dwarf2btf (the .ko removed and
# relinked from the same objects), and the two .ko files must be identical:
#  1. as Debian configured the kernel: CONFIG_PAHOLE_VERSION=124 (Debian 12
#     built it with pahole 1.24), so Makefile.btf passes 1.24's flags;
#  2. CONFIG_PAHOLE_VERSION of the release reproduced (130 or 132) given on
#     the make command line, as a 6.12 configured with that pahole records:
#     Makefile.btf then passes the 6.12 features and, for M=, distilled_base,
#     so the .ko must also carry a .BTF.base.
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DWARF2BTF WORKDIR" >&2; exit 2; }
D2B=$(readlink -f "$1") WORKDIR=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

die() { echo "FAIL (setup): $*"; tally_fail; tally_end; exit 1; }
"$here/fetch.sh" "$PAHOLE_FETCH" || die "fetch.sh $PAHOLE_FETCH"
"$here/fetch.sh" headers612 || die "fetch.sh headers612"
KDIR=$CACHE/linux-6.12/headers/build
echo "headers: $(readlink -f "$KDIR"), $(grep '^CONFIG_PAHOLE_VERSION=' "$KDIR/.config")"

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
W=$(readlink -f "$WORKDIR")
M=$W/src
cp -r "$here/extmod" "$M"

# build ENCODER [MAKE VARIABLE...]: the module's .ko (re)made with
# PAHOLE=ENCODER; the encoder's command line Kbuild ran in $W/btf.cmd
build() {
	local encoder=$1
	shift
	rm -f "$M/d2b_extmod.ko"
	if ! make V=1 -C "$KDIR" M="$M" PAHOLE="$encoder" "$@" modules >"$W/make.out" 2>"$W/make.err"; then
		sed 's/^/  | /' "$W/make.err"
		return 1
	fi
	# nothing on stderr: no compiler warning, no complaint of resolve_btfids or modpost
	if [ -s "$W/make.err" ]; then
		sed 's/^/  | /' "$W/make.err"
		return 1
	fi
	grep -oF -- "$encoder -J" "$W/make.out" >/dev/null &&
		sed -n "s|.*\($encoder -J[^;]*\);.*|\1|p" "$W/make.out" >"$W/btf.cmd"
}

# compare LABEL [MAKE VARIABLE...]: pahole's .ko against dwarf2btf's
compare() {
	local label=$1
	shift
	if ! build "$PAHOLE" "$@"; then
		tally_fail "$label: the build with pahole $PAHOLE_RELEASE failed"
		return
	fi
	cp "$M/d2b_extmod.ko" "$W/ref.ko"
	if ! build "$D2B" "$@"; then
		tally_fail "$label: the build with dwarf2btf failed"
	elif echo "  $(cat "$W/btf.cmd")" && cmp -s "$W/ref.ko" "$M/d2b_extmod.ko"; then
		tally_ok "$label: d2b_extmod.ko identical to pahole $PAHOLE_RELEASE's ($(stat -c %s "$W/ref.ko") bytes;" \
			"$(readelf -SW "$W/ref.ko" | grep -oE '\.BTF(\.base)? ' | tr -d ' ' | tr '\n' ' '))"
	else
		tally_fail "$label: d2b_extmod.ko differs from pahole $PAHOLE_RELEASE's"
	fi
}

build "$D2B" || die "cannot build the module"
compare "CONFIG_PAHOLE_VERSION=124"

ver=${PAHOLE_RELEASE/./}
compare "CONFIG_PAHOLE_VERSION=$ver" CONFIG_PAHOLE_VERSION="$ver"
if readelf -SW "$M/d2b_extmod.ko" | grep -q ' \.BTF\.base '; then
	tally_ok "CONFIG_PAHOLE_VERSION=$ver: distilled_base passed, .BTF.base written"
else
	tally_fail "CONFIG_PAHOLE_VERSION=$ver: no .BTF.base in d2b_extmod.ko"
fi
# what later steps (tests/boot.sh) may load
cp "$M/d2b_extmod.ko" "$W/d2b_extmod.ko"
tally_end
