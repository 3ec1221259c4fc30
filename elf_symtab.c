// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_symtab - ELF symbols and sections for the encoder.
 *
 * The function table reproduces pahole 1.30: every STT_FUNC symbol of
 * .symtab in symbol order, each with a prefix length up to its first '.',
 * sorted with pahole's comparator (prefixes compared when both prefix lengths
 * are equal, full names otherwise). That comparator is not a consistent
 * order, so the table is sorted by msort(), which repeats glibc's qsort
 * exactly, and searched with glibc's bsearch probe sequence. On names
 * that have no byte below '.' and do not start with one (all a kernel's),
 * though, it is the order of the names up to their first '.': where two
 * such prefixes part decides, and where one ends first, the shorter name's
 * '.' or end meets a byte above '.' in the other, so it sorts first both
 * ways. Then the table is sorted comparing those prefixes (functions_key_cmp:
 * the same sign as the comparator's for every pair, so msort makes the same
 * moves, without reading most names), equal prefixes sit in runs of it, and
 * each function gets the index of its run's first as its rank
 * (symtab_rank): the encoder sorts its functions by rank
 * (btf_funcs.c, funcs__sort).
 *
 * Most look-ups find nothing (two in three on vmlinux: static functions
 * inlined everywhere, then their prefix look-up), and each bsearch probe is
 * a string compare that misses the cache. A look-up can only return a
 * function whose name, or whose name up to its first '.', is the name
 * sought (the comparator is strcmp, or strncmp over the prefix when both
 * prefix lengths are equal), so a hash set of those strings answers "none"
 * without a probe; the others search as pahole does.
 *
 * For pahole 1.32 the table is then grouped by name up to the first '.'
 * (symtab_group): every symbol of a name is one function, in strcmp order
 * of the names, which is also elf_function__cmp's and the ranks' order.
 *
 * STT_OBJECT symbols go into a hash set of (name, section) for the check
 * pahole makes on variables at section offset 0.
 *
 * With decl_tag_kfuncs, kfuncs are read from .BTF_ids as pahole 1.30 reads
 * them: the ranges of the __BTF_ID__set8__* symbols whose set8 flags word
 * (the second u32) has BTF_SET8_KFUNCS, then every __BTF_ID__func__<name>__<n>
 * symbol inside a range marks the function symbol named exactly <name>, with
 * the flags word stored after its id.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d2b_conf.h"
#include "d2b_util.h"
#include "elf_reloc.h"
#include "elf_symtab.h"
#include "msort.h"

struct object_sym {
	const char *name;
	int shndx;
};

struct elf_symtab {
	int fd;
	unsigned int pahole; /* the release reproduced (conf->pahole) */
	Elf *elf;
	bool big_endian;
	struct elf_function *funcs;
	uint32_t nr_funcs, cap_funcs;
	uint64_t *sym_addrs; /* while reading (1.32): each function symbol's address */
	uint32_t cap_sym_addrs;
	bool ranked; /* see symtab_rank */
	size_t suffix_cnt;
	struct elf_section *secs;
	size_t nr_secs;
	struct object_sym *objs; /* open addressing on name hash */
	uint32_t objs_cap;
	/* every function's name up to its first '.', and its whole name when
	 * it has one: open addressing, at most half full */
	struct name_slot *names;
	uint32_t names_cap;
};

struct name_slot {
	uint32_t hash;
	uint32_t ref; /* 0: free; else funcs[] index + 1, << 1, | 1 for the whole name */
};

/* FNV-1a of @len bytes (never 0: 0 could not tell a look-up from nothing) */
static uint32_t mem_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h | 1;
}

/* the function name (or prefix) of @ref is the @len bytes at @s */
static bool name_slot_is(const struct elf_symtab *es, uint32_t ref, const char *s, size_t len)
{
	const struct elf_function *fn = &es->funcs[(ref >> 1) - 1];
	size_t fn_len = ref & 1 ? fn->prefixlen + strlen(fn->name + fn->prefixlen) : fn->prefixlen;

	return fn_len == len && !memcmp(fn->name, s, len);
}

/* the slot of the @len bytes at @s, hash @h: theirs or the free one they would take */
static struct name_slot *name_slot(const struct elf_symtab *es, const char *s, size_t len,
				   uint32_t h)
{
	uint32_t i, mask = es->names_cap - 1;

	for (i = h & mask; es->names[i].ref; i = (i + 1) & mask)
		if (es->names[i].hash == h && name_slot_is(es, es->names[i].ref, s, len))
			break;
	return &es->names[i];
}

