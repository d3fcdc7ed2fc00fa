/*
 * test-spe.c: the Arm SPE decoder (branch/spe.h).
 *
 * 1. The shared quipper packets ($TDPROF_SHARED_DATA/spe/
 *    quipper_arm_spe_decoder_test_packets.txt): the file is parsed here; every
 *    packet must be described exactly as its comment (perf's decode), and the two
 *    records must carry exactly the fields the comments name.
 * 2. Hand-built streams: a mispredicted branch, call/return/indirect types,
 *    extended headers, alignment pads, bad bytes, and every truncation of a
 *    stream, plus random bytes: never a crash, never a read outside the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/str.h"
#include "base/strbuf.h"
#include "branch/spe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 64

/* One line of the quipper file: its bytes (offset into the stream) and comment. */
struct qline {
	size_t off, len;
	char comment[128];
	int record;          /* the "record N" section it is in */
};

struct quipper {
	uint8_t bytes[1024];
	size_t len;
	struct qline lines[MAX_LINES];
	size_t nr;
};

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = tdp_malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		tdp_free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

/* Parse lines `"b0 d0 ...",  // comment` and `//////// record N`. Returns 0 or -1. */
static int quipper_parse(const char *text, struct quipper *q)
{
	int record = -1;

	memset(q, 0, sizeof(*q));
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n'), *end = eol ? eol : line + strlen(line);
		const char *q1 = memchr(line, '"', (size_t)(end - line)), *rec = strstr(line, "record ");

		if (rec && rec < end && !q1) {
			record = (int)strtol(rec + 7, NULL, 10);
		} else if (q1 && record >= 0) {
			const char *q2 = memchr(q1 + 1, '"', (size_t)(end - q1 - 1));
			const char *c = q2 ? strstr(q2, "//") : NULL;
			struct qline *l = &q->lines[q->nr];

			if (!q2 || !c || c > end || q->nr == MAX_LINES)
				return -1;
			l->off = q->len;
			for (const char *p = q1 + 1; p < q2;) {
				unsigned v;
				int used;

				if (*p == ' ') {
					p++;
					continue;
				}
				if (sscanf(p, "%2x%n", &v, &used) != 1 || q->len == sizeof(q->bytes))
					return -1;
				q->bytes[q->len++] = (uint8_t)v;
				p += used;
			}
			l->len = q->len - l->off;
			for (c += 2; *c == ' '; c++)
				;
			snprintf(l->comment, sizeof(l->comment), "%.*s", (int)(end - c), c);
			str_trim(l->comment);
			l->record = record;
			q->nr++;
		}
		line = eol ? eol + 1 : NULL;
	}
	return q->nr ? 0 : -1;
}

static int load_quipper(struct quipper *q)
{
	const char *dir = getenv("TDPROF_SHARED_DATA");
	char path[4096];
	char *text;
	int rc;

	if (!dir || !*dir)
		return -1;
	snprintf(path, sizeof(path), "%s/spe/quipper_arm_spe_decoder_test_packets.txt", dir);
	text = read_text(path);
	if (!text)
		return -1;
	rc = quipper_parse(text, q);
	tdp_free(text);
	return rc;
}

/* Every packet described as perf described it (a run of zero bytes is one "PAD"). */
static void test_quipper_packets(void **state)
{
	struct quipper *q = *state;

	/* 13 lines of record 0, 10 of record 1 */
	assert_int_equal(q->nr, 23);
	for (size_t i = 0; i < q->nr; i++) {
		const struct qline *l = &q->lines[i];
		struct spe_packet p;
		struct strbuf sb = STRBUF_INIT;
		int n;

		if (!strcmp(l->comment, "PAD")) {
			for (size_t k = 0; k < l->len; k++) {
				assert_int_equal(spe_packet_decode(q->bytes, q->len, l->off + k, &p), 1);
				assert_int_equal(p.type, SPE_PKT_PAD);
			}
			continue;
		}
		n = spe_packet_decode(q->bytes, q->len, l->off, &p);
		assert_int_equal(n, (int)l->len);
		spe_packet_desc(&p, &sb);
		assert_string_equal(sb.buf, l->comment);
		strbuf_release(&sb);
	}
}

