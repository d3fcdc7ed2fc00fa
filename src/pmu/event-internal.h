/*
 * event-internal.h: the pieces of the event-specification parser (event.h),
 * shared between its files and included only inside src/pmu/ and its tests.
 *
 *   event.c          the list splitter, groups, modifiers, errors, describe
 *   event-generic.c  perf's generic hardware, cache and software names (tables)
 *   event-mods.c     perf's modifiers (:u, :pp, {a,b}:k), pmu_event_describe()
 *   event-sysfs.c    sysfs PMUs: type, format/ fields, events/ aliases
 *   event-terms.c    pmu/term=value,.../ and alias terms applied to an event
 *   event-pfm.c      libpfm4: initialisation on demand, encoding, listing
 *   event-pfm-names.c  perf's names of model events that libpfm4 spells otherwise
 *   event-known.c    every known name, for `tdprof list events` and suggestions
 */
#ifndef TDPROF_PMU_EVENT_INTERNAL_H
#define TDPROF_PMU_EVENT_INTERNAL_H

#include "pmu/event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tdp_err;

#define PMU_SYSFS_DEFAULT_ROOT "/sys"
#define PMU_SYSFS_DEVICES "bus/event_source/devices"
#define PMU_NAME_MAX 256        /* a PMU, term or alias name (a sysfs file name) */
#define PMU_SYSFS_FILE_MAX 4096 /* a format/ or events/ file */
#define PMU_PMUS_MAX 4096       /* PMU directories read from sysfs */
#define PMU_ALIASES_MAX 65536   /* entries read from one events/ directory */

/* The sysfs root of env (NULL env or root: "/sys"). */
const char *pmu_env_root(const struct pmu_env *env);

/* A location in the user's list, for error messages. */
struct pmu_where {
	const char *spec; /* the whole list */
	size_t off;       /* offset of the event being parsed in spec */
};

/**
 * Record a syntax error (TDP_EUSAGE) at byte `pos` of the event at w: the message
 * quotes the list and gives the 1-based position. Returns TDP_EUSAGE.
 */
int pmu_syntax_error(struct tdp_err *err, const struct pmu_where *w, size_t pos, const char *what);

/* A fresh event: attr.size set, exclude_guest = 1 (perf's default), scale 1. */
void pmu_event_reset(struct pmu_event *ev);

/* ---- event-generic.c ---- */

/**
 * Look up a generic hardware, hardware cache or software name, the first len
 * bytes of name (case-insensitive; perf's spellings and aliases). On a match
 * writes type and config, sets *clock for cpu-clock and task-clock, and returns
 * true.
 */
bool pmu_generic_lookup(const char *name, size_t len, uint32_t *type, uint64_t *config, bool *clock);

/* Where listings go: add() copies its strings; returns 0 or TDP_ENOMEM. */
struct pmu_name_sink {
	int (*add)(struct pmu_name_sink *sink, const char *name, const char *desc, const char *pmu,
		   enum pmu_event_source source);
};
/** Add the generic, cache and software names. Returns 0 or TDP_ENOMEM. */
int pmu_generic_names(struct pmu_name_sink *sink);

/* ---- event-sysfs.c ---- */

/* A sysfs format: which config word, and the bits a value is scattered into. */
struct pmu_format {
	unsigned word;      /* 0: config, 1: config1, 2: config2 */
	unsigned nbits;     /* 1..64 */
	uint8_t bit[64];    /* ascending bit positions */
};

/**
 * Parse the contents of a format/ file ("config:0-7,32-35", "config1:18"),
 * buf[0..len). Returns 0, or -1 when malformed (overlapping or descending ranges,
 * bits above 63, an unknown word).
 */
int pmu_format_parse(const char *buf, size_t len, struct pmu_format *out);

/** Largest value the format holds. */
uint64_t pmu_format_max(const struct pmu_format *f);

/**
 * Put value into the format's bits of attr (clearing them first). Returns false
 * (attr untouched) when value does not fit.
 */
bool pmu_format_put(const struct pmu_format *f, uint64_t value, struct perf_event_attr *attr);

/* One PMU directory. */
struct pmu_sysfs {
	char *name;
	char *dir;     /* <root>/bus/event_source/devices/<name> */
	uint32_t type; /* perf_event_attr.type */
	bool is_core;  /* "cpu", "cpu_core", "cpu_atom", or a PMU with a cpus file */
};

#define PMU_SYSFS_INIT { NULL, NULL, 0, false }

/**
 * Open the PMU `name` (the first nlen bytes) under root. Returns 0; TDP_ENOENT
 * when it does not exist (message names it, hint lists the PMUs that do);
 * TDP_EFORMAT when its type file is unreadable; TDP_EUSAGE for a name that
 * cannot be a PMU; TDP_ENOMEM. On failure p is left released.
 */
int pmu_sysfs_open(struct pmu_sysfs *p, const char *root, const char *name, size_t nlen, struct tdp_err *err);
void pmu_sysfs_release(struct pmu_sysfs *p);

/** True when s[0..len) may be one path component: [A-Za-z0-9_.-]+ not starting with '.'. */
bool pmu_name_ok(const char *s, size_t len);

/**
 * Read and parse <pmu>/format/<name>. Returns 1 (out filled), 0 when the PMU has
 * no such field, -1 when the file is unreadable or malformed.
 */
int pmu_sysfs_read_format(const struct pmu_sysfs *p, const char *name, struct pmu_format *out);

