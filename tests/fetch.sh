#!/usr/bin/env bash
# fetch.sh - fetch and cache the reference tools and real inputs the tests use.
#
# Usage: tests/fetch.sh deps|pahole130|pahole132|pahole124|kernel61|kernel612|kernel72|modules61|modules612|modules72|moduletree61|moduletree612|moduletree72|source61|headers612|boot61|boot612|boot72|ccsid|cross|arch-ARCH-VERSION|arches|all
#
# Everything is cached under $DWARF2BTF_CACHE (default /var/cache/dwarf2btf),
# so a second run costs nothing; a kernel's debug package is kept there too
# (linux-<ver>/package.deb), for its modules. Prints nothing on success except progress on
# stderr. Needs root for apt-get (a fresh Debian 12 machine, as the README says).
#
#   deps       build and test dependencies from Debian 12 (bookworm)
#   pahole130  pahole 1.30 and its libraries from Debian trixie, unpacked into
#              $CACHE/pahole-1.30 and run through its own ld.so (bin/pahole130)
#   pahole132  pahole 1.32 (with libdwarves1 and libbpf 1.7) from Debian sid,
#              unpacked into $CACHE/pahole-1.32 and run the same way (bin/pahole132)
#   pahole124  bookworm's pahole 1.24, unpacked into $CACHE/pahole-1.24
#   kernel61   vmlinux of the newest bookworm 6.1 cloud kernel
#   kernel612  vmlinux of the newest bookworm-security 6.12 (+deb12) cloud kernel
#   kernel72   vmlinux of sid's cloud kernel (7.2, built by GCC 16)
#   modules61, modules612, modules72
#              a set of that kernel's modules (xfs, btrfs, mlx5_core and
#              smaller ones: fs/fat, net/ipv4, drivers/block; on 7.2 also
#              fs/nfs, fs/lockd, fs/configfs, fs/efivarfs) with debug info,
#              from the same package, into $CACHE/linux-<ver>/modules
#   moduletree61, moduletree612, moduletree72
#              every module of that kernel's package, into
#              $CACHE/linux-<ver>/module-tree (1 to 2 GB; tests/module-tree.sh)
#   ccsid      sid's gcc-13 to gcc-16 and clang-21 for the fixtures, into
#              $CACHE/cc-sid
#   cross      Debian 12's cross compilers for arm64, armhf, riscv64, ppc64el
#              and s390x (the fixtures of those architectures)
#   arch-ARCH-VERSION
#              the debug vmlinux and the modules of fs/, net/ipv4/ and
#              mlx5_core of Debian's VERSION kernel for ARCH (arm64: 6.1,
#              6.12, 7.2; armhf, riscv64: 6.12, 7.2; ppc64el, s390x: 7.2),
#              into $CACHE/linux-ARCH-VERSION; arches: all nine
#   source61   Debian 12's linux-source-6.1 of kernel61's version, unpacked
#              into $CACHE/linux-6.1/source (tests/kernel-build.sh; not in all)
#   headers612 Debian 12's kernel headers of kernel612's kernel (the build
#              directory of an out-of-tree module: tests/extmod.sh), into
#              $CACHE/linux-6.12/headers
#   boot61, boot612, boot72
#              for tests/boot.sh: qemu-system-x86 (and the static libc of
#              libc6-dev), and the vmlinuz and config of the non-debug
#              packages of the same version as kernel61's (kernel72's) -dbg
#              one, into $CACHE/linux-<ver>/boot
#
# The trixie and sid apt sources copy the URI of this machine's own Debian
# entry. trixie is pinned at priority 100, sid at -1: nothing is installed
# from either; packages are only downloaded, by suite, and unpacked here.
set -euo pipefail

CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}
mkdir -p "$CACHE"

log() { echo "fetch.sh: $*" >&2; }

# (tests run in parallel, each through this script: apt-get update fails
# where another holds the lists' lock, so they take turns)
apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	local try
	for try in 1 2 3; do
		if flock "$CACHE/.apt-update.lock" apt-get update -qq >&2; then
			apt_updated=1
			return 0
		fi
		log "apt-get update failed (try $try of 3)"
		sleep $((try * 10))
	done
	# (a mirror mid-sync: the lists as they were are used, and a download
	# they cannot give fails by itself)
	log "apt-get update failed: going on with the package lists as they are"
	apt_updated=1
}

