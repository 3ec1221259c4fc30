// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_reloc - ELF machines, and the relocation of a module's debug sections.
 *
 * A kernel module is a relocatable file: its DWARF points at its own
 * sections (strings, location lists, code) through relocations. pahole
 * reads it through libdwfl, which applies them to the debug sections
 * before libdw sees a byte; the BTF is what those relocated bytes say, so
 * they are applied here exactly as libdwfl does (elfutils' libdwfl/relocate.c
 * and each backend's reloc_simple_type, unchanged from 0.188 to 0.192):
 *
 *  - a type with a plain data width is applied: S + A is written over the
 *    bytes, or, for RISC-V's paired ADDn/SUBn (the difference of two labels,
 *    left to the linker because of relaxation), added to or subtracted from
 *    them; with SHT_REL (32-bit ARM) the addend is the bytes themselves, and
 *    an ADD or SUB there is left alone;
 *  - type 0 (R_*_NONE), a symbol in no section (undefined: pahole's libdwfl
 *    knows one module only), and every type libdwfl has no width for are
 *    left alone: libdwfl relocates debug sections "partially" and skips them.
 *
 * libdwfl skips any type it does not know, but a newer libdwfl may know
 * more, and what it does with them would change the bytes. So the table of
 * each machine lists the types libdwfl applies and, of those it skips, only
 * the ones seen in Debian's modules (RISC-V's SET6, SUB6 and SUB8, in
 * .debug_frame); any other type is refused with an error naming it rather
 * than guessed at.
 *
 * The registers are pahole 1.30's (its dwarf_loader.c's
 * arch__nr_register_params and arch__set_register_params): a count for
 * more machines than it has register maps for.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "d2b_util.h"
#include "elf_reloc.h"
#include "str_canon.h"

#define RT(n, t, o, w)                                                 \
	{                                                              \
		.type = t, .name = "R_" n, .op = RELOC_##o, .width = w \
	}

static const struct elf_reloc_type x86_64_relocs[] = {
	RT("X86_64_NONE", 0, KEEP, 0), RT("X86_64_64", 1, SET, 8),  RT("X86_64_32", 10, SET, 4),
	RT("X86_64_32S", 11, SET, 4),  RT("X86_64_16", 12, SET, 2), RT("X86_64_8", 14, SET, 1),
};

static const struct elf_reloc_type aarch64_relocs[] = {
	RT("AARCH64_NONE", 0, KEEP, 0),	  RT("AARCH64_NONE", 256, KEEP, 0),
	RT("AARCH64_ABS64", 257, SET, 8), RT("AARCH64_ABS32", 258, SET, 4),
	RT("AARCH64_ABS16", 259, SET, 2),
};

static const struct elf_reloc_type arm_relocs[] = {
	RT("ARM_NONE", 0, KEEP, 0),
	RT("ARM_ABS32", 2, SET, 4),
	RT("ARM_ABS16", 5, SET, 2),
	RT("ARM_ABS8", 8, SET, 1),
};

static const struct elf_reloc_type ppc64_relocs[] = {
	RT("PPC64_NONE", 0, KEEP, 0),	 RT("PPC64_ADDR32", 1, SET, 4),
	RT("PPC64_UADDR32", 24, SET, 4), RT("PPC64_UADDR16", 25, SET, 2),
	RT("PPC64_ADDR64", 38, SET, 8),	 RT("PPC64_UADDR64", 43, SET, 8),
};

