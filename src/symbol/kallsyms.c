/*
 * kallsyms.c: kernel symbols from a kallsyms file, used only when it belongs to
 * the recorded kernel: the file the user named (--kallsyms), or the running
 * kernel's when its build-id (the GNU note in /sys/kernel/notes) equals the one
 * the recording has for [kernel.kallsyms]. Otherwise kernel addresses stay
 * unresolved, as perf leaves them without a vmlinux or kallsyms.
 *
 * KASLR: the recorded kernel map's pgoff is the runtime address of its reference
 * symbol ("[kernel.kallsyms]_text": _text); the difference to that symbol in the
 * kallsyms file moves recorded addresses into the file's address space (perf's
 * ref_reloc_sym).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/err.h"
#include "base/str.h"
#include "base/file.h"
#include "symbol/symbol-internal.h"

int symbol_kallsyms_parse(char *buf, size_t len, struct symbol_symtab *t)
{
	size_t pos = 0, added = 0;

	while (pos < len) {
		char *line = buf + pos;
		char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		uint64_t addr = 0;
		size_t i = 0, digits = 0;
		char type;

		pos += ll + 1;
		while (i < ll && str_hexval(line[i]) >= 0 && digits < 16) {
			addr = addr << 4 | (uint64_t)str_hexval(line[i]);
			i++;
			digits++;
		}
		if (!digits || i + 3 > ll || line[i] != ' ' || line[i + 2] != ' ')
			continue;
		type = line[i + 1];
		i += 3;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		size_t name_start = i;

		while (i < ll && line[i] != ' ' && line[i] != '\t')
			i++;
		if (i == name_start || !addr)
			continue;
		line[i] = '\0'; /* the separator before [module], or the newline */
		if (t->nr >= SYMBOL_MAX_SYMBOLS)
			return TDP_ELIMIT;
		if (TDP_GROW(t->syms, t->alloc, t->nr + 1))
			return TDP_ENOMEM;
		t->syms[t->nr++] = (struct symbol_sym){
			.addr = addr, .size = 0, .name = line + name_start, .demangled = NULL,
			.rank = type == 'T' ? 3 : (type == 'W' || type == 'w') ? 2 : 1,
		};
		added++;
	}
	return added > INT32_MAX ? INT32_MAX : (int)added;
}

size_t symbol_notes_build_id(const uint8_t *buf, size_t len, uint8_t out[20])
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_pad, desc_pad;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		name_pad = ((size_t)namesz + 3) & ~(size_t)3;
		desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_pad > len - off || desc_pad > len - off - name_pad)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(buf + off, "GNU", 4) &&
		    descsz > 0) {
			size_t n = descsz < 20 ? descsz : 20;

			memcpy(out, buf + off + name_pad, n);
			return n;
		}
		off += name_pad + desc_pad;
	}
	return 0;
}

static int read_whole(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int ret;

	if (fd < 0)
		return errno == ENOENT ? TDP_ENOENT : TDP_EIO;
	/* procfs and sysfs files are regular (size 0); a FIFO or a device is not read */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return TDP_EIO;
	}
	ret = tdp_read_fd(fd, path, max, out, len, NULL);
	close(fd);
	return ret;
}

static const char *note_of(struct symbol_session *s, const char *fmt, const char *a)
{
	strbuf_reset(&s->scratch);
	strbuf_addf(&s->scratch, fmt, a);
	return strbuf_failed(&s->scratch) ? "kernel symbols not read (out of memory)"
					  : arena_strdup(&s->arena, s->scratch.buf);
}

void symbol_kernel_load(struct symbol_session *s)
{
	struct kallsyms *k = &s->ksyms;
	const char *path = NULL;
	size_t len;
	int n;

	if (k->loaded)
		return;
	k->loaded = true;
	if (strbuf_failed(&s->scratch))
		strbuf_release(&s->scratch);
	if (s->opts.kallsyms) {
		path = s->opts.kallsyms;
	} else if (!s->opts.running_kallsyms) {
		k->note = "no kernel symbols (use --kallsyms FILE from the recording machine)";
	} else if (!s->have_kernel_bid) {
		k->note = "the recording has no kernel build-id: this machine's kallsyms cannot be "
			  "trusted (use --kallsyms FILE from the recording machine)";
	} else {
		uint8_t *notes = NULL, bid[20];
		size_t nlen = 0, blen = 0;

		if (s->opts.running_notes &&
		    !read_whole(s->opts.running_notes, SYMBOL_MAX_NOTES, (char **)&notes, &nlen))
			blen = symbol_notes_build_id(notes, nlen, bid);
		tdp_free(notes);
		if (!blen)
			k->note = "the running kernel's build-id cannot be read: kernel addresses "
				  "stay unresolved (use --kallsyms FILE from the recording machine)";
		else if (!symbol_build_id_eq(bid, blen, s->kernel_bid, s->kernel_bid_size))
			k->note = "the recording was made on another kernel (its build-id differs "
				  "from the running one; use --kallsyms FILE from the recording machine)";
		else
			path = s->opts.running_kallsyms;
	}
	if (!path)
		return;
	n = read_whole(path, SYMBOL_MAX_KALLSYMS, &k->buf, &len);
	if (n) {
		k->note = note_of(s, "cannot read '%s'", path);
		return;
	}
	n = symbol_kallsyms_parse(k->buf, len, &k->symtab);
	if (n <= 0) {
		k->note = note_of(s, n == 0 ? "'%s' has no kernel text symbols (are addresses "
					      "hidden by kernel.kptr_restrict?)"
					    : "'%s' is too large or memory ran out", path);
		return;
	}
	/* before symtab_finish(): it keeps one of the aliases at _text's address */
	if (s->kernel_ref_name && *s->kernel_ref_name && s->kernel_ref_addr) {
		for (size_t i = 0; i < k->symtab.nr; i++) {
			if (!strcmp(k->symtab.syms[i].name, s->kernel_ref_name)) {
				k->delta = (int64_t)(s->kernel_ref_addr - k->symtab.syms[i].addr);
				break;
			}
		}
	}
	symtab_finish(&k->symtab);
	k->ok = true;
}