# apt_ensure [--no-install-recommends] PKG... : install the PKGs from the
# machine's own suites, unless every one is installed already
apt_ensure() {
	local opts=() have
	if [ "$1" = --no-install-recommends ]; then
		opts=("$1")
		shift
	fi
	have=$(dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null | grep -c 'install ok installed' || true)
	[ "$have" -eq $# ] && return 0
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${opts[@]+"${opts[@]}"} "$@" >&2
}

# dbg_version NAME: the version of the debug package $CACHE/NAME/package
# names, from the package lists (apt_update first)
dbg_version() {
	local dbg ver
	dbg=$(cat "$CACHE/$1/package")
	ver=$(apt-cache show "$dbg" | awk '/^Version:/ { print $2; exit }')
	[ -n "$ver" ] || { log "no version for $dbg"; return 1; }
	echo "$ver"
}

deps() {
	apt_ensure cmake make gcc clang lld libdw-dev libelf-dev libbpf-dev zlib1g-dev libzstd-dev pkg-config \
		valgrind binutils llvm python3 procps bpftool
}

debian_uri() {
	# The URI of the machine's main Debian entry (deb822 or one-line format).
	local uri=""
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		uri=$(awk '/^URIs:/ { print $2 }' /etc/apt/sources.list.d/debian.sources |
		      grep -v -- '-security' | head -n1)
	fi
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1 == "deb" && $3 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$uri" ] || { log "no Debian apt source found to copy"; exit 1; }
	echo "$uri"
}

# suite_source SUITE PRIORITY: an apt source for SUITE, pinned at PRIORITY
suite_source() {
	local suite=$1 prio=$2
	local src=/etc/apt/sources.list.d/dwarf2btf-$suite.sources
	local pin=/etc/apt/preferences.d/dwarf2btf-$suite
	if [ ! -f "$src" ] || [ ! -f "$pin" ]; then
		cat >"$src" <<SRC
Types: deb
URIs: $(debian_uri)
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		cat >"$pin" <<PIN
Package: *
Pin: release n=$suite
Pin-Priority: $prio
PIN
		apt_updated= # (its lists: the next download updates first)
	fi
}
trixie_source() { suite_source trixie 100; }
sid_source() { suite_source sid -1; }

# unpack_debs DIR SUITE PKG... : download PKG/SUITE and dpkg -x them into DIR
unpack_debs() {
	local dir=$1 suite=$2; shift 2
	local tmp
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	local p
	apt_update
	for p in "$@"; do
		(cd "$tmp" && apt-get download -qq "$p/$suite" >&2)
	done
	mkdir -p "$dir.tmp"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$dir.tmp"
	done
	rm -rf "$tmp" "$dir"
	mv "$dir.tmp" "$dir"
}

# write_wrapper DIR NAME : DIR/bin/NAME runs DIR's pahole through DIR's ld.so
# (bookworm's libc6 lives in lib/, trixie's merged-/usr one in usr/lib/)
write_wrapper() {
	local dir=$1 name=$2
	mkdir -p "$dir/bin"
	cat >"$dir/bin/$name" <<'WRAP'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")/..
l=$d/usr/lib/x86_64-linux-gnu
[ -e "$d/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] && l=$d/lib/x86_64-linux-gnu:$l
exec "${l%%:*}/ld-linux-x86-64.so.2" --library-path "$l" "$d/usr/bin/pahole" "$@"
WRAP
	chmod +x "$dir/bin/$name"
}

# pahole_release VERSION SUITE PKG... : pahole VERSION (e.g. 1.30) and its
# libraries, PKG..., from SUITE, unpacked into $CACHE/pahole-VERSION and run
# by bin/paholeNNN through their own ld.so; checked to answer vVERSION
pahole_release() {
	local version=$1 suite=$2; shift 2
	local dir=$CACHE/pahole-$version name=pahole${version/./}
	if [ -x "$dir/bin/$name" ] && [ "$("$dir/bin/$name" --version)" = "v$version" ]; then
		return 0
	fi
	log "fetching pahole $version from $suite"
	case $suite in
	trixie) trixie_source ;;
	sid) sid_source ;;
	*) apt_update ;;
	esac
	unpack_debs "$dir" "$suite" "$@"
	write_wrapper "$dir" "$name"
	[ "$("$dir/bin/$name" --version)" = "v$version" ] ||
		{ log "pahole $version does not run"; exit 1; }
}