/* The fields a comment names, checked against a record. */
static void check_field(const struct spe_record *r, const char *c)
{
	unsigned long long v;
	unsigned el, ns;
	char word[32];

	if (sscanf(c, "PC 0x%llx el%u ns=%u", &v, &el, &ns) == 3 || sscanf(c, "TGT 0x%llx el%u ns=%u", &v, &el, &ns) == 3) {
		unsigned idx = c[0] == 'P' ? SPE_ADDR_PC : SPE_ADDR_TGT;

		assert_true(r->present & SPE_HAS_ADDR(idx));
		assert_int_equal(spe_addr_value(r->addr[idx]), v);
		assert_int_equal(spe_addr_el(r->addr[idx]), el);
		assert_int_equal(spe_addr_ns(r->addr[idx]), ns);
	} else if (sscanf(c, "VA 0x%llx", &v) == 1) {
		assert_true(r->present & SPE_HAS_ADDR(SPE_ADDR_VA));
		assert_int_equal(r->addr[SPE_ADDR_VA], v);
	} else if (sscanf(c, "CONTEXT 0x%llx el%u", &v, &el) == 2) {
		assert_true(r->present & SPE_HAS_CONTEXT);
		assert_int_equal(r->context, v);
		assert_int_equal(r->context_el, el);
	} else if (sscanf(c, "LAT %llu %31s", &v, word) == 2) {
		unsigned idx = !strcmp(word, "TOT") ? SPE_CNT_TOTAL : !strcmp(word, "ISSUE") ? SPE_CNT_ISSUE : SPE_CNT_XLAT;

		assert_true(r->present & SPE_HAS_COUNTER(idx));
		assert_int_equal(r->counter[idx], v);
	} else if (sscanf(c, "TS %llu", &v) == 1) {
		assert_true(r->present & SPE_HAS_TIMESTAMP);
		assert_int_equal(r->timestamp, v);
	} else if (sscanf(c, "DATA-SOURCE %llu", &v) == 1) {
		assert_true(r->present & SPE_HAS_DATA_SOURCE);
		assert_int_equal(r->data_source, v);
	} else if (!strncmp(c, "EV", 2)) {
		/* event names and their bits (formats.md §3.4) */
		static const char *const names[] = { "EXCEPTION-GEN", "RETIRED", "L1D-ACCESS", "L1D-REFILL", "TLB-ACCESS",
						     "TLB-REFILL", "NOT-TAKEN", "MISPRED" };
		uint64_t want = 0;

		for (unsigned b = 0; b < 8; b++) {
			const char *at = strstr(c, names[b]);

			if (at && (at[strlen(names[b])] == ' ' || !at[strlen(names[b])]) && at[-1] == ' ')
				want |= 1ull << b;
		}
		assert_true(r->present & SPE_HAS_EVENTS);
		assert_int_equal(r->events, want);
	} else if (!strcmp(c, "B COND")) {
		assert_int_equal(r->op_class, SPE_OP_BRANCH);
		assert_int_equal(r->op, SPE_OP_BR_COND);
	} else if (!strcmp(c, "LD GP-REG")) {
		assert_int_equal(r->op_class, SPE_OP_LDST);
		assert_int_equal(r->op & 1, 0); /* a load */
	} else if (strcmp(c, "PAD")) {
		fail_msg("unexpected comment '%s'", c);
	}
}

