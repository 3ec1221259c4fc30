/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * str_canon - one offset for each distinct string of a relocatable file's
 * .debug_str.
 *
 * A linked vmlinux has one copy of each string in .debug_str: the linker
 * merges them, so the encoder can take a name's address for its contents
 * (its string offsets by address). A kernel module is made by ld -r, which
 * only puts its objects' string sections end to end: mlx5_core.ko's holds
 * 783 K strings, 23.7 K of them distinct. Its DWARF reaches them through
 * relocations, which the loader applies (loader_sections.c, loader__relocate);
 * passing each offset they write into .debug_str through
 * str_canon__offset makes every reference to the same contents the same
 * offset, as in a linked file.
 *
 * One thread uses a struct str_canon (the loader's, at open); no locking.
 */
#ifndef STR_CANON_H
#define STR_CANON_H

#include <stddef.h>
#include <stdint.h>

struct str_canon;

/* for the string section @data (@size bytes); NULL: no memory */
struct str_canon *str_canon__new(const char *data, size_t size);
void str_canon__free(struct str_canon *sc);

/*
 * The offset of the first string passed here with the contents of the one
 * at @off, which it becomes if it is the first; @off itself if there is no
 * string there (past the end, or no NUL before it) or no memory to record it.
 */
uint64_t str_canon__offset(struct str_canon *sc, uint64_t off);

#endif /* STR_CANON_H */
