/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_symtab - what the encoder needs from the ELF outside DWARF: the
 * function symbols (FUNC records must match one), the section table
 * (per-CPU variables and DATASECs), object symbols, and the byte order.
 *
 * Built once on the main thread, read-only afterwards (the loader workers
 * look functions up in it) except for elf_function.alias, which only the
 * collector writes.
 */
#ifndef ELF_SYMTAB_H
#define ELF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct d2b_conf;
struct elf_symtab;

/*
 * A function of the ELF: pahole 1.30's are its STT_FUNC symbols, one each;
 * pahole 1.32's are their names up to the first '.', each with the
 * addresses of every symbol of that name (".cold" and ".part" pieces left
 * out).
 */
struct elf_function_sym {
	uint64_t addr;
	bool optimized; /* a ".constprop" or ".isra" clone */
};

struct elf_function {
	const char *name;
	const char *alias; /* DWARF name of a prefix (".isra.0") match (1.30) */
	char *name_owned; /* 1.32: the name, allocated */
	struct elf_function_sym *syms; /* 1.32: its symbols, in symbol order */
	uint32_t nr_syms;
	bool ambiguous_addr; /* 1.32: its symbols have more than one address */
	uint64_t key; /* the name's first 8 bytes before any '.', big-endian, 0-padded */
	uint32_t prefixlen; /* length up to the first '.' */
	uint32_t rank; /* if elf_symtab__ranked(): its place in elf_function__cmp's order */
	uint32_t kfunc_flags; /* its KF_* flags */
	bool kfunc; /* in a .BTF_ids KFUNCS set (decl_tag_kfuncs) */
};

#define KF_FASTCALL (1u << 12)
/* its return value, first, second argument points into a BPF arena */
#define KF_ARENA_RET (1u << 13)
#define KF_ARENA_ARG1 (1u << 14)
#define KF_ARENA_ARG2 (1u << 15)

struct elf_section {
	const char *name;
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	bool include; /* VARs in it are encoded */
};

struct elf_symtab *elf_symtab__new(const char *path, const struct d2b_conf *conf, int *err);
void elf_symtab__free(struct elf_symtab *es);

size_t elf_symtab__nr_functions(const struct elf_symtab *es);
/* has @fn a symbol at @addr (1.32) */
bool elf_function__has_addr(const struct elf_function *fn, uint64_t addr);
/* has @fn a ".constprop" or ".isra" symbol at @addr (1.32) */
bool elf_function__optimized_at(const struct elf_function *fn, uint64_t addr);
/* any function symbol name contains a '.' */
bool elf_symtab__has_suffixes(const struct elf_symtab *es);
/*
 * pahole 1.30's lookup: exact (@prefixlen 0) or on the name up to the first
 * '.' (@prefixlen = strlen(@name)), with its comparator and glibc's bsearch.
 */
struct elf_function *elf_symtab__find_function(struct elf_symtab *es, const char *name,
					       size_t prefixlen);
/* pahole 1.30's order of function entries (not a consistent order) */
int elf_function__cmp(const struct elf_function *a, const struct elf_function *b);
/*
 * Is elf_function__cmp a consistent order on this file's functions? Then it
 * compares their ranks: elf_function__cmp(a, b) has the sign of
 * a->rank - b->rank, so a stable sort by rank is the stable sort by it.
 */
bool elf_symtab__ranked(const struct elf_symtab *es);

size_t elf_symtab__nr_sections(const struct elf_symtab *es);
const struct elf_section *elf_symtab__section(const struct elf_symtab *es, size_t idx);
/* first PROGBITS/NOBITS section containing @addr, or -1 */
int elf_symtab__section_of(const struct elf_symtab *es, uint64_t addr);
/* is there an STT_OBJECT symbol @name in section @shndx? */
bool elf_symtab__has_object(const struct elf_symtab *es, const char *name, int shndx);
bool elf_symtab__big_endian(const struct elf_symtab *es);

#endif /* ELF_SYMTAB_H */
