#!/usr/bin/env bash
# run-all.sh - the whole test suite on a fresh Debian 12 machine (as root):
# installs the build dependencies, fetches the reference tools and kernels
# (cached in $DWARF2BTF_CACHE), builds, and runs every CTest test.
#
# Usage: bash tests/run-all.sh [BUILD_DIR]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}

"$top/tests/fetch.sh" all
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
