// SPDX-License-Identifier: GPL-2.0-only
/*
 * d2b_util - the shared helpers that are not on a hot path (d2b_util.h
 * keeps the inline ones): the thread's message stream, the regular-file
 * check, big mappings and the helper threads' nice.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "d2b_util.h"

__thread FILE *d2b_msgs;

int d2b_regular_file(int fd, const char *path)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) < 0 || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		int err = -errno;

		pr_warn("%s: %s\n", path, strerror(errno));
		return err;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	pr_warn("%s: not a regular file (%s)\n", path,
		S_ISDIR(st.st_mode)    ? "a directory"
		: S_ISFIFO(st.st_mode) ? "a FIFO"
		: S_ISCHR(st.st_mode)  ? "a character device"
		: S_ISBLK(st.st_mode)  ? "a block device"
		: S_ISSOCK(st.st_mode) ? "a socket"
				       : "not a file");
	return -EINVAL;
}

int d2b_write_all(int fd, const void *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(fd, (const char *)buf + done, size - done);

		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	return 0;
}

void *d2b_map(size_t n, size_t *sz)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t align = n >= D2B_HUGE ? D2B_HUGE : page, extra = align - page;
	char *p, *a;

	if (n > SIZE_MAX - 2 * D2B_HUGE)
		return NULL;
	*sz = (n + align - 1) & ~(align - 1);
	/* @extra more, to cut an aligned *@sz out of it */
	p = (char *)mmap(NULL, *sz + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + *sz + extra > a + *sz)
		munmap(a + *sz, (size_t)(p + *sz + extra - (a + *sz)));
	if (align == D2B_HUGE)
		madvise(a, *sz, MADV_HUGEPAGE); /* a hint: its failure changes nothing */
	return a;
}

void d2b_thread_nicer(int delta)
{
	id_t tid = (id_t)syscall(SYS_gettid);
	int nice;

	if (delta <= 0)
		return;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (nice == -1 && errno)
		return;
	nice = nice + delta > 19 ? 19 : nice + delta;
	(void)setpriority(PRIO_PROCESS, tid, nice);
}

struct d2b_idle_pool *d2b_idle_pool__new(void)
{
	struct d2b_idle_pool *p = calloc(1, sizeof(*p));

	if (p && pthread_mutex_init(&p->lock, NULL)) {
		free(p);
		p = NULL;
	}
	return p;
}

void d2b_idle_pool__free(struct d2b_idle_pool *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void *d2b_idle_pool__take(struct d2b_idle_pool *p)
{
	struct d2b_idle *o;

	pthread_mutex_lock(&p->lock);
	o = p->top;
	if (o)
		p->top = o->next;
	pthread_mutex_unlock(&p->lock);
	return o;
}

void d2b_idle_pool__put(struct d2b_idle_pool *p, void *obj)
{
	struct d2b_idle *o = obj;

	pthread_mutex_lock(&p->lock);
	o->next = p->top;
	p->top = o;
	pthread_mutex_unlock(&p->lock);
}
