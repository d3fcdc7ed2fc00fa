/*
 * strbuf.h: a growing, NUL-terminated string buffer with a size cap.
 *
 * Lifecycle:
 *   1. struct strbuf sb = STRBUF_INIT;   (or strbuf_init(&sb, cap))
 *   2. strbuf_add*() as often as needed;
 *   3. check strbuf_failed(&sb) once at the end (allocation failure or the cap
 *      was hit: the error is sticky, later appends do nothing);
 *   4. strbuf_release(&sb) or take the string with strbuf_detach().
 *
 * Invariants: sb.buf is never NULL (it points at a static "" until the first
 * append) and sb.buf[sb.len] == '\0'.
 */
#ifndef TDPROF_BASE_STRBUF_H
#define TDPROF_BASE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

extern char strbuf_empty[];

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc; /* 0 while buf is strbuf_empty */
	size_t cap;   /* largest len allowed; 0 means the default (64 MiB) */
	bool failed;  /* sticky: an append failed (ENOMEM or cap) */
};

#define STRBUF_INIT { strbuf_empty, 0, 0, 0, false }

/** Initialise with a cap on len (0: default 64 MiB). */
void strbuf_init(struct strbuf *sb, size_t cap);

/** Free the buffer and leave sb as after STRBUF_INIT (keeping its cap). */
void strbuf_release(struct strbuf *sb);

/** Append len bytes. */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);

/** Append a NUL-terminated string. */
void strbuf_adds(struct strbuf *sb, const char *s);

/** Append one character. */
void strbuf_addch(struct strbuf *sb, char c);

/**
 * Append s[0..len) for a terminal or a text file: control characters (C0, DEL
 * and the C1 range U+0080..U+009F, which terminals also obey) and bytes that
 * are not valid UTF-8 become "\xNN", so that a hostile name (an escape
 * sequence, a newline) shows as text. keep_lines keeps '\n' and '\t' (messages
 * of several lines); names are written with it false.
 */
void strbuf_add_printable(struct strbuf *sb, const char *s, size_t len, bool keep_lines);

/** strbuf_add_printable() of a NUL-terminated name, newlines escaped. */
void strbuf_add_name(struct strbuf *sb, const char *s);

/**
 * A CSV field between separators sep (NULL or "": ","): s escaped as a name
 * (strbuf_add_name), then quoted with doubled quotes when it holds sep, a quote or
 * a line break. NULL adds nothing (an empty field).
 */
void strbuf_add_csv_field_sep(struct strbuf *sb, const char *s, const char *sep);

/** strbuf_add_csv_field_sep() with ",". */
void strbuf_add_csv_field(struct strbuf *sb, const char *s);

/** Append printf-formatted text. */
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** As strbuf_addf(), taking a va_list. */
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/**
 * Append word as the POSIX shell reads it back: as it is when it holds only
 * letters, digits and _-+./:=,@%; otherwise in '...', each ' written '\''. An empty
 * word is ''. For commands shown to a user to copy.
 */
void strbuf_add_shell_word(struct strbuf *sb, const char *word);

/** Append the NULL-terminated argv as shell words separated by spaces. */
void strbuf_add_shell_words(struct strbuf *sb, char *const *argv);

/** Shorten to len (len <= sb->len). */
void strbuf_setlen(struct strbuf *sb, size_t len);

/** Empty the buffer, keeping its memory. */
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

/** True when an append failed since init/release. */
static inline bool strbuf_failed(const struct strbuf *sb)
{
	return sb->failed;
}

/**
 * Take the string: returns a heap string the caller frees with tdp_free()
 * (an empty heap string when nothing was added), or NULL when allocation fails
 * or the buffer failed. sb is left as after STRBUF_INIT.
 */
char *strbuf_detach(struct strbuf *sb);

#endif