static void names_add(struct elf_symtab *es, uint32_t ref, const char *s, size_t len)
{
	uint32_t h = mem_hash(s, len);
	struct name_slot *slot = name_slot(es, s, len, h);

	if (!slot->ref)
		*slot = (struct name_slot){ h, ref };
}

/* the set of names a look-up can match; after the sort */
static int symtab_index_names(struct elf_symtab *es)
{
	uint32_t i;

	es->names_cap = 16;
	while (es->names_cap < 2 * ((uint64_t)es->nr_funcs + es->suffix_cnt))
		es->names_cap *= 2;
	es->names = calloc(es->names_cap, sizeof(*es->names));
	if (!es->names)
		return -ENOMEM;
	for (i = 0; i < es->nr_funcs; i++) {
		const struct elf_function *fn = &es->funcs[i];

		names_add(es, (i + 1) << 1, fn->name, fn->prefixlen);
		if (fn->name[fn->prefixlen])
			names_add(es, (i + 1) << 1 | 1, fn->name, strlen(fn->name));
	}
	return 0;
}

int elf_function__cmp(const struct elf_function *a, const struct elf_function *b)
{
	if (a->prefixlen && a->prefixlen == b->prefixlen)
		return strncmp(a->name, b->name, b->prefixlen);
	return strcmp(a->name, b->name);
}

/* can @name be ranked: no byte below '.', and not a '.' first (see the top) */
static bool name_rankable(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;

	if (*s == '.')
		return false;
	for (; *s; s++)
		if (*s < '.')
			return false;
	return true;
}

/* the first 8 bytes of @name's @prefixlen, big-endian, 0-padded (struct elf_function's key) */
static uint64_t name_key(const char *name, size_t prefixlen)
{
	uint64_t key = 0;
	size_t i;

	for (i = 0; i < 8; i++)
		key = key << 8 | (i < prefixlen ? (uint8_t)name[i] : 0);
	return key;
}

/*
 * elf_function__cmp on rankable names: the prefixes compared (their bytes
 * are never 0, so a shorter one's padding sorts it first, as it should).
 */
static int functions_key_cmp(const void *a, const void *b)
{
	const struct elf_function *x = a, *y = b;
	size_t n = x->prefixlen < y->prefixlen ? x->prefixlen : y->prefixlen;
	int c;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (n > 8 && (c = memcmp(x->name + 8, y->name + 8, n - 8)))
		return c;
	return x->prefixlen < y->prefixlen ? -1 : x->prefixlen > y->prefixlen;
}

/* the ranks (es->ranked); after the sort */
static void symtab_rank(struct elf_symtab *es)
{
	uint32_t i;

	for (i = 0; i < es->nr_funcs; i++)
		es->funcs[i].rank = i && !functions_key_cmp(&es->funcs[i - 1], &es->funcs[i])
					    ? es->funcs[i - 1].rank
					    : i;
}

bool elf_symtab__ranked(const struct elf_symtab *es)
{
	return es->ranked;
}

static int functions_cmp(const void *a, const void *b)
{
	return elf_function__cmp(a, b);
}

static int symtab_read_sections(struct elf_symtab *es, const struct d2b_conf *conf)
{
	uint64_t *layout = NULL;
	size_t shstrndx, i;
	GElf_Ehdr eh;

	if (elf_getshdrnum(es->elf, &es->nr_secs) || elf_getshdrstrndx(es->elf, &shstrndx) ||
	    !gelf_getehdr(es->elf, &eh))
		return -EINVAL;
	es->secs = calloc(es->nr_secs ? es->nr_secs : 1, sizeof(*es->secs));
	if (!es->secs)
		return -ENOMEM;
	if (eh.e_type == ET_REL) {
		layout = calloc(es->nr_secs ? es->nr_secs : 1, sizeof(*layout));
		if (!layout)
			return -ENOMEM;
		if (elf_reloc__layout(es->elf, layout, es->nr_secs)) {
			free(layout);
			return -EINVAL;
		}
	}
	for (i = 0; i < es->nr_secs; i++) {
		Elf_Scn *scn = elf_getscn(es->elf, i);
		struct elf_section *s = &es->secs[i];
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			free(layout);
			return -EINVAL;
		}
		s->name = elf_strptr(es->elf, shstrndx, sh.sh_name);
		s->addr = layout ? layout[i] : sh.sh_addr;
		s->size = sh.sh_size;
		s->type = sh.sh_type;
		s->include = conf->global_var ||
			     (!conf->skip_vars && s->name && !strcmp(s->name, ".data..percpu"));
	}
	free(layout);
	return 0;
}