pahole130() {
	pahole_release 1.30 trixie pahole libc6 libdw1t64 libelf1t64 libbpf1 zlib1g liblzma5 \
		libbz2-1.0 libzstd1
}
pahole132() {
	pahole_release 1.32 sid pahole libdwarves1 libc6 libdw1t64 libelf1t64 libbpf1 zlib1g \
		liblzma5 libbz2-1.0 libzstd1
}
pahole124() {
	pahole_release 1.24 bookworm pahole libc6 libdw1 libelf1 libbpf1 zlib1g liblzma5 \
		libbz2-1.0 libzstd1
}

# ccsid : the compilers Debian has besides bookworm's gcc 12 and clang 14,
# from sid: gcc-13, gcc-14 (trixie's kernels' compiler), gcc-15, gcc-16
# (sid's kernels') and clang-21, with sid's binutils and C library, unpacked
# into $CACHE/cc-sid and run through its own ld.so, as pahole 1.30 is.
# bin/gcc-N and bin/clang-21 compile (-c) with them and link with this
# machine's gcc against sid's C library: the fixtures' objects are what
# those compilers emit.
CC_SID_GCCS="13 14 15 16"
CC_SID_DEBS="$(for v in $CC_SID_GCCS; do
	echo gcc-$v gcc-$v-base gcc-$v-x86-64-linux-gnu cpp-$v cpp-$v-x86-64-linux-gnu libgcc-$v-dev
done)
	binutils binutils-x86-64-linux-gnu libbinutils libctf0 libctf-nobfd0
	libsframe3 libgprofng0 libjansson4 libxxhash0 libisl23 libmpc3 libmpfr6 libgmp10
	libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev libstdc++6 libgcc-s1 libzstd1
	zlib1g libgomp1 libitm1 libatomic1 libasan8 liblsan0 libtsan2 libubsan1 libhwasan0
	libquadmath0 libcc1-0
	clang-21 libclang-cpp21 libllvm21 libclang-common-21-dev llvm-21-linker-tools libffi8
	libedit2 libz3-4 libxml2-16 libtinfo6 libbsd0 libmd0 libicu78 liblzma5 libncursesw6"
# the compilers of cc-sid, each answering --version
ccsid_runs() {
	local v dir=$CACHE/cc-sid
	for v in $CC_SID_GCCS; do
		"$dir/bin/gcc-$v" --version >/dev/null 2>&1 || return 1
	done
	"$dir/bin/clang-21" --version >/dev/null 2>&1
}
ccsid() {
	local dir=$CACHE/cc-sid v
	ccsid_runs && return 0
	# one unpack at a time: fixture tests running at once each ask for it
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.cc-sid.lock"
	flock 9
	ccsid_runs && return 0
	log "fetching gcc-${CC_SID_GCCS// /, gcc-} and clang-21 from sid"
	sid_source
	# shellcheck disable=SC2086
	unpack_debs "$dir" sid $CC_SID_DEBS
	mkdir -p "$dir/bin"
	for v in $CC_SID_GCCS; do
		sed "s/@V@/$v/" >"$dir/bin/gcc-$v" <<'WRAP'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")/..
l=$d/usr/lib/x86_64-linux-gnu
case " $* " in
*" -c "* | *" --version "*)
	exec "$l/ld-linux-x86-64.so.2" --library-path "$l" "$d/usr/bin/x86_64-linux-gnu-gcc-@V@" \
		-wrapper "$l/ld-linux-x86-64.so.2,--library-path,$l" -B "$d/usr/bin/" \
		--sysroot="$d" "$@" ;;
esac
exec gcc --sysroot="$d" "$@"
WRAP
		chmod +x "$dir/bin/gcc-$v"
	done
	cat >"$dir/bin/clang-21" <<'WRAP'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")/..
