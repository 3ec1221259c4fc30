// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_btf_section - put the BTF into the input ELF file (-J without
 * --btf_encode_detached), as pahole 1.30 does, but atomically.
 *
 * pahole edits the file in place, one section after the other (.BTF, then
 * .BTF.base with distilled_base): if it has a section of that name, libelf
 * replaces its data and rewrites the file (elf_update); otherwise the raw
 * BTF goes to a temporary file and `$LLVM_OBJCOPY --add-section
 * .BTF=<tmp> <file>` (llvm-objcopy by default; the kernel sets LLVM_OBJCOPY
 * to its $(OBJCOPY)) adds it. A failure half-way leaves a damaged input.
 *
 * Here the same operations run on a copy of the input, made next to it
 * with the same mode and owner, and the copy is renamed over the input only
 * once the operation succeeded. Any failure removes the temporary files and
 * leaves the input byte for byte as it was. A symbolic link is followed; a
 * file with several hard links gets the result written back into it (as
 * objcopy does), which keeps the links but is not atomic.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <gelf.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "d2b_util.h"
#include "elf_btf_section.h"
#include "tmpfiles.h"

extern char **environ;

static int copy_file(int in, int out, off_t size)
{
	char buf[1 << 16];
	off_t done = 0;

	while (done < size) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)(size - done), 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			n = read(in, buf, sizeof(buf));
			if (n > 0 && d2b_write_all(out, buf, (size_t)n))
				return -errno;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO; /* the input shrank under us */
		done += n;
	}
	return 0;
}

/* is there a section called @sec->name? replace its data if so (1), else 0 */
static int elf_replace_section(int fd, const struct elf_btf_section *sec)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * As pahole: the whole file dirty, so that libelf writes all of it,
	 * and zero-fills the bytes a new layout leaves between sections
	 */
	elf_flagelf(elf, ELF_C_SET, ELF_F_DIRTY);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, sec->name))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data) {
			ret = -EINVAL;
			goto out;
		}
		data->d_buf = (void *)sec->data;
		data->d_size = sec->size;
		elf_flagdata(data, ELF_C_SET, ELF_F_DIRTY);
		ret = elf_update(elf, ELF_C_NULL) >= 0 && elf_update(elf, ELF_C_WRITE) >= 0 ? 1
											    : -EIO;
		goto out;
	}
out:
	if (elf)
		elf_end(elf);
	return ret;
}

/*
 * $LLVM_OBJCOPY --add-section @name=@btf_path @elf_path, through sh as pahole's
 * system() (so LLVM_OBJCOPY may hold several words). objcopy runs in its own
 * process group with our fatal signals held until it is done: a ^C cannot
 * kill it half-way (GNU objcopy would leave its own temporary file), and the
 * held signal then removes our temporary files. Returns 0, -errno, or the
 * exit status (> 0) of a failed objcopy.
 */
