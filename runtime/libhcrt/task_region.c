/*
 * task_region.c - task sharing's start-up, its TASKS regions (spread on
 * every node or run on the head alone, sched/task_place.h) and its
 * statistics section.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/stats.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/core.h"
#include "libhcrt/event/event.h"
#include "libhcrt/task_int.h"

int hcrt__ts_on;
volatile int hcrt__ts_spread;

/* The head's TASKS regions: decision state per region id. */
#define REGION_SLOTS 256
static struct {
    uint64_t id;
    const hcrt_region_desc_t *desc;
    hcrt_tp_region_t tp;
    uint64_t remote_ns; /* other nodes' task time in all its calls */
} regions[REGION_SLOTS];
static uint64_t head_alone; /* calls of TASKS regions kept on the head */

static int print_tasks(FILE *out, void *arg);

static void settings_read(void)
{
    hcrt_tp_params_t *p = &hcrt__ts.params;

    hcrt__tp_params_default(p);
    p->factor = hcrt__config_double("HCRT_TASKS_FACTOR");
    p->cost_ns = hcrt__config_double("HCRT_TASKS_STEAL_US") * 1e3;
    p->min_share = hcrt__config_double("HCRT_TASKS_MIN_SHARE");
    p->refresh = (uint32_t)hcrt__config_int("HCRT_TASKS_REFRESH");
    /* Every rank on the head's host (capacity 1): a call on the head alone
     * has the same cores as a spread one and libomp's shared team there is
     * one node's, which a one-call region cannot be compared with, so it
     * starts there, as cluster regions do (placement.md). BOTS at 2 ranks x
     * 1 thread spread: 0.47-0.97x one rank x 2 threads on 10 of 13. */
    double cap = hcrt__cluster_cores_capacity(); /* 0: unknown */
    p->head_first =
        hcrt__config_bool("HCRT_SCHED_PLACE_HEAD_FIRST") && cap > 0 && cap <= 1;
    hcrt__ts.ring_cap = (uint32_t)hcrt__config_int("HCRT_TASKS_RING");
    hcrt__ts.nrecs = 4 * hcrt__ts.ring_cap;
    hcrt__ts.max_bytes = (uint32_t)hcrt__config_int("HCRT_TASKS_MAX_BYTES");
}

void hcrt__ts_init(MPI_Comm comm)
{
    if (!hcrt__cluster_on || !hcrt__config_bool("HCRT_TASKS_STEAL"))
        return;
    if (!hcrt__event_is_up()) { /* HCRT_OFFLOAD=0: ours alone */
        if (hcrt__event_init(comm, NULL) != HCRT_OK)
            hcrt_fatal(HCRT_MOD_CORE,
                       "cannot start the event system for task sharing "
                       "(see above); set HCRT_TASKS_STEAL=0 to run every "
                       "task on the node that creates it");
        hcrt__ts.started_events = 1;
    }
    MPI_Comm_rank(comm, &hcrt__ts.rank);
    MPI_Comm_size(comm, &hcrt__ts.size);
    hcrt__ts.cost = (hcrt_tp_mean_t)HCRT_TP_MEAN_INIT;
    settings_read();
    hcrt__ts_tables_init();
    hcrt__stats_register("tasks", print_tasks, NULL);
    hcrt__ts_on = 1;
}

void hcrt__ts_fini(void)
{
    if (!hcrt__ts_on)
        return;
    hcrt__ts_on = 0;
    if (hcrt__ts.started_events)
        hcrt__event_fini();
}

static int slot_of(const hcrt_region_desc_t *r)
{
    for (int i = 0; i < REGION_SLOTS; i++) {
        int k = (int)((r->id + (uint64_t)i) % REGION_SLOTS);
        if (!regions[k].desc || regions[k].id == r->id) {
            regions[k].id = r->id;
            regions[k].desc = r;
            return k;
        }
    }
    return -1;
}

int hcrt__ts_region_decide(const hcrt_region_desc_t *r)
{
    if (!hcrt__ts_on)
        return 0;
    int k = slot_of(r);
    if (k < 0) /* more TASKS regions than slots: the first ones decide */
        return 0;
    return hcrt__tp_region_spread(&regions[k].tp, &hcrt__ts.params);
}

void hcrt__ts_region_done(const hcrt_region_desc_t *r, int spread,
                          uint64_t wall_ns)
{
    int k = hcrt__ts_on ? slot_of(r) : -1;
    if (k < 0)
        return;
    uint64_t remote =
        spread ? __atomic_exchange_n(&hcrt__ts.remote_ns, 0, __ATOMIC_RELAXED)
               : 0;
    hcrt_tp_region_t *tp = &regions[k].tp;
    regions[k].remote_ns += remote;
    if (!spread)
        head_alone++;
    if (hcrt__tp_region_end(tp, spread, wall_ns, remote, &hcrt__ts.params))
        hcrt_info(HCRT_MOD_CORE,
                  "region %s:%d runs on the head alone for its next %u "
                  "calls: other nodes ran %.0f us of tasks in a call of "
                  "%.0f us (head alone: %.0f us a call)",
                  r->file && *r->file ? r->file : "?", r->line, tp->hold,
                  (double)remote * 1e-3, (double)wall_ns * 1e-3,
                  tp->head_ns * 1e-3);
}

