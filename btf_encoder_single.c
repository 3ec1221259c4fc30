// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_single - one encoder, fed in CU order, producing pahole's
 * pre-dedup type stream (1.30's, or 1.32's: conf->pahole); then the dedup
 * (btf_dedup, or under --exact libbpf's btf__dedup) and the raw write.
 *
 * The writer builds the stream's types with btf_raw (plain arrays; the
 * bytes libbpf's btf__add_* calls would give), not with libbpf: those
 * calls were two thirds of the writer's time, and the writer is one of
 * the two serial stages. The stream is cut into batches of whole CUs
 * (BTF_BATCH_TYPES types or more, at a CU boundary): each batch is its own
 * BTF, handed to btf_batches, whose thread deduplicates it while the next
 * one fills and appends it to the merged BTF. A batch's type ids and
 * string offsets are its own; what the functions and DATASECs at the end
 * keep of them (type ids, parameter names, tag values) is mapped to the
 * merged BTF by btf_encoder__merge, batch by batch as each is merged; the
 * merged BTF (a btf_raw) also holds the end of the stream and gets the
 * final dedup. Split BTF (a --btf_base) is one BTF, not batched, the
 * writer's btf_raw to the end. Under --exact there are no batches, and
 * where libbpf deduplicates (enc__own_dedup) the one BTF is made a libbpf
 * BTF in btf_encoder__merge. The merge is btf_encoder_merge.c's; opening,
 * filling and handing over a batch, btf_encoder_records.c's.
 *
 * Why the stream must match: btf__dedup keeps the first occurrence of every
 * equivalence class and rebuilds the string section in order of first
 * reference, so equal output bytes need the same types in the same order,
 * not just the same set. The stream is:
 *
 *   for every CU, in .debug_info order:
 *     1. one BTF type per type-table entry, at the id its plan gave it
 *        (cu_plan.ids[]; checked: a drift is an error);
 *     2. the array index type "int" (signed, 4 bytes) once, if no CU so far
 *        had a base type named "int" and this one has arrays;
 *     3. the decl tags of its structs, unions and typedefs;
 *     4. (its functions are saved; their parameter names enter the string
 *        section now, which fixes the string order: see func_save, btf_funcs.c)
 *     5. its per-CPU VARs, each followed by its decl tags.
 *   then the saved functions: all instances sorted by ELF function (glibc's
 *   merge sort, so CU order is kept among equals), one FUNC_PROTO + FUNC +
 *   decl tags per group, groups with an inconsistent prototype or
 *   unexpected register use dropped under consistent_func (pahole 1.32:
 *   more reasons, and the instance encoded chosen: funcs__emit);
 *   then one DATASEC per section with VARs, in section order.
 * One liberty with the stream, which leaves the dedup's result as it was:
 * a function whose FUNC_PROTO would be the very copy of an earlier
 * function's (same ids, same names) refers to that one (func_proto).
 *
 * A CU's records (1, 3 and 5) are built by the loader worker that loaded
 * it, with ids and names of their own, and the writer appends them,
 * mapping both (btf_encoder_cu.c): the same records in the same order,
 * named in the same order. Names are interned through caches of the string
 * offsets the encoder keeps itself (enc__str, btf_encoder_names.c). The
 * functions and DATASECs at the end are added to the merged BTF, named by
 * offset (enc__add_record and friends, btf_encoder_records.c).
 *
 * The functions, saved by the writer and emitted at the end, are
 * btf_funcs.c's; the variables and DATASECs btf_encoder_vars.c's; the
 * structs these files share are btf_encoder_priv.h's.
 *
 * The encoder's files call only downward: this file and the merge, then a
 * CU's records, then the functions and the variables, then the records
 * and the names.
 */
#include <bpf/btf.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "btf_base.h"
#include "btf_batches.h"
#include "btf_dedup.h"
#include "btf_encoder_priv.h"
#include "btf_encoder_single.h"
#include "btf_raw.h"
#include "cu.h"
#include "packed_structs.h"
#include "d2b_conf.h"
#include "d2b_util.h"
#include "elf_symtab.h"
#include "tmpfiles.h"
#include "tuning.h"

struct btf_encoder *btf_encoder__new(const struct d2b_conf *conf, struct elf_symtab *es,
				     struct btf_base *base, const char *path, int *err)
{
	struct btf_encoder *enc = calloc(1, sizeof(*enc));

	if (!enc) {
		*err = -ENOMEM;
		return NULL;
	}
	enc->conf = conf;
	enc->es = es;
	enc->path = path;
	enc->base = base;
	if (base || !conf->batch_types)
		enc->raw = btf_raw__new(enc->base);
	else
		enc->batches =
			btf_batches__new(btf_batches__max_running(conf->nr_jobs, conf->nr_cpus));
	enc->secs = calloc(elf_symtab__nr_sections(es) + 1, sizeof(*enc->secs));
	if ((!enc->raw && !enc->batches) || !enc->secs ||
	    !(enc->cu_btf_pool = d2b_idle_pool__new())) {
		*err = -ENOMEM;
		btf_encoder__free(enc);
		return NULL;
	}
	if (enc->batches && !(enc->name_pool = d2b_idle_pool__new())) {
		*err = -ENOMEM;
		btf_encoder__free(enc);
		return NULL;
	}
	if (enc->raw) { /* one BTF: always open */
		enc->plan.batch_open = true;
		enc->plan.next_id = btf_raw__type_cnt(enc->raw);
	}
	return enc;
}

void btf_encoder__free(struct btf_encoder *enc)
{
	size_t i;

	if (!enc)
		return;
	btf_encoder__end_writer(enc);
	btf_batches__free(enc->batches);
	btf__free(enc->btf);
	btf_raw__free(enc->raw);
	btf_raw__free(enc->index_type);
	free(enc->batch_ids);
	if (enc->secs)
		for (i = 0; i <= elf_symtab__nr_sections(enc->es); i++)
			free(enc->secs[i].recs);
	free(enc->secs);
	free(enc->funcs);
	free(enc->params);
	free(enc->annots);
	name_caches__free(&enc->names);
	enc__batch_fills_free(enc);
	name_pool__free(enc->name_pool);
	cu_btf_pool__free(enc->cu_btf_pool);
	for (i = 0; i < WRITER_SLOTS; i++)
		free(enc->w.slots[i].ids);
	packed_memo__free(&enc->packed);
	free(enc);
}

/* ---------------------------------------------------------------------- */
/* CUs                                                                    */

/*
 * The collector's part of a CU, in CU order: the id of every type, the
 * array index type, and how many types the writer will add, so that the
 * next CU's ids are known before this one is written. Touches only the
 * planner and @p; reads the CU and the ELF symbols.
 */
static int plan_cu(struct btf_encoder *enc, struct cu_plan *p)
{
	struct planner *pl = &enc->plan;
	const struct cu *cu = p->cu;
	uint32_t next_id, i;

	enc->stats.nr_cus++;
	if (cu->excluded) {
		p->excluded = true;
		return 0;
	}
	if (!pl->batch_open) {
		pl->batch_open = p->start_batch = true;
		pl->next_id = 1;
		if (pl->have_index_copy)
			pl->array_index_id = pl->next_id++; /* see enc__batch_start */
	}
	p->first_new = next_id = pl->next_id;
	if (d2b_grow(&p->ids, &p->cap_ids, cu->nr_types, sizeof(*p->ids)))
		return -ENOMEM;
	p->ids[0] = 0; /* void */
	for (i = 1; i < cu->nr_types; i++)
		p->ids[i] = next_id++;
	if (!pl->has_index_type) {
		if (cu->int_type) {
			pl->has_index_type = p->index_type_new = true;
			pl->array_index_id = p->ids[cu->int_type];
		} else {
			/* the "int" added after the types if one is an array */
			pl->array_index_id = next_id;
			p->add_index_int = cu->has_arrays;
			if (p->add_index_int)
				pl->has_index_type = p->index_type_new = true;
			next_id += p->add_index_int;
		}
	}
	p->array_index_id = pl->array_index_id;
	if (p->index_type_new && enc->batches)
		pl->have_index_copy = true;
	next_id += cu_btf__nr_after_types(cu->btf); /* decl tags, VARs */
	p->end = pl->next_id = next_id;
	if (enc->batches && next_id - 1 >= enc->conf->batch_types) {
		p->close_batch = true;
		pl->batch_open = false;
	}
	return 0;
}

/* the type count of the writer's BTF, or of the batch once its thread appended its CUs */
static uint32_t written_cnt(const struct btf_encoder *enc)
{
	return enc->batches ? enc->batch_end : btf_raw__type_cnt(enc->raw);
}

/* one BTF: the CU's types, "int" if planned, the type decl tags; 0 or -errno */
static int append_head(struct btf_encoder *enc, const struct cu_btf *f,
		       const struct cu_btf_place *pl)
{
	struct name_sink to = { enc->raw, &enc->names, enc->str_lo, enc->str_hi };
	int err;

	err = cu_btf__append(&to, f, CU_BTF_TYPES, pl);
	if (!err && pl->add_index_int) {
		err = add_named(enc, btf_raw__add_int, "int", 4, BTF_INT_SIGNED);
		err = err < 0 ? err : 0;
	}
	return err ? err : cu_btf__append(&to, f, CU_BTF_TAGS, pl);
}

/* one BTF: the CU's VARs, after its functions were saved; 0 or -errno */
static int append_vars(struct btf_encoder *enc, const struct cu_btf *f,
		       const struct cu_btf_place *pl)
{
	struct name_sink to = { enc->raw, &enc->names, enc->str_lo, enc->str_hi };

	return cu_btf__append(&to, f, CU_BTF_VARS, pl);
}

/*
 * The writer's part of a CU, in CU order: its records (built by its worker,
 * btf_encoder_cu.c) appended as planned, its functions saved between its
 * type decl tags and its VARs, where they name their parameters. In a
 * batch the records wait for the batch's thread (btf_encoder_batch.c),
 * which appends them in the same order.
 */
static int write_cu(struct btf_encoder *enc, const struct cu_plan *p)
{
	const struct cu *cu = p->cu;
	struct cu_btf_place place;
	uint32_t i, id, offset, size;
	int err, shndx;

	if (p->err) {
		err = p->err;
		goto out_err;
	}
	if (p->excluded)
		return 0;
	if (p->start_batch) {
		err = enc__batch_start(enc);
		if (err)
			goto out_err;
	}
	if (written_cnt(enc) != p->first_new)
		goto out_drift;
	enc->ids = p->ids;
	enc->array_index_id = p->array_index_id;
	place = (struct cu_btf_place){ p->first_new, p->array_index_id, p->add_index_int };
	if (p->index_type_new) {
		err = enc__batch_keep_index_type(enc, cu->btf, p);
		if (err)
			goto out_err;
	}
	if (!enc->batches) {
		err = append_head(enc, cu->btf, &place);
		if (err)
			goto out_err;
	}
	err = funcs__save(enc, cu);
	if (err)
		goto out_err;
	for (i = 0; i < cu_btf__nr_vars(cu->btf); i++) {
		cu_btf__var(cu->btf, i, &place, &shndx, &id, &offset, &size);
		err = vars__add_secinfo(enc, shndx, id, offset, size);
		if (err)
			goto out_err;
	}
	enc->stats.nr_vars += cu_btf__nr_vars(cu->btf);
	if (enc->batches)
		err = enc__batch_add_cu(enc, p, &place);
	else
		err = append_vars(enc, cu->btf, &place);
	if (err)
		goto out_err;
	if (written_cnt(enc) != p->end)
		goto out_drift;
	if (p->close_batch) {
		err = enc__batch_close(enc);
		if (err)
			goto out_err;
	}
	return 0;

out_drift:
	/* the plan and the BTF disagree: a bug */
	pr_warn("%s: CU %#" PRIx64 ": %u BTF types, %u planned\n", enc->path, cu->off,
		written_cnt(enc), p->end);
	return -EINVAL;
out_err:
	pr_warn("%s: CU %#" PRIx64 ": cannot encode: %s\n", enc->path, cu->off, strerror(-err));
	return err;
}

static void *writer_run(void *arg)
{
	struct btf_encoder *enc = arg;
	struct writer *w = &enc->w;
	struct cu_plan *p;
	int err;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->nr && !w->end)
			pthread_cond_wait(&w->changed, &w->lock);
		if (!w->nr)
			break;
		p = &w->slots[w->head];
		err = w->err;
		pthread_mutex_unlock(&w->lock);

		/* after an error, CUs are only given back */
		if (!err)
			err = write_cu(enc, p);
		w->done(w->done_ctx, p->cu);

		pthread_mutex_lock(&w->lock);
		w->head = (w->head + 1) % WRITER_SLOTS;
		w->nr--;
		if (!w->err)
			w->err = err;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	enc->stats.writer_cpu_s = d2b_clock_s(CLOCK_THREAD_CPUTIME_ID); /* read after the join */
	return NULL;
}

