/*
 * dreduce_stats.c - HCRT_STATS for dynamic reductions: totals, and per
 * instance (the last DR_KEEP at each scheduler) the tree that formed,
 * its time and the inputs recovered.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/stats.h"
#include "libhcrt/dreduce_int.h"

#define DR_KEEP 16
#define DR_TREE_CHARS 160

typedef struct dr_rec {
    uint32_t id;
    int root, status, recovered, tasks;
    uint64_t bytes;
    double secs;
    char tree[DR_TREE_CHARS];
} dr_rec_t;

static dr_rec_t recs[DR_KEEP];
static uint64_t n_ended, n_failed, n_recovered, n_tasks;
static double total_secs;

/* "holder<-giver(ranks in the result) ..." in the order handed out. */
static void tree_text(const hcrt__dred_t *d, char *out, size_t cap)
{
    size_t at = 0;
    out[0] = 0;
    for (int i = 0; i < d->nlog && at + 1 < cap; i++) {
        int n = snprintf(out + at, cap - at, "%s%d<-%d(%d)", i ? " " : "",
                         d->log[i].holder, d->log[i].giver, d->log[i].npath);
        if (n < 0 || (size_t)n >= cap - at) {
            if (cap > 4)
                strcpy(out + cap - 4, "...");
            return;
        }
        at += (size_t)n;
    }
}

void hcrt__dr_stats_note(const dr_sched_t *s, int status, double secs)
{
    dr_rec_t *r = &recs[n_ended % DR_KEEP];
    n_ended++;
    n_failed += status != 0;
    n_recovered += (uint64_t)s->d.recovered;
    n_tasks += (uint64_t)s->d.nlog;
    total_secs += secs;
    if (!hcrt__stats_on)
        return;
    *r = (dr_rec_t){s->id,     s->root,  status, s->d.recovered,
                    s->d.nlog, s->bytes, secs,   ""};
    tree_text(&s->d, r->tree, sizeof r->tree);
}

static int print(FILE *out, void *arg)
{
    (void)arg;
    uint64_t dyn, sw;
    hcrt__dr_omp_counts(&dyn, &sw);
    fprintf(out,
            "dynamic reductions scheduled here %" PRIu64 " (%" PRIu64
            " failed, %" PRIu64 " inputs recovered), %" PRIu64
            " tasks, %.6f s in all; OpenMP reductions by it %" PRIu64
            ", site decisions changed %" PRIu64 "\n",
            n_ended, n_failed, n_recovered, n_tasks, total_secs, dyn, sw);
    uint64_t first = n_ended > DR_KEEP ? n_ended - DR_KEEP : 0;
    for (uint64_t i = first; i < n_ended; i++) {
        const dr_rec_t *r = &recs[i % DR_KEEP];
        fprintf(out, "  #%u root %d %" PRIu64 " B %.6f s %s recovered %d: %s\n",
                r->id, r->root, r->bytes, r->secs, r->status ? "FAILED" : "ok",
                r->recovered, r->tree);
    }
    return n_ended > 0 || dyn > 0;
}

void hcrt__dr_stats_init(void)
{
    hcrt__stats_register("dynamic reductions", print, NULL);
}
