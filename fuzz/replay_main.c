// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay_main - run LLVMFuzzerTestOneInput on files without libFuzzer.
 *
 * Usage: fuzz_replay FILE|DIR...  (a directory: every regular file in it,
 * in name order). Each input must return; a crash or a sanitizer report
 * ends the process, which fails the CTest test that runs it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t size = 0, cap = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (size == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "fuzz_replay: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + size, 1, cap - size, f);
		if (!n)
			break;
		size += n;
	}
	if (ferror(f)) {
		fprintf(stderr, "fuzz_replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "fuzz_replay: %s (%zu bytes)\n", path, size);
	LLVMFuzzerTestOneInput(buf, size);
	free(buf);
	return 0;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_dir(const char *dir, unsigned int *count)
{
	struct dirent **names;
	char path[4096];
	int i, n, err = 0;

	n = scandir(dir, &names, NULL, name_cmp);
	if (n < 0) {
		fprintf(stderr, "fuzz_replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!err && names[i]->d_name[0] != '.' && !stat(path, &st) && S_ISREG(st.st_mode)) {
			err = replay_file(path);
			if (!err)
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "fuzz_replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]))
			return 1;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	if (!count) {
		fprintf(stderr, "fuzz_replay: no inputs\n");
		return 1;
	}
	fprintf(stderr, "fuzz_replay: %u inputs, all returned\n", count);
	return 0;
}
