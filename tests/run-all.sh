#!/usr/bin/env bash
# run-all.sh - the whole test suite on a fresh Debian 12 machine (as root):
# installs the build dependencies, fetches the reference tools and kernels
# (cached in $DWARF2BTF_CACHE), builds, and runs every CTest test but the
# kernels' whole module trees (label moduletree: ctest -L moduletree), the
# other architectures' whole module sets (label arches: ctest -L arches) and
# the kernels built from source (label kernelbuild: ctest -L kernelbuild).
#
# Then the same build under AddressSanitizer + UndefinedBehaviorSanitizer and
# under ThreadSanitizer runs every test but the long real-kernel ones and the
# package build, plus one sanitized real-kernel encode per flag set.
#
# Usage: bash tests/run-all.sh [BUILD_DIR]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}

"$top/tests/fetch.sh" all
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -LE '^(moduletree|arches|kernelbuild)$'

for san in ASAN TSAN; do
	sbuild=$build-${san,,}
	cmake -S "$top" -B "$sbuild" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDWARF2BTF_$san=ON
	cmake --build "$sbuild" -j"$(nproc)"
	# a sanitizer report makes the program fail, hence the test
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 TSAN_OPTIONS=halt_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		ctest --test-dir "$sbuild" --output-on-failure -j"$(nproc)" -LE '^(kernel|package|boot|moduletree|arches|kernelbuild)$' -E '^valgrind$'
done
