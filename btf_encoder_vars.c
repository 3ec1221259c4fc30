// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_vars - the variables: which of a CU's variables become a VAR
 * (var__encodable: pahole's rules, in an ELF section that is kept, named
 * validly, not one of the kernel's generated names; asked by the worker
 * that builds the CU's records, btf_encoder_cu.c), each VAR recorded with
 * its section by the writer (vars__add_secinfo), and at the end one DATASEC per section with VARs, in section order, its
 * variables by offset (datasecs__emit, after btf_encoder__merge sorted
 * them).
 */
#include <bpf/btf.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "btf_encoder_priv.h"
#include "btf_raw.h"
#include "cu.h"
#include "d2b_conf.h"
#include "d2b_util.h"
#include "elf_symtab.h"

static bool btf_name_valid(const char *p)
{
	const char *start = p;

	if (!p || !(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	for (p++; *p; p++)
		if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return false;
	return p - start <= 128;
}

static bool var_name_filtered(const char *name)
{
	static const char *const prefixes[] = {
		"__UNIQUE_ID",
		"__tpstrtab_",
		"__exitcall_",
		"__gendwarfksyms_ptr_",
		"__func_stack_frame_non_standard_",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

int vars__add_secinfo(struct btf_encoder *enc, int shndx, uint32_t type, uint32_t offset,
		      uint32_t size)
{
	struct sec_vars *s = &enc->secs[shndx];

	if (d2b_grow(&s->recs, &s->cap, s->nr + 1, sizeof(*s->recs)))
		return -ENOMEM;
	s->recs[s->nr++] = (struct secinfo){ type, offset, size, enc->nr_batches };
	return enc__batch_use(enc, type);
}

/*
 * 1 if @v becomes a VAR (in section *@shndx at *@offset), 0 if not, -EINVAL
 * if it is invalid (reported if @report). Read-only: any number of workers
 * ask it at once.
 */
int var__encodable(const struct btf_encoder *enc, const struct cu *cu, const struct cu_var *v,
		   bool report, int *shndx, uint64_t *offset)
{
	const struct elf_section *sec;

	if (v->declaration || v->artificial || !v->has_addr)
		return 0;
	*shndx = elf_symtab__section_of(enc->es, v->addr);
	if (*shndx < 0)
		return 0;
	sec = elf_symtab__section(enc->es, *shndx);
	if (!sec->include)
		return 0;
	*offset = v->addr - sec->addr;
	if (v->name && var_name_filtered(v->name))
		return 0;
	if (!*offset && (!v->name || !elf_symtab__has_object(enc->es, v->name, *shndx)))
		return 0;
	if (!btf_name_valid(v->name) || !v->type) {
		if (enc->conf->encode_force)
			return 0;
		if (report)
			pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64
				": variable '%s' has an invalid name or void type (use encode_force)\n",
				enc->path, cu->off, v->die_off, v->name ? v->name : "");
		return -EINVAL;
	}
	return v->size && v->size <= UINT32_MAX && *offset <= UINT32_MAX;
}

int datasecs__emit(struct btf_encoder *enc)
{
	size_t shndx, n = elf_symtab__nr_sections(enc->es);
	uint32_t i;
	int id, err, off;

	/* (each section's variables sorted by btf_encoder__merge) */
	for (shndx = 0; shndx < n; shndx++) {
		struct sec_vars *s = &enc->secs[shndx];
		const struct secinfo *last;

		if (!s->nr)
			continue;
		last = &s->recs[s->nr - 1];
		off = enc__tail_str(enc, elf_symtab__section(enc->es, shndx)->name);
		if (off < 0)
			return off;
		id = enc__add_record(enc,
				     &(struct btf_type){ (uint32_t)off,
							 BTF_RAW_INFO(BTF_KIND_DATASEC, 0, 0),
							 { last->offset + last->size } },
				     0);
		if (id < 0)
			return id;
		for (i = 0; i < s->nr; i++) {
			err = enc__add_datasec_var_info(enc, s->recs[i].type, s->recs[i].offset,
							s->recs[i].size);
			if (err)
				return err;
		}
	}
	return 0;
}