static void test_quipper_records(void **state)
{
	struct quipper *q = *state;
	struct spe_decoder d;
	struct spe_record r[3];
	struct branch_entry e;
	int n = 0;

	spe_decoder_init(&d, q->bytes, q->len);
	while (n < 3 && spe_decoder_next(&d, &r[n]) > 0)
		n++;
	assert_int_equal(n, 2);
	assert_int_equal(d.stats.records, 2);
	assert_int_equal(d.stats.bad_bytes, 0);
	assert_int_equal(d.stats.truncated, 0);
	for (size_t i = 0; i < q->nr; i++)
		check_field(&r[q->lines[i].record], q->lines[i].comment);
	/* record 0 is a load: no branch entry; record 1 a not-taken conditional branch */
	assert_false(spe_record_branch(&r[0], &e));
	assert_true(spe_record_branch(&r[1], &e));
	/* ns=1 and EL2: perf's virtual address has its top byte set */
	assert_int_equal(e.from, 0xffffba66edefb0e0ull);
	assert_int_equal(e.to, 0xffffba66edefb0e4ull);
	assert_true(e.not_taken);
	assert_false(e.mispred);
	assert_true(e.predicted);
	assert_int_equal(e.type, BRANCH_TYPE_COND);
	assert_int_equal(e.cycles, 0);
	assert_int_equal(e.priv, BRANCH_PRIV_HV);
}

/* Append a packet with an 8-byte little-endian payload. */
static size_t put8(uint8_t *b, size_t at, uint8_t hdr, uint64_t v)
{
	b[at++] = hdr;
	for (int i = 0; i < 8; i++)
		b[at++] = (uint8_t)(v >> (8 * i));
	return at;
}

/*
 * A user-space mispredicted conditional branch, hand-built:
 *   PC 0x400123 el0 ns=1 (payload byte 7 = 0x80), B COND, EV RETIRED MISPRED
 *   (0x82), LAT 7 ISSUE, TGT 0x400200 el0 ns=1, TS 99.
 */
static size_t build_mispred(uint8_t *b)
{
	size_t at = 0;

	at = put8(b, at, 0xb0, 0x8000000000400123ull);
	b[at++] = 0x4a;
	b[at++] = 0x01;
	b[at++] = 0x52;
	b[at++] = 0x82;
	b[at++] = 0x00;
	b[at++] = 0x99;
	b[at++] = 7;
	b[at++] = 0;
	at = put8(b, at, 0xb1, 0x8000000000400200ull);
	at = put8(b, at, 0x71, 99);
	return at;
}

static void test_mispredicted(void **state)
{
	uint8_t b[64];
	size_t len = build_mispred(b);
	struct spe_decoder d;
	struct spe_record r;
	struct branch_entry e;

	(void)state;
	spe_decoder_init(&d, b, len);
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_int_equal(spe_decoder_next(&d, &r), 0);
	spe_decoder_init(&d, b, len);
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_int_equal(r.counter[SPE_CNT_ISSUE], 7);
	assert_int_equal(r.timestamp, 99);
	assert_true(spe_record_branch(&r, &e));
	/* EL0: no top byte */
	assert_int_equal(e.from, 0x400123);
	assert_int_equal(e.to, 0x400200);
	assert_true(e.mispred);
	assert_false(e.predicted);
	assert_false(e.not_taken);
	assert_int_equal(e.type, BRANCH_TYPE_COND);
	assert_int_equal(e.priv, BRANCH_PRIV_USER);
}

