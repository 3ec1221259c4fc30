/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * packed_structs - pahole 1.32's "uncertain parameter location": a function
 * that takes a packed struct by value on the stack is left out.
 */
#ifndef PACKED_STRUCTS_H
#define PACKED_STRUCTS_H

#include <stdbool.h>
#include <stdint.h>

struct cu;
struct cu_func;

/* what one CU's structs were inferred to be, in the order it was inferred */
struct packed_memo {
	struct packed_entry {
		uint32_t idx; /* types[] index */
		bool packed;
	} * e;
	uint32_t nr, cap;
};

/* forget the last CU's inferences (a new CU starts) */
void packed_memo__reset(struct packed_memo *m);
void packed_memo__free(struct packed_memo *m);

/*
 * Whether pahole 1.32 leaves @fn out for an uncertain parameter location:
 * a parameter past the machine's register parameters whose type is a named
 * struct (not through a typedef) inferred packed. The inference is pahole's,
 * with its memory: asked of @cu's functions in their order, it remembers in
 * @memo what it inferred, including the structs it found at unnatural
 * offsets inside others. -ENOMEM, or 0 (no) or 1 (yes).
 */
int func__uncertain_param_loc(const struct cu *cu, const struct cu_func *fn,
			      struct packed_memo *memo);

#endif /* PACKED_STRUCTS_H */
