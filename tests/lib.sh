# shellcheck shell=bash
# lib.sh - what the test scripts share: the reference tool, the cache, the
# flag sets each kernel generation passes to pahole, and the pass/fail
# tally. Sourced.

CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}
# The reference: the pahole release $DWARF2BTF_PAHOLE_VERSION names (1.30 by
# default), which dwarf2btf, reading the same variable, reproduces;
# PAHOLE_FETCH is its tests/fetch.sh target.
PAHOLE_RELEASE=${DWARF2BTF_PAHOLE_VERSION:-1.30}
case $PAHOLE_RELEASE in
1.30) PAHOLE=$CACHE/pahole-1.30/bin/pahole130 PAHOLE_FETCH=pahole130 ;;
1.32) PAHOLE=$CACHE/pahole-1.32/bin/pahole132 PAHOLE_FETCH=pahole132 ;;
*) echo "lib.sh: DWARF2BTF_PAHOLE_VERSION=$DWARF2BTF_PAHOLE_VERSION: 1.30 or 1.32" >&2; exit 2 ;;
esac

# Linux 6.1, scripts/pahole-flags.sh (the -j it also passes is ours to choose)
FLAGS_61="--btf_gen_floats --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"
# Linux 6.12, scripts/Makefile.btf, without and with kfunc decl tags
FEATURES_612="encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func"
FLAGS_612_NOKFUNCS="--btf_features=$FEATURES_612 --lang_exclude=rust"
FLAGS_612="--btf_features=$FEATURES_612,decl_tag_kfuncs --lang_exclude=rust"
# Linux 7.2, scripts/Makefile.btf for pahole 1.30, as Debian builds it
# (KBUILD_BUILD_TIMESTAMP set: +reproducible_build)
FLAGS_72="--btf_features=$FEATURES_612,decl_tag_kfuncs --btf_features=attributes --btf_features=+reproducible_build --lang_exclude=rust"
# for pahole 1.31 and later 7.2 adds layout, which neither 1.32 (with
# Debian's libbpf) nor dwarf2btf supports: an unknown name, ignored
[ "$PAHOLE_RELEASE" = 1.30 ] || FLAGS_72="$FLAGS_72 --btf_features=layout"
# the 6.12 set plus global_var: a VAR for every variable, not only per-CPU ones
FLAGS_GLOBALVAR="--btf_features=$FEATURES_612,decl_tag_kfuncs,global_var --lang_exclude=rust"

# kbuild_flags VER: the flags kernel VER's own Kbuild passes (6.1, 6.12 or 7.2)
kbuild_flags() {
	case $1 in
	6.1) echo "$FLAGS_61" ;;
	6.12) echo "$FLAGS_612" ;;
	7.2) echo "$FLAGS_72" ;;
	esac
}

# module_compare LABEL KO BASE FLAGS: KO's split BTF against BASE with the
# flag set FLAGS, by pahole 1.30 and by $D2B (-j1, -j2 and -j3 in turn, all
# three for the largest modules, xfs, btrfs and mlx5_core; then --exact,
# the path without shortcuts), each cmp'd with pahole's, $BTFDIFF on a
# mismatch. Writes $WORKDIR/ref.btf and $WORKDIR/out.btf (the --exact run's
# output stays there). The counter $module_n rotates the -j.
module_n=0
module_compare() {
	local label=$1 ko=$2 base=$3 flags=$4 ref=$WORKDIR/ref.btf out=$WORKDIR/out.btf jobs opt
	# pahole 1.30 does not truncate an existing output file
	rm -f "$ref"
	# shellcheck disable=SC2086
	"$PAHOLE" -J $flags --btf_base "$base" --btf_encode_detached="$ref" "$ko"
	case $(basename "$ko" .ko) in
	xfs | btrfs | mlx5_core) jobs="-j1 -j2 -j3" ;;
	*) module_n=$((module_n + 1)); jobs=-j$((module_n % 3 + 1)) ;;
	esac
	for opt in $jobs --exact; do
		rm -f "$out"
		# shellcheck disable=SC2086
		if ! "$D2B" -J $opt $flags --btf_base "$base" --btf_encode_detached="$out" "$ko"; then
			tally_fail "$label $opt: dwarf2btf failed"
		elif cmp -s "$ref" "$out"; then
			tally_ok
		else
			tally_fail "$label $opt: differs from pahole $PAHOLE_RELEASE"
			"$BTFDIFF" --base "$base" "$ref" "$out" || true
		fi
	done
}

# The tally. tally_ok [MSG] counts a pass, tally_fail [MSG] a failure; given
# MSG they print "ok: MSG" or "FAIL: MSG", without it nothing (the script or
# the tool it ran says what happened). Both return 0, so `CMD && tally_ok ||
# tally_fail MSG` is safe. tally_end prints the last line, "N passed, M
# failed", and returns 0 iff M is 0. The counts so far: $tally_passed and
# $tally_failed.
tally_passed=0 tally_failed=0
# shellcheck disable=SC2120 # MSG is optional
tally_ok() {
	tally_passed=$((tally_passed + 1))
	if [ $# -gt 0 ]; then echo "ok: $*"; fi
}
# shellcheck disable=SC2120 # MSG is optional
tally_fail() {
	tally_failed=$((tally_failed + 1))
	if [ $# -gt 0 ]; then echo "FAIL: $*"; fi
}
tally_end() {
	echo "$tally_passed passed, $tally_failed failed"
	[ "$tally_failed" -eq 0 ]
}
