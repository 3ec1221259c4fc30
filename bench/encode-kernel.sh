#!/usr/bin/env bash
# encode-kernel.sh - the main job on a real kernel, on a fresh Debian 12
# machine (as root): install the build dependencies, build dwarf2btf, fetch
# Debian's 6.1 cloud debug vmlinux (cached), encode its BTF with the flags
# that kernel's own Kbuild passes (tests/lib.sh) at -j1 and at -j$(nproc),
# show that the two outputs are identical and how long each took.
#
# Usage: bash bench/encode-kernel.sh [6.1|6.12|7.2]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${1:-6.1}
build=$top/build
out=${TMPDIR:-/tmp}/dwarf2btf-encode-kernel
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
flags=$(kbuild_flags "$kver")
[ -n "$flags" ] || { echo "usage: $0 [6.1|6.12|7.2]" >&2; exit 2; }

"$top/tests/fetch.sh" deps
"$top/tests/fetch.sh" "kernel${kver/./}"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

vmlinux=$CACHE/linux-$kver/vmlinux
mkdir -p "$out"
echo "input: $vmlinux ($(cat "$CACHE/linux-$kver/package"))"
echo "flags: $flags"
for j in 1 "$(nproc)"; do
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	"$build/dwarf2btf" -J -j"$j" $flags --btf_encode_detached="$out/vmlinux-j$j.btf" "$vmlinux"
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "-j$j: $ms ms, $(stat -c %s "$out/vmlinux-j$j.btf") bytes of BTF, sha256 $(sha256sum <"$out/vmlinux-j$j.btf" | cut -c1-16)"
done
if cmp "$out/vmlinux-j1.btf" "$out/vmlinux-j$(nproc).btf"; then
	echo "identical: -j1 and -j$(nproc) wrote the same bytes"
else
	echo "DIFFERENT: -j1 and -j$(nproc) outputs differ" >&2
	exit 1
fi
