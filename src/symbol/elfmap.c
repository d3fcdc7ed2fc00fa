/*
 * elfmap.c: a file on disk mapped into a session as the loader maps it, and its
 * build-id (symbol_session_add_elf(), symbol_file_build_id(): symbol.h).
 */
#include "symbol/symbol-internal.h"
#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The ELF of a regular file (never a FIFO or a device: they could block); NULL with errno set. */
static Elf *elf_of(const char *path, int *fd)
{
	struct stat st;
	Elf *e;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return NULL;
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode)) {
		close(*fd);
		*fd = -1;
		errno = EINVAL;
		return NULL;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return e;
}

int symbol_session_add_elf(struct symbol_session *s, uint32_t pid, const char *path, uint64_t bias,
			   struct tdp_err *err)
{
	size_t phnum, added = 0;
	int fd, ret = 0;
	Elf *e = elf_of(path, &fd);

	if (!e)
		return tdp_err_set(err, errno == ENOEXEC ? TDP_EFORMAT : TDP_ENOENT, "cannot read '%s': %s", path,
				   errno == ENOEXEC ? "not an ELF file" : strerror(errno));
	if (elf_getphdrnum(e, &phnum))
		phnum = 0;
	for (size_t i = 0; i < phnum && !ret; i++) {
		GElf_Phdr ph;
		struct symbol_mmap m = { 0 };
		uint64_t pgoff, skew;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		/* the kernel maps whole pages: the map starts at the page holding the segment's first byte */
		pgoff = ph.p_offset & ~(uint64_t)0xfff;
		skew = ph.p_offset - pgoff;
		if (ph.p_vaddr < skew || ph.p_filesz > UINT64_MAX - skew || bias > UINT64_MAX - ph.p_vaddr)
			continue;
		m.pid = pid;
		m.start = bias + ph.p_vaddr - skew;
		m.len = ph.p_filesz + skew;
		m.pgoff = pgoff;
		m.path = path;
		ret = symbol_session_add_mmap(s, &m, err);
		added += !ret;
	}
	elf_end(e);
	close(fd);
	if (!ret && !added)
		ret = tdp_err_set(err, TDP_EFORMAT, "'%s' has no executable segment", path);
	return ret;
}

size_t symbol_file_build_id(const char *path, uint8_t out[20])
{
	int fd;
	Elf *e = elf_of(path, &fd);
	size_t n;

	if (!e)
		return 0;
	n = symbol_elf_build_id(e, out);
	elf_end(e);
	close(fd);
	return n;
}
