#!/usr/bin/env bash
# cli.sh - the command line: version strings the kernel parses, feature
# listing, flag handling and error paths (message, exit status, no output
# file, input untouched).
#
# Usage: tests/cli.sh DWARF2BTF
set -uo pipefail

D2B=$1
here=$(cd "$(dirname "$0")" && pwd)
# the default release: the selection is tested below
unset DWARF2BTF_PAHOLE_VERSION
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect_eq WHAT GOT WANT
expect_eq() { if [ "$2" = "$3" ]; then tally_ok; else tally_fail "$1: got '$2', want '$3'"; fi; }

# expect_error WHAT PATTERN CMD...: non-zero exit, one stderr line matching PATTERN
expect_error() {
	local what=$1 pattern=$2; shift 2
	local err rc
	err=$("$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 0 ]; then tally_fail "$what: exit status 0"; return; fi
	if ! grep -q -- "$pattern" <<<"$err"; then tally_fail "$what: stderr '$err' lacks '$pattern'"; return; fi
	if [ "$(wc -l <<<"$err")" -ne 1 ]; then tally_fail "$what: stderr is not one line: '$err'"; return; fi
	tally_ok
}

# The kernel's scripts/pahole-version.sh and link-vmlinux.sh need exactly vX.Y
expect_eq "--version" "$("$D2B" --version)" "v1.30"
expect_eq "--numeric_version" "$("$D2B" --numeric_version)" "130"
expect_eq "pahole-version.sh rewrite" "$("$D2B" --version | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/')" "130"
"$D2B" --help | grep -q -- "--btf_encode_detached" && tally_ok || tally_fail "--help lacks options"
# dwarf2btf's own version and the release it reproduces: --help and the man page
version=$(sed -n 's/^project(dwarf2btf VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
expect_eq "--help header" "$("$D2B" --help | head -1)" "dwarf2btf $version, reproducing pahole v1.30"
expect_eq "man page footer" "$(sed -n 's/^\.TH [^"]*"[^"]*" "\([^"]*\)".*/\1/p' "$here/../Documentation/dwarf2btf.1")" \
	"dwarf2btf $version (pahole v1.30)"

# --supported_btf_features lists the standard features in pahole's order
# (compared with pahole 1.30's own list in tests/fixtures.sh)
expect_eq "--supported_btf_features" "$("$D2B" --supported_btf_features)" \
	"encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build,distilled_base,global_var"

# the release reproduced: $DWARF2BTF_PAHOLE_VERSION, then --pahole_version
# (read before every other option, wherever it is), the last one given
expect_eq "env 1.32: --version" "$(DWARF2BTF_PAHOLE_VERSION=1.32 "$D2B" --version)" "v1.32"
expect_eq "--pahole_version=1.32 --numeric_version" \
	"$("$D2B" --pahole_version=1.32 --numeric_version)" "132"
expect_eq "--version --pahole_version 1.32" "$("$D2B" --version --pahole_version 1.32)" "v1.32"
expect_eq "the option over the env" \
	"$(DWARF2BTF_PAHOLE_VERSION=1.32 "$D2B" --pahole_version=1.30 --version)" "v1.30"
expect_eq "env 1.32: --help header" "$(DWARF2BTF_PAHOLE_VERSION=1.32 "$D2B" --help | head -1)" \
	"dwarf2btf $version, reproducing pahole v1.32"
expect_eq "empty env: the default" "$(DWARF2BTF_PAHOLE_VERSION= "$D2B" --numeric_version)" "130"
expect_error "env 1.31" "unknown pahole release '1.31' in \$DWARF2BTF_PAHOLE_VERSION (1.30 or 1.32)" \
	env DWARF2BTF_PAHOLE_VERSION=1.31 "$D2B" --version
expect_error "--pahole_version=v1.32" "unknown pahole release 'v1.32' in --pahole_version" \
	"$D2B" --pahole_version=v1.32 --version
expect_error "--pahole_version without its value" "option '--pahole_version' needs a value" \
	"$D2B" -J --pahole_version
# a feature a release does not have is an unknown name
expect_error "1.30: true_signature is unknown" "unknown BTF feature 'true_signature'" \
	"$D2B" -J --btf_features_strict=true_signature --btf_encode_detached="$work/o0.btf" /bin/true

# a small input
cat >"$work/prog.c" <<'C'
struct point { int x, y; };
int sum(struct point *p) { return p->x + p->y; }
int main(void) { struct point p = { 1, 2 }; return sum(&p); }
C
gcc -g -O0 -o "$work/prog" "$work/prog.c" || { tally_fail "cannot build input"; }
cp "$work/prog" "$work/prog.orig"

"$D2B" -J --btf_encode_detached="$work/a.btf" "$work/prog" && tally_ok || tally_fail "plain -J"
"$D2B" -J -j --btf_encode_detached="$work/b.btf" "$work/prog" && tally_ok || tally_fail "bare -j"
# bare -j runs a thread per CPU the process may use, as nproc counts them (a cpuset, taskset)
threads() {
	"$@" -V -J -j --btf_encode_detached="$work/v.btf" "$work/prog" 2>&1 |
		sed -n 's/.* CUs, \([0-9]*\) threads.*/\1/p'
}
expect_eq "bare -j threads" "$(threads "$D2B")" "$(nproc)"
expect_eq "bare -j threads under taskset -c 0" "$(threads taskset -c 0 "$D2B")" \
	"$(taskset -c 0 nproc)"
"$D2B" -J --jobs=3 --reproducible_build --btf_gen_all \
	--btf_features=default,no_such_feature --btf_encode_detached="$work/c.btf" "$work/prog" &&
	tally_ok || tally_fail "unknown feature names must be ignored"
cmp -s "$work/a.btf" "$work/b.btf" && tally_ok || tally_fail "-j changed the output"
PAHOLE_LANG_EXCLUDE=c89,c,c99,c11 "$D2B" -J --btf_encode_detached="$work/empty.btf" "$work/prog" && tally_ok ||
	tally_fail "PAHOLE_LANG_EXCLUDE=c run failed"
# every CU excluded: only void is left, and pahole writes nothing then
[ ! -e "$work/empty.btf" ] && tally_ok || tally_fail "nothing-but-void output was written"

# a detached output replaces an older, longer file completely
head -c 100000 /dev/urandom >"$work/old.btf"
"$D2B" -J --btf_encode_detached="$work/old.btf" "$work/prog" && cmp -s "$work/old.btf" "$work/a.btf" &&
	tally_ok || tally_fail "old output file not replaced"

# errors: message names the input, non-zero exit, no output
expect_error "missing input" "$work/missing" "$D2B" -J --btf_encode_detached="$work/o1.btf" "$work/missing"
echo "not an elf" >"$work/text"
expect_error "non-ELF input" "$work/text: not an ELF file" \
	"$D2B" -J --btf_encode_detached="$work/o2.btf" "$work/text"
gcc -O0 -o "$work/nodebug" "$work/prog.c"
expect_error "no DWARF" "no DWARF" "$D2B" -J --btf_encode_detached="$work/o3.btf" "$work/nodebug"
# pahole 1.32: nothing to encode, no error, no file; in place, the input as it was
if DWARF2BTF_PAHOLE_VERSION=1.32 "$D2B" -J --btf_encode_detached="$work/o3.btf" "$work/nodebug" &&
	[ ! -e "$work/o3.btf" ]; then tally_ok; else tally_fail "1.32, no DWARF: not exit 0 without a file"; fi
cp "$work/nodebug" "$work/nodebug.orig"
if DWARF2BTF_PAHOLE_VERSION=1.32 "$D2B" -J "$work/nodebug" && cmp -s "$work/nodebug" "$work/nodebug.orig"
then tally_ok; else tally_fail "1.32, no DWARF, in place: not exit 0 with the input as it was"; fi
expect_error "strict features" "unknown BTF feature 'bogus'" \
	"$D2B" -J --btf_features_strict=bogus --btf_encode_detached="$work/o4.btf" "$work/prog"
expect_error "bad -j" "invalid -j" "$D2B" -J -jx --btf_encode_detached="$work/o5.btf" "$work/prog"
expect_error "no input" "exactly one input" "$D2B" -J --btf_encode_detached="$work/o6.btf"
expect_error "unwritable output" "cannot" \
	"$D2B" -J --btf_encode_detached="$work/no/such/dir/o7.btf" "$work/prog"
# in place: a failing objcopy leaves the input as it was and no temporary file
cp "$work/prog.orig" "$work/inplace"
expect_error "in-place -J, objcopy fails" "cannot add the .BTF section" \
	env LLVM_OBJCOPY=false "$D2B" -J "$work/inplace"
cmp -s "$work/inplace" "$work/prog.orig" && tally_ok || tally_fail "in-place input changed by a failed run"
chmod 0751 "$work/inplace"
LLVM_OBJCOPY=objcopy "$D2B" -J "$work/inplace" && tally_ok || tally_fail "in-place -J failed"
[ "$(stat -c %a "$work/inplace")" = 751 ] && tally_ok || tally_fail "in-place -J changed the file mode"
readelf -S "$work/inplace" | grep -q ' \.BTF ' && tally_ok || tally_fail "in-place -J added no .BTF"
expect_error "--btf_base not BTF" "$work/text: cannot read base BTF" \
	"$D2B" -J --btf_base="$work/text" --btf_encode_detached="$work/o8.btf" "$work/prog"
# what getopt would let pass or say at length: pahole's --lang is no prefix
# of --lang_exclude, unknown languages and options get one line, -j's value
# is attached, a missing objcopy names LLVM_OBJCOPY
expect_error "--lang=c11 (a prefix)" "unrecognized option '--lang'" \
	"$D2B" -J --lang=c11 --btf_encode_detached="$work/o9.btf" "$work/prog"
expect_error "--lang_exclude=bogus" 'unknown language "bogus" in --lang_exclude' \
	"$D2B" -J --lang_exclude=rust,bogus --btf_encode_detached="$work/o10.btf" "$work/prog"
expect_error "PAHOLE_LANG_EXCLUDE=xx" 'unknown language "xx" in $PAHOLE_LANG_EXCLUDE' \
	env PAHOLE_LANG_EXCLUDE=xx "$D2B" -J --btf_encode_detached="$work/o11.btf" "$work/prog"
expect_error "-j 4" "write -j4 or --jobs=4" \
	"$D2B" -J -j 4 --btf_encode_detached="$work/o12.btf" "$work/prog"
expect_error "-j 4 after the file" "write -j4 or --jobs=4" \
	"$D2B" -J "$work/prog" -j 4 --btf_encode_detached="$work/o15.btf"
expect_error "-j1025" "invalid -j value '1025': 1 to 1024, or 0 for every CPU" \
	"$D2B" -J -j1025 --btf_encode_detached="$work/o13.btf" "$work/prog"
expect_error "--verbose=1" "^dwarf2btf: option '--verbose' takes no value (see --help)$" \
	"$D2B" -J --verbose=1 --btf_encode_detached="$work/o16.btf" "$work/prog"
expect_error "unknown long option" "^dwarf2btf: unrecognized option '--bogus' (see --help)$" \
	"$D2B" -J --bogus "$work/prog"
expect_error "unknown short option" "^dwarf2btf: unrecognized option '-x' (see --help)$" \
	"$D2B" -J -x "$work/prog"
expect_error "option without its value" "option '--btf_base' needs a value" "$D2B" -J --btf_base
expect_error "--btf_base missing" "$work/missing: cannot read base BTF (--btf_base)" \
	"$D2B" -J --btf_base="$work/missing" --btf_encode_detached="$work/o14.btf" "$work/prog"
cp "$work/prog.orig" "$work/inplace2"
expect_error "no llvm-objcopy" "'llvm-objcopy' not found (LLVM_OBJCOPY names the objcopy to use" \
	env -u LLVM_OBJCOPY PATH=/nonexistent "$D2B" -J "$work/inplace2"
cmp -s "$work/inplace2" "$work/prog.orig" && tally_ok || tally_fail "in-place input changed without objcopy"
for f in o1 o2 o3 o4 o5 o6 o8 o9 o10 o11 o12 o13 o14 o15 o16; do
	[ ! -e "$work/$f.btf" ] && tally_ok || tally_fail "output $f.btf left behind after an error"
done
[ -z "$(find "$work" -name '.?*' -print -quit)" ] && tally_ok || tally_fail "temporary file left behind"
cmp -s "$work/prog" "$work/prog.orig" && tally_ok || tally_fail "input changed"

# libelf reads the input into memory when it cannot map it. The collector
# drops the pages of debug sections it is done with (MADV_DONTNEED), which
# only a file mapping survives: nomap.so fails mmap of the input and aborts
# on an MADV_DONTNEED outside a file mapping. The input has units over many
# pages, so the pages of each would be dropped.
cat >"$work/nomap.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *(*next)(void *, size_t, int, int, int, off_t) = dlsym(RTLD_NEXT, "mmap");
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (fd >= 0 && (n = readlink(link, path, sizeof(path) - 1)) > 0) {
		path[n] = 0;
		if (!strcmp(path, getenv("NOMAP_PATH"))) {
			errno = ENODEV;
			return MAP_FAILED;
		}
	}
	return next(addr, len, prot, flags, fd, off);
}

int madvise(void *addr, size_t len, int advice)
{
	int (*next)(void *, size_t, int) = dlsym(RTLD_NEXT, "madvise");
	FILE *maps = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, ino = 0, off;
	char line[512];

	while (advice == MADV_DONTNEED && maps && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &lo, &hi, &off, &ino) == 4 &&
		    (unsigned long)addr >= lo && (unsigned long)addr < hi)
			break;
	if (maps)
		fclose(maps);
	if (advice == MADV_DONTNEED && !ino) {
		fprintf(stderr, "nomap.so: MADV_DONTNEED on memory that is no file's\n");
		abort();
	}
	return next(addr, len, advice);
}
C
gcc -shared -fPIC -O2 -o "$work/nomap.so" "$work/nomap.c" -ldl || tally_fail "cannot build nomap.so"
for u in 1 2 3 4; do
	for i in $(seq 300); do
		echo "struct s${u}_$i { long a; int b[$i]; struct s${u}_$i *next; const char *name; };"
		echo "int f${u}_$i(struct s${u}_$i *p) { return p->b[0] + (int)p->a; }"
	done >"$work/unit$u.c"