int btf_encoder__start_writer(struct btf_encoder *enc, void (*done)(void *ctx, struct cu *cu),
			      void *ctx)
{
	struct writer *w = &enc->w;
	int err;

	w->done = done;
	w->done_ctx = ctx;
	w->head = w->nr = 0;
	w->end = false;
	w->err = 0;
	if (pthread_mutex_init(&w->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&w->changed, NULL)) {
		pthread_mutex_destroy(&w->lock);
		return -ENOMEM;
	}
	err = pthread_create(&w->thread, NULL, writer_run, enc);
	if (err) {
		pthread_cond_destroy(&w->changed);
		pthread_mutex_destroy(&w->lock);
		return -err;
	}
	w->running = true;
	return 0;
}

int btf_encoder__end_writer(struct btf_encoder *enc)
{
	struct writer *w = &enc->w;

	if (!w->running)
		return 0;
	pthread_mutex_lock(&w->lock);
	w->end = true;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->running = false;
	pthread_cond_destroy(&w->changed);
	pthread_mutex_destroy(&w->lock);
	return w->err;
}

int btf_encoder__encode_cu(struct btf_encoder *enc, struct cu *cu)
{
	struct writer *w = &enc->w;
	struct cu_plan *p;
	bool stop;
	int err;

	pthread_mutex_lock(&w->lock);
	while (w->nr == WRITER_SLOTS)
		pthread_cond_wait(&w->changed, &w->lock);
	err = w->err;
	p = &w->slots[(w->head + w->nr) % WRITER_SLOTS];
	pthread_mutex_unlock(&w->lock);

	*p = (struct cu_plan){ .cu = cu, .ids = p->ids, .cap_ids = p->cap_ids };
	if (!err) /* else the writer, which reported its error, only gives @cu back */
		p->err = plan_cu(enc, p);
	/* no more plans after an error: the ids could be wrong */
	stop = err || p->err;

	pthread_mutex_lock(&w->lock);
	w->nr++;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	return stop ? -ECANCELED : 0;
}