l=$d/usr/lib/x86_64-linux-gnu
case " $* " in
*" -c "* | *" --version "*)
	exec "$l/ld-linux-x86-64.so.2" --library-path "$l:$d/usr/lib/llvm-21/lib" \
		"$d/usr/lib/llvm-21/bin/clang" -resource-dir "$d/usr/lib/llvm-21/lib/clang/21" \
		--sysroot="$d" "$@" ;;
esac
exec gcc --sysroot="$d" "$@"
WRAP
	chmod +x "$dir/bin/clang-21"
	ccsid_runs || { log "sid's compilers do not run"; exit 1; }
}

# kernel NAME META [SUITE] : extract the vmlinux of the package META (from
# SUITE, default the machine's own) depends on
kernel() {
	local name=$1 meta=$2 suite=${3:-}
	local out=$CACHE/$name
	if [ -f "$out/vmlinux" ]; then
		return 0
	fi
	apt_update
	local pkg
	pkg=$(apt-cache depends "$meta${suite:+/$suite}" |
		awk '/Depends: linux-image-.*-dbg$/ { print $2; exit }')
	[ -n "$pkg" ] || { log "cannot resolve $meta${suite:+/$suite}"; exit 1; }
	log "fetching $pkg (large)"
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	chmod 755 "$out.tmp"
	(cd "$out.tmp" && apt-get download -qq "$pkg${suite:+/$suite}" >&2)
	# kept for modules(), which would otherwise download it again
	mv "$out.tmp"/*.deb "$out.tmp/package.deb"
	# boot/vmlinux-VER, which 7.x makes a link to lib/modules/VER/vmlinux;
	# tar fails on the pattern an older package does not have
	dpkg-deb --fsys-tarfile "$out.tmp/package.deb" |
		tar -x -C "$out.tmp" --wildcards './usr/lib/debug/boot/vmlinux-*' \
			'./usr/lib/debug/lib/modules/*/vmlinux' 2>/dev/null || true
	find "$out.tmp/usr" -name 'vmlinux*' -type f -exec mv {} "$out.tmp/vmlinux" \;
	[ -f "$out.tmp/vmlinux" ] || { log "no vmlinux in $pkg"; exit 1; }
	echo "$pkg" >"$out.tmp/package"
	echo "${suite}" >"$out.tmp/suite"
	rm -rf "$out.tmp/usr" "$out"
	mv "$out.tmp" "$out"
}

kernel61() { kernel linux-6.1 linux-image-cloud-amd64-dbg; }
kernel612() { kernel linux-6.12 linux-image-6.12-cloud-amd64-dbg; }
kernel72() { sid_source; kernel linux-7.2 linux-image-cloud-amd64-dbg sid; }

MODULE_PATTERNS=(
	'./usr/lib/debug/lib/modules/*/kernel/fs/xfs/xfs.ko'
	'./usr/lib/debug/lib/modules/*/kernel/fs/btrfs/btrfs.ko'
	'./usr/lib/debug/lib/modules/*/kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko'
	'./usr/lib/debug/lib/modules/*/kernel/fs/fat/*.ko'
	'./usr/lib/debug/lib/modules/*/kernel/net/ipv4/*.ko'
	'./usr/lib/debug/lib/modules/*/kernel/drivers/block/*.ko'
)
# where 7.2's default path once differed from pahole 1.30
MODULE_PATTERNS_72=(
	'./usr/lib/debug/lib/modules/*/kernel/fs/nfs/*.ko'
	'./usr/lib/debug/lib/modules/*/kernel/fs/lockd/*.ko'
	'./usr/lib/debug/lib/modules/*/kernel/fs/configfs/*.ko'
	'./usr/lib/debug/lib/modules/*/kernel/fs/efivarfs/*.ko'
)

