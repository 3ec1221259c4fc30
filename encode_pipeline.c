// SPDX-License-Identifier: GPL-2.0-only
/*
 * encode_pipeline - one input file from ELF to written BTF.
 *
 * Open the input (dwarf_loader, elf_symtab, the --btf_base), run the ordered
 * pipeline (dwarves_emit_ordered): loader workers build CUs, the collector
 * feeds them in CU order to the one encoder (btf_encoder_single); then
 * finish, dedup, and write the BTF detached or into the input ELF
 * (elf_btf_section; with distilled_base, distilled first: btf_distill). With -V each phase reports its wall and CPU time, the
 * main thread's CPU time (the collector and everything serial), and the peak
 * RSS so far.
 *
 * The command line (dwarf2btf.c), the stress test and the fuzz target all
 * call encode_pipeline__run(), so they exercise the same code.
 */
#include <errno.h>
#include <libelf.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "btf_base.h"
#include "btf_distill.h"
#include "btf_encoder_single.h"
#include "d2b_conf.h"
#include "d2b_util.h"
#include "dwarf_loader.h"
#include "dwarves_emit_ordered.h"
#include "elf_btf_section.h"
#include "elf_symtab.h"
#include "encode_pipeline.h"
#include "tuning.h"

/* ---------------------------------------------------------------------- */
/* timing for -V                                                          */

/* phases start and end on the main thread: main is its CPU time, the serial part */
struct phase_clock {
	struct timespec wall, cpu, main;
};

static void phase_start(struct phase_clock *pc)
{
	clock_gettime(CLOCK_MONOTONIC, &pc->wall);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &pc->cpu);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &pc->main);
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void phase_report(const struct d2b_conf *conf, struct phase_clock *pc, const char *name)
{
	struct phase_clock now;
	struct rusage ru;

	phase_start(&now);
	if (conf->verbose && !getrusage(RUSAGE_SELF, &ru))
		fprintf(stderr,
			"dwarf2btf: %-8s wall %7.3f s  cpu %7.3f s  main thread %7.3f s  peak RSS %6.1f MiB\n",
			name, ts_diff(&pc->wall, &now.wall), ts_diff(&pc->cpu, &now.cpu),
			ts_diff(&pc->main, &now.main), (double)ru.ru_maxrss / 1024);
	*pc = now;
}

/* ---------------------------------------------------------------------- */
/* open                                                                   */

/*
 * The ELF symbols are read on a thread of their own while the main thread
 * indexes the DWARF: the two read the file independently, and the open
 * phase is serial. Their messages are held (d2b_msgs) and printed after
 * the DWARF's, as if the two had run one after the other: a file both
 * reject gives the DWARF's error alone.
 */
struct symtab_open {
	const char *path;
	const struct d2b_conf *conf;
	struct elf_symtab *es;
	int err;
	char *msgs;
	size_t msgs_size;
};

static void *symtab_open_run(void *arg)
{
	struct symtab_open *so = arg;
	FILE *f = open_memstream(&so->msgs, &so->msgs_size);

	d2b_msgs = f; /* NULL (no memory): straight to stderr */
	so->es = elf_symtab__new(so->path, so->conf, &so->err);
	d2b_msgs = NULL;
	if (f)
		fclose(f);
	return NULL;
}

/* the DWARF index and the ELF symbols of @path, or -errno (reported) */
static int inputs_open(const char *path, const struct d2b_conf *conf, struct dwarf_loader **dl,
		       struct elf_symtab **es)
{
	struct symtab_open so = { .path = path, .conf = conf };
	pthread_t thread;
	bool threaded;
	int err;

	elf_version(EV_CURRENT); /* libelf set up before two threads use it */
	threaded = !pthread_create(&thread, NULL, symtab_open_run, &so);
	if (!threaded)
		symtab_open_run(&so); /* the same, one after the other */
	*dl = dwarf_loader__new(path, conf, &err);
	if (threaded)
		pthread_join(thread, NULL);
	if (*dl && so.msgs)
		fputs(so.msgs, stderr);
	free(so.msgs);
	*es = so.es;
	if (!*dl) {
		elf_symtab__free(so.es);
		*es = NULL;
		return err;
	}
	return *es ? 0 : so.err;
}

/* ---------------------------------------------------------------------- */
/* the pipeline                                                           */

struct run {
	const struct d2b_conf *conf;
	const struct encode_hooks *hooks; /* or NULL */
	struct dwarf_loader *dl;
	struct elf_symtab *es;
	struct btf_base *base; /* --btf_base, or NULL */
	struct btf_encoder *enc;
};

/*
 * The encoder's work on the worker (btf_encoder__prepare_cu); a unit it
 * cannot encode fails as a load does, its message kept for the report, so
 * that of several failures the first in unit order is told, whatever the
 * timing
 */
