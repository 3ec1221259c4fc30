// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_load_init.c - /init of the initramfs tests/boot.sh boots under qemu.
 *
 * Built static by boot.sh with the system gcc (not by CMake: the sanitizer
 * and fuzzing builds add -fsanitize to every target, and a sanitized binary
 * cannot be linked static). It mounts sysfs, runs the commands in /btf/list
 * (one per line, words separated by blanks) and prints one line per result
 * on the console, each starting with a fixed tag that boot.sh greps for:
 *
 *   load FILE            bpf(BPF_BTF_LOAD) of FILE without a log; on failure
 *                        again with log_level 1 and a buffer large enough
 *                        for the whole log (the kernel of 6.1 truncates it
 *                        silently), whose last lines are printed:
 *                          BTFLOAD ok FILE fd=N id=ID size=BYTES
 *                          BTFLOAD fail FILE errno=E (text)
 *                          BTFLOG FILE: <a line of the verifier log>
 *   cmp FILE1 FILE2      CMP same|differ|error FILE1 FILE2 ...
 *   insmod KO NAME BTF   finit_module(KO) with the kernel log cleared first;
 *                        then whether /sys/kernel/btf/NAME exists and has the
 *                        bytes of BTF, the kernel log lines the load produced,
 *                        and delete_module(NAME):
 *                          MODLOAD ok|fail KO errno=E
 *                          MODBTF present NAME size=N same=yes|no
 *                          MODBTF absent NAME
 *                          KLOG NAME: <a kernel log line>
 *                          RMMOD ok|fail NAME errno=E
 *
 * Then it prints "BTFLOAD-DONE" and powers the machine off. Nothing here
 * decides what is expected: boot.sh does, from the console output.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#define LOG_TAIL_LINES 30
#define LOG_MAX (512u << 20)
#define KLOG_LINES 60

/* one write(2) per line, so that kernel messages do not split it */
static void out(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	buf[0] = '\n';
	va_start(ap, fmt);
	n = vsnprintf(buf + 1, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 3)
		n = sizeof(buf) - 3;
	buf[n + 1] = '\n';
	/* the leading newline ends whatever the kernel left unterminated */
	if (write(1, buf, n + 2) < 0)
		return;
}

/* the whole of FILE (sysfs files report no useful size: read to EOF) */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			char *p = realloc(buf, cap *= 2);

			if (!p) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	*len = n;
	return buf;
}

static int btf_load(const void *data, size_t size, char *log, uint32_t log_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)data;
	attr.btf_size = size;
	if (log) {
		attr.btf_log_buf = (uintptr_t)log;
		attr.btf_log_size = log_size;
		attr.btf_log_level = 1;
	}
	return syscall(SYS_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
}

/* print the last LOG_TAIL_LINES lines of LOG */
static void print_log_tail(const char *name, const char *log)
{
	const char *end = log + strlen(log), *p = end;
	int lines = 0;

	while (p > log && (p[-1] == '\n'))
		p--, end--;
	while (p > log && lines < LOG_TAIL_LINES) {
		p--;
		if (*p == '\n')
			lines++;
	}
	if (*p == '\n')
		p++;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		int len = nl ? (int)(nl - p) : (int)(end - p);

		out("BTFLOG %s: %.*s", name, len, p);
		p += len + 1;
	}
}

static void cmd_load(const char *path)
{
	size_t size;
	char *data = slurp(path, &size);
	int fd, err;

	if (!data) {
		out("BTFLOAD fail %s errno=%d (cannot read: %s)", path, errno, strerror(errno));
		return;
	}
	fd = btf_load(data, size, NULL, 0);
	if (fd >= 0) {
		struct bpf_btf_info info;
		union bpf_attr attr;

		memset(&info, 0, sizeof(info));
		memset(&attr, 0, sizeof(attr));
		attr.info.bpf_fd = fd;
		attr.info.info_len = sizeof(info);
		attr.info.info = (uintptr_t)&info;
		if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)) == 0)
			out("BTFLOAD ok %s fd=%d id=%u size=%u (file %zu bytes)", path, fd, info.id,
			    info.btf_size, size);
		else
			out("BTFLOAD ok %s fd=%d (file %zu bytes)", path, fd, size);
		close(fd);
		free(data);
		return;
	}
	err = errno;
	out("BTFLOAD fail %s errno=%d (%s)", path, err, strerror(err));
	/* again with the verifier log; 6.1 drops what does not fit silently */
	for (uint32_t log_size = 16u << 20; log_size <= LOG_MAX; log_size *= 2) {
		char *log = calloc(1, log_size);

		if (!log) {
			out("BTFLOG %s: (no memory for a %u byte log)", path, log_size);
			break;
		}
		fd = btf_load(data, size, log, log_size);
		if (fd >= 0) {
			out("BTFLOG %s: (loaded with log_level 1?!)", path);
			close(fd);
			free(log);
			break;
		}
		if (strlen(log) < log_size - 2 || log_size == LOG_MAX) {
			out("BTFLOG %s: (errno=%d with log_level 1, log %zu bytes, last lines:)",
			    path, errno, strlen(log));
			print_log_tail(path, log);
			free(log);
			break;
		}
		free(log);
	}
	free(data);
}

