#!/usr/bin/env bash
# valgrind.sh - memcheck on real inputs: no invalid access, no definite or
# indirect leak, on success paths (a kernel module's split BTF at -j3, a
# fixture in place and detached) and on error paths (a non-ELF input, a
# base that is not BTF).
#
# Usage: tests/valgrind.sh DWARF2BTF WORKDIR
# The last line is "N passed, M failed"; exit status 0 iff M is 0.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DWARF2BTF WORKDIR" >&2; exit 2; }
D2B=$1 WORKDIR=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
"$here/fetch.sh" modules61 || exit 1

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"

# vg WHAT EXPECTED_STATUS ARGS...: run under memcheck; 99 means a memcheck error
vg() {
	local what=$1 want=$2 rc=0
	shift 2
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 "$D2B" "$@" 2>"$WORKDIR/stderr" || rc=$?
	if [ "$rc" -eq 99 ] || grep -q '^==[0-9]*==' "$WORKDIR/stderr"; then
		tally_fail "$what: memcheck reported errors"
		cat "$WORKDIR/stderr"
	elif [ "$rc" -ne "$want" ]; then
		tally_fail "$what: exit status $rc, want $want"
		cat "$WORKDIR/stderr"
	else
		tally_ok "$what"
	fi
}

cat >"$WORKDIR/prog.c" <<'C'
struct node { struct node *next; int v : 5; unsigned long long big; };
enum color { RED, GREEN = 7 };
static int walk(struct node *n, enum color c) { return n ? n->v + c + walk(n->next, c) : 0; }
int main(void) { struct node n = { 0, 3, 1 }; return walk(&n, GREEN); }
C
gcc -g -O2 -o "$WORKDIR/prog" "$WORKDIR/prog.c" || exit 1
echo "not an ELF file" >"$WORKDIR/text"
# shellcheck disable=SC2086
read -r -a flags <<<"$FLAGS_612"

vg "xfs.ko split BTF, -j3" 0 -J -j3 "${flags[@]}" --btf_base "$CACHE/linux-6.1/vmlinux" \
	--btf_encode_detached="$WORKDIR/xfs.btf" "$CACHE/linux-6.1/modules/xfs.ko"
vg "fixture detached, -j2" 0 -J -j2 "${flags[@]}" --btf_encode_detached="$WORKDIR/prog.btf" \
	"$WORKDIR/prog"
LLVM_OBJCOPY=objcopy vg "fixture in place" 0 -J "${flags[@]}" "$WORKDIR/prog"
vg "non-ELF input" 1 -J --btf_encode_detached="$WORKDIR/x.btf" "$WORKDIR/text"
vg "base is not BTF" 1 -J --btf_base "$WORKDIR/text" --btf_encode_detached="$WORKDIR/y.btf" \
	"$WORKDIR/prog"

tally_end