static int objcopy_add_section(const char *name, const char *btf_path, const char *elf_path)
{
	const char *objcopy = getenv("LLVM_OBJCOPY");
	char *arg = NULL, *script = NULL;
	char *argv[] = { "sh", "-c", NULL, "sh", NULL, NULL, NULL };
	posix_spawnattr_t attr;
	sigset_t fatal, old, none;
	pid_t pid;
	int status, err;

	if (!objcopy || !*objcopy)
		objcopy = "llvm-objcopy";
	if (asprintf(&script, "exec %s --add-section \"$1\" \"$2\"", objcopy) < 0)
		return -ENOMEM;
	if (asprintf(&arg, "%s=%s", name, btf_path) < 0) {
		free(script);
		return -ENOMEM;
	}
	argv[2] = script;
	argv[4] = arg;
	argv[5] = (char *)elf_path;
	sigemptyset(&none);
	sigemptyset(&fatal);
	sigaddset(&fatal, SIGINT);
	sigaddset(&fatal, SIGTERM);
	sigaddset(&fatal, SIGHUP);
	sigaddset(&fatal, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	pthread_sigmask(SIG_BLOCK, &fatal, &old);
	err = -posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	while (!err && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			err = -errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	posix_spawnattr_destroy(&attr);
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	free(script);
	free(arg);
	return err;
}

/* is the @len-byte word @cmd a program sh finds (a path, or on $PATH)? */
static bool command_found(const char *cmd, size_t len)
{
	const char *path = getenv("PATH"), *p;
	char buf[4096];

	if (!len || len >= sizeof(buf))
		return true; /* (sh will say) */
	if (memchr(cmd, '/', len)) {
		snprintf(buf, sizeof(buf), "%.*s", (int)len, cmd);
		return !access(buf, X_OK);
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t dlen = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s/%.*s", (int)dlen, p, (int)len, cmd) <
			    (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		p += dlen;
	}
	return false;
}

/* write the finished copy back into @fd, the original (it has other hard links) */
static int copy_back(const char *copy, int fd)
{
	struct stat st;
	int in = open(copy, O_RDONLY | O_CLOEXEC), err;

	if (in < 0)
		return -errno;
	err = fstat(in, &st) < 0 ? -errno : 0;
	if (!err && ftruncate(fd, 0) < 0)
		err = -errno;
	if (!err)
		err = copy_file(in, fd, st.st_size);
	close(in);
	return err;
}

/* remove temporary file @path (from tmpfiles__create_next_to) and free it */
static void tmp_remove(char *path)
{
	if (!path)
		return;
	unlink(path);
	tmpfiles__del(path);
	free(path);
}

/*
 * @sec added to @copy (a copy of @name) by $LLVM_OBJCOPY, from a temporary
 * file made next to @path; 0 or -errno, with the message printed
 */
static int objcopy_add(const char *name, const char *path, const char *copy,
		       const struct elf_btf_section *sec)
{
	const char *oc = getenv("LLVM_OBJCOPY"), *prog;
	char *btf_tmp = NULL;
	size_t len;
	int fd, err;

	if (!oc || !*oc)
		oc = "llvm-objcopy";
	/* (LLVM_OBJCOPY may hold several words: the program is the first) */
	prog = oc + strspn(oc, " \t");
	len = strcspn(prog, " \t");
	if (!command_found(prog, len)) {
		pr_warn("%s: cannot add the %s section: '%.*s' not found (LLVM_OBJCOPY "
			"names the objcopy to use, e.g. LLVM_OBJCOPY=objcopy)\n",
			name, sec->name, (int)len, prog);
		return -ENOENT;
	}
	fd = tmpfiles__create_next_to(path, "btf", &btf_tmp);
	err = fd < 0 ? fd : d2b_write_all(fd, sec->data, sec->size);
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		pr_warn("%s: cannot write the BTF next to it: %s\n", name, strerror(-err));
		goto out;
	}
	err = objcopy_add_section(sec->name, btf_tmp, copy);
	if (err > 0) {
		pr_warn("%s: cannot add the %s section: '%s --add-section' exited with status %d\n",
			name, sec->name, oc, err);
		err = -EIO;
	} else if (err) {
		pr_warn("%s: cannot run '%s': %s\n", name, oc, strerror(-err));
	}
out:
	tmp_remove(btf_tmp);
	return err;
}

/*
 * the finished @copy put in the place of @path (described by @st): renamed
 * over it, or, if it has other hard links, written back into it; 0 or
 * -errno, with the message printed
 */
static int copy_install(const char *name, const char *path, const char *copy, const struct stat *st)
{
	int err = 0;

	if (st->st_nlink > 1) {
		/* other hard links must see the result too: write it back in place */
		int fd = open(path, O_WRONLY | O_CLOEXEC);

		err = fd < 0 ? -errno : copy_back(copy, fd);
		if (fd >= 0 && close(fd) < 0 && !err)
			err = -errno;
	} else if (rename(copy, path) < 0) {
		err = -errno;
	}
	if (err)
		pr_warn("%s: cannot replace it: %s\n", name, strerror(-err));
	return err;
}

/*
 * @sec put into @copy (a copy of @name, which is @path): replaced by libelf
 * where @copy has it, else added by objcopy; 0 or -errno, with the message
 * printed. @copy is opened anew: objcopy replaces the file it changes.
 */
static int section_put(const char *name, const char *path, const char *copy,
		       const struct elf_btf_section *sec)
{
	int fd = open(copy, O_RDWR | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		pr_warn("%s: cannot open its temporary copy: %s\n", name, strerror(-err));
		return err;
	}
	err = elf_replace_section(fd, sec);
	if (err < 0)
		pr_warn("%s: cannot replace the %s section: %s\n", name, sec->name, elf_errmsg(-1));
	if (close(fd) < 0 && err >= 0) {
		err = -errno;
		pr_warn("%s: cannot write: %s\n", name, strerror(-err));
	}
	if (err == 0)
		err = objcopy_add(name, path, copy, sec);
	return err < 0 ? err : 0;
}

int elf_btf__write_in_place(const char *name, const struct elf_btf_section *secs, unsigned int nr)
{
	unsigned int i;
	char *copy = NULL, *path;
	int in = -1, out = -1, err;
	struct stat st;

	/* a symbolic link: change the file it points to, as objcopy does */
	path = realpath(name, NULL);
	if (!path) {
		err = -errno;
		pr_warn("%s: %s\n", name, strerror(-err));
		return err;
	}
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		err = -errno;
		pr_warn("%s: %s\n", name, strerror(errno));
		goto out;
	}
	out = tmpfiles__create_next_to(path, "tmp", &copy);
	if (out < 0) {
		err = out;
		pr_warn("%s: cannot create a temporary copy next to it: %s\n", name,
			strerror(-err));
		goto out;
	}
	err = copy_file(in, out, st.st_size);
	if (!err && fchmod(out, st.st_mode & 07777) < 0)
		err = -errno;
	if (!err && fchown(out, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		err = -errno;
	if (err) {
		pr_warn("%s: cannot copy: %s\n", name, strerror(-err));
		goto out;
	}
	err = close(out) < 0 ? -errno : 0;
	out = -1;
	if (err) {
		pr_warn("%s: cannot write: %s\n", name, strerror(-err));
		goto out;
	}
	/* one after the other, as pahole writes each (its btf_encoder__write_elf) */
	for (i = 0; i < nr && !err; i++)
		err = section_put(name, path, copy, &secs[i]);
	if (!err)
		err = copy_install(name, path, copy, &st);
out:
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	tmp_remove(copy);
	free(path);
	return err;
}