# modules NAME DIR PATTERN... : the modules of the package kernel NAME was
# taken from that match a PATTERN, into $CACHE/NAME/DIR
modules() {
	local name=$1 dir=$2; shift 2
	local out=$CACHE/$name/$dir
	[ -d "$out" ] && return 0
	local pkg suite= deb=$CACHE/$name/package.deb
	local tmp
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	if [ ! -f "$deb" ]; then # (a cache without it)
		pkg=$(cat "$CACHE/$name/package")
		[ -f "$CACHE/$name/suite" ] && suite=$(cat "$CACHE/$name/suite")
		log "fetching $pkg again for its modules (large)"
		apt_update
		(cd "$tmp" && apt-get download -qq "$pkg${suite:+/$suite}" >&2)
		deb=$(echo "$tmp"/*.deb)
	fi
	mkdir -p "$tmp/x"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" --wildcards "$@"
	mkdir -p "$out.tmp"
	# flat, by file name (no two modules of a kernel share one)
	find "$tmp/x" -name '*.ko' -exec mv {} "$out.tmp/" \;
	rm -rf "$tmp"
	mv "$out.tmp" "$out"
}

modules61() { kernel61; modules linux-6.1 modules "${MODULE_PATTERNS[@]}"; }
modules612() { kernel612; modules linux-6.12 modules "${MODULE_PATTERNS[@]}"; }
modules72() { kernel72; modules linux-7.2 modules "${MODULE_PATTERNS[@]}" "${MODULE_PATTERNS_72[@]}"; }
moduletree61() { kernel61; modules linux-6.1 module-tree './usr/lib/debug/lib/modules/*/kernel'; }
moduletree612() { kernel612; modules linux-6.12 module-tree './usr/lib/debug/lib/modules/*/kernel'; }
moduletree72() { kernel72; modules linux-7.2 module-tree './usr/lib/debug/lib/modules/*/kernel'; }

# source61: Debian 12's linux-source-6.1 of kernel61's version, unpacked
# into $CACHE/linux-6.1/source (tests/kernel-build.sh), and what a kernel
# build needs beyond deps (flex, bison, bc)
source61() {
	local out=$CACHE/linux-6.1/source ver tmp
	kernel61
	apt_ensure flex bison bc
	[ -f "$out/Makefile" ] && return 0
	apt_update
	ver=$(dbg_version linux-6.1) || exit 1
	log "fetching linux-source-6.1=$ver (large)"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "linux-source-6.1=$ver" >&2)
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -xO ./usr/src/linux-source-6.1.tar.xz | xz -dc |
		tar -x -C "$out.tmp" --strip-components=1
	rm -rf "$tmp" "$out"
	mv "$out.tmp" "$out"
}

# headers612: Debian 12's headers of kernel612's kernel, the build directory
# an out-of-tree module is built against (tests/extmod.sh): its .config,
# Module.symvers, a vmlinux holding the kernel's .BTF, Kbuild's scripts and
# resolve_btfids (linux-headers-ABI-cloud-amd64, -common, linux-kbuild-ABI,
# of the debug package's version), unpacked into $CACHE/linux-6.12/headers,
# its Makefile's include pointed there; headers/build is the directory
headers612() {
	local out=$CACHE/linux-6.12/headers dbg abi ver tmp p
	kernel612
	[ -f "$out/build/Makefile" ] && return 0
	dbg=$(cat "$CACHE/linux-6.12/package")
	abi=$(echo "$dbg" | sed -n 's/^linux-image-\(.*\)-cloud-amd64-dbg$/\1/p')
	[ -n "$abi" ] || { log "cannot tell the ABI of $dbg"; exit 1; }
	apt_update
	ver=$(dbg_version linux-6.12) || exit 1
	log "fetching linux-headers-$abi-cloud-amd64 $ver"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	for p in "linux-headers-$abi-cloud-amd64" "linux-headers-$abi-common" "linux-kbuild-$abi"; do
		(cd "$tmp" && apt-get download -qq "$p=$ver" >&2)
	done
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$out.tmp"
	done
	rm -rf "$tmp"
	sed -i "s|^include /usr/src/|include $out/usr/src/|" \
		"$out.tmp/usr/src/linux-headers-$abi-cloud-amd64/Makefile"
	ln -s "usr/src/linux-headers-$abi-cloud-amd64" "$out.tmp/build"
	[ -f "$out.tmp/build/vmlinux" ] || { log "no vmlinux in linux-headers-$abi-cloud-amd64"; exit 1; }
	rm -rf "$out"
	mv "$out.tmp" "$out"
}

# Debian's kernels of the other release architectures, by key ARCH-VERSION:
# the debug metapackage and the suite it is taken from. trixie's 6.12 where
# it is served (ppc64el's and s390x's are not: 404), sid's 7.2 (GCC 16) of
# each, and bookworm's 6.1 (GCC 12) of arm64; bookworm's 6.1 of the other
# architectures builds no BTF (CONFIG_DEBUG_INFO_BTF unset)
ARCH_KERNELS="arm64-6.1:linux-image-cloud-arm64-dbg:bookworm
	arm64-6.12:linux-image-cloud-arm64-dbg:trixie arm64-7.2:linux-image-cloud-arm64-dbg:sid
	armhf-6.12:linux-image-armmp-dbg:trixie armhf-7.2:linux-image-armmp-dbg:sid
	riscv64-6.12:linux-image-riscv64-dbg:trixie riscv64-7.2:linux-image-riscv64-dbg:sid
	ppc64el-7.2:linux-image-powerpc64le-dbg:sid s390x-7.2:linux-image-s390x-dbg:sid"
ARCH_MODULE_PATTERNS=(
	'./usr/lib/debug/lib/modules/*/kernel/fs/*'
	'./usr/lib/debug/lib/modules/*/kernel/net/ipv4/*'
	'./usr/lib/debug/lib/modules/*/kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko'
)

# arch_kernel ARCH-VERSION : that kernel's debug vmlinux, and its modules of
# fs/, net/ipv4/ and mlx5_core (every architecture's largest common driver),
# into $CACHE/linux-ARCH-VERSION (vmlinux, modules/, package, suite); the
# package itself is not kept
arch_kernel() {
	local key=$1 arch=${1%%-*} out=$CACHE/linux-$1 entry meta suite sel pkg tmp
	[ -f "$out/vmlinux" ] && [ -d "$out/modules" ] && return 0
	entry=$(echo $ARCH_KERNELS | tr ' ' '\n' | awk -F: -v k="$key" '$1 == k')
	[ -n "$entry" ] || { log "no kernel known as $key (ARCH-VERSION: ${ARCH_KEYS// /, })"; exit 2; }
	meta=$(echo "$entry" | cut -d: -f2)
	suite=$(echo "$entry" | cut -d: -f3)
	# bookworm's: this machine's own sources, bookworm-security's update included
	sel=/$suite
	[ "$suite" = bookworm ] && sel=
	if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		dpkg --add-architecture "$arch"
		apt_updated=
	fi
	case $suite in
	trixie) trixie_source ;;
	sid) sid_source ;;
	esac
	apt_update
	pkg=$(apt-cache depends "$meta:$arch$sel" |
		awk '/Depends: linux-image-.*-dbg/ { print $2; exit }')
	[ -n "$pkg" ] || { log "cannot resolve $meta:$arch$sel"; exit 1; }
	pkg=${pkg%:"$arch"}
	# the metapackage of a suite may move on to another kernel
	case $pkg in
	linux-image-"${key#*-}".*) ;;
	*) log "$meta:$arch$sel is $pkg now, not a ${key#*-} kernel"; exit 1 ;;
	esac
	log "fetching $pkg:$arch (large)"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "$pkg:$arch$sel" >&2)
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp/x" "$out.tmp/modules"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -x -C "$out.tmp/x" --wildcards './usr/lib/debug/boot/vmlinux-*' \
			'./usr/lib/debug/lib/modules/*/vmlinux' "${ARCH_MODULE_PATTERNS[@]}" \
			2>/dev/null || true
	rm -rf "$tmp"
	find "$out.tmp/x" -name 'vmlinux*' -type f -exec mv {} "$out.tmp/vmlinux" \;
	find "$out.tmp/x" -name '*.ko' -exec mv {} "$out.tmp/modules/" \;
	[ -f "$out.tmp/vmlinux" ] || { log "no vmlinux in $pkg:$arch"; exit 1; }
	[ -f "$out.tmp/modules/mlx5_core.ko" ] || { log "no mlx5_core.ko in $pkg:$arch"; exit 1; }
	echo "$pkg:$arch" >"$out.tmp/package"
	echo "$suite" >"$out.tmp/suite"
	rm -rf "$out.tmp/x" "$out"
	mv "$out.tmp" "$out"
}
ARCH_KEYS=$(echo $ARCH_KERNELS | tr ' ' '\n' | cut -d: -f1 | tr '\n' ' ')
ARCH_KEYS=${ARCH_KEYS% }
arches() {
	local k
	for k in $ARCH_KEYS; do arch_kernel "$k"; done
}

