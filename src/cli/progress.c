/* progress.c: the live progress line on stderr (see progress.h). */
#include "cli/progress.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MIN_COLUMNS 20
#define MIN_ROWS 4 /* a shared terminal keeps its last row: fewer leave too little to scroll */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool allowed;
	bool running, stop;
	bool shared;
	bool drawn;       /* alone: the line is on the screen */
	int region_rows;  /* shared: the terminal's rows when its last row was kept; 0: not kept */
	char what[256];
	uint64_t t0_ms;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void put(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void put_str(const char *s)
{
	put(s, strlen(s));
}

/*
 * The line: "tdprof: WHAT  12.3 s", WHAT cut (at a character boundary, ending in
 * "...") so that the whole line fits in cols - 1 columns: a line that wrapped
 * would not be erased by "\r". Returns its length.
 */
static size_t line_text(char *buf, size_t size, int cols)
{
	char when[32];
	size_t room, wlen = strlen(P.what), len;

	snprintf(when, sizeof(when), "  %.1f s", (double)(now_ms() - P.t0_ms) / 1000.0);
	room = (size_t)cols - 1 - strlen("tdprof: ") - strlen(when); /* cols >= MIN_COLUMNS: no underflow */
	if (wlen > room) {
		wlen = room > 3 ? room - 3 : 0;
		while (wlen && ((unsigned char)P.what[wlen] & 0xc0) == 0x80)
			wlen--;
	}
	len = (size_t)snprintf(buf, size, "tdprof: %.*s%s%s", (int)wlen, P.what, wlen < strlen(P.what) ? "..." : "",
			       when);
	return len < size ? len : size - 1;
}

/* Keep the last row for the line: the rest scrolls above it. The cursor stays on its line. */
static void keep_last_row(int rows, bool fresh)
{
	char seq[64];

	/* fresh: a new line first, so that the cursor is not on the row being kept */
	snprintf(seq, sizeof(seq), "%s\0337\033[1;%dr\0338%s", fresh ? "\n" : "", rows - 1, fresh ? "\033[1A" : "");
	put_str(seq);
	P.region_rows = rows;
}

static void give_back_last_row(void)
{
	char seq[64];

	if (!P.region_rows)
		return;
	snprintf(seq, sizeof(seq), "\0337\033[%d;1H\033[2K\033[r\0338", P.region_rows);
	put_str(seq);
	P.region_rows = 0;
}

/* One update, under the lock. */
static void draw(void)
{
	struct winsize ws;
	char text[512], seq[600];
	size_t len;

	if (now_ms() - P.t0_ms < PROGRESS_DELAY_MS || ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < MIN_COLUMNS)
		return;
	len = line_text(text, sizeof(text), ws.ws_col);
	if (!P.shared) {
		snprintf(seq, sizeof(seq), "\r\033[K%.*s", (int)len, text);
		put_str(seq);
		P.drawn = true;
		return;
	}
	if (ws.ws_row < MIN_ROWS)
		return;
	if (P.region_rows != ws.ws_row) {
		bool fresh = !P.region_rows;

		if (P.region_rows)
			put_str("\0337\033[r\0338"); /* the terminal was resized: keep its new last row */
		keep_last_row(ws.ws_row, fresh);
	}
	/* one write: save the cursor, draw the last row, restore the cursor */
	snprintf(seq, sizeof(seq), "\0337\033[%d;1H\033[2K%.*s\0338", (int)ws.ws_row, (int)len, text);
	put_str(seq);
}

static void *run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.lock);
	while (!P.stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PROGRESS_PERIOD_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&P.wake, &P.lock, &until);
		if (!P.stop)
			draw();
	}
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

void progress_allow(bool allow)
{
	P.allowed = allow;
}

void progress_begin(bool shared, const char *fmt, ...)
{
	sigset_t all, old;
	va_list ap;

	if (!P.allowed)
		return;
	progress_end();
	pthread_mutex_lock(&P.lock);
	va_start(ap, fmt);
	vsnprintf(P.what, sizeof(P.what), fmt, ap);
	va_end(ap);
	/* the text may quote a command line: no control character reaches the terminal */
	for (char *c = P.what; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	P.shared = shared;
	P.stop = false;
	P.drawn = false;
	P.t0_ms = now_ms();
	/* the thread takes no signal: SIGINT and its kind stay with the thread that waits for them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	P.running = pthread_create(&P.thread, NULL, run, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_unlock(&P.lock);
}

void progress_end(void)
{
	if (!P.running)
		return;
	pthread_mutex_lock(&P.lock);
	P.stop = true;
	pthread_cond_signal(&P.wake);
	pthread_mutex_unlock(&P.lock);
	pthread_join(P.thread, NULL);
	P.running = false;
	if (P.drawn)
		put_str("\r\033[K");
	P.drawn = false;
	give_back_last_row();
}

void progress_hold(void)
{
	pthread_mutex_lock(&P.lock);
	if (P.drawn) {
		put_str("\r\033[K");
		P.drawn = false;
	}
}

void progress_release(void)
{
	pthread_mutex_unlock(&P.lock);
}
