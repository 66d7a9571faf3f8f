/*
 * stats.c - the end-of-run statistics report (HCRT_STATS=1).
 *
 * Modules register one printer per section during init; the head prints all
 * sections at exit, in registration order, under one header. Sections
 * registered at shutdown (libhcrt's per-node figures, once every rank's
 * reached the head) print last.
 */
#include <stdio.h>
#include <stdlib.h>

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

int hcrt__stats_level(void)
{
    /* the choices of HCRT_STATS (base/settings.def), in order */
    static const int level[] = {
        HCRT_STATS_OFF,  HCRT_STATS_SOME, HCRT_STATS_ALL,
        HCRT_STATS_OFF,  HCRT_STATS_SOME, HCRT_STATS_OFF,
        HCRT_STATS_SOME, HCRT_STATS_OFF,  HCRT_STATS_SOME};
    int i = hcrt__config_enum("HCRT_STATS");

    return i >= 0 && i < (int)(sizeof(level) / sizeof(level[0])) ? level[i] : 0;
}

/* One section: its lines go out (under its title) when they say something
 * or every section is wanted. */
static void print_section(FILE *out, const section_t *sec, int all)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f) { /* no memory for the buffer: print it as it comes */
        fprintf(out, "---- %s ----\n", sec->title);
        sec->cb(out, sec->arg);
        return;
    }
    int said = sec->cb(f, sec->arg);
    fclose(f);
    if (said || all) {
        fprintf(out, "---- %s ----\n", sec->title);
        fwrite(buf, 1, len, out);
    }
    free(buf);
}

void hcrt__stats_report(FILE *out)
{
    double wall = (double)(hcrt__now_ns() - start_ns) * 1e-9;
    int level = hcrt__stats_level();

    /* After the final report (shutdown), and in a run that only traces
     * (HCRT_TRACE turns the counters on), there is nothing to print; a
     * caller that asks without HCRT_STATS (a test) gets what has something
     * to say. */
    if (final_done || (hcrt__trace_on && level == HCRT_STATS_OFF))
        return;
    fprintf(out,
            "==== hcrt statistics: %d node(s), head %s, wall %.3f s "
            "====\n",
            hcrt__size(), hcrt__hostname(), wall);
    for (int i = 0; i < nsections; i++)
        print_section(out, &sections[i], level == HCRT_STATS_ALL);
    fprintf(out, "==== end of hcrt statistics ====\n");
    fflush(out);
}

void hcrt__stats_report_final(FILE *out)
{
    hcrt__stats_report(out);
    final_done = 1;
}
