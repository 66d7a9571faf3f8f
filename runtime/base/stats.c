/*
 * stats.c - the end-of-run statistics report (HCRT_STATS=1).
 *
 * Modules register one printer per section during init; the head prints all
 * sections at exit, in registration order, under one header. Sections
 * registered at shutdown (libhcrt's per-node figures, once every rank's
 * reached the head) print last.
 */
#include <stdio.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "base/node.h"
#include "base/proc.h"
#include "base/stats.h"
#include "base/trace.h"

#define MAX_SECTIONS 32

typedef struct section {
    const char *title;
    hcrt_stats_print_cb cb;
    void *arg;
} section_t;

int hcrt__stats_on;
static section_t sections[MAX_SECTIONS];
static int nsections;
static uint64_t start_ns;
static int final_done;

void hcrt__stats_init(void)
{
    start_ns = hcrt__now_ns();
}

void hcrt__stats_register(const char *title, hcrt_stats_print_cb cb, void *arg)
{
    for (int i = 0; i < nsections; i++)
        if (sections[i].cb == cb && sections[i].arg == arg)
            return; /* init may run twice (lazy, then __hcrt_main) */
    if (nsections == MAX_SECTIONS)
        hcrt_fatal(HCRT_MOD_CORE,
                   "internal error: more than %d stats "
                   "sections",
                   MAX_SECTIONS);
    sections[nsections++] = (section_t){title, cb, arg};
}

int hcrt__stats_enabled(void)
{
    return hcrt__stats_on;
}

void hcrt__stats_report(FILE *out)
{
    double wall = (double)(hcrt__now_ns() - start_ns) * 1e-9;

    /* After the final report (shutdown), and in a run that only traces
     * (HCRT_TRACE turns the counters on), there is nothing to print. */
    if (final_done || (hcrt__trace_on && !hcrt__config_bool("HCRT_STATS")))
        return;
    fprintf(out,
            "==== hcrt statistics: %d node(s), head %s, wall %.3f s "
            "====\n",
            hcrt__size(), hcrt__hostname(), wall);
    for (int i = 0; i < nsections; i++) {
        fprintf(out, "---- %s ----\n", sections[i].title);
        sections[i].cb(out, sections[i].arg);
    }
    fprintf(out, "==== end of hcrt statistics ====\n");
    fflush(out);
}

void hcrt__stats_report_final(FILE *out)
{
    hcrt__stats_report(out);
    final_done = 1;
}