/* ---------------------------------------------------------------------- */
/* finishing                                                              */

int btf_encoder__finish(struct btf_encoder *enc)
{
	uint32_t before = enc__type_cnt(enc);
	int err;

	err = funcs__emit(enc);
	if (!err)
		err = datasecs__emit(enc);
	if (err) {
		pr_warn("%s: cannot encode functions and sections: %s\n", enc->path,
			strerror(-err));
		return err;
	}
	if (enc->btf)
		btf__set_endianness(enc->btf, elf_symtab__big_endian(enc->es) ? BTF_BIG_ENDIAN
									      : BTF_LITTLE_ENDIAN);
	/* the types one BTF would have held: batches less their copies, and the rest */
	enc->stats.nr_types_pre_dedup = (enc->batches ? enc->nr_types_encoded + 1 : before) +
					enc__type_cnt(enc) - before + enc->stats.nr_protos_shared;
	return enc__type_cnt(enc) == 1;
}

/* the merged BTF deduplicated (enc__own_dedup tells by what) */
int btf_encoder__dedup(struct btf_encoder *enc)
{
	int err;

	if (!enc__own_dedup(enc))
		err = btf__dedup(enc->btf, NULL);
	else
		err = btf_dedup__raw(enc->raw, enc->base, enc__dedup_release(enc->conf, enc->base));
	if (err) {
		pr_warn("%s: BTF deduplication failed: %s\n", enc->path, strerror(-err));
		return err;
	}
	enc->stats.nr_types = enc__type_cnt(enc);
	return 0;
}

