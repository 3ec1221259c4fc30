/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_btf_section - add or replace the .BTF section (and .BTF.base) of an
 * ELF file, the way pahole -J does (libelf for an existing section,
 * $LLVM_OBJCOPY otherwise), atomically: the file is replaced only by a
 * complete result.
 */
#ifndef ELF_BTF_SECTION_H
#define ELF_BTF_SECTION_H

#include <stddef.h>

/* a section to write: its name and contents */
struct elf_btf_section {
	const char *name;
	const void *data;
	size_t size;
};

/*
 * Put the @nr sections @secs into @path, one after the other, as pahole
 * writes .BTF and then .BTF.base. The original is untouched on failure and
 * no temporary file is left. Returns 0 or -errno, after printing a message
 * naming @path. Runs a child process: call it from a single-threaded point
 * of the program.
 */
int elf_btf__write_in_place(const char *path, const struct elf_btf_section *secs, unsigned int nr);

#endif /* ELF_BTF_SECTION_H */
