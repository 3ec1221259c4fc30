#!/usr/bin/env bash
# make-seeds.sh - the seed inputs for the fuzz target fuzz_encode: small real
# objects, written to OUTDIR (the fuzzing itself and its minimized corpus,
# fuzz/corpus, are described in Documentation/reliability.md, "Fuzzing").
#
#  - each tests/fixtures/*.c compiled (-c) with gcc and clang, -O0 and -O2,
#    DWARF 4 and 5 (two combinations per compiler);
#  - the fixture program linked, as tests/fixtures.sh links it;
#  - fuzz/seeds/tiny.c in the less common shapes: DWARF 2 and 3, 64-bit
#    DWARF, compressed sections, split DWARF, i386, AArch64 and big-endian
#    s390x relocatable objects, AArch64 shared;
#  - tiny.c and kfuncs.c linked with LTO by gcc and clang (cross-unit
#    references: DW_FORM_ref_addr);
#  - fuzz/seeds/type_units.cc with type units (DWARF 4 .debug_types and
#    DWARF 5 DW_UT_type), relocatable and linked;
#  - one real kernel module (msdos.ko from Debian's 6.1 debug package, in
#    the dwarf2btf cache), without its .BTF, ORC and frame sections and with
#    compressed debug sections, if the cache has it;
#  - given a dwarf2btf binary, the -O2 gcc and -O0 clang fixture objects
#    with a .BTF section of their own (fuzz_encode then also encodes them as
#    split BTF on it), named *-btf.o, and the inputs of tests/bad-input.sh's
#    cases up to 300,000 bytes (ELF edits, DWARF written DIE by DIE, corrupt
#    bases), named bad-CASE-N.
#
# Usage: fuzz/make-seeds.sh OUTDIR [DWARF2BTF]
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 OUTDIR [DWARF2BTF]" >&2
	exit 2
fi
out=$1
top=$(cd "$(dirname "$0")/.." && pwd)
fix=$top/tests/fixtures
tiny=$top/fuzz/seeds/tiny.c
cache=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

run() {
	echo "+ $*"
	"$@"
}

# fixture objects: compiler, -O, DWARF version
for cfg in gcc:0:4 gcc:2:5 clang:0:5 clang:2:4; do
	IFS=: read -r cc opt dw <<<"$cfg"
	objs=()
	for src in "$fix"/*.c; do
		o=$tmp/$(basename "${src%.c}")-$cc-O$opt-dwarf$dw.o
		run "$cc" -O"$opt" -g -gdwarf-"$dw" -c "$src" -o "$o"
		cp "$o" "$out/"
		objs+=("$o")
	done
	if [ "$cfg" = gcc:2:5 ] || [ "$cfg" = clang:0:5 ]; then
		run "$cc" -O"$opt" -g -gdwarf-"$dw" -Wl,-T,"$fix/percpu.lds" \
			-o "$out/fixture-$cc-O$opt-dwarf$dw" "${objs[@]}"
	fi
done

# tiny.c in other shapes
run gcc -O2 -g -gdwarf-2 -c "$tiny" -o "$out/tiny-gcc-dwarf2.o"
run gcc -O0 -g -gdwarf-3 -c "$tiny" -o "$out/tiny-gcc-dwarf3.o"
run gcc -O2 -g -gdwarf-5 -gdwarf64 -c "$tiny" -o "$out/tiny-gcc-dwarf64.o"
run gcc -O2 -g -gdwarf-5 -gz=zlib -c "$tiny" -o "$out/tiny-gcc-gz.o"
run gcc -O2 -g -gdwarf-5 -m32 -c "$tiny" -o "$out/tiny-gcc-i386.o"
run gcc -O2 -g -gdwarf-5 -shared -fPIC -nostdlib "$tiny" -o "$out/tiny-gcc.so"
(cd "$tmp" && run gcc -O2 -g -gdwarf-5 -gsplit-dwarf -c "$tiny" -o tiny-split.o)
cp "$tmp/tiny-split.o" "$out/tiny-gcc-split.o"
# LTO: units referring to each other (DW_FORM_ref_addr), read merged
run gcc -O2 -g -flto -shared -fPIC -nostdlib "$tiny" "$fix/kfuncs.c" -o "$out/lto-gcc.so"
run clang -O2 -g -flto -fuse-ld=lld -shared -fPIC -nostdlib "$tiny" "$fix/kfuncs.c" \
	-o "$out/lto-clang.so"
run g++ -O2 -g -gdwarf-4 -fdebug-types-section -c "$top/fuzz/seeds/type_units.cc" \
	-o "$out/type-units-gcc-dwarf4.o"
run clang++ -O2 -g -gdwarf-5 -fdebug-types-section -c "$top/fuzz/seeds/type_units.cc" \
	-o "$out/type-units-clang-dwarf5.o"
run g++ -O2 -g -gdwarf-4 -fdebug-types-section -shared -fPIC -nostdlib \
	"$top/fuzz/seeds/type_units.cc" -o "$out/type-units-gcc-dwarf4.so"
run clang++ -O2 -g -gdwarf-5 -fdebug-types-section -shared -fPIC -nostdlib \
	"$top/fuzz/seeds/type_units.cc" -o "$out/type-units-clang-dwarf5.so"
run clang -O2 -g -gdwarf-5 --target=aarch64-linux-gnu -c "$tiny" -o "$out/tiny-clang-aarch64.o"
run clang -O2 -g -gdwarf-5 --target=aarch64-linux-gnu -fPIC -shared -nostdlib -fuse-ld=lld \
	"$tiny" -o "$out/tiny-clang-aarch64.so"
run clang -O2 -g -gdwarf-4 --target=s390x-linux-gnu -c "$tiny" -o "$out/tiny-clang-s390x.o"
run clang -O2 -g -gdwarf-5 --target=s390x-linux-gnu -c "$fix/kfuncs.c" \
	-o "$out/kfuncs-clang-s390x.o"

# one real kernel module, made smaller
ko=$cache/linux-6.1/modules/msdos.ko
if [ -f "$ko" ]; then
	run objcopy -R .BTF -R .debug_frame -R .rela.debug_frame -R .orc_unwind \
		-R .orc_unwind_ip -R .rela.orc_unwind_ip -R .rela.text \
		--compress-debug-sections=zlib "$ko" "$out/msdos-6.1-z.ko"
else
	echo "make-seeds.sh: $ko not found, no kernel module seed" >&2
fi
if [ $# -eq 2 ]; then
	# fixture objects with their own .BTF: encoded split on it too
	for o in "$tmp"/*-gcc-O2-dwarf5.o "$tmp"/*-clang-O0-dwarf5.o; do
		b=$out/$(basename "${o%.o}")-btf.o
		cp "$o" "$b"
		LLVM_OBJCOPY=objcopy run "$2" -J --btf_gen_floats "$b"
	done
	BAD_INPUT_SEEDS=$out bash "$top/tests/bad-input.sh" "$2" >/dev/null ||
		echo "make-seeds.sh: tests/bad-input.sh failed; its seeds are kept" >&2
fi
ls -l "$out"