static int run_prepare(struct run *r, unsigned int id, struct cu *cu)
{
	static const char prefix[] = "dwarf2btf: ";
	size_t size = 0;
	char *msg = NULL;
	FILE *f;
	int err;

	f = open_memstream(&msg, &size);
	d2b_msgs = f; /* NULL (no memory): straight to stderr */
	err = btf_encoder__prepare_cu(r->enc, cu);
	d2b_msgs = NULL;
	if (f)
		fclose(f);
	if (err) {
		if (msg && !strncmp(msg, prefix, sizeof(prefix) - 1))
			memmove(msg, msg + sizeof(prefix) - 1, size - (sizeof(prefix) - 1) + 1);
		if (msg && *msg)
			dwarf_loader__keep_err(r->dl, id, msg);
		else
			free(msg);
		cu__free(cu);
		return err;
	}
	free(msg); /* (empty: messages come with a failure) */
	return 0;
}

static int run_load(void *ctx, unsigned int id, void **unit)
{
	struct run *r = ctx;
	int err;

	if (r->hooks && r->hooks->before_load)
		r->hooks->before_load(r->hooks->ctx, id);
	err = dwarf_loader__load_cu(r->dl, id, (struct cu **)unit);
	if (err)
		return err;
	return run_prepare(r, id, *unit);
}

static int run_emit(void *ctx, unsigned int id, void *unit)
{
	struct run *r = ctx;

	return btf_encoder__encode_cu(r->enc, unit);
}

/* on the encoder's writer thread, once it wrote @cu */
static void run_written(void *ctx, struct cu *cu)
{
	struct run *r = ctx;

	dwarf_loader__release_cu(r->dl, cu);
	cu__free(cu);
}

static void run_on_in_flight(void *ctx, unsigned int in_flight)
{
	struct run *r = ctx;

	r->hooks->on_in_flight(r->hooks->ctx, in_flight);
}

static void run_discard(void *ctx, unsigned int id, void *unit)
{
	cu__free(unit);
}

static const struct emit_ordered_ops run_ops = {
	.load = run_load,
	.emit = run_emit,
	.discard = run_discard,
};

int encode_pipeline__run(const char *path, const struct d2b_conf *conf)
{
	return encode_pipeline__run_hooked(path, conf, NULL);
}

/*
 * The input (and the base) opened, the encoder made: 0 or -errno; also 0
 * with no loader (r->dl NULL) when there is nothing to encode
 */
static int run_open(struct run *r, const char *path)
{
	const struct d2b_conf *conf = r->conf;
	const char *strs;
	size_t strs_size;
	int err;

	err = inputs_open(path, conf, &r->dl, &r->es);
	/* pahole 1.32: a file without DWARF has nothing to encode, and that is no error */
	if (err == -ENODATA && !r->dl && conf->pahole >= 132)
		return 0;
	if (err || !r->dl)
		return err;
	if (conf->btf_base) {
		r->base = btf_base__open(conf->btf_base, &err);
		if (!r->base)
			return err;
	}
	r->enc = btf_encoder__new(conf, r->es, r->base, path, &err);
	if (!r->enc)
		return err;
	dwarf_loader__str_section(r->dl, &strs, &strs_size);
	btf_encoder__set_str_section(r->enc, strs, strs_size);
	return 0;
}

/* every unit loaded in parallel and written in order: 0 or -errno */
static int run_encode(struct run *r)
{
	const struct encode_hooks *hooks = r->hooks;
	struct emit_ordered_opts opts = {
		.sz = sizeof(opts),
		.nr_workers = r->conf->nr_jobs,
		.window = r->conf->window,
		.on_in_flight = hooks && hooks->on_in_flight ? run_on_in_flight : NULL,
		.worker_nice = D2B_HELPER_NICE,
	};
	unsigned int failed_id;
	int err, werr;

	err = btf_encoder__start_writer(r->enc, run_written, r);
	if (err)
		return err;
	err = emit_ordered__run(dwarf_loader__nr_cus(r->dl), &run_ops, r, &opts, &failed_id);
	/* the writer's error is of an earlier unit than a failed load */
	werr = btf_encoder__end_writer(r->enc);
	if (werr)
		return werr;
	if (err)
		dwarf_loader__report(r->dl, failed_id);
	return err;
}

/*
 * distilled_base, in place: the split BTF @data (@size bytes) distilled
 * (btf_distill), written as .BTF and its distilled base as .BTF.base, in
 * that order, as pahole 1.30 writes them; 0 or -errno (reported)
 */