static const struct elf_reloc_type riscv_relocs[] = {
	RT("RISCV_NONE", 0, KEEP, 0),  RT("RISCV_32", 1, SET, 4),     RT("RISCV_64", 2, SET, 8),
	RT("RISCV_ADD16", 34, ADD, 2), RT("RISCV_ADD32", 35, ADD, 4), RT("RISCV_ADD64", 36, ADD, 8),
	RT("RISCV_SUB8", 37, KEEP, 1), RT("RISCV_SUB16", 38, SUB, 2), RT("RISCV_SUB32", 39, SUB, 4),
	RT("RISCV_SUB64", 40, SUB, 8), RT("RISCV_SUB6", 52, KEEP, 1), RT("RISCV_SET6", 53, KEEP, 1),
	RT("RISCV_SET8", 54, SET, 1),  RT("RISCV_SET16", 55, SET, 2), RT("RISCV_SET32", 56, SET, 4),
};

static const struct elf_reloc_type s390_relocs[] = {
	RT("390_NONE", 0, KEEP, 0), RT("390_8", 1, SET, 1),   RT("390_16", 3, SET, 2),
	RT("390_32", 4, SET, 4),    RT("390_64", 22, SET, 8),
};

static const int x86_64_regs[] = { DW_OP_reg5, DW_OP_reg4, DW_OP_reg1,
				   DW_OP_reg2, DW_OP_reg8, DW_OP_reg9 };
static const int arm_regs[] = { DW_OP_reg0, DW_OP_reg1, DW_OP_reg2, DW_OP_reg3,
				DW_OP_reg4, DW_OP_reg5, DW_OP_reg6, DW_OP_reg7 };
static const int s390_regs[] = { DW_OP_reg2, DW_OP_reg3, DW_OP_reg4, DW_OP_reg5, DW_OP_reg6 };

#define RELOCS(r) r, sizeof(r) / sizeof(r[0])

static const struct elf_machine machines[] = {
	{ EM_X86_64, "EM_X86_64", 6, x86_64_regs, RELOCS(x86_64_relocs) },
	{ EM_AARCH64, "EM_AARCH64", 8, arm_regs, RELOCS(aarch64_relocs) },
	{ EM_ARM, "EM_ARM", 8, arm_regs, RELOCS(arm_relocs) },
	{ EM_PPC64, "EM_PPC64", 8, NULL, RELOCS(ppc64_relocs) },
	{ EM_RISCV, "EM_RISCV", 8, NULL, RELOCS(riscv_relocs) },
	{ EM_S390, "EM_S390", 5, s390_regs, RELOCS(s390_relocs) },
	/* counted by pahole, never relocated here */
	{ EM_SPARC, "EM_SPARC", 6, NULL, NULL, 0 },
	{ EM_SPARCV9, "EM_SPARCV9", 6, NULL, NULL, 0 },
	{ EM_ARC, "EM_ARC", 8, NULL, NULL, 0 },
	{ EM_MIPS, "EM_MIPS", 8, NULL, NULL, 0 },
	{ EM_PPC, "EM_PPC", 8, NULL, NULL, 0 },
	/* named in messages only */
	{ EM_386, "EM_386", 0, NULL, NULL, 0 },
	{ EM_68K, "EM_68K", 0, NULL, NULL, 0 },
	{ EM_PARISC, "EM_PARISC", 0, NULL, NULL, 0 },
	{ EM_SH, "EM_SH", 0, NULL, NULL, 0 },
	{ EM_IA_64, "EM_IA_64", 0, NULL, NULL, 0 },
	{ EM_ALPHA, "EM_ALPHA", 0, NULL, NULL, 0 },
	{ 258, "EM_LOONGARCH", 0, NULL, NULL, 0 },
	{ EM_BPF, "EM_BPF", 0, NULL, NULL, 0 },
};

void elf_machine__init(struct elf_machine *m, unsigned int machine)
{
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (machines[i].machine == machine) {
			*m = machines[i];
			return;
		}
	*m = (struct elf_machine){ .machine = machine };
}

const char *elf_machine__name(const struct elf_machine *m, char *buf, size_t size)
{
	if (m->name)
		return m->name;
	snprintf(buf, size, "e_machine %u", m->machine);
	return buf;
}

