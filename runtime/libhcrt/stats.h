/*
 * stats.h - the end-of-run statistics report (internal).
 *
 * Modules register a section printer; with HCRT_STATS=1 the head prints all
 * sections as one table at exit (workers send theirs to the head once the
 * cluster runtime exists). Counters themselves live in each module.
 */
#ifndef HCRT_STATS_H
#define HCRT_STATS_H

#include <stdio.h>

typedef void (*hcrt_stats_print_cb)(FILE *out, void *arg);

/* Registers `cb` to print section `title`; call during init only. */
void hcrt__stats_register(const char *title, hcrt_stats_print_cb cb, void *arg);
int hcrt__stats_enabled(void);
/* Prints every registered section to `out` (stderr at exit). */
void hcrt__stats_report(FILE *out);

#endif /* HCRT_STATS_H */
