// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_walk.c - the "floor" for bench/bench.sh: a bare libdw walk over every
 * DIE of every unit in .debug_info, parallel over units.
 *
 * Usage: dwarf_walk [-jT] FILE
 *
 * Any DWARF->BTF encoder has to visit every DIE and decode its attributes at
 * least once; this program does exactly that and nothing else (no types are
 * built, nothing is deduplicated or written). Its wall and CPU time are a
 * lower bound to hold dwarf2btf and pahole against, measured with the same
 * library pahole uses (libdw) and the same thread count.
 *
 * The main thread collects the offsets of all units with dwarf_nextcu(); T
 * workers take unit indexes from an atomic counter and walk each unit's DIE
 * tree with dwarf_child()/dwarf_siblingof(), reading every DIE's tag and
 * iterating its attributes with dwarf_getattrs() (the callback only counts
 * them, but libdw still has to decode each attribute's form to step over it).
 * It prints the number of units, DIEs and attributes.
 *
 * Thread safety: libdw 0.188 (Debian 12) is not thread-safe for lookups on a
 * shared Dwarf handle: dwarf_offdie() finds the unit of an offset in a lazily
 * filled search tree (tsearch) and abbreviation tables are cached per unit,
 * both without locks. So every worker opens the file and calls dwarf_begin()
 * itself and only ever touches its own Dwarf handle. The file is mmapped, so
 * the extra handles share the page cache; each just builds its own unit and
 * abbreviation caches for the units it walks.
 */
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct walk {
	const char *path;
	const Dwarf_Off *units; /* offsets of the units' top DIEs */
	size_t nr_units;
	atomic_size_t next; /* next unit index to hand out */
};

struct worker {
	pthread_t thread;
	struct walk *walk;
	uint64_t dies;
	uint64_t attrs;
	uint64_t tags; /* sum of tags, so the reads are not dead */
};

static void die_fatal(const char *what)
{
	fprintf(stderr, "dwarf_walk: %s: %s\n", what, dwarf_errmsg(-1));
	exit(1);
}

static int count_attr(Dwarf_Attribute *attr, void *arg)
{
	(void)attr;
	(*(uint64_t *)arg)++;
	return DWARF_CB_OK;
}

/* Visit @die and its siblings, depth first. */
static void walk_dies(struct worker *w, Dwarf_Die *die)
{
	Dwarf_Die cur = *die;
	int ret;

	do {
		Dwarf_Die child;

		w->dies++;
		w->tags += (unsigned int)dwarf_tag(&cur);
		if (dwarf_getattrs(&cur, count_attr, &w->attrs, 0) == -1)
			die_fatal("dwarf_getattrs");
		if (dwarf_haschildren(&cur) > 0) {
			ret = dwarf_child(&cur, &child);
			if (ret < 0)
				die_fatal("dwarf_child");
			if (ret == 0)
				walk_dies(w, &child);
		}
		ret = dwarf_siblingof(&cur, &cur);
		if (ret < 0)
			die_fatal("dwarf_siblingof");
	} while (ret == 0);
}

static Dwarf *open_dwarf(const char *path, int *fdp)
{
	Dwarf *dwarf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "dwarf_walk: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	dwarf = dwarf_begin(fd, DWARF_C_READ);
	if (!dwarf)
		die_fatal(path);
	*fdp = fd;
	return dwarf;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct walk *walk = w->walk;
	Dwarf *dwarf;
	size_t i;
	int fd;

	/* One handle per thread: see "Thread safety" at the top. */
	dwarf = open_dwarf(walk->path, &fd);
	while ((i = atomic_fetch_add(&walk->next, 1)) < walk->nr_units) {
		Dwarf_Die cu;

		if (!dwarf_offdie(dwarf, walk->units[i], &cu))
			die_fatal("dwarf_offdie");
		walk_dies(w, &cu);
	}
	dwarf_end(dwarf);
	close(fd);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: dwarf_walk [-jT] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct walk walk = { 0 };
	struct worker *workers;
	Dwarf_Off *units = NULL, off = 0, next;
	size_t nr = 0, alloc = 0, hsize;
	uint64_t dies = 0, attrs = 0, tags = 0;
	long threads = 1;
	Dwarf *dwarf;
	int fd, ret;
	long t;

	if (argc == 3 && strncmp(argv[1], "-j", 2) == 0) {
		char *end;

		threads = strtol(argv[1] + 2, &end, 10);
		if (argv[1][2] == '\0')
			threads = sysconf(_SC_NPROCESSORS_ONLN);
		else if (*end || threads < 1 || threads > 1024)
			usage();
		argv++;
	} else if (argc != 2) {
		usage();
	}
	walk.path = argv[1];

	dwarf = open_dwarf(walk.path, &fd);
	while ((ret = dwarf_nextcu(dwarf, off, &next, &hsize, NULL, NULL, NULL)) == 0) {
		if (nr == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			units = realloc(units, alloc * sizeof(*units));
			if (!units) {
				perror("dwarf_walk");
				return 1;
			}
		}
		units[nr++] = off + hsize;
		off = next;
	}
	if (ret < 0)
		die_fatal("dwarf_nextcu");
	dwarf_end(dwarf);
	close(fd);

	walk.units = units;
	walk.nr_units = nr;
	atomic_init(&walk.next, 0);
	workers = calloc(threads, sizeof(*workers));
	if (!workers) {
		perror("dwarf_walk");
		return 1;
	}
	for (t = 0; t < threads; t++) {
		workers[t].walk = &walk;
		ret = pthread_create(&workers[t].thread, NULL, worker_fn, &workers[t]);
		if (ret) {
			fprintf(stderr, "dwarf_walk: pthread_create: %s\n", strerror(ret));
			return 1;
		}
	}
	for (t = 0; t < threads; t++) {
		pthread_join(workers[t].thread, NULL);
		dies += workers[t].dies;
		attrs += workers[t].attrs;
		tags += workers[t].tags;
	}
	printf("units %zu dies %" PRIu64 " attributes %" PRIu64 " (tag sum %" PRIu64
	       ") threads %ld\n",
	       nr, dies, attrs, tags, threads);
	free(workers);
	free(units);
	return 0;
}
