/*
 * feature.c: the feature sections the analysis needs (strings, nrcpus, total_mem,
 * cmdline, build-ids, event_desc, pmu_mappings, branch_stack); every other feature
 * is kept as raw bytes only (see perfdata.h). Layouts: tools/perf/util/header.c
 * (write_* / process_*): strings are {u32 len; char s[len]} with len counting the
 * NUL and perf's padding to 64 bytes.
 */
#include "perfdata/perfdata-internal.h"

#include "base/alloc.h"
#include "base/checked.h"
#include "base/err.h"

#include <inttypes.h>

/* A cursor over one feature section. */
struct fcur {
	struct perfdata *p;
	const uint8_t *data;
	size_t len;
	size_t at;
	uint64_t off;     /* file offset of data[0] */
	unsigned feat;
	struct tdp_err *err;
};

static int fcur_short(struct fcur *c, size_t need, const char *what)
{
	return pd_error(c->p, c->err, TDP_EFORMAT,
			"feature %s at offset 0x%" PRIx64 ": %s needs %zu bytes but the section has %zu left",
			perfdata_feature_name(c->feat), c->off + c->at, what, need, c->len - c->at);
}

static int fcur_u32(struct fcur *c, uint32_t *v, const char *what)
{
	if (c->len - c->at < 4)
		return fcur_short(c, 4, what);
	*v = pd_u32(c->data + c->at);
	c->at += 4;
	return 0;
}

static int fcur_u64(struct fcur *c, uint64_t *v, const char *what)
{
	if (c->len - c->at < 8)
		return fcur_short(c, 8, what);
	*v = pd_u64(c->data + c->at);
	c->at += 8;
	return 0;
}

/* Read one {u32 len; char s[len]} string as a new heap string (the caller frees). */
static int fcur_string(struct fcur *c, char **out, const char *what)
{
	uint32_t n = 0;
	size_t sl;
	int ret;

	ret = fcur_u32(c, &n, what);
	if (ret)
		return ret;
	if (n > PERFDATA_MAX_STRING)
		return pd_error(c->p, c->err, TDP_ELIMIT,
				"feature %s at offset 0x%" PRIx64 ": %s of %" PRIu32
				" bytes exceeds the limit of %d (PERFDATA_MAX_STRING)",
				perfdata_feature_name(c->feat), c->off + c->at - 4, what, n,
				PERFDATA_MAX_STRING);
	if (c->len - c->at < n)
		return fcur_short(c, n, what);
	sl = strnlen((const char *)c->data + c->at, n);
	*out = tdp_strndup((const char *)c->data + c->at, sl);
	if (!*out)
		return tdp_err_oom(c->err);
	c->at += n;
	return 0;
}

/* Check a count read from the file against the room it needs, before allocating. */
static int fcur_count(struct fcur *c, uint64_t nr, size_t min_each, const char *what)
{
	if (nr > PERFDATA_MAX_LIST)
		return pd_error(c->p, c->err, TDP_ELIMIT,
				"feature %s at offset 0x%" PRIx64 ": %" PRIu64
				" %s exceed the limit of %u (PERFDATA_MAX_LIST)",
				perfdata_feature_name(c->feat), c->off, nr, what, PERFDATA_MAX_LIST);
	if (min_each && nr > (c->len - c->at) / min_each)
		return pd_error(c->p, c->err, TDP_EFORMAT,
				"feature %s at offset 0x%" PRIx64 ": %" PRIu64
				" %s cannot fit in its %zu bytes",
				perfdata_feature_name(c->feat), c->off, nr, what, c->len);
	return 0;
}

static void free_cmdline(struct pd_features *f)
{
	for (size_t i = 0; f->cmdline && i < f->pub.nr_cmdline; i++)
		tdp_free(f->cmdline[i]);
	tdp_free(f->cmdline);
	f->cmdline = NULL;
	f->pub.cmdline = NULL;
	f->pub.nr_cmdline = 0;
}

static void free_build_ids(struct pd_features *f)
{
	for (size_t i = 0; f->build_ids && i < f->pub.nr_build_ids; i++)
		tdp_free((void *)f->build_ids[i].filename);
	tdp_free(f->build_ids);
	f->build_ids = NULL;
	f->build_ids_alloc = 0;
	f->pub.build_ids = NULL;
	f->pub.nr_build_ids = 0;
}