/* OP-TYPE payloads to branch types: bit 0 COND, bit 1 IND, bits 3-4 call/return hint. */
static void test_branch_types(void **state)
{
	static const struct {
		uint8_t op;
		uint8_t type;
	} cases[] = {
		{ 0x00, BRANCH_TYPE_UNCOND }, { 0x01, BRANCH_TYPE_COND },     { 0x02, BRANCH_TYPE_IND },
		{ 0x08, BRANCH_TYPE_CALL },   { 0x0a, BRANCH_TYPE_IND_CALL }, { 0x09, BRANCH_TYPE_COND_CALL },
		{ 0x12, BRANCH_TYPE_RET },    { 0x11, BRANCH_TYPE_COND_RET }, { 0x1a, BRANCH_TYPE_IND },
	};
	struct spe_record r;
	struct branch_entry e;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		r.present = SPE_HAS_OP_TYPE | SPE_HAS_ADDR(SPE_ADDR_PC);
		r.op_class = SPE_OP_BRANCH;
		r.op = cases[i].op;
		r.addr[SPE_ADDR_PC] = 0x1000;
		assert_true(spe_record_branch(&r, &e));
		assert_int_equal(e.type, cases[i].type);
		/* no EVENTS packet: neither flag */
		assert_false(e.mispred);
		assert_false(e.predicted);
		assert_int_equal(e.to, 0);
	}
	r.op_class = SPE_OP_OTHER;
	assert_false(spe_record_branch(&r, &e));
	r.op_class = SPE_OP_BRANCH;
	r.present = SPE_HAS_OP_TYPE; /* no PC */
	assert_false(spe_record_branch(&r, &e));
}

/*
 * Extended headers: (0x20 | idx >> 3, 0xb0 | idx & 7) is an address of index
 * idx; idx 1 is TGT, idx 9 is beyond what we keep. (0x20, 0x99) is the ISSUE
 * counter. An alignment pad 0x22 0x00 at offset 3 pads to offset 8
 * (1 << (2 + 1) = 8 bytes alignment: 8 - 3 = 5 bytes).
 * Stream: END | PAD | PAD | ALIGN(8) | ext TGT 0x5000 el0 ns=0 | ext idx 9 |
 *         ext LAT 3 ISSUE | TS 5
 */
static void test_extended_and_align(void **state)
{
	uint8_t b[64];
	size_t at = 0;
	struct spe_packet p;
	struct spe_decoder d;
	struct spe_record r;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	b[at++] = 0x01;
	b[at++] = 0x00;
	b[at++] = 0x00;
	b[at++] = 0x22;
	b[at++] = 0x00;
	at = 8;
	memset(b + 5, 0xee, 3); /* what a pad covers is never decoded */
	b[at++] = 0x20;
	at = put8(b, at, 0xb1, 0x5000);
	b[at++] = 0x21;
	at = put8(b, at, 0xb1, 0x6000);
	b[at++] = 0x20;
	b[at++] = 0x99;
	b[at++] = 3;
	b[at++] = 0;
	at = put8(b, at, 0x71, 5);

	assert_int_equal(spe_packet_decode(b, at, 3, &p), 5);
	assert_int_equal(p.type, SPE_PKT_PAD);
	assert_true(p.extended);
	assert_int_equal(spe_packet_decode(b, at, 8, &p), 10);
	assert_int_equal(p.type, SPE_PKT_ADDRESS);
	assert_int_equal(p.index, SPE_ADDR_TGT);
	spe_packet_desc(&p, &sb);
	assert_string_equal(sb.buf, "TGT 0x5000 el0 ns=0");
	strbuf_release(&sb);
	assert_int_equal(spe_packet_decode(b, at, 18, &p), 10);
	assert_int_equal(p.index, 9);

	spe_decoder_init(&d, b, at);
	/* the END alone closes an (empty) record */
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_int_equal(r.nr_packets, 1);
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_int_equal(r.offset, 8);
	assert_true(r.present & SPE_HAS_ADDR(SPE_ADDR_TGT));
	assert_int_equal(spe_addr_value(r.addr[SPE_ADDR_TGT]), 0x5000);
	assert_int_equal(r.counter[SPE_CNT_ISSUE], 3);
	assert_int_equal(r.timestamp, 5);
	assert_int_equal(d.stats.unknown_index, 1);
	assert_int_equal(spe_decoder_next(&d, &r), 0);
	assert_int_equal(d.stats.bad_bytes, 0);
}