static int symtab_add_object(struct elf_symtab *es, const char *name, int shndx)
{
	uint32_t h;

	for (h = mem_hash(name, strlen(name)) & (es->objs_cap - 1); es->objs[h].name;
	     h = (h + 1) & (es->objs_cap - 1))
		if (es->objs[h].shndx == shndx && !strcmp(es->objs[h].name, name))
			return 0;
	es->objs[h] = (struct object_sym){ name, shndx };
	return 0;
}

/* has the symbol's name, after its first '.', @a or @b in it (".isra.0.cold") */
static bool suffix_has(const struct elf_function *fn, const char *a, const char *b)
{
	const char *suffix = fn->name + fn->prefixlen;

	return *suffix && (strstr(suffix, a) || strstr(suffix, b));
}

/* a symbol name's part after its first '.' names a piece, not a function */
static bool piece_suffix(const struct elf_function *fn)
{
	return suffix_has(fn, ".cold", ".part");
}

/* by name up to the first '.' (strcmp on those names), then symbol order */
static int base_name_cmp(const void *a, const void *b)
{
	const struct elf_function *x = a, *y = b;
	size_t n = x->prefixlen < y->prefixlen ? x->prefixlen : y->prefixlen;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->prefixlen != y->prefixlen)
		return x->prefixlen < y->prefixlen ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/*
 * pahole 1.32's ambiguity test, to the letter: a nonzero address that
 * differs from the last one seen, where an address of 0 counts as none
 * seen. (So 0 then A is not ambiguous, A then 0 is.)
 */
static bool addrs_ambiguous(const struct elf_function_sym *syms, uint32_t n)
{
	uint64_t addr = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (addr && addr != syms[i].addr)
			return true;
		addr = syms[i].addr;
	}
	return false;
}

/* pahole 1.32: a symbol whose suffix has ".constprop" or ".isra" is a clone
 * whose parameters the compiler may have changed */
static bool optimized_suffix(const struct elf_function *fn)
{
	return suffix_has(fn, ".constprop", ".isra");
}

/*
 * pahole 1.32's table (see the top): one function per name up to the
 * first '.', with its symbols' addresses. pahole tests a name for
 * ambiguous addresses when the next name starts, so the last name never
 * is; so here.
 */
static int symtab_group(struct elf_symtab *es)
{
	struct elf_function *groups;
	uint32_t i, j, n = 0, nr = 0;
	int err;

	for (i = 0; i < es->nr_funcs; i++)
		if (!piece_suffix(&es->funcs[i]))
			es->funcs[n++] = es->funcs[i];
	err = msort(es->funcs, n, sizeof(*es->funcs), base_name_cmp);
	groups = calloc(n ? n : 1, sizeof(*groups));
	if (err || !groups) {
		free(groups);
		return err ? err : -ENOMEM;
	}
	for (i = 0; i < n; i = j) {
		struct elf_function *g = &groups[nr];
		char *name = strndup(es->funcs[i].name, es->funcs[i].prefixlen);

		for (j = i + 1;
		     j < n &&
		     !memcmp(es->funcs[i].name, es->funcs[j].name, es->funcs[i].prefixlen) &&
		     es->funcs[i].prefixlen == es->funcs[j].prefixlen;
		     j++)
			;
		g->syms = malloc((j - i) * sizeof(*g->syms));
		if (!name || !g->syms) {
			free(name);
			free(g->syms);
			g->syms = NULL;
			free(es->funcs);
			es->funcs = groups; /* (elf_symtab__free frees the groups so far) */
			es->nr_funcs = nr;
			return -ENOMEM;
		}
		g->name = g->name_owned = name;
		g->prefixlen = es->funcs[i].prefixlen;
		g->key = name_key(name, g->prefixlen);
		g->rank = nr;
		for (g->nr_syms = 0; g->nr_syms < j - i; g->nr_syms++) {
			const struct elf_function *sym = &es->funcs[i + g->nr_syms];

			g->syms[g->nr_syms].addr = es->sym_addrs[sym->rank];
			g->syms[g->nr_syms].optimized = optimized_suffix(sym);
		}
		g->ambiguous_addr = j < n && addrs_ambiguous(g->syms, g->nr_syms);
		nr++;
	}
	free(es->funcs);
	es->funcs = groups;
	es->nr_funcs = nr;
	es->cap_funcs = n;
	es->suffix_cnt = 0; /* names have no '.' left: no prefix look-ups */
	es->ranked = true;
	return 0;
}