int pd_build_id_add(struct perfdata *p, const struct perfdata_record *rec, struct tdp_err *err)
{
	const struct perfdata_build_id_record *b = &rec->u.build_id;
	struct pd_features *f = &p->feat;
	struct perfdata_build_id *e;
	char *name;

	for (size_t i = 0; i < f->pub.nr_build_ids; i++) {
		e = &f->build_ids[i];
		if (e->size == b->size && !memcmp(e->id, b->id, b->size) &&
		    strlen(e->filename) == b->filename.len &&
		    !memcmp(e->filename, b->filename.s, b->filename.len))
			return 0;
	}
	if (f->pub.nr_build_ids >= PERFDATA_MAX_LIST)
		return pd_error(p, err, TDP_ELIMIT,
				"record at offset 0x%" PRIx64 ": more than %u build-ids (PERFDATA_MAX_LIST)",
				rec->offset, PERFDATA_MAX_LIST);
	name = tdp_strndup(b->filename.s, b->filename.len);
	if (!name || TDP_GROW(f->build_ids, f->build_ids_alloc, f->pub.nr_build_ids + 1)) {
		tdp_free(name);
		return tdp_err_oom(err);
	}
	e = &f->build_ids[f->pub.nr_build_ids++];
	e->pid = b->pid;
	e->misc = rec->misc;
	e->size = b->size;
	memcpy(e->id, b->id, sizeof(e->id));
	e->filename = name;
	f->pub.build_ids = f->build_ids;
	return 0;
}

static void free_pmus(struct pd_features *f)
{
	for (size_t i = 0; f->pmus && i < f->pub.nr_pmu_mappings; i++)
		tdp_free((void *)f->pmus[i].name);
	tdp_free(f->pmus);
	f->pmus = NULL;
	f->pub.pmu_mappings = NULL;
	f->pub.nr_pmu_mappings = 0;
}

void pd_features_release(struct pd_features *f)
{
	for (size_t i = 0; i < PERFDATA_FEAT_BITS; i++) {
		tdp_free(f->str[i]);
		tdp_free(f->raw_own[i]);
	}
	free_cmdline(f);
	free_build_ids(f);
	free_pmus(f);
	memset(f, 0, sizeof(*f));
}

static int parse_string(struct fcur *c)
{
	struct pd_features *f = &c->p->feat;
	char *s = NULL;
	int ret = fcur_string(c, &s, "the string");

	if (ret)
		return ret;
	tdp_free(f->str[c->feat]);
	f->str[c->feat] = s;
	switch (c->feat) {
	case PERFDATA_FEAT_HOSTNAME: f->pub.hostname = s; break;
	case PERFDATA_FEAT_OSRELEASE: f->pub.osrelease = s; break;
	case PERFDATA_FEAT_VERSION: f->pub.version = s; break;
	case PERFDATA_FEAT_ARCH: f->pub.arch = s; break;
	case PERFDATA_FEAT_CPUDESC: f->pub.cpudesc = s; break;
	case PERFDATA_FEAT_CPUID: f->pub.cpuid = s; break;
	default: break;
	}
	return 0;
}

static int parse_cmdline(struct fcur *c)
{
	struct pd_features *f = &c->p->feat;
	char **argv = NULL;
	uint32_t nr = 0;
	size_t got = 0;
	int ret;

	ret = fcur_u32(c, &nr, "the argument count");
	if (!ret)
		ret = fcur_count(c, nr, 4, "arguments");
	if (ret)
		return ret;
	argv = tdp_calloc(nr ? nr : 1, sizeof(*argv));
	if (!argv)
		return tdp_err_oom(c->err);
	for (; got < nr; got++) {
		ret = fcur_string(c, &argv[got], "an argument");
		if (ret)
			break;
	}
	if (ret) {
		for (size_t i = 0; i < got; i++)
			tdp_free(argv[i]);
		tdp_free(argv);
		return ret;
	}
	free_cmdline(f);
	f->cmdline = argv;
	f->pub.cmdline = (const char *const *)argv;
	f->pub.nr_cmdline = nr;
	return 0;
}

/*
 * BUILD_ID: a sequence of {perf_event_header; s32 pid; u8 build_id[24]; char
 * filename[]} entries filling the section. With PERFDATA_MISC_BUILD_ID_SIZE in
 * misc, build_id[20] is the id's size; otherwise the id is 20 bytes.
 */
