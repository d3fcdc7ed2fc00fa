/*
 * sampling-elf.c: the GNU build-id of an ELF image or of a bare note sequence
 * (/sys/kernel/notes), for the BUILD_ID feature of a recording. The input is
 * untrusted: every offset and size is checked against the image before use.
 */
#include "pmu/sampling.h"
#include "base/checked.h"
#include "base/err.h"

#include <elf.h>
#include <string.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_NATIVE_DATA ELFDATA2LSB
#else
#define ELF_NATIVE_DATA ELFDATA2MSB
#endif

/*
 * Walk the notes in buf[off, off+len), aligned to `align` (4, or 8 for notes
 * whose segment says so). Returns 1 and fills id when a GNU build-id is found,
 * 0 when none, TDP_EFORMAT when a note runs past the range.
 */
static int walk_notes(const uint8_t *buf, size_t off, size_t len, size_t align, const char *what,
		      uint8_t id[PMU_BUILD_ID_MAX], size_t *size, struct tdp_err *err)
{
	size_t end = off + len, pos = off;

	while (end - pos >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr nh;
		size_t desc, next;

		/*
		 * The descriptor starts at the next `align` boundary after the header and
		 * the name (a name of 4 in an 8-aligned note: 12 + 4 = 16), and the next
		 * note at the one after the descriptor (gABI; binutils' readelf).
		 */
		memcpy(&nh, buf + pos, sizeof(nh));
		if (!chk_add(sizeof(nh), nh.n_namesz, &desc) || !chk_add(desc, align - 1, &desc) ||
		    !chk_add(desc / align * align, nh.n_descsz, &next) || next > end - pos)
			return tdp_err_set(err, TDP_EFORMAT, "'%s': ELF note at offset 0x%zx runs past its section", what,
					   pos);
		desc = desc / align * align;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(buf + pos + sizeof(nh), "GNU", 4) &&
		    nh.n_descsz > 0) {
			size_t n = nh.n_descsz < PMU_BUILD_ID_MAX ? nh.n_descsz : PMU_BUILD_ID_MAX;

			memcpy(id, buf + pos + desc, n);
			*size = n;
			return 1;
		}
		/* the padding after the last descriptor may be missing: then this was the last note */
		next = (next + align - 1) / align * align;
		if (next >= end - pos)
			break;
		pos += next;
	}
	return 0;
}

int pmu_notes_build_id(const uint8_t *buf, size_t len, const char *what, uint8_t id[PMU_BUILD_ID_MAX],
		       size_t *size, struct tdp_err *err)
{
	return walk_notes(buf, 0, len, 4, what, id, size, err);
}

/* The fields we use of an ELF header, program header or section header, either class. */
struct ehdr {
	uint64_t phoff, shoff;
	size_t phentsize, phnum, shentsize, shnum;
};

static bool read_ehdr(const uint8_t *buf, size_t len, bool is64, struct ehdr *h)
{
	if (is64) {
		Elf64_Ehdr e;

		if (len < sizeof(e))
			return false;
		memcpy(&e, buf, sizeof(e));
		*h = (struct ehdr){ e.e_phoff, e.e_shoff, e.e_phentsize, e.e_phnum, e.e_shentsize, e.e_shnum };
		return e.e_phentsize >= (e.e_phnum ? sizeof(Elf64_Phdr) : 0) &&
		       e.e_shentsize >= (e.e_shnum ? sizeof(Elf64_Shdr) : 0);
	} else {
		Elf32_Ehdr e;

		if (len < sizeof(e))
			return false;
		memcpy(&e, buf, sizeof(e));
		*h = (struct ehdr){ e.e_phoff, e.e_shoff, e.e_phentsize, e.e_phnum, e.e_shentsize, e.e_shnum };
		return e.e_phentsize >= (e.e_phnum ? sizeof(Elf32_Phdr) : 0) &&
		       e.e_shentsize >= (e.e_shnum ? sizeof(Elf32_Shdr) : 0);
	}
}

