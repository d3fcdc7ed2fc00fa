/* groupread.c: a sampling group's counts by IP from a perf.data's group reads (groupread.h). */
#include "diagnose/groupread.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/err.h"
#include "perfdata/format.h"
#include "perfdata/perfdata.h"
#include "pmu/event.h"

struct prev {
	uint64_t id;
	uint64_t value;
};

struct charge {
	uint64_t ip;
	uint32_t pid;
	uint64_t v[GROUPREAD_MAX_EVENTS];
};

struct load {
	struct prev *ids;
	size_t nr_ids;
	struct charge *c;
	size_t nr, alloc;
};

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8); /* the reader accepts only the host's byte order */
	return v;
}

/* The previous total of id (a new id starts at 0, as perf's sid->period). */
static int prev_of(struct load *l, uint64_t id, uint64_t **out, struct tdp_err *err)
{
	for (size_t i = 0; i < l->nr_ids; i++)
		if (l->ids[i].id == id) {
			*out = &l->ids[i].value;
			return 0;
		}
	if (l->nr_ids >= GROUPREAD_MAX_IDS)
		return tdp_err_set(err, TDP_ELIMIT, "more than %u sample ids in the group reads", GROUPREAD_MAX_IDS);
	l->ids[l->nr_ids] = (struct prev){ id, 0 };
	*out = &l->ids[l->nr_ids++].value;
	return 0;
}

static int sample(struct load *l, const struct perfdata *p, const struct perfdata_record *rec, struct groupread *out,
		  struct tdp_err *err)
{
	const struct perfdata_sample *s = &rec->u.sample;
	const struct perfdata_attr *a = rec->attr;
	uint64_t rf = a->read_format, nr;
	size_t per, at = 8, need;
	struct charge ch;
	int rc;

	memset(&ch, 0, sizeof(ch));
	ch.ip = s->ip;
	ch.pid = (s->fields & PERFDATA_SAMPLE_TID) ? s->pid : UINT32_MAX;
	if (!(rf & PERFDATA_FORMAT_GROUP) || !(rf & PERFDATA_FORMAT_ID) || s->read_len < 8) {
		out->other_samples++;
		return 0;
	}
	if (!out->samples)
		out->leader = a->index;
	nr = rd64(s->read);
	per = 1 + !!(rf & PERFDATA_FORMAT_ID) + !!(rf & PERFDATA_FORMAT_LOST);
	at += 8 * (!!(rf & PERFDATA_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERFDATA_FORMAT_TOTAL_TIME_RUNNING));
	if (nr > GROUPREAD_MAX_EVENTS)
		return tdp_err_set(err, TDP_ELIMIT, "sample at offset 0x%llx: a group read of %llu events (at most %d)",
				   (unsigned long long)rec->offset, (unsigned long long)nr, GROUPREAD_MAX_EVENTS);
	need = at + (size_t)nr * per * 8;
	if (need > s->read_len)
		return tdp_err_set(err, TDP_EFORMAT, "sample at offset 0x%llx: its group read needs %zu bytes, has %zu",
				   (unsigned long long)rec->offset, need, s->read_len);
	for (uint64_t k = 0; k < nr; k++, at += per * 8) {
		uint64_t value = rd64(s->read + at), id = rd64(s->read + at + 8), *prev = NULL;
		const struct perfdata_attr *m = perfdata_attr_by_id(p, id);

		if (!m || m->index >= GROUPREAD_MAX_EVENTS) {
			out->unknown_ids++;
			continue;
		}
		if ((rc = prev_of(l, id, &prev, err)) || !prev)
			return rc;
		ch.v[m->index] += value - *prev; /* u64 arithmetic, as perf's */
		*prev = value;
		out->in_group[m->index] = true;
	}
	if (l->nr == l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 1024;
		struct charge *c;

		if (n > GROUPREAD_MAX_IPS * 4u)
			return tdp_err_set(err, TDP_ELIMIT, "more than %u group-read samples", GROUPREAD_MAX_IPS * 4u);
		if (!(c = tdp_reallocarray(l->c, n, sizeof(*c))))
			return tdp_err_oom(err);
		l->c = c;
		l->alloc = n;
	}
	l->c[l->nr++] = ch;
	out->samples++;
	return 0;
}

