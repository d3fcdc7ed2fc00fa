/* spe.c: Arm SPE packets, records and branch entries (spe.h). */
#include "branch/spe.h"

#include <string.h>

/* Header byte patterns (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.h). */
#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_MASK1 0xcf         /* EVENTS, DATA-SOURCE: bits 4-5 give the size */
#define HDR_EVENTS 0x42
#define HDR_SOURCE 0x43
#define HDR_MASK2 0xfc         /* CONTEXT, OP-TYPE, extended: bits 0-1 are an index */
#define HDR_CONTEXT 0x64
#define HDR_OP_TYPE 0x48
#define HDR_EXTENDED 0x20
#define HDR_MASK3 0xf8         /* ADDRESS, COUNTER: bits 0-2 are an index */
#define HDR_ADDRESS 0xb0
#define HDR_COUNTER 0x98
#define HDR1_ALIGNMENT 0x00    /* second byte of an extended header: alignment pad */

static uint64_t le_payload(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

/* Fill a packet whose type and payload size come from header byte `hdr`. */
static int with_payload(const uint8_t *b, size_t room, size_t hdr_len, size_t psize, struct spe_packet *out)
{
	if (room < hdr_len + psize)
		return 0;
	out->payload = le_payload(b + hdr_len, psize);
	out->size = (uint8_t)(hdr_len + psize);
	return (int)out->size;
}

int spe_packet_decode(const uint8_t *buf, size_t len, size_t pos, struct spe_packet *out)
{
	const uint8_t *b = buf + pos;
	size_t room = pos < len ? len - pos : 0;
	uint8_t h, hdr;
	size_t hdr_len = 1;

	memset(out, 0, sizeof(*out));
	if (!room)
		return 0;
	h = b[0];
	if (h == HDR_PAD) {
		out->type = SPE_PKT_PAD;
		out->size = 1;
		return 1;
	}
	if (h == HDR_END) {
		out->type = SPE_PKT_END;
		out->size = 1;
		return 1;
	}
	if (h == HDR_TIMESTAMP) {
		out->type = SPE_PKT_TIMESTAMP;
		return with_payload(b, room, 1, 8, out);
	}
	if ((h & HDR_MASK1) == HDR_EVENTS || (h & HDR_MASK1) == HDR_SOURCE) {
		out->type = (h & HDR_MASK1) == HDR_EVENTS ? SPE_PKT_EVENTS : SPE_PKT_DATA_SOURCE;
		return with_payload(b, room, 1, (size_t)1 << ((h >> 4) & 3), out);
	}
	if ((h & HDR_MASK2) == HDR_CONTEXT || (h & HDR_MASK2) == HDR_OP_TYPE) {
		out->type = (h & HDR_MASK2) == HDR_CONTEXT ? SPE_PKT_CONTEXT : SPE_PKT_OP_TYPE;
		out->index = h & 3;
		return with_payload(b, room, 1, (size_t)1 << ((h >> 4) & 3), out);
	}
	hdr = h;
	if ((h & HDR_MASK2) == HDR_EXTENDED) {
		out->extended = true;
		if (room < 2) {
			out->type = SPE_PKT_PAD;
			return 0;
		}
		hdr = b[1];
		hdr_len = 2;
		if (hdr == HDR1_ALIGNMENT) {
			/* pad up to the next multiple of the alignment, counted from the
			 * buffer's start (perf counts from the header's address) */
			size_t align = (size_t)1 << ((h & 0xf) + 1);
			size_t size = align - (pos & (align - 1));

			out->type = SPE_PKT_PAD;
			if (room < size)
				return 0;
			out->size = (uint8_t)size;
			return (int)size;
		}
	}
	if ((hdr & HDR_MASK3) == HDR_ADDRESS || (hdr & HDR_MASK3) == HDR_COUNTER) {
		out->type = (hdr & HDR_MASK3) == HDR_ADDRESS ? SPE_PKT_ADDRESS : SPE_PKT_COUNTER;
		out->index = out->extended ? (uint8_t)(((h & 3) << 3) | (hdr & 7)) : (uint8_t)(hdr & 7);
		return with_payload(b, room, hdr_len, (size_t)1 << ((hdr >> 4) & 3), out);
	}
	out->type = SPE_PKT_BAD;
	out->size = 1;
	return -1;
}

void spe_decoder_init(struct spe_decoder *d, const uint8_t *buf, size_t len)
{
	memset(d, 0, sizeof(*d));
	d->buf = buf;
	d->len = len;
}

static void record_apply(struct spe_decoder *d, struct spe_record *r, const struct spe_packet *p)
{
	switch (p->type) {
	case SPE_PKT_ADDRESS:
		if (p->index < SPE_ADDR_NR) {
			r->addr[p->index] = p->payload;
			r->present |= SPE_HAS_ADDR(p->index);
		} else {
			d->stats.unknown_index++;
		}
		break;
	case SPE_PKT_COUNTER:
		if (p->index < SPE_CNT_NR) {
			r->counter[p->index] = (uint16_t)p->payload;
			r->present |= SPE_HAS_COUNTER(p->index);
		} else {
			d->stats.unknown_index++;
		}
		break;
	case SPE_PKT_EVENTS:
		r->events = p->payload;
		r->present |= SPE_HAS_EVENTS;
		break;
	case SPE_PKT_DATA_SOURCE:
		r->data_source = p->payload;
		r->present |= SPE_HAS_DATA_SOURCE;
		break;
	case SPE_PKT_CONTEXT:
		r->context = (uint32_t)p->payload;
		r->context_el = (uint8_t)(p->index + 1);
		r->present |= SPE_HAS_CONTEXT;
		break;
	case SPE_PKT_OP_TYPE:
		r->op_class = p->index;
		r->op = (uint8_t)p->payload;
		r->present |= SPE_HAS_OP_TYPE;
		break;
	case SPE_PKT_TIMESTAMP:
		r->timestamp = p->payload;
		r->present |= SPE_HAS_TIMESTAMP;
		break;
	default:
		break;
	}
}

int spe_decoder_next(struct spe_decoder *d, struct spe_record *out)
{
	struct spe_record r;
	bool open = false;

	memset(&r, 0, sizeof(r));
	while (d->pos < d->len) {
		struct spe_packet p;
		size_t at = d->pos;
		int n = spe_packet_decode(d->buf, d->len, d->pos, &p);

		if (n < 0) {
			/* as perf: step over the byte; the record it broke is lost */
			d->stats.bad_bytes++;
			d->pos++;
			if (open) {
				d->stats.dropped++;
				memset(&r, 0, sizeof(r));
				open = false;
			}
			continue;
		}
		if (n == 0) {
			d->stats.truncated++;
			d->pos = d->len;
			return 0;
		}
		d->stats.packets++;
		d->pos += (size_t)n;
		if (p.type == SPE_PKT_PAD)
			continue;
		if (!open) {
			r.offset = at;
			open = true;
		}
		r.nr_packets++;
		record_apply(d, &r, &p);
		if (p.type == SPE_PKT_TIMESTAMP || p.type == SPE_PKT_END) {
			d->stats.records++;
			*out = r;
			return 1;
		}
	}
	if (open)
		d->stats.truncated++;
	return 0;
}

bool spe_record_branch(const struct spe_record *r, struct branch_entry *out)
{
	unsigned cr, el;
	bool cond, ind;

	if (!(r->present & SPE_HAS_OP_TYPE) || r->op_class != SPE_OP_BRANCH ||
	    !(r->present & SPE_HAS_ADDR(SPE_ADDR_PC)))
		return false;
	memset(out, 0, sizeof(*out));
	out->from = spe_addr_ip(r->addr[SPE_ADDR_PC]);
	if (r->present & SPE_HAS_ADDR(SPE_ADDR_TGT))
		out->to = spe_addr_ip(r->addr[SPE_ADDR_TGT]);
	if (r->present & SPE_HAS_EVENTS) {
		out->mispred = (r->events & SPE_EV_MISPRED) != 0;
		out->predicted = !out->mispred;
		out->not_taken = (r->events & SPE_EV_NOT_TAKEN) != 0;
	}
	cond = r->op & SPE_OP_BR_COND;
	ind = r->op & SPE_OP_BR_INDIRECT;
	cr = (r->op >> SPE_OP_BR_CR_SHIFT) & 3;
	if (cr == SPE_OP_BR_CR_RET)
		out->type = cond ? BRANCH_TYPE_COND_RET : BRANCH_TYPE_RET;
	else if (cr == SPE_OP_BR_CR_BL)
		out->type = ind ? BRANCH_TYPE_IND_CALL : cond ? BRANCH_TYPE_COND_CALL : BRANCH_TYPE_CALL;
	else if (ind)
		out->type = BRANCH_TYPE_IND;
	else
		out->type = cond ? BRANCH_TYPE_COND : BRANCH_TYPE_UNCOND;
	el = spe_addr_el(r->addr[SPE_ADDR_PC]);
	out->priv = el == 0 ? BRANCH_PRIV_USER : el == 1 ? BRANCH_PRIV_KERNEL : el == 2 ? BRANCH_PRIV_HV
									 : BRANCH_PRIV_UNKNOWN;
	return true;
}
