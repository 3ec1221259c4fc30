// SPDX-License-Identifier: GPL-2.0-only
/*
 * tmpfiles - clean up temporary files on a fatal signal; see tmpfiles.h.
 *
 * A signal handler can only reach process-wide state, so this is the one
 * module with file-scope mutable state: a few slots holding registered
 * paths. They are written only by the main thread, with signals blocked
 * around each change, and read by the handler, which uses only
 * async-signal-safe calls (unlink, signal, raise).
 */
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmpfiles.h"

#define MAX_TMPFILES 4

static const char *volatile tmp_paths[MAX_TMPFILES]; /* guarded by blocking signals */

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void tmpfiles_handler(int sig)
{
	int i;

	for (i = 0; i < MAX_TMPFILES; i++)
		if (tmp_paths[i])
			unlink(tmp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void signals_block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&set, fatal_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

void tmpfiles__init(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tmpfiles_handler;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&sa.sa_mask, fatal_signals[i]);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

void tmpfiles__add(const char *path)
{
	sigset_t old;
	int i;

	signals_block(&old);
	for (i = 0; i < MAX_TMPFILES; i++) {
		if (!tmp_paths[i]) {
			tmp_paths[i] = path;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void tmpfiles__del(const char *path)
{
	sigset_t old;
	int i;

	signals_block(&old);
	for (i = 0; i < MAX_TMPFILES; i++)
		if (tmp_paths[i] == path)
			tmp_paths[i] = NULL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int tmpfiles__create_next_to(const char *path, const char *tag, char **tmp)
{
	char *d = strdup(path), *b = strdup(path);
	int fd = -ENOMEM;

	*tmp = NULL;
	if (d && b && asprintf(tmp, "%s/.%s.%s.XXXXXX", dirname(d), basename(b), tag) < 0)
		*tmp = NULL;
	if (*tmp) {
		fd = mkstemp(*tmp);
		if (fd < 0) {
			fd = -errno;
			free(*tmp);
			*tmp = NULL;
		} else {
			tmpfiles__add(*tmp);
		}
	}
	free(d);
	free(b);
	return fd;
}