#define BUILD_ID_ENTRY_MIN 36

static int parse_build_ids(struct fcur *c)
{
	struct pd_features *f = &c->p->feat;
	struct perfdata_build_id *ids = NULL;
	size_t nr = 0, at, i = 0;
	int ret = 0;

	/* first pass: count and check the entries */
	for (at = 0; at < c->len; nr++) {
		uint16_t size;

		if (c->len - at < BUILD_ID_ENTRY_MIN)
			return pd_error(c->p, c->err, TDP_EFORMAT,
					"feature BUILD_ID at offset 0x%" PRIx64 ": entry of %zu bytes is shorter "
					"than %d",
					c->off + at, c->len - at, BUILD_ID_ENTRY_MIN);
		size = pd_u16(c->data + at + 6);
		if (size < BUILD_ID_ENTRY_MIN || size > c->len - at)
			return pd_error(c->p, c->err, TDP_EFORMAT,
					"feature BUILD_ID at offset 0x%" PRIx64 ": entry size %u is not within "
					"%d..%zu",
					c->off + at, size, BUILD_ID_ENTRY_MIN, c->len - at);
		at += size;
		if (nr >= PERFDATA_MAX_LIST)
			return fcur_count(c, (uint64_t)nr + 1, 0, "build-ids");
	}
	ids = tdp_calloc(nr ? nr : 1, sizeof(*ids));
	if (!ids)
		return tdp_err_oom(c->err);
	for (at = 0; i < nr; i++) {
		const uint8_t *e = c->data + at;
		uint16_t misc = pd_u16(e + 4);
		uint16_t size = pd_u16(e + 6);
		const char *name = (const char *)e + BUILD_ID_ENTRY_MIN;
		size_t nl = strnlen(name, size - BUILD_ID_ENTRY_MIN);

		ids[i].pid = (int32_t)pd_u32(e + 8);
		ids[i].misc = misc;
		memcpy(ids[i].id, e + 12, 20);
		ids[i].size = 20;
		if ((misc & PERFDATA_MISC_BUILD_ID_SIZE) && e[12 + 20] <= 20)
			ids[i].size = e[12 + 20];
		ids[i].filename = tdp_strndup(name, nl);
		if (!ids[i].filename) {
			ret = tdp_err_oom(c->err);
			break;
		}
		at += size;
	}
	if (ret) {
		for (size_t k = 0; k < i; k++)
			tdp_free((void *)ids[k].filename);
		tdp_free(ids);
		return ret;
	}
	free_build_ids(f);
	f->build_ids = ids;
	f->build_ids_alloc = nr ? nr : 1;
	f->pub.build_ids = ids;
	f->pub.nr_build_ids = nr;
	return 0;
}

static int parse_pmu_mappings(struct fcur *c)
{
	struct pd_features *f = &c->p->feat;
	struct perfdata_pmu_mapping *m = NULL;
	uint32_t nr = 0;
	size_t got = 0;
	int ret;

	ret = fcur_u32(c, &nr, "the mapping count");
	if (!ret)
		ret = fcur_count(c, nr, 8, "PMU mappings");
	if (ret)
		return ret;
	m = tdp_calloc(nr ? nr : 1, sizeof(*m));
	if (!m)
		return tdp_err_oom(c->err);
	for (; got < nr; got++) {
		char *name = NULL;

		ret = fcur_u32(c, &m[got].type, "a PMU type");
		if (!ret)
			ret = fcur_string(c, &name, "a PMU name");
		if (ret)
			break;
		m[got].name = name;
	}
	if (ret) {
		for (size_t i = 0; i < got; i++)
			tdp_free((void *)m[i].name);
		tdp_free(m);
		return ret;
	}
	free_pmus(f);
	f->pmus = m;
	f->pub.pmu_mappings = m;
	f->pub.nr_pmu_mappings = nr;
	return 0;
}

/*
 * EVENT_DESC: {u32 nr; u32 attr_size; nr x {attr[attr_size]; u32 nr_ids;
 * string name; u64 ids[nr_ids]}}. perf names an evsel by the first id of its
 * description (evlist__set_event_name); without ids we go by position.
 */