static void cmd_cmp(const char *a, const char *b)
{
	size_t la, lb;
	char *da = slurp(a, &la), *db = slurp(b, &lb);

	if (!da || !db)
		out("CMP error %s %s (cannot read)", a, b);
	else if (la == lb && memcmp(da, db, la) == 0)
		out("CMP same %s %s (%zu bytes)", a, b, la);
	else
		out("CMP differ %s %s (%zu and %zu bytes)", a, b, la, lb);
	free(da);
	free(db);
}

static void print_klog(const char *name)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p, *nl;
	int n, lines = 0;

	if (size <= 0)
		size = 1 << 20;
	buf = malloc(size + 1);
	if (!buf)
		return;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL, since the last clear */, buf, size);
	if (n < 0) {
		out("KLOG %s: (klogctl: %s)", name, strerror(errno));
		free(buf);
		return;
	}
	buf[n] = 0;
	for (p = buf; *p && lines < KLOG_LINES; p = nl + 1, lines++) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		out("KLOG %s: %.*s", name, (int)(nl - p + (*nl != '\n')), p);
	}
	free(buf);
}

static void cmd_insmod(const char *ko, const char *name, const char *btf)
{
	char sys[256];
	int fd, r, err;

	klogctl(5 /* SYSLOG_ACTION_CLEAR */, NULL, 0);
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		out("MODLOAD fail %s errno=%d (open: %s)", ko, errno, strerror(errno));
		return;
	}
	r = syscall(SYS_finit_module, fd, "", 0);
	err = errno;
	close(fd);
	if (r == 0)
		out("MODLOAD ok %s errno=0", ko);
	else
		out("MODLOAD fail %s errno=%d (%s)", ko, err, strerror(err));

	snprintf(sys, sizeof(sys), "/sys/kernel/btf/%s", name);
	if (access(sys, F_OK) == 0) {
		size_t ls, lb;
		char *ds = slurp(sys, &ls), *db = slurp(btf, &lb);

		out("MODBTF present %s size=%zu same=%s", name, ds ? ls : 0,
		    ds && db && ls == lb && memcmp(ds, db, ls) == 0 ? "yes" : "no");
		free(ds);
		free(db);
	} else {
		out("MODBTF absent %s", name);
	}
	print_klog(name);
	if (r == 0) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
			out("RMMOD ok %s errno=0", name);
		else
			out("RMMOD fail %s errno=%d (%s)", name, errno, strerror(errno));
	}
}

int main(void)
{
	struct utsname u;
	size_t len;
	char *list, *line, *save;

	mkdir("/sys", 0755);
	if (mount("sysfs", "/sys", "sysfs", 0, NULL) != 0)
		out("INIT mount sysfs: %s", strerror(errno));
	if (uname(&u) == 0)
		out("INIT kernel %s %s", u.release, u.version);

	list = slurp("/btf/list", &len);
	if (!list) {
		out("INIT no /btf/list: %s", strerror(errno));
	} else {
		list = realloc(list, len + 1);
		list[len] = 0;
		for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *w[4] = { 0 }, *s2;
			int n = 0;

			for (char *t = strtok_r(line, " \t", &s2); t && n < 4;
			     t = strtok_r(NULL, " \t", &s2))
				w[n++] = t;
			if (n == 2 && strcmp(w[0], "load") == 0)
				cmd_load(w[1]);
			else if (n == 3 && strcmp(w[0], "cmp") == 0)
				cmd_cmp(w[1], w[2]);
			else if (n == 4 && strcmp(w[0], "insmod") == 0)
				cmd_insmod(w[1], w[2], w[3]);
			else if (n > 0 && w[0][0] != '#')
				out("INIT bad list line: %s", w[0]);
		}
		free(list);
	}
	out("BTFLOAD-DONE");
	sync();
	reboot(RB_POWER_OFF);
	/* reboot failed: exiting makes the kernel panic, and panic=-1 with
	 * qemu's -no-reboot ends the run as well */
	out("INIT poweroff failed: %s", strerror(errno));
	return 1;
}