/* Program header i: is it PT_NOTE, and where are its bytes? */
static void read_phdr(const uint8_t *p, bool is64, uint32_t *type, uint64_t *off, uint64_t *size, uint64_t *align)
{
	if (is64) {
		Elf64_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*type = ph.p_type;
		*off = ph.p_offset;
		*size = ph.p_filesz;
		*align = ph.p_align;
	} else {
		Elf32_Phdr ph;

		memcpy(&ph, p, sizeof(ph));
		*type = ph.p_type;
		*off = ph.p_offset;
		*size = ph.p_filesz;
		*align = ph.p_align;
	}
}

static void read_shdr(const uint8_t *p, bool is64, uint32_t *type, uint64_t *off, uint64_t *size, uint64_t *align)
{
	if (is64) {
		Elf64_Shdr sh;

		memcpy(&sh, p, sizeof(sh));
		*type = sh.sh_type;
		*off = sh.sh_offset;
		*size = sh.sh_size;
		*align = sh.sh_addralign;
	} else {
		Elf32_Shdr sh;

		memcpy(&sh, p, sizeof(sh));
		*type = sh.sh_type;
		*off = sh.sh_offset;
		*size = sh.sh_size;
		*align = sh.sh_addralign;
	}
}

/* Look through a table of nr headers of entsize bytes at off for notes of type want. */
static int scan_table(const uint8_t *buf, size_t len, uint64_t off, size_t entsize, size_t nr, bool is64,
		      bool sections, const char *what, uint8_t id[PMU_BUILD_ID_MAX], size_t *size, struct tdp_err *err)
{
	if (!nr)
		return 0;
	if (nr > PMU_ELF_MAX_HEADERS || !chk_range(off, (uint64_t)entsize * nr, len))
		return tdp_err_set(err, TDP_EFORMAT, "'%s': ELF %s headers at offset 0x%llx lie outside the file", what,
				   sections ? "section" : "program", (unsigned long long)off);
	for (size_t i = 0; i < nr; i++) {
		uint32_t type;
		uint64_t noff, nsize, align;
		int ret;

		if (sections)
			read_shdr(buf + off + i * entsize, is64, &type, &noff, &nsize, &align);
		else
			read_phdr(buf + off + i * entsize, is64, &type, &noff, &nsize, &align);
		if (type != (sections ? SHT_NOTE : PT_NOTE))
			continue;
		if (!chk_range(noff, nsize, len))
			return tdp_err_set(err, TDP_EFORMAT, "'%s': ELF note at offset 0x%llx (%llu bytes) lies outside the "
					   "file", what, (unsigned long long)noff, (unsigned long long)nsize);
		ret = walk_notes(buf, (size_t)noff, (size_t)nsize, align == 8 ? 8 : 4, what, id, size, err);
		if (ret)
			return ret;
	}
	return 0;
}

int pmu_elf_build_id(const uint8_t *buf, size_t len, const char *what, uint8_t id[PMU_BUILD_ID_MAX],
		     size_t *size, struct tdp_err *err)
{
	struct ehdr h;
	bool is64;
	int ret;

	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) || buf[EI_DATA] != ELF_NATIVE_DATA ||
	    (buf[EI_CLASS] != ELFCLASS64 && buf[EI_CLASS] != ELFCLASS32))
		return 0;
	is64 = buf[EI_CLASS] == ELFCLASS64;
	if (!read_ehdr(buf, len, is64, &h))
		return tdp_err_set(err, TDP_EFORMAT, "'%s': truncated or malformed ELF header", what);
	ret = scan_table(buf, len, h.phoff, h.phentsize, h.phnum, is64, false, what, id, size, err);
	if (ret)
		return ret;
	/* no PT_NOTE with it (an object file, or a stripped layout): try the sections */
	return scan_table(buf, len, h.shoff, h.shentsize, h.shnum, is64, true, what, id, size, err);
}