/* the process umask; only called from the single collector thread */
static mode_t umask_read(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* into @path as it is (a device, a FIFO), as pahole writes its output */
static int write_into(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), err;

	if (fd < 0)
		err = -errno;
	else
		err = d2b_write_all(fd, data, size);
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (err)
		pr_warn("%s: cannot write: %s\n", path, strerror(-err));
	return err;
}

/*
 * The output replaces @path atomically: a temporary file next to it, renamed
 * over it, so a reader sees the old file or the whole new one. Through a
 * symbolic link the link's target is replaced, the link kept. What exists and
 * is no regular file or directory (/dev/null, a FIFO) is written into, never
 * replaced by a file: renaming over /dev/null would replace the device.
 */
int btf_encoder__write_raw(struct btf_encoder *enc, const char *path)
{
	char *tmp, *target = NULL;
	const void *data;
	struct stat st;
	size_t size;
	int fd, err = 0;

	data = btf_encoder__raw_data(enc, &size);
	if (!data)
		return -ENOMEM;
	if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return write_into(path, data, size);
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		target = realpath(path, NULL);
		if (target)
			path = target;
	}
	fd = tmpfiles__create_next_to(path, "out", &tmp);
	if (fd < 0) {
		pr_warn("%s: cannot create a temporary file next to it: %s\n", path, strerror(-fd));
		free(target);
		return fd;
	}
	err = d2b_write_all(fd, data, size);
	/* pahole creates its output with mode 0640 (less the umask) */
	if (!err && fchmod(fd, 0640 & ~umask_read()) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		pr_warn("%s: cannot write: %s\n", path, strerror(-err));
		unlink(tmp);
	}
	tmpfiles__del(tmp);
	free(tmp);
	free(target);
	return err;
}

const void *btf_encoder__raw_data(struct btf_encoder *enc, size_t *size)
{
	bool big = elf_symtab__big_endian(enc->es);
	const void *data;
	uint32_t sz;

	/* (btf_raw holds the host's byte order; libbpf's BTF, the target's: finish set it) */
	if (enc->btf)
		data = btf__raw_data(enc->btf, &sz);
	else
		data = btf_raw__raw_data(enc->raw, big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__),
					 &sz);
	*size = sz;
	return data;
}

void btf_encoder__stats(const struct btf_encoder *enc, struct btf_encoder_stats *stats)
{
	*stats = enc->stats;
}
