// SPDX-License-Identifier: GPL-2.0-only
/*
 * elf_btf_section - put the BTF into the input ELF file (-J without
 * --btf_encode_detached), as pahole 1.30 does, but atomically.
 *
 * pahole edits the file in place: if it has a .BTF section, libelf replaces
 * that section's data and rewrites the file (elf_update); otherwise the raw
 * BTF goes to a temporary file and `$LLVM_OBJCOPY --add-section
 * .BTF=<tmp> <file>` (llvm-objcopy by default; the kernel sets LLVM_OBJCOPY
 * to its $(OBJCOPY)) adds it. A failure half-way leaves a damaged input.
 *
 * Here the same two operations run on a copy of the input, made next to it
 * with the same mode and owner, and the copy is renamed over the input only
 * once the operation succeeded. Any failure removes the temporary files and
 * leaves the input byte for byte as it was.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "d2b_util.h"
#include "elf_btf_section.h"
#include "tmpfiles.h"

extern char **environ;

static int write_all(int fd, const void *buf, size_t size)
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

/* a temporary file next to @path: "<dir>/.<base>.<tag>.XXXXXX" */
static int tmp_next_to(const char *path, const char *tag, char **tmp)
{
	char *d = strdup(path), *b = strdup(path);
	int fd = -ENOMEM;

	if (d && b && asprintf(tmp, "%s/.%s.%s.XXXXXX", dirname(d), basename(b), tag) >= 0) {
		fd = mkstemp(*tmp);
		if (fd < 0) {
			fd = -errno;
			free(*tmp);
			*tmp = NULL;
		} else {
			tmpfiles__add(*tmp);
		}
	} else {
		*tmp = NULL;
	}
	free(d);
	free(b);
	return fd;
}

static int copy_file(int in, int out, off_t size)
{
	char buf[1 << 16];
	off_t done = 0;

	while (done < size) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)(size - done), 0);

		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			n = read(in, buf, sizeof(buf));
			if (n > 0 && write_all(out, buf, (size_t)n))
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

/* is there a section called .BTF? replace its data if so (1), else 0 */
static int elf_replace_btf(int fd, const void *btf, size_t size)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = 0;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx)) {
		ret = -EINVAL;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data) {
			ret = -EINVAL;
			goto out;
		}
		data->d_buf = (void *)btf;
		data->d_size = size;
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

/* $LLVM_OBJCOPY --add-section .BTF=@btf_path @elf_path, through sh as pahole's system() */
static int objcopy_add_section(const char *btf_path, const char *elf_path)
{
	const char *objcopy = getenv("LLVM_OBJCOPY");
	char *arg = NULL, *script = NULL;
	char *argv[] = { "sh", "-c", NULL, "sh", NULL, NULL, NULL };
	pid_t pid;
	int status, err;

	if (!objcopy || !*objcopy)
		objcopy = "llvm-objcopy";
	if (asprintf(&script, "%s --add-section \"$1\" \"$2\"", objcopy) < 0)
		return -ENOMEM;
	if (asprintf(&arg, ".BTF=%s", btf_path) < 0) {
		free(script);
		return -ENOMEM;
	}
	argv[2] = script;
	argv[4] = arg;
	argv[5] = (char *)elf_path;
	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (!err)
		tmpfiles__set_child(pid);
	if (err) {
		err = -err;
	} else if (waitpid(pid, &status, 0) < 0) {
		err = -errno;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		pr_warn("%s: '%s --add-section .BTF=...' failed (status %d)\n", elf_path, objcopy,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		err = -EIO;
	}
	tmpfiles__set_child(0);
	free(script);
	free(arg);
	return err;
}

int elf_btf__write_in_place(const char *path, const void *btf, size_t size)
{
	char *copy = NULL, *btf_tmp = NULL;
	int in = -1, out = -1, bfd = -1, err;
	struct stat st;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		err = -errno;
		pr_warn("%s: %s\n", path, strerror(errno));
		goto out;
	}
	out = tmp_next_to(path, "tmp", &copy);
	if (out < 0) {
		err = out;
		pr_warn("%s: cannot create a temporary copy next to it: %s\n", path, strerror(-err));
		goto out;
	}
	err = copy_file(in, out, st.st_size);
	if (!err && fchmod(out, st.st_mode & 07777) < 0)
		err = -errno;
	if (!err && fchown(out, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		err = -errno;
	if (err) {
		pr_warn("%s: cannot copy: %s\n", path, strerror(-err));
		goto out;
	}
	err = elf_replace_btf(out, btf, size);
	if (err < 0) {
		pr_warn("%s: cannot replace the .BTF section: %s\n", path, elf_errmsg(-1));
		goto out;
	}
	if (err == 0) {
		bfd = tmp_next_to(path, "btf", &btf_tmp);
		err = bfd < 0 ? bfd : write_all(bfd, btf, size);
		if (!err && close(bfd) < 0)
			err = -errno;
		bfd = -1;
		if (!err)
			err = objcopy_add_section(btf_tmp, copy);
		if (err) {
			pr_warn("%s: cannot add the .BTF section: %s\n", path, strerror(-err));
			goto out;
		}
	}
	if (close(out) < 0) {
		err = -errno;
		out = -1;
		goto out;
	}
	out = -1;
	if (rename(copy, path) < 0) {
		err = -errno;
		pr_warn("%s: cannot replace it: %s\n", path, strerror(errno));
		goto out;
	}
	tmpfiles__del(copy);
	free(copy);
	copy = NULL;
	err = 0;
out:
	if (bfd >= 0)
		close(bfd);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	if (btf_tmp) {
		unlink(btf_tmp);
		tmpfiles__del(btf_tmp);
		free(btf_tmp);
	}
	if (copy) {
		unlink(copy);
		tmpfiles__del(copy);
		free(copy);
	}
	return err;
}