bool elf_function__has_addr(const struct elf_function *fn, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < fn->nr_syms; i++)
		if (fn->syms[i].addr == addr)
			return true;
	return false;
}

bool elf_function__optimized_at(const struct elf_function *fn, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < fn->nr_syms; i++)
		if (fn->syms[i].addr == addr && fn->syms[i].optimized)
			return true;
	return false;
}

/* the symbols of .symtab (@scn); a malformed table is one line naming @path */
/* the STT_OBJECT symbols of the @nr in @data, each one it cannot read counted too */
static size_t symtab_nr_objects(Elf_Data *data, size_t nr)
{
	size_t i, n = 0;
	GElf_Sym sym;

	for (i = 0; i < nr; i++)
		n += !gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) == STT_OBJECT;
	return n;
}

static int symtab_read_symbols(struct elf_symtab *es, const char *path, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL), *xdata = NULL;
	size_t i, nr, entsize = gelf_fsize(es->elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Scn *x = NULL;
	int err;

	if (!data) {
		pr_warn("%s: .symtab: cannot read: %s\n", path, elf_errmsg(-1));
		return -EBADMSG;
	}
	if (sh->sh_entsize != entsize) {
		pr_warn("%s: .symtab: entry size %" PRIu64 ", not %zu\n", path,
			(uint64_t)sh->sh_entsize, entsize);
		return -EBADMSG;
	}
	nr = sh->sh_size / sh->sh_entsize;
	while ((x = elf_nextscn(es->elf, x))) {
		GElf_Shdr xsh;

		if (gelf_getshdr(x, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX)
			xdata = elf_getdata(x, NULL);
	}
	/* the objects' table at most half full, sized by the objects alone */
	es->objs_cap = 1024;
	while (es->objs_cap < symtab_nr_objects(data, nr) * 2)
		es->objs_cap *= 2;
	es->objs = calloc(es->objs_cap, sizeof(*es->objs));
	if (!es->objs)
		return -ENOMEM;
	es->ranked = true;
	for (i = 0; i < nr; i++) {
		GElf_Sym sym;
		Elf32_Word xndx;
		const char *name;
		const char *dot;
		size_t len;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx)) {
			pr_warn("%s: .symtab: symbol %zu: cannot read: %s\n", path, i,
				elf_errmsg(-1));
			return -EBADMSG;
		}
		name = elf_strptr(es->elf, sh->sh_link, sym.st_name);
		if (!name) { /* libelf: a bad sh_link, or an offset past the strings */
			pr_warn("%s: .symtab: symbol %zu: no name at %#x of section %u: %s\n", path,
				i, sym.st_name, sh->sh_link, elf_errmsg(-1));
			return -EBADMSG;
		}
		if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
			int shndx = sym.st_shndx == SHN_XINDEX ? (int)xndx : sym.st_shndx;

			symtab_add_object(es, name, shndx);
			continue;
		}
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		len = strlen(name);
		if (len > UINT32_MAX)
			return -E2BIG;
		if (d2b_grow(&es->funcs, &es->cap_funcs, es->nr_funcs + 1, sizeof(*es->funcs)))
			return -ENOMEM;
		dot = strchr(name, '.');
		if (dot)
			es->suffix_cnt++;
		es->funcs[es->nr_funcs] = (struct elf_function){
			.name = name,
			.prefixlen = (uint32_t)(dot ? (size_t)(dot - name) : len),
			.rank = (uint32_t)es->nr_funcs, /* symbol order, for symtab_group */
		};
		if (es->pahole >= 132) {
			if (d2b_grow(&es->sym_addrs, &es->cap_sym_addrs, es->nr_funcs + 1,
				     sizeof(*es->sym_addrs)))
				return -ENOMEM;
			es->sym_addrs[es->nr_funcs] = sym.st_value;
		}
		es->funcs[es->nr_funcs].key = name_key(name, es->funcs[es->nr_funcs].prefixlen);
		es->ranked = es->ranked && name_rankable(name);
		es->nr_funcs++;
	}
	if (es->nr_funcs >= 1u << 28) /* (the name set's size stays a uint32_t) */
		return -E2BIG;
	if (es->pahole >= 132) {
		err = symtab_group(es);
		free(es->sym_addrs);
		es->sym_addrs = NULL;
		return err ? err : symtab_index_names(es);
	}
	err = msort(es->funcs, es->nr_funcs, sizeof(*es->funcs),
		    es->ranked ? functions_key_cmp : functions_cmp);
	if (err)
		return err;
	if (es->ranked)
		symtab_rank(es);
	return symtab_index_names(es);
}

