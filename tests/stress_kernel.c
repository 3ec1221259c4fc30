// SPDX-License-Identifier: GPL-2.0-only
/*
 * stress_kernel.c - concurrency stress on a real input: the same ELF file
 * encoded at many -j, with injected worker delays and a very slow CU 0.
 *
 * Usage: stress_kernel [--jobs LIST] [--seed N] [--hold-ms N] [--watchdog S]
 *                      [--keep] [--no-rss-check] [--self-test=bound|unbounded|hang]
 *                      INPUT OUTDIR [PAHOLE_FLAGS...]
 *
 * LIST is a comma-separated list of -j values and ranges ("1-64",
 * "1,2,3,8,17,64"); -j1 always runs first, as the reference. PAHOLE_FLAGS
 * are the BTF flags of the command line (--btf_features=..., --btf_gen_*,
 * --skip_encoding_btf_*, --lang_exclude=..., --btf_base=...).
 *
 * DESIGN
 *
 * Every run is encode_pipeline__run_hooked(), the function the command line
 * calls (there without hooks), in a forked child: conf.nr_jobs = j,
 * conf.window = W = emit_ordered_window(j) (as dwarf2btf.c sets it), output
 * to OUTDIR/j<j>.btf, and the two struct encode_hooks installed. The
 * dedup batch size (btf_batches.c) varies with j: -j1, -j5, -j9, ... use
 * the command line's BTF_BATCH_TYPES, the others in turn one BTF without
 * batches, 20000 and 2^20 types, and -j3 one CU per batch.
 * Identical output across them shows that batching leaves the bytes
 * alone. The parent never starts a thread: it only forks, reads the child's
 * report from a pipe, collects its peak RSS with wait4() and compares the
 * output with -j1's, byte for byte.
 *
 * Injected delays (hook_before_load, on the worker, before each CU load):
 *  - CU 0 is held: it waits until the other workers have started every
 *    other unit the window allows (units 1 .. W-1), then until no unit
 *    started for --hold-ms (default 300): they finished those loads and
 *    block on the full window. Capped at 30 s;
 *  - every other CU: with probability 1/4, a delay of 0-2000 us, drawn from
 *    a hash of (seed, j, id), so a run is reproducible whatever thread loads
 *    which unit.
 *
 * Checks, per -j:
 *  1. the output is byte-identical to -j1's;
 *  2. the in-flight count (hook_on_in_flight, after every change) never
 *     exceeds W, and reaches min(W, nr_cus) for j >= 2 (the window filled);
 *  3. while CU 0 is not loaded, no unit >= W starts loading (the bound is on
 *     unit ids), and with j >= 2 the workers ran ahead to unit W-1;
 *  4. no deadlock: the whole run is under a watchdog (--watchdog, default
 *     180 s) that kills the child with a message saying where it stood;
 *  5. memory within the window bound (not under sanitizers, whose allocators
 *     and shadow memory make RSS meaningless; the peak only for runs with
 *     -j1's batch size, since a batch's size sets what its dedup holds):
 *       RSS when the window is full (sampled at the end of CU 0's hold, when
 *       nothing has been encoded yet) - the same at -j1  <=  S(W) + j T
 *       peak RSS (wait4) - peak RSS at -j1       <=  S(W) + j T + A(j) 2 S(4)
 *                                                    + (D(j) - 1) P
 *     S(W) is the largest sum of W consecutive per-unit costs: units in
 *     flight always have ids in [next_emit, next_emit + W), so this is what
 *     the id window promises. A unit's cost is measured first, in a separate
 *     child that loads every CU serially: the heap it keeps (mallinfo2, and
 *     its block when the units' ring holds it) plus
 *     the file-backed pages its load touches for the first time (RssFile),
 *     plus 64 KiB for page-granular mapping (fault-around). T is a per-thread
 *     allowance for a worker's stack and the transient tables of the one
 *     load it runs: the largest unit cost + 1 MiB. The peak comes later
 *     (dedup), after every unit was freed; but a worker's malloc arena keeps
 *     what was freed into it, which the collector's allocations cannot
 *     reuse. A(j) is the number of arenas the workers get (one each, up to
 *     glibc's 8 per core), and each may keep twice a worker's share of the
 *     window (W/j units, rounded up): measured on the 6.1 vmlinux, the peak grows by
 *     about 6 MiB per arena and stops growing at the arena limit. D(j) is
 *     the number of batch dedups that may run at once
 *     (btf_batches__max_running; one at -j1), and each one past the first
 *     may hold what -j1's single dedup added after the window: P, -j1's peak
 *     less its RSS with the window full.
 *
 * --self-test=bound asserts W-1 instead of W, --self-test=unbounded runs
 * the pipeline with a window of 2^30 while checking against W, and
 * --self-test=hang never releases CU 0: each must make the test fail (the
 * checks are not vacuous; the last one shows the watchdog's message). They
 * apply from -j2 on; -j1 stays the reference.
 *
 * Output: one line per -j ("ok: -jN ..." or "FAIL: -jN: ..."), a table, and
 * "N passed, M failed"; exit status 0 iff M is 0. OUTDIR/stress.tsv holds
 * the table.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "btf_batches.h"
#include "btf_features.h"
#include "dwarf_loader.h"
#include "dwarves_emit_ordered.h"
#include "encode_pipeline.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

#define MAX_JOBS 1024
#define HOLD_CAP_MS 30000
#define UNIT_SLACK (64u << 10)
#define THREAD_BASE (1u << 20)
#define MIB(x) ((double)(int64_t)(x) / (1024.0 * 1024.0))

enum self_test { SELF_TEST_NONE, SELF_TEST_BOUND, SELF_TEST_UNBOUNDED, SELF_TEST_HANG };

static struct {
	unsigned int jobs[MAX_JOBS];
	unsigned int nr_jobs;
	uint64_t seed;
	unsigned int hold_ms;
	unsigned int watchdog_s;
	bool keep;
	bool rss_check;
	enum self_test self_test;
	const char *input;
	const char *outdir;
	struct d2b_conf conf; /* flags; nr_jobs, window, detached per run */
} opt = {
	.seed = 1,
	.hold_ms = 300,
	.watchdog_s = 180,
	.rss_check = !UNDER_SANITIZER,
};

