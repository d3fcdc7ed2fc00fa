/*
 * symtest.h: helpers shared by the symbol unit tests: running a tool (compiler,
 * addr2line, objdump, strip) with an argv and capturing its output, a private
 * temporary directory, and mapping a binary into a session the way the dynamic
 * loader maps it (one map per executable PT_LOAD).
 */
#ifndef TDPROF_TESTS_SYMTEST_H
#define TDPROF_TESTS_SYMTEST_H

#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "symbol/symbol.h"

#define ST_SKIP 77
/* where a PIE is mapped in the tests (as the kernel places one without ASLR) */
#define ST_PIE_BASE 0x555555554000ull

/* Run argv; its stdout into *out (heap, NUL-terminated; may be NULL to drop it).
 * Returns the exit status, or -1 when it could not run. */
static inline int st_run(char *const argv[], char **out)
{
	int pfd[2];
	pid_t pid;
	int status = -1;
	size_t len = 0, cap = 4096;
	char *buf = NULL;

	if (out)
		*out = NULL;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(pfd[1], 1);
		if (devnull >= 0)
			dup2(devnull, 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	buf = malloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		n = read(pfd[0], buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		status = -1;
	else
		status = WEXITSTATUS(status);
	if (out)
		*out = buf;
	else
		free(buf);
	return status;
}

/* Is `prog` on PATH? */
static inline bool st_have(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (!access(buf, X_OK))
			return true;
		path += n + (colon ? 1 : 0);
	}
	return false;
}

static inline int st_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void st_rm_rf(const char *dir)
{
	nftw(dir, st_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* $TDPROF_SOURCE_ROOT/tests/data/symbol/<name> */
static inline void st_src(char *buf, size_t size, const char *name)
{
	const char *root = getenv("TDPROF_SOURCE_ROOT");

	snprintf(buf, size, "%s/tests/data/symbol/%s", root && *root ? root : ".", name);
}

static inline void st_mkdirs(const char *path)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

static inline bool st_copy(const char *from, const char *to)
{
	char *argv[] = { "cp", (char *)from, (char *)to, NULL };

	return st_run(argv, NULL) == 0;
}

/* The ELF build-id of path as hex, via libelf (independent of the module). */
static inline size_t st_build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t n = 0;

	elf_version(EV_CURRENT);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !n && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t no, dof;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t off = 0, next; (next = gelf_getnote(d, off, &nh, &no, &dof)) > 0; off = next) {
			if (nh.n_type == 3 && nh.n_descsz <= 20) {
				memcpy(id, (char *)d->d_buf + dof, nh.n_descsz);
				n = nh.n_descsz;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/*
 * Map the executable PT_LOAD segments of path into process pid at `base` (0 for
 * ET_EXEC), page-aligned as the loader maps them. Returns the number of maps.
 */
static inline int st_map_elf(struct symbol_session *s, uint32_t pid, const char *path,
			     uint64_t base, const char *recorded_path, const uint8_t *bid,
			     size_t bid_size)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	size_t phnum;
	int n = 0;

	elf_version(EV_CURRENT);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getphdrnum(e, &phnum)) {
		close(fd);
		return -1;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		struct symbol_mmap m;
		struct tdp_err err = TDP_ERR_INIT;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		memset(&m, 0, sizeof(m));
		m.pid = pid;
		m.start = base + (ph.p_vaddr & ~0xfffull);
		m.len = ((ph.p_vaddr + ph.p_filesz + 0xfff) & ~0xfffull) - (ph.p_vaddr & ~0xfffull);
		m.pgoff = ph.p_offset & ~0xfffull;
		m.path = recorded_path ? recorded_path : path;
		m.build_id = bid;
		m.build_id_size = bid_size;
		if (symbol_session_add_mmap(s, &m, &err))
			n = -1000;
		n++;
	}
	elf_end(e);
	close(fd);
	return n;
}

/* The next line of a text (the newline replaced by NUL, *cur advanced); NULL at
 * the end. Empty lines are skipped. */
static inline char *st_next_line(char **cur)
{
	char *line, *nl;

	while (**cur == '\n')
		(*cur)++;
	if (!**cur)
		return NULL;
	line = *cur;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*cur = nl + 1;
	} else {
		*cur = line + strlen(line);
	}
	return line;
}

/* Remove a trailing " (discriminator N)" and the newline from an addr2line line. */
static inline void st_chomp(char *line)
{
	char *p = strstr(line, " (discriminator");

	if (p)
		*p = '\0';
	p = strchr(line, '\n');
	if (p)
		*p = '\0';
}

#endif