static int run_write_distilled(struct run *r, const char *path, const void *data, size_t size)
{
	bool swap = elf_symtab__big_endian(r->es) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	struct elf_btf_section secs[] = { { .name = ".BTF" }, { .name = ".BTF.base" } };
	struct btf_distill *d;
	uint32_t split_size, base_size;
	char why[160];
	int err;

	if (!r->base) {
		/* (btf__distill_base fails the same way: pahole exits 1, the file unchanged) */
		pr_warn("%s: cannot distill the base BTF: distilled_base needs split BTF "
			"(--btf_base)\n",
			path);
		return -EINVAL;
	}
	err = btf_distill__new(r->base, data, (uint32_t)size, &d, why, sizeof(why));
	if (err) {
		pr_warn("%s: cannot distill the base BTF: %s\n", path, why);
		return err;
	}
	secs[0].data = btf_distill__split_data(d, swap, &split_size);
	secs[1].data = btf_distill__base_data(d, swap, &base_size);
	secs[0].size = split_size;
	secs[1].size = base_size;
	err = secs[0].data && secs[1].data ? elf_btf__write_in_place(path, secs, 2) : -ENOMEM;
	btf_distill__free(d);
	return err;
}

/* the BTF written to the detached file or into the input: 0 or -errno */
static int run_write(struct run *r, const char *path)
{
	struct elf_btf_section sec = { .name = ".BTF" };

	/* detached, pahole writes the split BTF as it is, distilled_base or not */
	if (r->conf->detached)
		return btf_encoder__write_raw(r->enc, r->conf->detached);
	sec.data = btf_encoder__raw_data(r->enc, &sec.size);
	if (!sec.data)
		return -ENOMEM;
	if (r->conf->distilled_base)
		return run_write_distilled(r, path, sec.data, sec.size);
	return elf_btf__write_in_place(path, &sec, 1);
}

/* -V's last line: what the encoder counted, and its helper threads' CPU */
static void run_report_stats(const struct run *r)
{
	struct btf_encoder_stats stats;

	btf_encoder__stats(r->enc, &stats);
	fprintf(stderr,
		"dwarf2btf: %u CUs, %u threads, %u functions saved, %u FUNCs, %u VARs, "
		"%u types before dedup (%u function prototypes shared), %u after; "
		"writer thread %.3f s CPU; %u batch dedups, %u at once, %.3f s CPU, "
		"%.3f s waited for\n",
		stats.nr_cus, r->conf->nr_jobs, stats.nr_funcs_saved, stats.nr_funcs, stats.nr_vars,
		stats.nr_types_pre_dedup - 1, stats.nr_protos_shared, stats.nr_types - 1,
		stats.writer_cpu_s, stats.batches.nr_batches, stats.batches.max_running,
		stats.batches.cpu_s, stats.batches.wait_s);
}

int encode_pipeline__run_hooked(const char *path, const struct d2b_conf *conf,
				const struct encode_hooks *hooks)
{
	struct run r = { .conf = conf, .hooks = hooks };
	struct phase_clock pc;
	int err;

	if (D2B_MMAP_THRESHOLD != 0) {
		mallopt(M_MMAP_THRESHOLD, D2B_MMAP_THRESHOLD);
		mallopt(M_TRIM_THRESHOLD, 2 * D2B_MMAP_THRESHOLD);
	}
	phase_start(&pc);
	err = run_open(&r, path);
	if (err || !r.dl)
		goto out;
	phase_report(conf, &pc, "open");
	err = run_encode(&r);
	if (err)
		goto out;
	/*
	 * The workers are gone; what their malloc arenas kept, and the
	 * loaders' buffers, would otherwise stay through the last merge and
	 * the functions, where the peak RSS is (Documentation/performance.md,
	 * "Memory per thread").
	 */
	dwarf_loader__end_loads(r.dl);
	malloc_trim(0);
	phase_report(conf, &pc, "encode");
	err = btf_encoder__merge(r.enc);
	if (err)
		goto out;
	phase_report(conf, &pc, "merge");
	err = btf_encoder__finish(r.enc);
	if (err == 1) {
		err = 0; /* nothing but void: pahole writes nothing either */
		goto out;
	}
	if (err)
		goto out;
	/* the DWARF's memory back before dedup, the peak */
	dwarf_loader__free(r.dl);
	r.dl = NULL;
	phase_report(conf, &pc, "funcs");
	err = btf_encoder__dedup(r.enc);
	phase_report(conf, &pc, "dedup");
	if (err)
		goto out;
	err = run_write(&r, path);
	phase_report(conf, &pc, "write");
	if (!err && conf->verbose)
		run_report_stats(&r);
out:
	btf_encoder__free(r.enc);
	btf_base__free(r.base); /* (after the BTF built on it) */
	elf_symtab__free(r.es);
	dwarf_loader__free(r.dl);
	return err;
}