done
echo "int main(void) { return 0; }" >"$work/unit0.c"
gcc -g -O0 -o "$work/big" "$work"/unit[0-4].c || tally_fail "cannot build the many-page input"
"$D2B" -J -j2 --btf_encode_detached="$work/mapped.btf" "$work/big" && tally_ok || tally_fail "many-page input"
LD_PRELOAD="$work/nomap.so" NOMAP_PATH="$work/big" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	"$D2B" -J -j2 --btf_encode_detached="$work/read.btf" "$work/big" &&
	cmp -s "$work/mapped.btf" "$work/read.btf" && tally_ok || tally_fail "input read, not mapped: other output"

# The man page's examples, run as written (roff escapes undone) with
# dwarf2btf on $PATH: vmlinux is the small input with its .BTF, foo.ko an
# object file. "make PAHOLE=dwarf2btf" is a kernel build: kernel-scripts.sh
# runs the kernel's own scripts with dwarf2btf instead.
mkdir -p "$work/man" "$work/bin"
ln -s "$(readlink -f "$D2B")" "$work/bin/dwarf2btf"
cp "$work/prog.orig" "$work/man/vmlinux"
LLVM_OBJCOPY=objcopy "$D2B" -J "$work/man/vmlinux" || tally_fail "man: cannot give vmlinux a .BTF"
gcc -g -O1 -c -o "$work/man/foo.ko" "$work/prog.c" || tally_fail "man: cannot build foo.ko"
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$here/../Documentation/dwarf2btf.1" |
	sed -n '/^\.nf/,/^\.fi/p' | grep -v '^\.' | sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$work/man/examples.sh"
grep -q '^make ' "$work/man/examples.sh" || tally_fail "man: no 'make PAHOLE=dwarf2btf' example"
sed -i '/^make /d' "$work/man/examples.sh"
[ "$(grep -c 'dwarf2btf' "$work/man/examples.sh")" -ge 2 ] || tally_fail "man: examples not found"
if (cd "$work/man" && PATH="$work/bin:$PATH" bash -e examples.sh); then
	readelf -S "$work/man/foo.ko" | grep -q ' \.BTF ' && [ -s "$work/man/vmlinux.btf" ] &&
		tally_ok || tally_fail "man: the examples wrote no BTF"
else
	tally_fail "man: the examples failed: $(cat "$work/man/examples.sh")"
fi

tally_end