#define BTF_SET8_KFUNCS (1u << 0)
#define SET8_PREFIX "__BTF_ID__set8__"
#define FUNC_PREFIX "__BTF_ID__func__"

struct kfunc_set {
	uint64_t start, end;
};

/*
 * The second u32 of the pair (a set8's count and flags, a kfunc's id and
 * flags) at section offset @off of .BTF_ids, in the ELF's byte order;
 * false if the 8 bytes are not all inside the section
 */
static bool btf_ids_flags(const struct elf_symtab *es, Elf_Data *data, uint64_t off, uint32_t *v)
{
	uint32_t raw;

	if (off > data->d_size || data->d_size - off < 8)
		return false;
	memcpy(&raw, (const char *)data->d_buf + off + 4, 4);
	if (es->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		raw = __builtin_bswap32(raw);
	*v = raw;
	return true;
}

/*
 * The length of <name> in "<name>__<n>", the rest of a
 * __BTF_ID__func__<name>__<n> symbol, as pahole 1.30's get_func_name finds
 * it (up to the last '_', which must follow another), or -1
 */
static long kfunc_name_len(const char *rest)
{
	const char *end;

	if (!strstr(rest, "__"))
		return -1;
	end = strrchr(rest, '_');
	return end[-1] == '_' ? (long)(end - 1 - rest) : -1;
}

static void kfunc_mark(struct elf_symtab *es, const char *name, long len, uint32_t flags)
{
	struct elf_function *fn;
	char *copy = strndup(name, (size_t)len);

	if (!copy)
		return;
	fn = elf_symtab__find_function(es, copy, 0);
	if (fn) {
		fn->kfunc = true;
		fn->kfunc_flags = flags;
	}
	free(copy);
}

/* two passes over .symtab: KFUNCS set8 ranges, then the funcs inside them */
static int symtab_read_kfuncs(struct elf_symtab *es, const char *path, Elf_Data *syms,
			      GElf_Shdr *symsh)
{
	struct kfunc_set *sets = NULL;
	uint32_t nr_sets = 0, cap = 0, flags;
	size_t i, nr = symsh->sh_size / symsh->sh_entsize, ids_ndx;
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr sh;
	int pass;

	for (ids_ndx = 1; ids_ndx < es->nr_secs; ids_ndx++)
		if (es->secs[ids_ndx].name && !strcmp(es->secs[ids_ndx].name, ".BTF_ids"))
			break;
	if (ids_ndx >= es->nr_secs)
		return 0;
	scn = elf_getscn(es->elf, ids_ndx);
	/* a debug-only file (objcopy --only-keep-debug) keeps it as NOBITS: no data */
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t off;

			if (!gelf_getsym(syms, (int)i, &sym) || sym.st_shndx != ids_ndx ||
			    !(name = elf_strptr(es->elf, symsh->sh_link, sym.st_name)))
				continue;
			off = sym.st_value - sh.sh_addr;
			if (pass == 0 && !strncmp(name, SET8_PREFIX, strlen(SET8_PREFIX))) {
				if (!btf_ids_flags(es, data, off, &flags) ||
				    !(flags & BTF_SET8_KFUNCS))
					continue;
				if (d2b_grow(&sets, &cap, nr_sets + 1, sizeof(*sets))) {
					free(sets);
					return -ENOMEM;
				}
				sets[nr_sets++] = (struct kfunc_set){ sym.st_value,
								      sym.st_value + sym.st_size };
			} else if (pass == 1 && !strncmp(name, FUNC_PREFIX, strlen(FUNC_PREFIX))) {
				const char *fn = name + strlen(FUNC_PREFIX);
				long len = kfunc_name_len(fn);
				uint32_t s;

				if (len < 0)
					continue;
				for (s = 0; s < nr_sets; s++)
					if (sym.st_value >= sets[s].start &&
					    sym.st_value < sets[s].end)
						break;
				if (s == nr_sets)
					continue;
				/* its (id, flags) pair: pahole 1.30 fails if it is not all there */
				if (!btf_ids_flags(es, data, off, &flags)) {
					pr_warn("%s: .BTF_ids: kfunc '%.*s' at offset %#" PRIx64
						", past the section's %zu bytes\n",
						path, (int)len, fn, off, data->d_size);
					free(sets);
					return -EBADMSG; /* (said) */
				}
				kfunc_mark(es, fn, len, flags);
			}
		}
	}
	free(sets);
	return 0;
}