static const struct elf_reloc_type *reloc_type_find(const struct elf_machine *m, unsigned int type)
{
	size_t lo = 0, hi = m->nr_relocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->relocs[mid].type == type)
			return &m->relocs[mid];
		if (m->relocs[mid].type < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* @width bytes at @p in the file's byte order (@swap: it differs from ours) */
static uint64_t buf_get(const uint8_t *p, unsigned int width, bool swap)
{
	bool big = swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		v |= (uint64_t)p[big ? width - 1 - i : i] << (8 * i);
	return v;
}

static void buf_put(uint8_t *p, unsigned int width, uint64_t v, bool swap)
{
	bool big = swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint32_t v32 = (uint32_t)v;
	unsigned int i;

	/* (the host's order: one store; a million relocations in mlx5_core.ko) */
	if (!swap && width == 4) {
		memcpy(p, &v32, 4);
		return;
	}
	if (!swap && width == 8) {
		memcpy(p, &v, 8);
		return;
	}
	for (i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/* "FILE: EM_X: section .rela.debug_info: " and @what */
static void reloc_warn(const char *path, Elf *elf, const struct elf_machine *m,
		       const GElf_Shdr *rsh, const char *what, unsigned long n)
{
	const char *scn_name = NULL;
	size_t shstrndx;
	char buf[32];

	if (!elf_getshdrstrndx(elf, &shstrndx))
		scn_name = elf_strptr(elf, shstrndx, rsh->sh_name);
	pr_warn("%s: %s: section %s: %s%lu\n", path, elf_machine__name(m, buf, sizeof(buf)),
		scn_name ? scn_name : "(unnamed)", what, n);
}

/* the data of the SHT_SYMTAB_SHNDX section of the symbol table @symtab_ndx, if any */
static Elf_Data *symtab_shndx(Elf *elf, size_t symtab_ndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX &&
		    sh.sh_link == symtab_ndx)
			return elf_getdata(scn, NULL);
	return NULL;
}

/* elf_reloc__apply, but silent: *@bad and *@bad_type are those of the relocation at fault */
static int reloc_section(Elf *elf, const struct elf_machine *m, Elf_Scn *rscn, const GElf_Shdr *rsh,
			 uint8_t *data, size_t size, const uint64_t *layout, size_t nr_secs,
			 bool swap, struct str_canon *strs, size_t str_ndx, size_t *bad,
			 unsigned int *bad_type)
{
	Elf_Scn *symscn = elf_getscn(elf, rsh->sh_link);
	Elf_Data *rdata = elf_getdata(rscn, NULL),
		 *syms = symscn ? elf_getdata(symscn, NULL) : NULL;
	Elf_Data *xndx = syms ? symtab_shndx(elf, rsh->sh_link) : NULL;
	const struct elf_reloc_type *rt = NULL;
	const Elf64_Rela *relas64 = NULL;
	const Elf64_Sym *syms64 = NULL;
	size_t i, n, nr_syms64 = 0;
	bool rela = rsh->sh_type == SHT_RELA;

	*bad = 0;
	if (!rdata || !syms || !rsh->sh_entsize)
		return -EINVAL;
	n = rsh->sh_size / rsh->sh_entsize;
	/* libelf gives 64-bit files' tables in our byte order: read them in place */
	if (gelf_getclass(elf) == ELFCLASS64 && rela && rdata->d_type == ELF_T_RELA &&
	    rdata->d_size / sizeof(*relas64) >= n && syms->d_type == ELF_T_SYM && !xndx) {
		relas64 = rdata->d_buf;
		syms64 = syms->d_buf;
		nr_syms64 = syms->d_size / sizeof(*syms64);
	}
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		Elf32_Word shndx = 0;
		uint64_t value = 0, addend, old;
		unsigned int type, symi;

		if (relas64) {
			r = relas64[i];
		} else if (rela) {
			if (!gelf_getrela(rdata, (int)i, &r))
				return -EINVAL;
		} else {
			GElf_Rel rel;

			if (!gelf_getrel(rdata, (int)i, &rel))
				return -EINVAL;
			r = (GElf_Rela){ rel.r_offset, rel.r_info, 0 };
		}
		type = (unsigned int)GELF_R_TYPE(r.r_info);
		*bad = i;
		*bad_type = type;
		if (!rt || rt->type != type) {
			rt = reloc_type_find(m, type);
			if (!rt)
				return -ENOTSUP;
		}
		if (rt->op == RELOC_KEEP || (!rela && rt->op != RELOC_SET))
			continue;
		symi = (unsigned int)GELF_R_SYM(r.r_info);
		if (symi) {
			if (syms64 && symi < nr_syms64)
				sym = syms64[symi];
			else if (syms64 || !gelf_getsymshndx(syms, xndx, (int)symi, &sym, &shndx))
				return -EINVAL;
			if (sym.st_shndx != SHN_XINDEX)
				shndx = sym.st_shndx;
			if (shndx == SHN_UNDEF)
				continue; /* libdwfl: RELUNDEF, skipped */
			if (shndx == SHN_ABS)
				value = sym.st_value;
			else if (shndx == SHN_COMMON)
				value = 0;
			else if (shndx < nr_secs)
				value = layout[shndx] + sym.st_value;
			else
				return -EINVAL;
		}
		if (r.r_offset > size || size - r.r_offset < rt->width)
			return -EINVAL;
		/* the bytes there: the addend of SHT_REL, the term of ADD and SUB */
		old = !rela || rt->op != RELOC_SET ? buf_get(data + r.r_offset, rt->width, swap)
						   : 0;
		addend = rela ? (uint64_t)r.r_addend : old;
		if (strs && symi && shndx == str_ndx && str_ndx && rt->op == RELOC_SET)
			addend = str_canon__offset(strs, sym.st_value + addend) - sym.st_value;
		value += addend;
		if (rt->op == RELOC_ADD)
			value = old + value;
		else if (rt->op == RELOC_SUB)
			value = old - value;
		buf_put(data + r.r_offset, rt->width, value, swap);
	}
	return 0;
}

int elf_reloc__apply(const char *path, Elf *elf, const struct elf_machine *m, Elf_Scn *rscn,
		     const GElf_Shdr *rsh, uint8_t *data, size_t size, const uint64_t *layout,
		     size_t nr_secs, bool swap, struct str_canon *strs, size_t str_ndx)
{
	unsigned int type = 0;
	size_t bad;
	int err = reloc_section(elf, m, rscn, rsh, data, size, layout, nr_secs, swap, strs, str_ndx,
				&bad, &type);

	if (err == -ENOTSUP && !m->nr_relocs)
		reloc_warn(path, elf, m, rsh,
			   "relocations of this machine are not supported, type ", type);
	else if (err == -ENOTSUP)
		reloc_warn(path, elf, m, rsh, "unsupported relocation type ", type);
	else if (err)
		reloc_warn(path, elf, m, rsh, "malformed relocation ", bad);
	return err;
}

#define DWFL_OFFLINE_BASE 0x10000 /* libdwfl's OFFLINE_REDZONE */

int elf_reloc__layout(Elf *elf, uint64_t *addrs, size_t nr)
{
	uint64_t end = DWFL_OFFLINE_BASE;
	size_t i;

	for (i = 0; i < nr; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		uint64_t align;

		if (!scn || !gelf_getshdr(scn, &sh))
			return -EINVAL;
		addrs[i] = sh.sh_addr;
		if (!i || !(sh.sh_flags & SHF_ALLOC))
			continue;
		align = sh.sh_addralign ? sh.sh_addralign : 1;
		if (align & (align - 1))
			return -EINVAL;
		addrs[i] = (end + align - 1) & ~(align - 1);
		end = addrs[i] + sh.sh_size;
	}
	return 0;
}
