/*
 * event-mods.c: perf's event modifiers (cycles:u, {a,b}:k, :pp) and the
 * perf -vv-like description of an encoding.
 */
#include "pmu/event-internal.h"

#include <stdio.h>
#include <string.h>

bool pmu_mods_valid(const char *mods, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!mods[i] || !strchr(PMU_PERF_MODS, mods[i]))
			return false;
	return true;
}

/*
 * perf's rules (parse-events.c, get_event_modifier): the first of u/k/h excludes
 * every level, then each one named is counted again; the first of G/H excludes
 * guest and host, then each named is counted again; u/k/h and p imply
 * exclude_guest unless G or H were given; p raises precise_ip by one.
 */
bool pmu_mods_apply(struct pmu_event *ev, const char *mods, size_t len)
{
	struct perf_event_attr *a = &ev->attr;
	unsigned eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	unsigned eG = a->exclude_guest, eH = a->exclude_host;
	bool exclude = eu || ek || eh;
	bool exclude_GH = !(eG && !eH); /* G or H given earlier: not perf's default state */
	unsigned precise = a->precise_ip, flags = ev->flags;
	bool pinned = a->pinned, idle = a->exclude_idle;

	for (size_t i = 0; i < len; i++) {
		switch (mods[i]) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude) {
				exclude = true;
				eu = ek = eh = 1;
			}
			if (!exclude_GH)
				eG = 1;
			if (mods[i] == 'u')
				eu = 0;
			else if (mods[i] == 'k')
				ek = 0;
			else
				eh = 0;
			break;
		case 'G':
		case 'H':
			if (!exclude_GH) {
				exclude_GH = true;
				eG = eH = 1;
			}
			if (mods[i] == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			flags |= PMU_EVF_PRECISE_MAX;
			break;
		case 'S':
			flags |= PMU_EVF_SAMPLE_READ;
			break;
		case 'W':
			flags |= PMU_EVF_WEAK;
			break;
		case 'D':
			pinned = true;
			break;
		case 'I':
			idle = true;
			break;
		default:
			return false;
		}
	}
	if (precise > 3)
		return false;
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_guest = eG;
	a->exclude_host = eH;
	a->precise_ip = precise;
	a->pinned = pinned;
	a->exclude_idle = idle;
	ev->flags = flags;
	return true;
}

char *pmu_event_describe(const struct pmu_event *ev, char *buf, size_t size)
{
	const struct perf_event_attr *a = &ev->attr;
	size_t n = 0;

#define ADD(...)                                                             \
	do {                                                                 \
		if (n < size) {                                              \
			int k = snprintf(buf + n, size - n, __VA_ARGS__);    \
			n = k < 0 ? size : n + (size_t)k;                   \
		}                                                            \
	} while (0)
	if (!size)
		return buf;
	buf[0] = '\0';
	ADD("type=%u config=0x%llx", a->type, (unsigned long long)a->config);
	if (a->config1)
		ADD(" config1=0x%llx", (unsigned long long)a->config1);
	if (a->config2)
		ADD(" config2=0x%llx", (unsigned long long)a->config2);
	if (a->exclude_user)
		ADD(" exclude_user=1");
	if (a->exclude_kernel)
		ADD(" exclude_kernel=1");
	if (a->exclude_hv)
		ADD(" exclude_hv=1");
	if (a->exclude_idle)
		ADD(" exclude_idle=1");
	if (a->exclude_host)
		ADD(" exclude_host=1");
	if (a->exclude_guest)
		ADD(" exclude_guest=1");
	if (a->precise_ip)
		ADD(" precise_ip=%u", (unsigned)a->precise_ip);
	if (a->pinned)
		ADD(" pinned=1");
	if (a->freq)
		ADD(" sample_freq=%llu", (unsigned long long)a->sample_freq);
	else if (a->sample_period)
		ADD(" sample_period=%llu", (unsigned long long)a->sample_period);
#undef ADD
	return buf;
}
