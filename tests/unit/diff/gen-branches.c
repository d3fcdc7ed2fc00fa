/*
 * gen-branches: a perf.data whose branch stacks hold exactly the edges asked for,
 * at addresses given as function+offset in a real binary: the same edges
 * written for two builds of one program land at each build's own addresses,
 * which is what `tdprof diff` must line up. (This machine has no PMU: no branch
 * stack can be recorded here.)
 *
 *   gen-branches BINARY OUT EDGE...
 *   EDGE = FROM:TO:COUNT:MISPREDICTS, FROM and TO = FUNCTION+0xOFFSET
 *
 * Each edge becomes COUNT one-entry samples (ip = FROM), the first MISPREDICTS
 * of them flagged mispredicted and the others predicted. The process (pid 4243)
 * maps BINARY's executable segments as perf records them (MMAP2 with the file
 * offset; a PIE at 0x555555554000). Function addresses come from the ELF
 * symbol table. Exit 0, or 1 with a message.
 */
#include "base/err.h"
#include "base/str.h"
#include "perfdata/perfdata-write.h"
#include "perfdata/perfdata.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 4243
#define PIE_BASE 0x555555554000ull
#define REC_MAX 4096

static uint8_t rec[REC_MAX];

static size_t put32(size_t at, uint32_t v)
{
	memcpy(rec + at, &v, 4);
	return at + 4;
}

static size_t put64(size_t at, uint64_t v)
{
	memcpy(rec + at, &v, 8);
	return at + 8;
}

static void header(uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	memcpy(rec, &type, 4);
	memcpy(rec + 4, &misc, 2);
	memcpy(rec + 6, &s, 2);
}

/* The address of "func+0xOFF" in elf (loaded at base); false when unknown. */
static bool resolve(Elf *elf, uint64_t base, const char *spec, uint64_t *out)
{
	const char *plus = strrchr(spec, '+');
	size_t len = plus ? (size_t)(plus - spec) : strlen(spec);
	uint64_t off = 0;

	if (plus && !str_to_u64(plus + 1, &off))
		return false;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && strlen(name) == len && !strncmp(name, spec, len)) {
				*out = base + sym.st_value + off;
				return true;
			}
		}
	}
	return false;
}

static int add(struct perfdata_writer *w, size_t at, struct tdp_err *err)
{
	return perfdata_writer_add_record(w, rec, at, err);
}

static int write_maps(struct perfdata_writer *w, Elf *elf, const char *path, uint64_t base, struct tdp_err *err)
{
	size_t nph, n = strlen(path) + 1;
	int ret = 0;

	if (elf_getphdrnum(elf, &nph))
		return tdp_err_set(err, TDP_EFORMAT, "'%s' has no program headers", path);
	for (size_t i = 0; i < nph && !ret; i++) {
		GElf_Phdr ph;
		size_t at;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		at = put32(8, PID);
		at = put32(at, PID);
		at = put64(at, base + (ph.p_vaddr & ~0xfffull));                       /* start */
		at = put64(at, ((ph.p_vaddr & 0xfff) + ph.p_memsz + 0xfff) & ~0xfffull); /* len */
		at = put64(at, ph.p_offset & ~0xfffull);                                /* pgoff */
		at = put32(at, 8);                                                       /* maj */
		at = put32(at, 1);                                                       /* min */
		at = put64(at, 1);                                                       /* ino */
		at = put64(at, 0);                                                       /* generation */
		at = put32(at, 5);                                                       /* PROT_READ|EXEC */
		at = put32(at, 2);                                                       /* MAP_PRIVATE */
		memset(rec + at, 0, (n + 7) & ~(size_t)7);
		memcpy(rec + at, path, n);
		at += (n + 7) & ~(size_t)7;
		header(PERFDATA_RECORD_MMAP2, PERFDATA_MISC_USER, at);
		ret = add(w, at, err);
	}
	return ret;
}

