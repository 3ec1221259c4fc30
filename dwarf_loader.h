/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_loader - read the DWARF of one compilation unit into the small model
 * the BTF encoder needs (struct cu, cu.h).
 *
 * A struct dwarf_loader owns the open ELF file, its mapped (in a module,
 * relocated) debug sections and the list of units in .debug_info order;
 * unit i has id i. dwarf_loader__load_cu() may run on many threads at once,
 * one unit per call: each reads its unit with its own dwarf_reader state
 * (dwarf_reader.h), and the sections are read-only once the loader is open.
 * The model's strings point into those sections and live as long as the
 * loader.
 */
#ifndef DWARF_LOADER_H
#define DWARF_LOADER_H

#include <stddef.h>

#include "cu.h"

struct dwarf_loader;
struct d2b_conf;

/*
 * Open @path and index its units. Returns a loader or NULL with *err set
 * (-errno); messages name the file. Not thread-safe; call once.
 */
struct dwarf_loader *dwarf_loader__new(const char *path, const struct d2b_conf *conf, int *err);
void dwarf_loader__free(struct dwarf_loader *dl);

unsigned int dwarf_loader__nr_cus(const struct dwarf_loader *dl);
/*
 * .debug_str, whose strings stay valid and unchanged until __free, if the
 * DWARF refers to each distinct string at one address: a linked file's,
 * where the linker merged equal strings, or a relocatable file's whose
 * references the loader made canonical (str_canon.h); else *@data is NULL
 */
void dwarf_loader__str_section(const struct dwarf_loader *dl, const char **data, size_t *size);

/*
 * Load unit @id into a new struct cu (*@cup). Thread-safe for distinct ids.
 * Returns 0 or -errno; a one-line error naming the file, CU and DIE offset
 * is then kept for dwarf_loader__report().
 */
int dwarf_loader__load_cu(struct dwarf_loader *dl, unsigned int id, struct cu **cup);

/*
 * Unit @id, loaded, failed on the worker after its load (the encoder could
 * not encode it): @msg (malloc'ed, one line or more, without the
 * "dwarf2btf: " prefix) is kept for dwarf_loader__report() as a load
 * error's would be. Thread-safe for distinct ids.
 */
void dwarf_loader__keep_err(struct dwarf_loader *dl, unsigned int id, char *msg);

/* print why unit @id failed to load, if it did; after the loads are done */
void dwarf_loader__report(const struct dwarf_loader *dl, unsigned int id);

/*
 * No dwarf_loader__load_cu() runs or will, and every unit it loaded was
 * freed: the buffers kept for the next unit (one set per worker) and the
 * units' ring go now rather than with the loader.
 */
void dwarf_loader__end_loads(struct dwarf_loader *dl);

/*
 * Units 0..@cu->id are done: the pages of the debug sections they read may
 * leave the process's resident set (they are read again from the file if
 * ever touched again); the loader's own thread drops them. Call in id
 * order, from one thread at a time (the encoder's writer).
 */
void dwarf_loader__release_cu(struct dwarf_loader *dl, const struct cu *cu);

/*
 * The first name in the comma-separated @list that is no DWARF language
 * --lang_exclude knows: its offset in @list (and its length in *@bad_len),
 * or -1 if every name is known. Case does not matter; empty names are.
 */
int dwarf_loader__lang_check(const char *list, size_t *bad_len);

#endif /* DWARF_LOADER_H */