/* Every rank, when the head forks a spread region. */
void hcrt__ts_region_begin(void)
{
    __atomic_store_n(&hcrt__ts.passed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&hcrt__ts.remote_ns, 0, __ATOMIC_RELAXED);
    hcrt__ts_tables_reset(hcrt__cluster_team.local == 1);
    __atomic_add_fetch(&hcrt__ts.gen, 1, __ATOMIC_RELEASE);
    hcrt__event_compute_busy(1); /* steals come, but the cores compute */
    hcrt__ts_spread = 1;
}

/* Every rank, once its local team joined (before the DSM barrier). */
void hcrt__ts_region_end(void)
{
    hcrt__ts_spread = 0;
    hcrt__ts_tables_end();
    hcrt__event_compute_busy(-1);
}

/* ---- statistics ----------------------------------------------------------
 */

typedef struct print_ctx {
    FILE *out;
    int n;
} print_ctx_t;

/* "file:line name", or the name alone without line tables. */
static const char *where(char *buf, size_t n, const char *file, int line,
                         const char *name)
{
    if (!name)
        name = "?";
    if (file && *file && line > 0)
        snprintf(buf, n, "%s:%d %s", file, line, name);
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

static void print_site(hcrt_ts_site_t *s, void *arg)
{
    char at[300];
    print_ctx_t *c = arg;
    uint64_t made = __atomic_load_n(&s->created, __ATOMIC_RELAXED);
    if (!made)
        return;
    c->n++;
    /* the deepest depth whose tasks are worth a steal now */
    double worth = hcrt__ts.params.factor * hcrt__ts_steal_cost();
    uint32_t deepest = 0;
    for (uint32_t d = HCRT_TP_DEPTHS - 1; d >= 1 && !deepest; d--)
        if (hcrt__tp_site_estimate(&s->tp, d, &hcrt__ts.params) >= worth)
            deepest = d;
    char depth[48] = "none";
    if (deepest == HCRT_TP_DEPTHS - 1)
        snprintf(depth, sizeof depth, "every depth");
    else if (deepest)
        snprintf(depth, sizeof depth, "depths 1-%u", deepest);
    fprintf(c->out,
            "  %s: created %" PRIu64 ", held for other nodes "
            "%" PRIu64 ", run by them %" PRIu64 ", kept home (data outside "
            "the DSM) %" PRIu64 ", mean task %.1f us (%" PRIu64
            " timed), worth a steal now: %s\n",
            where(at, sizeof at, s->desc->file, s->desc->line, s->desc->name),
            made, __atomic_load_n(&s->exported, __ATOMIC_RELAXED),
            __atomic_load_n(&s->ran_remote, __ATOMIC_RELAXED),
            __atomic_load_n(&s->kept_private, __ATOMIC_RELAXED),
            hcrt__tp_mean(&s->tp.ns, 0) * 1e-3,
            __atomic_load_n(&s->tp.timed, __ATOMIC_RELAXED), depth);
}

static int print_tasks(FILE *out, void *arg)
{
    uint64_t spread = 0;
    (void)arg;
    for (int i = 0; i < REGION_SLOTS; i++)
        spread += regions[i].tp.spread_calls;
    fprintf(out,
            "task regions spread on all nodes %" PRIu64 ", on the head "
            "alone %" PRIu64 "; head's tasks run by other nodes %" PRIu64
            " (%.3f ms of task time), steal requests served %" PRIu64
            "; as a thief: asked %" PRIu64 ", got %" PRIu64 " (%.3f ms), "
            "mean steal cost %.1f us\n",
            spread, head_alone,
            __atomic_load_n(&hcrt__ts.served, __ATOMIC_RELAXED),
            (double)hcrt__ts.remote_ns_total * 1e-6,
            __atomic_load_n(&hcrt__ts.served_req, __ATOMIC_RELAXED),
            __atomic_load_n(&hcrt__ts.asked, __ATOMIC_RELAXED),
            __atomic_load_n(&hcrt__ts.got, __ATOMIC_RELAXED),
            (double)hcrt__ts.stolen_ns * 1e-6, hcrt__ts_steal_cost() * 1e-3);
    if (hcrt__ts.params.head_first && head_alone)
        fprintf(out,
                "  first calls on the head alone: every rank runs on the "
                "head's host, whose cores a call there uses "
                "(HCRT_SCHED_PLACE_HEAD_FIRST=0 spreads them); a "
                "region spreads once after %u calls\n",
                hcrt__ts.params.refresh + 1);
    char at[300];
    for (int i = 0; i < REGION_SLOTS; i++)
        if (regions[i].desc && regions[i].tp.calls)
            fprintf(out,
                    "  region %s: calls %" PRIu64 ", spread %" PRIu64
                    ", other nodes' task time %.3f ms\n",
                    where(at, sizeof at, regions[i].desc->file,
                          regions[i].desc->line, regions[i].desc->name),
                    regions[i].tp.calls, regions[i].tp.spread_calls,
                    (double)regions[i].remote_ns * 1e-6);
    print_ctx_t c = {out, 0};
    hcrt__ts_sites_each(print_site, &c);
    return spread || head_alone || c.n;
}