# cross : Debian 12's cross compilers (gcc, binutils and C library) for the
# fixtures of the other architectures (tests/fixtures.sh CC=cross-*)
cross() {
	apt_ensure gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-riscv64-linux-gnu \
		gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu
}

# boot_tools : what tests/boot.sh needs besides a kernel: qemu, and the
# static libc of libc6-dev for its /init
boot_tools() {
	apt_ensure --no-install-recommends qemu-system-x86 libc6-dev
}

# boot_image NAME PATTERN PKG... : download PKG... (from the suite kernel NAME
# came from) and put the files they hold under PATTERN's vmlinuz-* or vmlinuz
# and config-* or config into $CACHE/NAME/boot
boot_image() {
	local name=$1 pattern=$2; shift 2
	local out=$CACHE/$name/boot suite= tmp p
	[ -f "$out/vmlinuz" ] && [ -f "$out/config" ] && return 0
	[ -f "$CACHE/$name/suite" ] && suite=$(cat "$CACHE/$name/suite")
	apt_update
	log "fetching $* for the vmlinuz"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	for p in "$@"; do
		(cd "$tmp" && apt-get download -qq "$p${suite:+/$suite}" >&2)
	done
	rm -rf "$out.tmp"
	mkdir -p "$out.tmp/x"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$out.tmp/x"
	done
	mv "$out.tmp"/x/$pattern/vmlinuz* "$out.tmp/vmlinuz"
	mv "$out.tmp"/x/$pattern/config* "$out.tmp/config"
	echo "$*" >"$out.tmp/package"
	rm -rf "$tmp" "$out.tmp/x" "$out"
	mv "$out.tmp" "$out"
}