/* ---------------------------------------------------------------------- */
/* small helpers                                                          */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* "Name:   1234 kB" from /proc/self/status, in bytes; 0 if absent */
static uint64_t proc_status_kb(const char *name)
{
	size_t len = strlen(name);
	char line[256];
	uint64_t v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			v = strtoull(line + len + 1, NULL, 10) * 1024;
			break;
		}
	fclose(f);
	return v;
}

static uint64_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static char *read_file(const char *path, size_t *size)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	if (read_all(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* ---------------------------------------------------------------------- */
/* the hooks, in the child of one run                                     */

struct probe {
	unsigned int j, window, asserted_window, nr_cus;
	uint64_t seed;
	atomic_uint max_in_flight;
	atomic_uint in_flight; /* last value reported */
	atomic_uint over_window; /* reports above asserted_window */
	atomic_uint cu0_phase; /* 0 not started, 1 held, 2 released */
	atomic_uint early_started; /* units != 0 started before CU 0 was released */
	atomic_uint early_beyond; /* of those, ids >= asserted_window */
	atomic_uint first_beyond; /* the first such id + 1, 0 if none */
	atomic_uint loads_started;
	atomic_uint hold_timed_out;
	uint64_t rss_full, anon_full, file_full; /* sampled when CU 0 is released */
	double hold_s;
};

static struct probe *g_probe; /* for the watchdog's message */

static void atomic_max(atomic_uint *max, unsigned int v)
{
	unsigned int cur = atomic_load(max);

	while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
		;
}

static void hook_on_in_flight(void *ctx, unsigned int in_flight)
{
	struct probe *p = ctx;

	atomic_store(&p->in_flight, in_flight);
	atomic_max(&p->max_in_flight, in_flight);
	if (in_flight > p->asserted_window)
		atomic_fetch_add(&p->over_window, 1);
}

static void hold_cu0(struct probe *p)
{
	unsigned int target = 0;
	double start = now_s(), deadline = start + HOLD_CAP_MS / 1000.0;

	/* a stuck load: the collector waits for unit 0 forever */
	while (p->j >= 2 && opt.self_test == SELF_TEST_HANG)
		pause();
	/* the other workers can start units 1 .. W-1 while unit 0 is unloaded */
	if (p->j >= 2 && p->nr_cus)
		target = (p->asserted_window < p->nr_cus ? p->asserted_window : p->nr_cus) - 1;
	while (atomic_load(&p->early_started) < target) {
		if (now_s() > deadline) {
			atomic_store(&p->hold_timed_out, 1);
			break;
		}
		sleep_us(1000);
	}
	/*
	 * Then until no unit starts for hold_ms: the workers finished those
	 * loads and block on the full window (with a window that does not
	 * hold, they run on through the whole file first).
	 */
	for (;;) {
		unsigned int seen = atomic_load(&p->early_started);

		sleep_us(opt.hold_ms * 1000);
		if (atomic_load(&p->early_started) == seen)
			break;
		if (now_s() > deadline) {
			atomic_store(&p->hold_timed_out, 1);
			break;
		}
	}
	p->rss_full = proc_status_kb("VmRSS");
	p->anon_full = proc_status_kb("RssAnon");
	p->file_full = proc_status_kb("RssFile");
	p->hold_s = now_s() - start;
	atomic_store(&p->cu0_phase, 2);
}

static void hook_before_load(void *ctx, unsigned int id)
{
	struct probe *p = ctx;
	uint64_t r;

	atomic_fetch_add(&p->loads_started, 1);
	if (id == 0) {
		atomic_store(&p->cu0_phase, 1);
		hold_cu0(p);
		return;
	}
	if (atomic_load(&p->cu0_phase) != 2) {
		/* unit 0 is not loaded, so not encoded: next_emit == 0 */
		atomic_fetch_add(&p->early_started, 1);
		if (id >= p->asserted_window) {
			unsigned int none = 0;

			atomic_fetch_add(&p->early_beyond, 1);
			atomic_compare_exchange_strong(&p->first_beyond, &none, id + 1);
		}
	}
	r = mix64(p->seed ^ ((uint64_t)p->j << 32) ^ id);
	if ((r & 3) == 0)
		sleep_us((unsigned int)((r >> 8) % 2001));
}

/* async-signal-safe: the watchdog's last words */
static void put_str(char **p, const char *s)
{
	while (*s)
		*(*p)++ = *s++;
}

static void put_uint(char **p, unsigned long v)
{
	char tmp[24];
	int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*(*p)++ = tmp[--n];
}

static void on_watchdog(int sig)
{
	struct probe *p = g_probe;
	char buf[512], *q = buf;

	if (p) {
		put_str(&q, "FAIL: -j");
		put_uint(&q, p->j);
	} else {
		put_str(&q, "FAIL: measuring the units");
	}
	put_str(&q, ": no result after ");
	put_uint(&q, opt.watchdog_s);
	put_str(&q, " s (deadlock?)");
	if (p) {
		put_str(&q, ": loads started ");
		put_uint(&q, atomic_load(&p->loads_started));
		put_str(&q, " of ");
		put_uint(&q, p->nr_cus);
		put_str(&q, ", in flight ");
		put_uint(&q, atomic_load(&p->in_flight));
		put_str(&q, ", CU 0 phase ");
		put_uint(&q, atomic_load(&p->cu0_phase));
	}
	put_str(&q, "\n");
	if (write(STDOUT_FILENO, buf, (size_t)(q - buf)) < 0)
		_exit(125);
	_exit(124);
}

static void arm_watchdog(void)
{
	struct sigaction sa = { .sa_handler = on_watchdog };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(opt.watchdog_s);
}

/* ---------------------------------------------------------------------- */
/* children                                                               */

struct report {
	int err;
	double wall_s, hold_s;
	unsigned int max_in_flight, over_window, early_started, early_beyond, first_beyond;
	unsigned int hold_timed_out, window, loads_started;
	uint64_t rss_full, anon_full, file_full;
};

/* the dedup batch size of the run at -j@j (see DESIGN) */
static unsigned int batch_types_for(unsigned int j)
{
	static const unsigned int sizes[] = { BTF_BATCH_TYPES, 0, 20000, 1u << 20 };

	return j == 3 ? 1 : sizes[(j - 1) % 4];
}

struct measure {
	int err;
	unsigned int nr_cus;
	uint64_t max_unit; /* largest per-unit cost */
	uint64_t total; /* all units */
	uint64_t heap_max, file_max;
};

/* One encode at -j@j, in the child; the report goes to @fd. */
static int child_run(unsigned int j, unsigned int nr_cus, int fd)
{
	struct d2b_conf conf = opt.conf;
	struct encode_hooks hooks;
	struct report rep = {};
	struct probe *p;
	char path[4096];
	double t0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return 1;
	p->j = j;
	p->seed = opt.seed;
	p->nr_cus = nr_cus;
	p->asserted_window = emit_ordered_window(j);
	p->window = emit_ordered_window(j);
	/* the self-tests break -j2 and up; -j1 stays the reference */
	if (j >= 2 && opt.self_test == SELF_TEST_UNBOUNDED)
		p->window = 1u << 30;
	if (j >= 2 && opt.self_test == SELF_TEST_BOUND)
		p->asserted_window--;
	g_probe = p;
	arm_watchdog();

	snprintf(path, sizeof(path), "%s/j%u.btf", opt.outdir, j);
	conf.nr_jobs = j;
	conf.window = p->window;
	conf.batch_types = batch_types_for(j);
	conf.detached = path;
	hooks = (struct encode_hooks){ hook_before_load, hook_on_in_flight, p };

	t0 = now_s();
	rep.err = encode_pipeline__run_hooked(opt.input, &conf, &hooks);
	rep.wall_s = now_s() - t0;
	alarm(0);
	rep.hold_s = p->hold_s;
	rep.window = p->window;
	rep.max_in_flight = atomic_load(&p->max_in_flight);
	rep.over_window = atomic_load(&p->over_window);
	rep.early_started = atomic_load(&p->early_started);
	rep.early_beyond = atomic_load(&p->early_beyond);
	rep.first_beyond = atomic_load(&p->first_beyond);
	rep.hold_timed_out = atomic_load(&p->hold_timed_out);
	rep.loads_started = atomic_load(&p->loads_started);
	rep.rss_full = p->rss_full;
	rep.anon_full = p->anon_full;
	rep.file_full = p->file_full;
	g_probe = NULL;
	free(p);
	return write_all(fd, &rep, sizeof(rep)) ? 1 : 0;
}

/*
 * Per-unit cost, in the child: every CU loaded serially (one thread), its
 * retained heap and the file-backed pages its load touched for the first
 * time. The costs go to @fd after the struct measure.
 */
static int child_measure(int fd)
{
	struct measure m = {};
	struct dwarf_loader *dl;
	uint64_t *cost;
	unsigned int id;
	int err = 0;

	arm_watchdog();
	dl = dwarf_loader__new(opt.input, &opt.conf, &err);
	if (!dl) {
		m.err = err ? err : -EINVAL;
		return write_all(fd, &m, sizeof(m)) ? 1 : 0;
	}
	m.nr_cus = dwarf_loader__nr_cus(dl);
	cost = calloc(m.nr_cus ? m.nr_cus : 1, sizeof(*cost));
	if (!cost)
		return 1;
	for (id = 0; id < m.nr_cus; id++) {
		uint64_t h0 = heap_in_use(), f0 = proc_status_kb("RssFile"), h1, f1;
		struct cu *cu;

		err = dwarf_loader__load_cu(dl, id, &cu);
		if (err) {
			m.err = err;
			break;
		}
		h1 = heap_in_use();
		f1 = proc_status_kb("RssFile");
		h1 = h1 > h0 ? h1 - h0 : 0;
		if (cu->ring) /* (a unit in the units' ring is not malloc's) */
			h1 += cu->bytes;
		f1 = f1 > f0 ? f1 - f0 : 0;
		cost[id] = h1 + f1 + UNIT_SLACK;
		cu__free(cu);
		if (h1 > m.heap_max)
			m.heap_max = h1;
		if (f1 > m.file_max)
			m.file_max = f1;
		if (cost[id] > m.max_unit)
			m.max_unit = cost[id];
		m.total += cost[id];
	}
	dwarf_loader__free(dl);
	err = write_all(fd, &m, sizeof(m)) || write_all(fd, cost, m.nr_cus * sizeof(*cost));
	free(cost);
	return err ? 1 : 0;
}

/* Fork, run @fn in the child with a pipe, read @len bytes back. */
static int spawn(int (*fn)(unsigned int, unsigned int, int), unsigned int j, unsigned int nr,
		 void *buf, size_t len, struct rusage *ru, int *status)
{
	int pfd[2];
	pid_t pid;
	ssize_t got;

	if (pipe(pfd) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		close(pfd[0]);
		/* exit(), not _exit(): LeakSanitizer checks the child (ASan build) */
		exit(fn(j, nr, pfd[1]));
	}
	close(pfd[1]);
	got = read_all(pfd[0], buf, len);
	close(pfd[0]);
	while (wait4(pid, status, 0, ru) < 0)
		if (errno != EINTR)
			return -errno;
	return got == (ssize_t)len ? 0 : -EPIPE;
}

static int measure_trampoline(unsigned int j, unsigned int nr, int fd)
{
	return child_measure(fd);
}

/* ---------------------------------------------------------------------- */
/* the parent                                                             */

static unsigned int passed, failed;

__attribute__((format(printf, 2, 3))) static void fail(unsigned int j, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: -j%u: ", j);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed++;
}

static int parse_jobs(const char *s)
{
	char *end;

	while (*s) {
		unsigned long a = strtoul(s, &end, 10), b = a, k;

		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1)
				return -1;
			s = end;
		}
		if (!a || b < a || b > MAX_JOBS)
			return -1;
		for (k = a; k <= b; k++) {
			if (opt.nr_jobs == MAX_JOBS)
				return -1;
			opt.jobs[opt.nr_jobs++] = (unsigned int)k;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return opt.nr_jobs ? 0 : -1;
}

/* the BTF flags of the command line that matter to the encoder */
static int parse_flag(const char *a)
{
	const char *eq = strchr(a, '=');
	char name[64];
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	int err = -ENOENT;

	if (!strncmp(a, "--", 2) && len - 2 < sizeof(name)) {
		memcpy(name, a + 2, len - 2);
		name[len - 2] = 0;
		err = btf_features__apply_option(&opt.conf, name, eq ? eq + 1 : NULL);
	}
	if (err == -ENOENT) {
		fprintf(stderr, "stress_kernel: unsupported flag '%s'\n", a);
		return -EINVAL;
	}
	return err;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stress_kernel [--jobs LIST] [--seed N] [--hold-ms N] [--watchdog S]\n"
		"                     [--keep] [--no-rss-check] [--self-test=bound|unbounded|hang]\n"
		"                     INPUT OUTDIR [PAHOLE_FLAGS...]\n"
		"Encode INPUT at every -j of LIST (default 1-64; -j1 first, the reference)\n"
		"with injected load delays and a held CU 0; check identical output, the\n"
		"window bound, memory within it, and no deadlock.\n"
		"  --jobs LIST        e.g. 1-64 or 1,2,3,8,17,64\n"
		"  --seed N           seed of the per-CU delays (default 1)\n"
		"  --hold-ms N        CU 0 is released after no unit started for N ms (300)\n"
		"  --watchdog S       a run that takes longer fails (default 180 s)\n"
		"  --keep             keep the outputs (OUTDIR/j<N>.btf)\n"
		"  --no-rss-check     report RSS, do not check it (always so under sanitizers)\n"
		"  --self-test=T      break the window (bound: assert W-1; unbounded: no\n"
		"                     window; hang: CU 0 never loads) from -j2 on; must fail\n"
		"PAHOLE_FLAGS: --btf_features=, --btf_features_strict=, --btf_gen_*,\n"
		"--skip_encoding_btf_*, --btf_encode_force, --lang_exclude=, --btf_base=\n");
}

static int parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "hold-ms", required_argument, NULL, 'H' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "keep", no_argument, NULL, 'k' },
		{ "no-rss-check", no_argument, NULL, 'R' },
		{ "self-test", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c, i;

	/* "+": stop at INPUT, the pahole flags after it are ours to parse */
	while ((c = getopt_long(argc, argv, "+j:", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (parse_jobs(optarg))
				return -1;
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'H':
			opt.hold_ms = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'w':
			opt.watchdog_s = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'k':
			opt.keep = true;
			break;
		case 'R':
			opt.rss_check = false;
			break;
		case 'T':
			if (!strcmp(optarg, "bound"))
				opt.self_test = SELF_TEST_BOUND;
			else if (!strcmp(optarg, "unbounded"))
				opt.self_test = SELF_TEST_UNBOUNDED;
			else if (!strcmp(optarg, "hang"))
				opt.self_test = SELF_TEST_HANG;
			else
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (argc - optind < 2)
		return -1;
	opt.input = argv[optind];
	opt.outdir = argv[optind + 1];
	for (i = optind + 2; i < argc; i++)
		if (parse_flag(argv[i]))
			return -1;
	if (!opt.nr_jobs)
		parse_jobs("1-64");
	if (!opt.watchdog_s)
		opt.watchdog_s = 180;
	return 0;
}

/* S(W): the largest sum of @w consecutive unit costs */
static uint64_t window_sum(const uint64_t *cost, unsigned int n, unsigned int w)
{
	uint64_t sum = 0, best = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		sum += cost[i];
		if (i >= w)
			sum -= cost[i - w];
		if (sum > best)
			best = sum;
	}
	return best;
}

/*
 * glibc gives each new thread a malloc arena of its own, up to 8 per core
 * (M_ARENA_MAX's default on 64-bit); then threads share them.
 */
static unsigned int malloc_arenas(unsigned int j)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long max = 8ul * (unsigned long)(cores > 0 ? cores : 1);

	return j < max ? j : (unsigned int)max;
}

struct row {
	unsigned int j, window, max_in_flight, ran_ahead;
	double wall_s, hold_s;
	uint64_t rss_full, peak, sw, full_bound, peak_bound;
	int64_t full_delta, peak_delta;
	bool ok;
};

/* One -j: run it, check it; returns the row for the table. */
static void run_one(unsigned int j, const struct measure *m, const uint64_t *cost, const char *ref,
		    size_t ref_size, const struct report *base_rep, uint64_t base_peak,
		    struct row *row, struct report *rep_out, uint64_t *peak_out)
{
	unsigned int failed0 = failed, full;
	struct report rep = {};
	struct rusage ru = {};
	uint64_t peak;
	char path[4096];
	int status = 0, err;

	snprintf(path, sizeof(path), "%s/j%u.btf", opt.outdir, j);
	unlink(path);
	err = spawn(child_run, j, m->nr_cus, &rep, sizeof(rep), &ru, &status);
	peak = (uint64_t)ru.ru_maxrss * 1024;
	row->j = j;
	row->peak = peak;
	if (err || !WIFEXITED(status) || WEXITSTATUS(status) || rep.err) {
		if (WIFSIGNALED(status))
			fail(j, "killed by signal %d (%s)", WTERMSIG(status),
			     strsignal(WTERMSIG(status)));
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 124)
			failed++; /* the watchdog printed why */
		else if (rep.err)
			fail(j, "encode failed: %s", strerror(-rep.err));
		else
			fail(j, "the child exited with status %d (a sanitizer report?)",
			     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		unlink(path);
		row->ok = false;
		return;
	}
	*rep_out = rep;
	*peak_out = peak;
	row->window = rep.window;
	row->wall_s = rep.wall_s;
	row->hold_s = rep.hold_s;
	row->max_in_flight = rep.max_in_flight;
	row->ran_ahead = rep.early_started;
	row->rss_full = rep.rss_full;

	/* 1. identical output */
	if (ref) {
		size_t size = 0;
		char *out = read_file(path, &size);

		if (!out)
			fail(j, "cannot read %s", path);
		else if (size != ref_size || memcmp(out, ref, size))
			fail(j, "output differs from -j1's (%zu bytes vs %zu; kept as %s)", size,
			     ref_size, path);
		else if (!opt.keep)
			unlink(path);
		free(out);
	}
	/* 2., 3. the window */
	full = emit_ordered_window(j) < m->nr_cus ? emit_ordered_window(j) : m->nr_cus;
	if (j >= 2 && opt.self_test == SELF_TEST_BOUND)
		full--;
	if (rep.over_window)
		fail(j, "in flight %u > window %u (%u reports above it)", rep.max_in_flight,
		     emit_ordered_window(j) - (j >= 2 && opt.self_test == SELF_TEST_BOUND),
		     rep.over_window);
	if (rep.early_beyond)
		fail(j,
		     "%u units >= the window started loading before CU 0 was loaded "
		     "(first: unit %u)",
		     rep.early_beyond, rep.first_beyond - 1);
	if (j >= 2 && rep.max_in_flight < full)
		fail(j, "the window never filled: max in flight %u, want %u", rep.max_in_flight,
		     full);
	if (j >= 2 && full && (rep.hold_timed_out || rep.early_started < full - 1))
		fail(j, "while CU 0 was held, only %u other units started, want %u%s",
		     rep.early_started, full - 1, rep.hold_timed_out ? " (gave up waiting)" : "");
	/* 5. memory */
	row->sw = window_sum(cost, m->nr_cus, emit_ordered_window(j));
	row->full_bound = row->sw + (uint64_t)j * (m->max_unit + THREAD_BASE);
	row->peak_bound = row->full_bound +
			  (uint64_t)malloc_arenas(j) * 2 *
				  window_sum(cost, m->nr_cus, (emit_ordered_window(j) + j - 1) / j);
	/* each dedup that may run beside the first (-j1 runs one) holds a batch */
	if (base_rep && base_peak > base_rep->rss_full)
		row->peak_bound += (uint64_t)(btf_batches__max_running(j, 0) - 1) *
				   (base_peak - base_rep->rss_full);
	if (base_rep) {
		row->full_delta = (int64_t)(rep.rss_full - base_rep->rss_full);
		row->peak_delta = (int64_t)(peak - base_peak);
	}
	if (opt.rss_check && base_rep) {
		if (row->full_delta > (int64_t)row->full_bound)
			fail(j,
			     "RSS with the window full %.1f MiB > -j1's %.1f MiB + bound %.1f MiB",
			     MIB(rep.rss_full), MIB(base_rep->rss_full), MIB(row->full_bound));
		if (batch_types_for(j) == BTF_BATCH_TYPES &&
		    row->peak_delta > (int64_t)row->peak_bound)
			fail(j, "peak RSS %.1f MiB > -j1's %.1f MiB + bound %.1f MiB", MIB(peak),
			     MIB(base_peak), MIB(row->peak_bound));
	}
	row->ok = failed == failed0;
	if (row->ok) {
		passed++;
		printf("ok: -j%u: %s, dedup batches of %u types (0: none), %.2f s (CU 0 held %.2f s), "
		       "max in flight %u/%u, "
		       "%u units started while CU 0 was held; RSS window full %.1f MiB (%+.1f, "
		       "bound %.1f), peak %.1f MiB (%+.1f, bound %.1f%s)\n",
		       j, ref ? "identical to -j1" : "the reference", batch_types_for(j),
		       rep.wall_s, rep.hold_s, rep.max_in_flight, rep.window, rep.early_started,
		       MIB(rep.rss_full), MIB(row->full_delta), MIB(row->full_bound), MIB(peak),
		       MIB(row->peak_delta), MIB(row->peak_bound),
		       batch_types_for(j) == BTF_BATCH_TYPES ? "" : ", not checked");
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct report base_rep = {}, rep;
	uint64_t base_peak = 0, peak, *cost;
	struct row *rows;
	struct measure m = {};
	struct rusage ru;
	char path[4096], *ref = NULL;
	size_t ref_size = 0;
	unsigned int k;
	double t0 = now_s();
	int status = 0, err;
	FILE *tsv;

	btf_features__defaults(&opt.conf);
	opt.conf.nr_jobs = 1;
	if (parse_args(argc, argv)) {
		usage(stderr);
		return 2;
	}
	libbpf_set_print(NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mkdir(opt.outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "stress_kernel: %s: %s\n", opt.outdir, strerror(errno));
		return 2;
	}

	/* per-unit costs; the child sends nr_cus first, then the costs */
	{
		int pfd[2];
		pid_t pid;

		if (pipe(pfd) < 0)
			return 2;
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			close(pfd[0]);
			exit(measure_trampoline(0, 0, pfd[1]));
		}
		close(pfd[1]);
		if (read_all(pfd[0], &m, sizeof(m)) != sizeof(m) || m.err) {
			fprintf(stderr, "stress_kernel: %s: cannot load every CU (%s)\n", opt.input,
				m.err ? strerror(-m.err) : "no report from the child");
			return 2;
		}
		cost = calloc(m.nr_cus ? m.nr_cus : 1, sizeof(*cost));
		if (!cost || read_all(pfd[0], cost, m.nr_cus * sizeof(*cost)) !=
				     (ssize_t)(m.nr_cus * sizeof(*cost)))
			return 2;
		close(pfd[0]);
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "stress_kernel: measuring the units failed (status 0x%x)\n",
				status);
			return 2;
		}
	}
	printf("input: %s, %u CUs; per-unit cost (heap kept + file pages touched + 64 KiB): "
	       "max %.2f MiB (heap %.2f, file %.2f), all units %.1f MiB; seed %llu%s\n",
	       opt.input, m.nr_cus, MIB(m.max_unit), MIB(m.heap_max), MIB(m.file_max), MIB(m.total),
	       (unsigned long long)opt.seed, opt.rss_check ? "" : "; RSS not checked");

	rows = calloc(opt.nr_jobs + 1, sizeof(*rows));
	if (!rows)
		return 2;
	/* -j1 first: the reference output and the memory baseline */
	run_one(1, &m, cost, NULL, 0, NULL, 0, &rows[0], &base_rep, &base_peak);
	if (!rows[0].ok) {
		printf("-j1 failed: no reference\n%u passed, %u failed\n", passed, failed);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/j1.btf", opt.outdir);
	ref = read_file(path, &ref_size);
	if (!ref || !ref_size) {
		printf("FAIL: -j1 wrote no output\n%u passed, %u failed\n", passed, failed + 1);
		return 1;
	}
	for (k = 0; k < opt.nr_jobs; k++) {
		if (opt.jobs[k] == 1 && k == 0)
			continue; /* already ran */
		run_one(opt.jobs[k], &m, cost, ref, ref_size, &base_rep, base_peak, &rows[k + 1],
			&rep, &peak);
	}
	if (!opt.keep)
		unlink(path);

	snprintf(path, sizeof(path), "%s/stress.tsv", opt.outdir);
	tsv = fopen(path, "w");
	/* MiB; "full": RSS when the window is full, "+": over -j1 */
	printf("\n  -j  window  in_flight  ran_ahead  wall_s   S(W)    full  +full  bound    "
	       "peak   +peak  bound\n");
	if (tsv)
		fprintf(tsv, "j\twindow\tmax_in_flight\tran_ahead\twall_s\thold_s\tsw_mib\t"
			     "rss_full_mib\tfull_delta_mib\tfull_bound_mib\tpeak_mib\t"
			     "peak_delta_mib\tpeak_bound_mib\tok\n");
	for (k = 0; k <= opt.nr_jobs; k++) {
		struct row *r = &rows[k];

		if (!r->j)
			continue;
		printf("%4u  %6u  %9u  %9u  %6.2f  %5.1f  %6.1f  %+5.1f  %5.1f  %6.1f  %+6.1f  "
		       "%5.1f%s\n",
		       r->j, r->window, r->max_in_flight, r->ran_ahead, r->wall_s, MIB(r->sw),
		       MIB(r->rss_full), MIB(r->full_delta), MIB(r->full_bound), MIB(r->peak),
		       MIB(r->peak_delta), MIB(r->peak_bound), r->ok ? "" : "  FAIL");
		if (tsv)
			fprintf(tsv,
				"%u\t%u\t%u\t%u\t%.3f\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t"
				"%.1f\t%.1f\t%d\n",
				r->j, r->window, r->max_in_flight, r->ran_ahead, r->wall_s,
				r->hold_s, MIB(r->sw), MIB(r->rss_full), MIB(r->full_delta),
				MIB(r->full_bound), MIB(r->peak), MIB(r->peak_delta),
				MIB(r->peak_bound), r->ok);
	}
	if (tsv)
		fclose(tsv);
	err = failed ? 1 : 0;
	printf("total %.1f s\n%u passed, %u failed\n", now_s() - t0, passed, failed);
	free(ref);
	free(cost);
	free(rows);
	return err;
}
