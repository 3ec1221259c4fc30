/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tmpfiles - temporary files (and a child process) that must not outlive an
 * interrupted run.
 *
 * dwarf2btf writes its output to temporary files that are renamed into place
 * only when complete. If SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives first,
 * the handler removes the registered files and lets the signal end the
 * process as it would have.
 */
#ifndef TMPFILES_H
#define TMPFILES_H

/* install the signal handlers; call once, before any thread starts */
void tmpfiles__init(void);
/* @path (kept by the caller until unregistered) is removed on a signal */
void tmpfiles__add(const char *path);
void tmpfiles__del(const char *path);
/*
 * Create "<dir>/.<base>.<tag>.XXXXXX" next to @path, in its directory so a
 * rename() moves it over @path, and register it (tmpfiles__add). Returns
 * its descriptor, with the malloc'ed name in *@tmp, or -errno (*@tmp NULL).
 */
int tmpfiles__create_next_to(const char *path, const char *tag, char **tmp);

#endif /* TMPFILES_H */
