#!/usr/bin/env bash
# package.sh - the Debian package and the install rules (Debian 12, as root).
#
# Installs the packaging tools and the build dependencies, copies the source
# tree as it is on disk (git-tracked and untracked-but-not-ignored files) twice,
# to WORK_DIR/a/dwarf2btf and WORK_DIR/b/dwarf2btf (different paths, and the
# second copy with fresh file times), runs `dpkg-buildpackage -us -uc -b` in
# both and checks: the .deb holds /usr/bin/dwarf2btf and its manual page, its
# control fields are sane, the packaged program runs, lintian reports no
# error (binary and source package), and the two builds are byte-identical.
# Then a plain cmake build installed with DESTDIR and
# CMAKE_INSTALL_PREFIX=/opt/d2b must put exactly the program and the manual
# page under $DESTDIR/opt/d2b.
#
# Usage: tests/package.sh SRC_DIR WORK_DIR
set -uo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 SRC_DIR WORK_DIR" >&2
	exit 2
fi
src=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && work=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"

finish() {
	tally_end
	exit
}
# check WHAT CMD...: ok or FAIL on CMD's exit status
check() { local what=$1; shift; if "$@"; then tally_ok "$what"; else tally_fail "$what"; fi; }
# shellcheck disable=SC2317 # called through check
quiet() { "$@" >/dev/null 2>&1; }

# --- tools and build dependencies (keep in step with debian/control) ---------
deps=(dpkg-dev debhelper lintian fakeroot cmake pkg-config gcc binutils
	libelf-dev libdw-dev libbpf-dev git)
missing=()
for p in "${deps[@]}"; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" \
		>"$work/apt.log" 2>&1; then
		tally_ok "build dependencies installed (${missing[*]})"
	else
		tail -20 "$work/apt.log"
		tally_fail "apt-get install ${missing[*]} (as root?)"
		finish
	fi
else
	tally_ok "build dependencies already installed"
fi

