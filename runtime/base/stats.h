/*
 * stats.h - the end-of-run statistics report (internal).
 *
 * Modules register a section printer; at exit the head prints the sections
 * as one table, after the workers' per-node figures reached it (libhcrt's
 * obs_report.c): with HCRT_STATS=1 those that have something to say, with
 * HCRT_STATS=all every one. Counters themselves live in each module.
 */
#ifndef HCRT_STATS_H
#define HCRT_STATS_H

#include <stdio.h>

/* Prints a section's lines to `out`; returns non-zero when they say
 * something (a count that is not zero, a decision, ...). */
typedef int (*hcrt_stats_print_cb)(FILE *out, void *arg);

enum { HCRT_STATS_OFF = 0, HCRT_STATS_SOME = 1, HCRT_STATS_ALL = 2 };
/* HCRT_STATS as one of the three (it also reads 0/1 as booleans do). */
int hcrt__stats_level(void);

/* HCRT_STATS, or anything else that needs the counters (HCRT_TRACE): set
 * by the start-up, cached for hot paths. */
extern int hcrt__stats_on;
/* Starts the report's wall clock. */
void hcrt__stats_init(void);

/* Registers `cb` to print section `title`; call during init only. */
void hcrt__stats_register(const char *title, hcrt_stats_print_cb cb, void *arg);
int hcrt__stats_enabled(void);
/* Prints every registered section to `out` (stderr at exit). */
void hcrt__stats_report(FILE *out);
/* The report at shutdown, with every node's figures (obs_report.c); later
 * calls of hcrt__stats_report print nothing. */
void hcrt__stats_report_final(FILE *out);

#endif /* HCRT_STATS_H */