static int by_ip(const void *a, const void *b)
{
	const struct charge *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void groupread_release(struct groupread *r)
{
	for (size_t i = 0; i < GROUPREAD_MAX_EVENTS; i++)
		tdp_free(r->names[i]);
	tdp_free(r->v);
	memset(r, 0, sizeof(*r));
}

/* The attrs' names: EVENT_DESC's, else perf's name of a generic event. */
static int names(struct perfdata *p, struct groupread *out, struct tdp_err *err)
{
	out->nr_events = perfdata_nr_attrs(p);
	for (size_t i = 0; i < out->nr_events && i < GROUPREAD_MAX_EVENTS; i++) {
		const struct perfdata_attr *a = perfdata_attr(p, i);
		char buf[GROUPREAD_NAME_MAX];
		const char *n = NULL;

		if (a && a->name && a->name[0])
			n = a->name;
		else if (a && pmu_event_generic_name(a->type, a->config, buf, sizeof(buf)))
			n = buf;
		if (n && !(out->names[i] = tdp_strndup(n, strnlen(n, GROUPREAD_NAME_MAX - 1))))
			return tdp_err_oom(err);
	}
	return 0;
}

/* One row per (IP, pid) of the charges l->c (sorted here). */
static int rows(struct load *l, struct groupread *out, struct tdp_err *err)
{
	qsort(l->c, l->nr, sizeof(*l->c), by_ip);
	if (!(out->v = tdp_calloc(l->nr ? l->nr : 1, sizeof(*out->v))))
		return tdp_err_oom(err);
	for (size_t i = 0; i < l->nr; i++) {
		struct groupread_ip *g;

		if (!out->nr || out->v[out->nr - 1].ip != l->c[i].ip || out->v[out->nr - 1].pid != l->c[i].pid) {
			if (out->nr >= GROUPREAD_MAX_IPS)
				return tdp_err_set(err, TDP_ELIMIT, "more than %u distinct IPs", GROUPREAD_MAX_IPS);
			out->v[out->nr].ip = l->c[i].ip;
			out->v[out->nr++].pid = l->c[i].pid;
		}
		g = &out->v[out->nr - 1];
		g->samples++;
		for (size_t e = 0; e < GROUPREAD_MAX_EVENTS; e++) {
			g->v[e] += l->c[i].v[e];
			out->totals[e] += l->c[i].v[e];
		}
	}
	return 0;
}

int groupread_read(struct perfdata *p, const char *name, const struct groupread_opts *o, struct groupread *out,
		   struct tdp_err *err)
{
	struct perfdata_record rec;
	struct load l = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	l.ids = tdp_calloc(GROUPREAD_MAX_IDS, sizeof(*l.ids));
	if (!l.ids) {
		rc = tdp_err_oom(err);
		goto out;
	}
	if ((rc = names(p, out, err)))
		goto out;
	while ((rc = perfdata_next(p, &rec, err)) == 1) {
		rc = 0;
		if (rec.type == PERFDATA_RECORD_SAMPLE && rec.attr && (rec.attr->sample_type & PERFDATA_SAMPLE_READ))
			rc = sample(&l, p, &rec, out, err);
		else if (o && o->on_record)
			rc = o->on_record(o->ctx, &rec, err);
		if (rc)
			break;
	}
	if (rc < 0)
		goto out;
	if (!out->samples) {
		rc = tdp_err_set(err, TDP_EANALYSIS, "%s: no sample reads its group", name ? name : "perf.data");
		tdp_err_hint(err, "record one with a sampling leader and the events as members: perf record -e "
				  "'{cycles,instructions}:S' -- CMD");
		goto out;
	}
	rc = rows(&l, out, err);
out:
	tdp_free(l.ids);
	tdp_free(l.c);
	if (rc)
		groupread_release(out);
	return rc;
}

int groupread_load(const uint8_t *buf, size_t len, const char *name, struct groupread *out, struct tdp_err *err)
{
	struct perfdata *p = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = perfdata_open(&p, buf, len, name, 0, err)))
		return rc;
	rc = groupread_read(p, name, NULL, out, err);
	perfdata_close(p);
	return rc;
}