# --- two copies of the tree as it is on disk -----------------------------------
# list_sources: NUL-separated relative paths of the files to package
list_sources() {
	local skip=
	# never copy WORK_DIR into itself when it lies inside SRC_DIR
	case $work/ in "$src"/*) skip=${work#"$src"/}/ ;; esac
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard
	else
		(cd "$src" && find . -path ./.git -prune -o -path './build*' -prune -o \
			-path ./debian/build -prune -o -type f -printf '%P\0')
	fi | while IFS= read -r -d '' f; do
		# deleted but still tracked, or WORK_DIR itself
		[ -f "$src/$f" ] || continue
		[ -n "$skip" ] && [[ $f == "$skip"* ]] && continue
		printf '%s\0' "$f"
	done
}

rm -rf "$work/a" "$work/b" "$work/cmake-build" "$work/destdir"
mkdir -p "$work/a/dwarf2btf" "$work/b/dwarf2btf"
list_sources >"$work/files.list"
if ! tar -C "$src" --null -T "$work/files.list" -cf "$work/src.tar"; then
	tally_fail "copy of $src"
	finish
fi
tar -C "$work/a/dwarf2btf" -xf "$work/src.tar"
# b: other path, and file times of now, which the package must not depend on
tar -C "$work/b/dwarf2btf" -m -xf "$work/src.tar"
rm -f "$work/src.tar"
check "source copied ($(tr -cd '\0' <"$work/files.list" | wc -c) files)" \
	test -x "$work/a/dwarf2btf/debian/rules" -a -f "$work/b/dwarf2btf/CMakeLists.txt"

version=$(cd "$work/a/dwarf2btf" && dpkg-parsechangelog -SVersion)
arch=$(dpkg --print-architecture)
cmake_version=$(sed -nE 's/^project\(dwarf2btf VERSION ([0-9.]+).*/\1/p' "$src/CMakeLists.txt")
check "debian/changelog version $version is CMakeLists.txt's project version $cmake_version" \
	test "${version%%[-+~]*}" = "$cmake_version"

# --- the source package (for lintian's source checks), then two binary builds
if (cd "$work/a" && dpkg-source -b dwarf2btf) >"$work/a/source.log" 2>&1; then
	tally_ok "dpkg-source -b"
else
	tail -20 "$work/a/source.log"
	tally_fail "dpkg-source -b"
fi
dsc=$work/a/dwarf2btf_${version}.dsc

for side in a b; do
	echo "building the package in $work/$side/dwarf2btf"
	if (cd "$work/$side/dwarf2btf" && dpkg-buildpackage -us -uc -b) >"$work/$side/build.log" 2>&1; then
		tally_ok "dpkg-buildpackage in $side"
	else
		tail -40 "$work/$side/build.log"
		tally_fail "dpkg-buildpackage in $side (log: $work/$side/build.log)"
	fi
done

deb=$work/a/dwarf2btf_${version}_${arch}.deb
changes=$work/a/dwarf2btf_${version}_${arch}.changes
if [ ! -f "$deb" ]; then
	tally_fail "no $deb"
	finish
fi
tally_ok "$(basename "$deb") built"

if [[ " ${DEB_BUILD_OPTIONS:-} " == *" nocheck "* ]]; then
	echo "(DEB_BUILD_OPTIONS=nocheck: the build-time tests were skipped)"
else
	# as many as the package's own build defines with the label "unit"
	nr_unit=$(ctest --test-dir "$work/a/dwarf2btf/debian/build" -N -L unit 2>/dev/null |
		sed -n 's/^Total Tests: //p')
	check "the $nr_unit unit tests ran at build time and passed" \
		grep -q "100% tests passed, 0 tests failed out of ${nr_unit:-none}\$" "$work/a/build.log"
	check "only the unit tests ran at build time" \
		bash -c "! grep -Eq 'Test +#[0-9]+: (fixtures|kernel|modules)' '$work/a/build.log'"
fi

# contents
dpkg-deb -c "$deb" >"$work/contents.txt"
for f in ./usr/bin/dwarf2btf ./usr/share/man/man1/dwarf2btf.1.gz ./usr/share/doc/dwarf2btf/copyright; do
	check "package contains ${f#.}" grep -q " $f\$" "$work/contents.txt"
done
check "/usr/bin/dwarf2btf is mode 0755, root/root" \
	grep -q '^-rwxr-xr-x root/root .* ./usr/bin/dwarf2btf$' "$work/contents.txt"
check "no build or test programs packaged" \
	bash -c "! grep -Eq '/(btfdiff|test_emit_ordered|libd2b\\.a)\$' '$work/contents.txt'"

# control fields
field() { dpkg-deb -f "$deb" "$1"; }
check "dpkg-deb -I works" quiet dpkg-deb -I "$deb"
check "Package: dwarf2btf" test "$(field Package)" = dwarf2btf
check "Version: $version" test "$(field Version)" = "$version"
check "Architecture: $arch" test "$(field Architecture)" = "$arch"
check "Section: devel" test "$(field Section)" = devel
check "Depends has libbpf1, libelf1 and libc6 ($(field Depends))" \
	bash -c "d='$(field Depends)'; [[ \$d == *libbpf1* && \$d == *libelf1* && \$d == *libc6* ]]"
check "Description names pahole" bash -c "dpkg-deb -f '$deb' Description | grep -q 'pahole -J'"

# the packaged program runs
mkdir -p "$work/extract"
rm -rf "$work/extract"/*
dpkg-deb -x "$deb" "$work/extract"
check "packaged dwarf2btf --version prints v1.30" \
	test "$("$work/extract/usr/bin/dwarf2btf" --version 2>&1)" = v1.30
check "packaged manual page is the man page" \
	bash -c "zcat '$work/extract/usr/share/man/man1/dwarf2btf.1.gz' | cmp -s - '$work/a/dwarf2btf/Documentation/dwarf2btf.1'"

# lintian on the binary and the source package: no error; warnings are listed
lint=("$changes")
[ -f "$dsc" ] && lint+=("$dsc")
lintian_out=$(lintian --fail-on error "${lint[@]}" 2>&1)
lintian_rc=$?
lintian_out=$(grep -v '^running with root privileges' <<<"$lintian_out")
[ -n "$lintian_out" ] && printf '%s\n' "$lintian_out" | sed 's/^/  lintian: /'
if [ $lintian_rc -eq 0 ] && ! grep -q '^E: ' <<<"$lintian_out"; then
	tally_ok "lintian: no errors ($(grep -c '^W: ' <<<"$lintian_out") warnings)"
else
	tally_fail "lintian reports errors"
fi

# reproducibility: same bytes from the other path and file times
for f in "$work"/a/*.deb; do
	name=$(basename "$f")
	if [ ! -f "$work/b/$name" ]; then
		tally_fail "$name not built in b"
	elif cmp "$f" "$work/b/$name"; then
		tally_ok "$name identical in a and b"
	else
		tally_fail "$name differs between a and b"
	fi
done

# --- cmake --install with DESTDIR and a custom prefix ------------------------
dest=$work/destdir
if cmake -S "$work/a/dwarf2btf" -B "$work/cmake-build" -DCMAKE_INSTALL_PREFIX=/opt/d2b \
	>"$work/cmake-build.log" 2>&1 &&
	cmake --build "$work/cmake-build" --target dwarf2btf -j"$(nproc)" >>"$work/cmake-build.log" 2>&1 &&
	DESTDIR=$dest cmake --install "$work/cmake-build" >>"$work/cmake-build.log" 2>&1; then
	tally_ok "cmake build and install (DESTDIR, CMAKE_INSTALL_PREFIX=/opt/d2b)"
else
	tail -30 "$work/cmake-build.log"
	tally_fail "cmake build and install"
fi
check "installed \$DESTDIR/opt/d2b/bin/dwarf2btf (executable)" test -x "$dest/opt/d2b/bin/dwarf2btf"
check "installed \$DESTDIR/opt/d2b/share/man/man1/dwarf2btf.1 (the man page)" \
	cmp -s "$dest/opt/d2b/share/man/man1/dwarf2btf.1" "$work/a/dwarf2btf/Documentation/dwarf2btf.1"
installed=$(cd "$dest" 2>/dev/null && find . -type f | sort | tr '\n' ' ')
check "nothing else installed ($installed)" \
	test "$installed" = "./opt/d2b/bin/dwarf2btf ./opt/d2b/share/man/man1/dwarf2btf.1 "
check "installed dwarf2btf --version prints v1.30" \
	test "$("$dest/opt/d2b/bin/dwarf2btf" --version 2>&1)" = v1.30

finish