/* COUNT one-entry samples of the edge FROM:TO:COUNT:MISPREDICTS. */
static int write_edge(struct perfdata_writer *w, Elf *elf, uint64_t base, const char *arg, uint64_t *time,
		      struct tdp_err *err)
{
	char from[256], to[256];
	uint64_t a, b, count, misp;
	unsigned long long c, m;
	struct branch_entry e;

	if (sscanf(arg, "%255[^:]:%255[^:]:%llu:%llu", from, to, &c, &m) != 4 || m > c)
		return tdp_err_set(err, TDP_EUSAGE, "'%s' is not FROM:TO:COUNT:MISPREDICTS", arg);
	count = c;
	misp = m;
	if (!resolve(elf, base, from, &a) || !resolve(elf, base, to, &b))
		return tdp_err_set(err, TDP_ENOENT, "'%s': no such function in the binary", arg);
	for (uint64_t i = 0; i < count; i++) {
		size_t at;
		int ret;

		memset(&e, 0, sizeof(e));
		e.mispred = i < misp;
		e.predicted = !e.mispred;
		at = put64(8, a);               /* ip */
		at = put32(at, PID);            /* pid */
		at = put32(at, PID);            /* tid */
		at = put64(at, (*time)++);      /* time */
		at = put64(at, 1);              /* branch stack: nr */
		at = put64(at, a);
		at = put64(at, b);
		at = put64(at, perfdata_branch_flags_encode(&e));
		header(PERFDATA_RECORD_SAMPLE, PERFDATA_MISC_USER, at);
		ret = add(w, at, err);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tdp_err err = TDP_ERR_INIT;
	struct perfdata_writer *w = NULL;
	char path[PATH_MAX];
	uint8_t attr[128];
	uint64_t base, time = 1000000;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd = -1, rc = 1;
	size_t at;

	if (argc < 4) {
		fprintf(stderr, "usage: gen-branches BINARY OUT FROM:TO:COUNT:MISPREDICTS...\n");
		return 2;
	}
	if (!realpath(argv[1], path)) {
		perror(argv[1]);
		return 1;
	}
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "gen-branches: '%s' is not an ELF file\n", path);
		goto out;
	}
	base = eh.e_type == ET_DYN ? PIE_BASE : 0;
	memset(attr, 0, sizeof(attr));
	memcpy(attr + 4, &(uint32_t){ sizeof(attr) }, 4);                    /* size */
	memcpy(attr + 16, &(uint64_t){ 100003 }, 8);                          /* sample_period */
	memcpy(attr + 24, &(uint64_t){ PERFDATA_SAMPLE_IP | PERFDATA_SAMPLE_TID | PERFDATA_SAMPLE_TIME |
				       PERFDATA_SAMPLE_BRANCH_STACK }, 8);     /* sample_type */
	memcpy(attr + 72, &(uint64_t){ PERFDATA_BRANCH_ANY | PERFDATA_BRANCH_USER }, 8); /* branch_sample_type */
	if (perfdata_writer_open(&w, argv[2], &err) ||
	    perfdata_writer_add_attr(w, attr, sizeof(attr), NULL, 0, "cycles:u", &err))
		goto fail;
	at = put32(8, PID);
	at = put32(at, PID);
	memset(rec + at, 0, 16);
	memcpy(rec + at, "diffprog", 8);
	at += 16;
	header(PERFDATA_RECORD_COMM, PERFDATA_MISC_COMM_EXEC, at);
	if (add(w, at, &err) || write_maps(w, elf, path, base, &err))
		goto fail;
	for (int i = 3; i < argc; i++)
		if (write_edge(w, elf, base, argv[i], &time, &err))
			goto fail;
	rc = perfdata_writer_close(w, &err);
	w = NULL;
	if (!rc)
		goto out;
fail:
	fprintf(stderr, "gen-branches: %s\n", err.msg[0] ? err.msg : "out of memory");
	rc = 1;
out:
	perfdata_writer_free(w);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}