# boot61, boot612, boot72 : what tests/boot.sh boots: the bootable kernel
# image of the package kernel61's (kernel612's, kernel72's) debug vmlinux
# belongs to (same version)
boot_dbg_image() {
	local name=$1 dbg pkg ver
	dbg=$(cat "$CACHE/$name/package")
	pkg=${dbg%-dbg}
	apt_update
	ver=$(dbg_version "$name") || exit 1
	# the signed image; its -unsigned twin has the same vmlinuz contents
	if apt-cache show "$pkg=$ver" >/dev/null 2>&1; then
		boot_image "$name" boot "$pkg=$ver"
	else
		boot_image "$name" boot "$pkg-unsigned=$ver"
	fi
}
boot61() {
	boot_tools
	kernel61
	[ -f "$CACHE/linux-6.1/boot/vmlinuz" ] || boot_dbg_image linux-6.1
}
boot612() {
	boot_tools
	kernel612
	[ -f "$CACHE/linux-6.12/boot/vmlinuz" ] || boot_dbg_image linux-6.12
}
boot72() {
	local abi
	boot_tools
	kernel72
	# linux-image-ABI-cloud-amd64-dbg: 7.x puts the vmlinuz in
	# linux-binary-ABI-cloud-amd64, the config in linux-base-ABI-cloud-amd64
	abi=$(sed -n 's/^linux-image-\(.*\)-dbg$/\1/p' "$CACHE/linux-7.2/package")
	boot_image linux-7.2 'usr/lib/modules/*' "linux-binary-$abi" "linux-base-$abi"
}

usage="deps|pahole130|pahole132|pahole124|kernel61|kernel612|kernel72|modules61|modules612|modules72|moduletree61|moduletree612|moduletree72|source61|headers612|boot61|boot612|boot72|ccsid|cross|arch-ARCH-VERSION|arches|all"
case ${1:-all} in
deps | pahole130 | pahole132 | pahole124 | kernel61 | kernel612 | kernel72 | modules61 | modules612 | modules72 | moduletree61 | moduletree612 | moduletree72 | source61 | headers612 | boot61 | boot612 | boot72 | ccsid | cross | arches) "$1" ;;
arch-*) arch_kernel "${1#arch-}" ;;
all) deps; pahole130; pahole132; pahole124; kernel61; kernel612; kernel72; modules61; modules612; modules72; headers612; boot61; boot612; boot72; ccsid; cross; arches ;;
*) echo "usage: $0 $usage" >&2; exit 2 ;;
esac
