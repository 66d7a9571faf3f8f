/*
 * stats.h - the end-of-run statistics report (internal).
 *
 * Modules register a section printer; with HCRT_STATS=1 the head prints all
 * sections as one table at exit, after the workers' per-node figures
 * reached it (obs_report.c). Counters themselves live in each module.
 */
#ifndef HCRT_STATS_H
#define HCRT_STATS_H

#include <stdio.h>

typedef void (*hcrt_stats_print_cb)(FILE *out, void *arg);

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
