/* vglog.c: reading valgrind's log for the cause of a failed run (vglog.h). */
#include "sim/vglog.h"

#include <stdint.h>
#include <string.h>

#define UNHANDLED "unhandled instruction bytes: "
#define UNRECOGNISED "Unrecognised instruction at address"

/* The line of log holding at, from at to its end (excluded): its length. */
static size_t rest_of_line(const char *log, size_t len, const char *at)
{
	const char *nl = memchr(at, '\n', len - (size_t)(at - log));

	return nl ? (size_t)(nl - at) : len - (size_t)(at - log);
}

/* Copy s[0..n) into out as text, at most size - 1 bytes, control characters as spaces. */
static void copy_text(char *out, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)s[i] < 0x20 ? ' ' : s[i];
	out[n] = '\0';
	while (n && out[n - 1] == ' ')
		out[--n] = '\0';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The first byte of "0x62 0xF2 ...", or -1. */
static int first_byte(const char *s)
{
	int v = 0, digits = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (s += 2; hex_value(*s) >= 0 && digits < 2; s++, digits++)
		v = v * 16 + hex_value(*s);
	return digits ? v : -1;
}

static const char *describe(int b0)
{
	switch (b0) {
	case 0x62:
		return "an AVX-512 (EVEX-encoded) instruction, which valgrind does not simulate";
	case 0xc4:
	case 0xc5:
		return "a VEX-encoded (AVX) instruction this valgrind does not know";
	default:
		return "an instruction this valgrind does not know";
	}
}

/* "==123==    at 0x109073: main (avx.c:3)" after at: the part after "0x...: ". */
static void frame_after(const char *log, size_t len, const char *at, char *out, size_t size)
{
	size_t n = rest_of_line(log, len, at);
	const char *next = at + n;

	out[0] = '\0';
	if ((size_t)(next - log) >= len)
		return;
	next++;
	n = rest_of_line(log, len, next);
	for (size_t i = 0; i + 4 < n; i++) {
		if (memcmp(next + i, "at 0x", 5) != 0)
			continue;
		for (size_t j = i + 5; j + 1 < n; j++) {
			if (next[j] == ':' && next[j + 1] == ' ') {
				copy_text(out, size, next + j + 2, n - j - 2);
				return;
			}
		}
		return;
	}
}

bool sim_log_unhandled(const char *log, size_t len, struct sim_unhandled *u)
{
	const char *at = log ? memmem(log, len, UNHANDLED, sizeof(UNHANDLED) - 1) : NULL;
	const char *rec;
	char first[8];
	size_t n;

	if (!at)
		return false;
	at += sizeof(UNHANDLED) - 1;
	n = rest_of_line(log, len, at);
	copy_text(u->bytes, sizeof(u->bytes), at, n);
	copy_text(first, sizeof(first), at, n < 6 ? n : 6);
	u->what = describe(first_byte(first));
	rec = memmem(at, len - (size_t)(at - log), UNRECOGNISED, sizeof(UNRECOGNISED) - 1);
	if (rec)
		frame_after(log, len, rec, u->where, sizeof(u->where));
	else
		u->where[0] = '\0';
	return true;
}