/* A sorted list of names (PMUs, aliases, formats). */
struct pmu_names {
	char **v;
	size_t nr;
	size_t alloc;
};

#define PMU_NAMES_INIT { NULL, 0, 0 }

void pmu_names_release(struct pmu_names *n);

struct strbuf;
/** Append "a, b, c and 4 more" (the first 24 names) to sb. */
void pmu_names_join(struct strbuf *sb, const struct pmu_names *n);

/**
 * The PMUs under root, sorted. A missing directory gives an empty list.
 * Returns 0 or TDP_ENOMEM.
 */
int pmu_sysfs_pmus(const char *root, struct pmu_names *out);

/** True when the PMU directory dir is a CPU core PMU (see pmu_sysfs.is_core). */
bool pmu_sysfs_dir_is_core(const char *dir, const char *name);

/**
 * The entries of <pmu>/<sub> ("events" or "format"), sorted; with `skip_dotted`,
 * names ending in .scale, .unit, .per-pkg, .snapshot are left out. A missing
 * directory gives an empty list. Returns 0 or TDP_ENOMEM.
 */
int pmu_sysfs_entries(const struct pmu_sysfs *p, const char *sub, bool skip_dotted, struct pmu_names *out);

/* An alias from <pmu>/events/. */
struct pmu_alias {
	char name[PMU_NAME_MAX];          /* as sysfs spells it */
	char terms[PMU_SYSFS_FILE_MAX];   /* "event=0x00,umask=0x80" */
	double scale;                     /* <alias>.scale or 1.0 */
	char unit[64];                    /* <alias>.unit or "" */
};

/**
 * Find alias `name` (first nlen bytes; case-insensitive) of PMU p. Returns 1
 * when found (out filled), 0 when p has no such alias, or TDP_EFORMAT (unreadable
 * or malformed alias file, message names it).
 */
int pmu_sysfs_alias(const struct pmu_sysfs *p, const char *name, size_t nlen, struct pmu_alias *out,
		    struct tdp_err *err);

/**
 * Apply the terms `terms[0..len)` ("event=0x3c,umask=1,edge,name=x,topdown-retiring")
 * of PMU p to ev. Terms are perf's own (config, config1, config2, period, freq,
 * name), format/ fields, or, without a value, an alias of p (whose own terms are
 * applied then, with its scale and unit). w locates terms in the user's list
 * (w->off is the offset of terms[0]); from_alias marks terms read from sysfs
 * (errors then name the alias file rather than a position).
 * Returns 0, TDP_EUSAGE, TDP_ENOENT (a value-less term that is no alias), TDP_ELIMIT,
 * TDP_EFORMAT, TDP_ENOMEM.
 */
int pmu_sysfs_apply_terms(const struct pmu_sysfs *p, const char *terms, size_t len, struct pmu_event *ev,
			  const struct pmu_where *w, const char *from_alias, struct tdp_err *err);

/**
 * Apply the terms `terms[0..len)` of a generic or software event written as perf
 * takes it, "cycles/period=1000,name=x/": only perf's own period, freq and name
 * (the event's config is its name's). name_len: the event's name before the '/'
 * (w->off + name_len + 1 is where the terms start in the list).
 */
int pmu_generic_apply_terms(const char *terms, size_t len, size_t name_len, struct pmu_event *ev,
			    const struct pmu_where *w, struct tdp_err *err);

/* ---- event-pfm.c ---- */

/**
 * Encode `text` (an event of the list, libpfm4 attributes and perf modifiers
 * included) with libpfm4, initialising it on first use. Returns 1 when encoded
 * (ev's attr, source, pmu, is_hardware set; trailing perf modifiers applied with
 * perf's meaning), 0 when libpfm4 does not know the event or one of its umasks
 * (or detects no PMU), TDP_EUSAGE when it rejects an attribute's value or a
 * combination (message names the event, hint lists its attributes), TDP_ENOMEM.
 */
int pmu_pfm_encode(const char *text, struct pmu_event *ev, struct tdp_err *err);

/**
 * When text starts with a libpfm4 event, set err's hint to its attributes and
 * return true.
 */
bool pmu_pfm_hint_attributes(const char *text, struct tdp_err *err);

/** Add the events of the core PMUs libpfm4 detects, and their perf names. */
int pmu_pfm_names(struct pmu_name_sink *sink);

/* perf's spelling of an event libpfm4 names otherwise, for one libpfm4 PMU. */
struct pmu_pfm_alias {
	const char *pmu;  /* libpfm4 PMU name: "skl", "amd64_fam19h_zen4" */
	const char *name; /* perf's name: "ex_ret_ops" */
	const char *pfm;  /* libpfm4's: "RETIRED_OPS" */
};

extern const struct pmu_pfm_alias pmu_pfm_aliases[];
extern const size_t pmu_pfm_aliases_nr;

/* ---- event-mods.c ---- */

#define PMU_PERF_MODS "ukhpPGHSDIW" /* the modifier letters perf accepts after ':' */

/** True when mods[0..len) is a non-empty string of perf modifiers (ukhpPGHSDIW). */
bool pmu_mods_valid(const char *mods, size_t len);

/**
 * Apply valid modifiers to ev on top of what it already excludes, by perf's
 * rules. Returns false (ev unchanged) when precise_ip would exceed 3.
 */
bool pmu_mods_apply(struct pmu_event *ev, const char *mods, size_t len);

#endif
