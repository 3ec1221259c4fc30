// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_str_canon - str_canon against a model: a string section with many
 * copies of each string (as ld -r leaves a module's .debug_str), looked up
 * in another order than they lie in. Every offset must come back
 * as the first offset looked up with the same contents, whatever the
 * copy; a string nothing looked up before keeps its own offset; offsets
 * past the end, or of bytes with no NUL before the end, come back
 * unchanged. Enough distinct strings to grow the table several times, and
 * strings of every length from 0 to 40 bytes (the hash takes 8 at a time).
 * The model keys the strings by their number, so it cannot be the code
 * under test; it checks that equal numbers mean equal bytes. The first
 * mismatches are printed, and the test fails if there is any.
 * A mismatch prints the case and fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../str_canon.h"

#define NR_DISTINCT 20000
#define NR_COPIES 5

/*
 * distinct string @k: k < 4 the strings of 0 to 3 bytes "", "b", "bc" and
 * "bcd"; above, k in 4 base-26 letters, then letters up to 4 + k % 37 bytes
 */
static void distinct(uint32_t k, char *out)
{
	uint32_t len = 4 + k % 37, i, v = k;

	if (k < 4) {
		memcpy(out, "bcd", k);
		out[k] = 0;
		return;
	}
	for (i = 0; i < 4; i++, v /= 26)
		out[i] = (char)('a' + v % 26);
	for (; i < len; i++)
		out[i] = (char)('a' + (k + i) % 26);
	out[len] = 0;
}

int main(void)
{
	size_t nr = (size_t)NR_DISTINCT * NR_COPIES, size = 0, i;
	uint32_t *owner = malloc(nr * sizeof(*owner)); /* [string]: its distinct k */
	uint64_t *off = malloc(nr * sizeof(*off));
	uint64_t *first = malloc(NR_DISTINCT * sizeof(*first)); /* [k]: canonical, or ~0 */
	char *data = malloc(nr * 42 + 8), buf[48];
	struct str_canon *sc;
	int fails = 0;

	if (!owner || !off || !first || !data)
		return 1;
	/* the copies end to end, scattered: a prime stride, so each k comes NR_COPIES times */
	for (i = 0; i < nr; i++)
		owner[i] = (uint32_t)(i * 104729 % NR_DISTINCT);
	for (i = 0; i < nr; i++) {
		distinct(owner[i], buf);
		off[i] = size;
		memcpy(data + size, buf, strlen(buf) + 1);
		size += strlen(buf) + 1;
	}
	/* three bytes with no NUL after them close the section */
	memcpy(data + size, "xyz", 3);
	size += 3;
	for (i = 0; i < NR_DISTINCT; i++)
		first[i] = ~0ull;
	sc = str_canon__new(data, size);
	if (!sc)
		return 1;
	/* look them all up, in another order */
	for (i = 0; i < nr; i++) {
		size_t s = (i * 7919) % nr; /* 7919 is prime, nr is not a multiple */
		uint32_t k = owner[s];
		uint64_t want = first[k] == ~0ull ? off[s] : first[k], got;

		got = str_canon__offset(sc, off[s]);
		if (got != want && ++fails <= 10) {
			fprintf(stderr, "string %zu (\"%s\", at %llu): %llu, expected %llu\n", s,
				data + off[s], (unsigned long long)off[s], (unsigned long long)got,
				(unsigned long long)want);
		}
		if (first[k] == ~0ull)
			first[k] = off[s];
		else if (strcmp(data + first[k], data + off[s])) {
			fprintf(stderr, "test model: strings %llu and %llu differ\n",
				(unsigned long long)first[k], (unsigned long long)off[s]);
			return 1;
		}
	}
	/* no string at the offset: unchanged */
	if (str_canon__offset(sc, size) != size ||
	    str_canon__offset(sc, size + 100) != size + 100 ||
	    str_canon__offset(sc, size - 3) != size - 3 ||
	    str_canon__offset(sc, size - 1) != size - 1) {
		fprintf(stderr, "an offset with no string was changed\n");
		fails++;
	}
	str_canon__free(sc);
	free(owner);
	free(off);
	free(first);
	free(data);
	printf("%zu strings, %d distinct: %d mismatches\n", nr, NR_DISTINCT, fails);
	return fails ? 1 : 0;
}
