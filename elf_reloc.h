/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_reloc - what dwarf2btf knows of each ELF machine: its name, the
 * registers pahole 1.30 expects the first parameters in, and how the
 * relocations of a relocatable file's debug sections are applied.
 */
#ifndef ELF_RELOC_H
#define ELF_RELOC_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct str_canon;

struct elf_machine {
	unsigned int machine; /* e_machine */
	const char *name; /* "EM_X86_64" */
	/* pahole 1.30's count of parameters passed in registers, and the
	 * DW_OP_regN each is expected in (NULL: counted, never checked) */
	int nr_param_regs;
	const int *param_regs;
	/* relocation types, sorted by type; NULL: relocatable files are refused */
	const struct elf_reloc_type *relocs;
	unsigned int nr_relocs;
};

/*
 * What libdwfl (elfutils 0.188 to 0.192, the libdw pahole is run with)
 * does with a relocation type in a debug section: write S + A over
 * @width bytes, add it to them or subtract it from them (RELA only), or
 * leave the bytes as they are.
 */
enum elf_reloc_op { RELOC_KEEP, RELOC_SET, RELOC_ADD, RELOC_SUB };

struct elf_reloc_type {
	unsigned int type;
	const char *name; /* "R_RISCV_ADD32" */
	enum elf_reloc_op op;
	unsigned int width;
};

/* @m becomes @machine's entry, or one with no name, registers or relocations */
void elf_machine__init(struct elf_machine *m, unsigned int machine);

/* "EM_RISCV" or, for a machine without an entry, "e_machine 258" */
const char *elf_machine__name(const struct elf_machine *m, char *buf, size_t size);

/*
 * Apply the relocation section @rscn (header @rsh) of @elf to @data, the
 * @size bytes of a private copy of the section it relocates, as libdwfl
 * does: symbol values placed at @layout (section addresses, @nr_secs of
 * them), undefined symbols left unresolved (the relocation is not applied),
 * bytes in the file's byte order (@swap: it differs from ours). Where the
 * symbol is in section @str_ndx (.debug_str) and @strs is given, the
 * target becomes the first string with the same contents.
 *
 * Returns 0, -ENOTSUP for a relocation type not in @m's table, or -EINVAL
 * for a malformed relocation; then a one-line error naming @path, the
 * machine, the relocation section and the type (or the relocation's index)
 * has been printed.
 */
int elf_reloc__apply(const char *path, Elf *elf, const struct elf_machine *m, Elf_Scn *rscn,
		     const GElf_Shdr *rsh, uint8_t *data, size_t size, const uint64_t *layout,
		     size_t nr_secs, bool swap, struct str_canon *strs, size_t str_ndx);

/*
 * The addresses libdwfl gives the sections of a relocatable file (pahole
 * reads modules through libdwfl), the @layout elf_reloc__apply takes:
 * SHF_ALLOC sections laid out in index order from 0x10000, each aligned to
 * its sh_addralign; other sections keep sh_addr. Fills @addrs[0..@nr).
 * Returns 0 or -EINVAL.
 */
int elf_reloc__layout(Elf *elf, uint64_t *addrs, size_t nr);

#endif /* ELF_RELOC_H */