static int parse_event_desc(struct fcur *c)
{
	struct perfdata *p = c->p;
	uint32_t nr = 0, attr_size = 0;
	int ret;

	ret = fcur_u32(c, &nr, "the event count");
	if (!ret)
		ret = fcur_u32(c, &attr_size, "the attr size");
	if (!ret)
		ret = fcur_count(c, nr, 8, "events");
	if (ret)
		return ret;
	if (attr_size > PERFDATA_MAX_ATTR_SIZE)
		return pd_error(p, c->err, TDP_ELIMIT,
				"feature EVENT_DESC at offset 0x%" PRIx64 ": attr size %" PRIu32
				" exceeds the limit of %d (PERFDATA_MAX_ATTR_SIZE)",
				c->off, attr_size, PERFDATA_MAX_ATTR_SIZE);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nr_ids = 0;
		uint64_t first_id = 0;
		char *name = NULL;
		struct pd_attr *a = NULL;

		if (c->len - c->at < attr_size)
			return fcur_short(c, attr_size, "an attr");
		c->at += attr_size;
		ret = fcur_u32(c, &nr_ids, "an id count");
		if (!ret)
			ret = fcur_string(c, &name, "an event name");
		if (ret)
			return ret;
		if (nr_ids > (c->len - c->at) / 8) {
			tdp_free(name);
			return fcur_short(c, (size_t)nr_ids * 8, "the ids");
		}
		if (nr_ids)
			first_id = pd_u64(c->data + c->at);
		c->at += (size_t)nr_ids * 8;
		if (nr_ids && p->nr_ids)
			a = (struct pd_attr *)pd_attr_by_id(p, first_id);
		if (!a && i < p->nr_attrs && (!nr_ids || !p->nr_ids || p->nr_attrs == 1))
			a = p->attrs[i];
		if (a && !a->name) {
			a->name = name;
			a->pub.name = name;
			name = NULL;
		}
		tdp_free(name);
	}
	return 0;
}

int pd_feature_parse(struct perfdata *p, unsigned feat, const uint8_t *data, size_t len,
		     uint64_t off, struct tdp_err *err)
{
	struct fcur c = { p, data, len, 0, off, feat, err };
	struct pd_features *f = &p->feat;
	int ret = 0;

	if (feat >= PERFDATA_FEAT_BITS)
		return 0;
	f->pub.present[feat / 64] |= 1ull << (feat % 64);
	f->raw[feat] = data;
	f->raw_len[feat] = len;
	if (p->rd) {
		/* a stream's buffer moves on: keep a copy (a feature seen twice: the last) */
		tdp_free(f->raw_own[feat]);
		f->raw_own[feat] = pd_stream_keep(data, len);
		if (!f->raw_own[feat])
			return tdp_err_oom(err);
		f->raw[feat] = f->raw_own[feat];
	}
	switch (feat) {
	case PERFDATA_FEAT_HOSTNAME:
	case PERFDATA_FEAT_OSRELEASE:
	case PERFDATA_FEAT_VERSION:
	case PERFDATA_FEAT_ARCH:
	case PERFDATA_FEAT_CPUDESC:
	case PERFDATA_FEAT_CPUID:
		ret = parse_string(&c);
		break;
	case PERFDATA_FEAT_NRCPUS:
		/* perf writes the present CPUs (avail) first, then the online ones */
		ret = fcur_u32(&c, &f->pub.nr_cpus_avail, "nr_cpus_avail");
		if (!ret)
			ret = fcur_u32(&c, &f->pub.nr_cpus_online, "nr_cpus_online");
		break;
	case PERFDATA_FEAT_TOTAL_MEM:
		ret = fcur_u64(&c, &f->pub.total_mem_kb, "total_mem");
		break;
	case PERFDATA_FEAT_CMDLINE:
		ret = parse_cmdline(&c);
		break;
	case PERFDATA_FEAT_BUILD_ID:
		ret = parse_build_ids(&c);
		break;
	case PERFDATA_FEAT_EVENT_DESC:
		ret = parse_event_desc(&c);
		break;
	case PERFDATA_FEAT_PMU_MAPPINGS:
		ret = parse_pmu_mappings(&c);
		break;
	case PERFDATA_FEAT_BRANCH_STACK:
		f->pub.branch_stack = true;
		break;
	default:
		break; /* kept raw */
	}
	return ret;
}