/*
 * A bad byte inside a record (0x03 starts no packet) drops that record; the next
 * one decodes. Stream: PC | 0x03 | TS  then  the mispredicted record.
 */
static void test_bad_byte(void **state)
{
	uint8_t b[128];
	size_t at = 0;
	struct spe_decoder d;
	struct spe_record r;
	struct branch_entry e;

	(void)state;
	at = put8(b, at, 0xb0, 0x1234);
	b[at++] = 0x03;
	at = put8(b, at, 0x71, 1);
	at += build_mispred(b + at);
	spe_decoder_init(&d, b, at);
	/* the TS after the bad byte closes a record holding only the TS */
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_false(r.present & SPE_HAS_ADDR(SPE_ADDR_PC));
	assert_int_equal(spe_decoder_next(&d, &r), 1);
	assert_true(spe_record_branch(&r, &e));
	assert_true(e.mispred);
	assert_int_equal(d.stats.bad_bytes, 1);
	assert_int_equal(d.stats.dropped, 1);
}

/* Every prefix of a two-record stream: whole records only, the cut one counted. */
static void test_truncation(void **state)
{
	uint8_t b[128];
	size_t len = build_mispred(b), full;

	(void)state;
	full = len;
	len += build_mispred(b + len);
	for (size_t cut = 0; cut <= len; cut++) {
		uint8_t *copy = tdp_malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees any overread */
		struct spe_decoder d;
		struct spe_record r;
		int n = 0;

		assert_non_null(copy);
		memcpy(copy, b, cut);
		spe_decoder_init(&d, copy, cut);
		while (spe_decoder_next(&d, &r) > 0)
			n++;
		assert_int_equal(n, (int)(cut / full));
		assert_int_equal(d.stats.truncated, cut % full ? 1 : 0);
		tdp_free(copy);
	}
}

/* Random bytes: any outcome but a crash or an overread (run under ASan). */
static void test_random(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(x % 97);
		uint8_t *b = tdp_malloc(len ? len : 1);
		struct spe_decoder d;
		struct spe_record r;
		struct branch_entry e;
		uint64_t packets = 0;

		assert_non_null(b);
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* bias towards header bytes so that long packets occur */
			b[i] = (uint8_t)(i % 3 ? x : (x & 1 ? 0xb0 | (x >> 8 & 7) : 0x20 | (x >> 8 & 3)));
		}
		spe_decoder_init(&d, b, len);
		while (spe_decoder_next(&d, &r) > 0) {
			struct strbuf sb = STRBUF_INIT;
			struct spe_packet p;

			(void)spe_record_branch(&r, &e);
			if (spe_packet_decode(b, len, r.offset, &p) > 0)
				spe_packet_desc(&p, &sb);
			strbuf_release(&sb);
		}
		packets += d.stats.packets;
		assert_true(d.pos <= len);
		tdp_free(b);
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		(void)packets;
	}
}

static struct quipper *quipper_state(void)
{
	static struct quipper q;

	return load_quipper(&q) ? NULL : &q;
}

static int group_setup(void **state)
{
	*state = quipper_state();
	return *state ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest quipper[] = {
		cmocka_unit_test(test_quipper_packets),
		cmocka_unit_test(test_quipper_records),
	};
	const struct CMUnitTest streams[] = {
		cmocka_unit_test(test_mispredicted),
		cmocka_unit_test(test_branch_types),
		cmocka_unit_test(test_extended_and_align),
		cmocka_unit_test(test_bad_byte),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_random),
	};
	int fails = cmocka_run_group_tests(streams, NULL, NULL);

	if (!quipper_state()) {
		print_message("skip: the shared quipper SPE packets are not readable (TDPROF_SHARED_DATA)\n");
		return fails ? 1 : 77;
	}
	return fails + cmocka_run_group_tests_name("quipper", quipper, group_setup, NULL) ? 1 : 0;
}