struct elf_symtab *elf_symtab__new(const char *path, const struct d2b_conf *conf, int *err)
{
	struct elf_symtab *es = calloc(1, sizeof(*es));
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!es) {
		*err = -ENOMEM;
		return NULL;
	}
	es->fd = -1;
	es->pahole = conf->pahole;
	elf_version(EV_CURRENT);
	es->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (es->fd < 0) {
		*err = -errno;
		pr_warn("%s: %s\n", path, strerror(errno));
		goto out_free;
	}
	*err = d2b_regular_file(es->fd, path);
	if (*err)
		goto out_free;
	es->elf = elf_begin(es->fd, ELF_C_READ_MMAP, NULL);
	if (!es->elf || !gelf_getehdr(es->elf, &eh)) {
		pr_warn("%s: not an ELF file\n", path);
		*err = -EINVAL;
		goto out_free;
	}
	es->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	*err = symtab_read_sections(es, conf);
	if (*err) {
		/* (libelf's message, where it has one) */
		const char *why = *err == -ENOMEM ? strerror(ENOMEM) : elf_errmsg(0);

		pr_warn("%s: cannot read the section headers%s%s\n", path, why ? ": " : "",
			why ? why : "");
		goto out_free;
	}
	while ((scn = elf_nextscn(es->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			*err = symtab_read_symbols(es, path, scn, &sh);
			if (!*err && conf->decl_tag_kfuncs)
				*err = symtab_read_kfuncs(es, path, elf_getdata(scn, NULL), &sh);
			if (*err) {
				if (*err != -EBADMSG)
					pr_warn("%s: .symtab: %s\n", path, strerror(-*err));
				goto out_free;
			}
			return es;
		}
	}
	pr_warn("%s: no .symtab section\n", path);
	*err = -ENOENT;
out_free:
	elf_symtab__free(es);
	return NULL;
}

void elf_symtab__free(struct elf_symtab *es)
{
	size_t i;

	if (!es)
		return;
	for (i = 0; i < es->nr_funcs; i++) {
		free((char *)es->funcs[i].alias);
		free(es->funcs[i].name_owned);
		free(es->funcs[i].syms);
	}
	free(es->funcs);
	free(es->sym_addrs);
	free(es->secs);
	free(es->objs);
	free(es->names);
	if (es->elf)
		elf_end(es->elf);
	if (es->fd >= 0)
		close(es->fd);
	free(es);
}

size_t elf_symtab__nr_functions(const struct elf_symtab *es)
{
	return es->nr_funcs;
}

bool elf_symtab__has_suffixes(const struct elf_symtab *es)
{
	return es->suffix_cnt > 0;
}

struct elf_function *elf_symtab__find_function(struct elf_symtab *es, const char *name,
					       size_t prefixlen)
{
	struct elf_function key = { .name = name, .prefixlen = (uint32_t)prefixlen };
	size_t len = strlen(name);

	/* (no function's name is that long: see symtab_read_symbols) */
	if (prefixlen > UINT32_MAX || !name_slot(es, name, len, mem_hash(name, len))->ref)
		return NULL;
	return msort_bsearch(&key, es->funcs, es->nr_funcs, sizeof(key), functions_cmp);
}

size_t elf_symtab__nr_sections(const struct elf_symtab *es)
{
	return es->nr_secs;
}

const struct elf_section *elf_symtab__section(const struct elf_symtab *es, size_t idx)
{
	return idx < es->nr_secs ? &es->secs[idx] : NULL;
}

int elf_symtab__section_of(const struct elf_symtab *es, uint64_t addr)
{
	size_t i;

	for (i = 1; i < es->nr_secs; i++) {
		const struct elf_section *s = &es->secs[i];

		if (s->type != SHT_PROGBITS && s->type != SHT_NOBITS)
			continue;
		if (s->addr <= addr && addr - s->addr < s->size)
			return (int)i;
	}
	return -1;
}

bool elf_symtab__has_object(const struct elf_symtab *es, const char *name, int shndx)
{
	uint32_t h;

	for (h = mem_hash(name, strlen(name)) & (es->objs_cap - 1); es->objs[h].name;
	     h = (h + 1) & (es->objs_cap - 1))
		if (es->objs[h].shndx == shndx && !strcmp(es->objs[h].name, name))
			return true;
	return false;
}

bool elf_symtab__big_endian(const struct elf_symtab *es)
{
	return es->big_endian;
}
