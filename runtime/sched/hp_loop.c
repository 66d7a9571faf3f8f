/*
 * hp_loop.c - what HetProbe / HetProbe-I loops share across pools: the
 * loop settings (read once), the per-thread cache-miss counters, and the
 * decisions kept for the HCRT_STATS section (on the head).
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/stats.h"
#include "sched/hp_int.h"

/* ---- per-thread cache-miss counters ------------------------------------- */

static _Thread_local int perf_fd[2] = {-2, -2}; /* misses, instructions */

static int perf_open(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* Counts of this thread, or 0 when the kernel refuses (paranoid, no PMU in
 * a VM): the decision then goes without them. */
int hcrt__cl_perf_read(uint64_t *misses, uint64_t *instr)
{
    if (perf_fd[0] == -2) {
        perf_fd[0] = perf_open(PERF_COUNT_HW_CACHE_MISSES);
        perf_fd[1] =
            perf_fd[0] >= 0 ? perf_open(PERF_COUNT_HW_INSTRUCTIONS) : -1;
        if (perf_fd[1] < 0 && perf_fd[0] >= 0)
            close(perf_fd[0]), perf_fd[0] = -1;
    }
    if (perf_fd[0] < 0)
        return 0;
    return read(perf_fd[0], misses, 8) == 8 && read(perf_fd[1], instr, 8) == 8;
}

/* ---- settings ------------------------------------------------------------ */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* HetProbe-I re-probes every reprobe_pct of the iterations; each window
 * costs an exchange between the nodes (a DSM publish and gather: a few
 * hundred microseconds over messages). A window must hold at least this
 * much work (HCRT_SCHED_REPROBE_MIN_US) to pay for it, judged by the iteration
 * rate of the whole cluster from the probe cache's speeds of the loop (fed
 * by every first-window exchange, so the same on every node): LU's short
 * loops, called hundreds of times, probed ten windows each call and ran
 * 2.3x slower than HetProbe. load() keeps it in hcrt__cl_sched. */
static void load(void)
{
    if (hcrt__hetprobe_settings_load(hcrt__size(), &hcrt__cl_sched.hp) !=
        HCRT_OK)
        hcrt_fatal(HCRT_MOD_SCHED, "invalid HCRT_SCHED_* settings (see above)");
    hcrt__cl_sched.min_window_us =
        hcrt__config_double("HCRT_SCHED_REPROBE_MIN_US");
    const char *csr = hcrt__config_string("HCRT_SCHED_CSR");
    hcrt__cl_sched.csr_set = csr && *csr;
    if (hcrt__probecache_create(&hcrt__cl_sched.hp.cache,
                                &hcrt__cl_sched.hp.params,
                                &hcrt__cl_sched.cache) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_SCHED, "cannot create the probe cache");
    hcrt_info(HCRT_MOD_SCHED, "loop threshold %.1f us from %s",
              hcrt__cl_sched.hp.threshold.threshold_us,
              hcrt__cl_sched.hp.threshold.source);
    hcrt__cl_sched.loaded = 1;
}

void hcrt__cl_sched_load(void)
{
    pthread_once(&load_once, load);
}

/* ---- decisions for HCRT_STATS (kept on the head) ------------------------ */

typedef struct loop_rec {
    struct loop_rec *next;
    const char *where;
    uint64_t id, runs, windows, cross, single, cached, small, probe_iters;
    uint64_t extended; /* iterations run while waiting (exchange_end) */
    uint64_t dealt;    /* HetProbe-I cross-node rests dealt in rounds */
    const void *ident; /* named by address without debug info */
    char *last;        /* the last decision, printed */
} loop_rec_t;

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static loop_rec_t *recs;
static uint64_t chunk_counts[4], refill_counts[4];

void hcrt__cl_count_chunks(hcrt__cl_pool_kind_t kind, uint64_t chunks,
                           uint64_t refills)
{
    __atomic_fetch_add(&chunk_counts[kind], chunks, __ATOMIC_RELAXED);
    __atomic_fetch_add(&refill_counts[kind], refills, __ATOMIC_RELAXED);
}

static loop_rec_t *rec_of(const hcrt__cl_pool_t *p)
{
    loop_rec_t *r = recs;
    while (r && r->ident != (const void *)p->loc)
        r = r->next;
    if (!r && (r = calloc(1, sizeof(*r)))) { /* appended: first seen first */
        r->id = p->hp->loop_id;
        r->where =
            p->loc && p->loc->psource && !strstr(p->loc->psource, ";unknown;")
                ? p->loc->psource
                : NULL;
        r->ident = p->loc;
        loop_rec_t **q = &recs;
        while (*q)
            q = &(*q)->next;
        *q = r;
    }
    return r;
}

void hcrt__cl_record(const hcrt__cl_pool_t *p,
                     const hcrt__hetprobe_decision_t *d, int probed, int first,
                     uint64_t extended, int dealt)
{
    if (hcrt__rank() == 0 && hcrt__log_on(HCRT_MOD_SCHED, HCRT_LOG_DEBUG)) {
        char line[512];
        hcrt__hetprobe_decision_format(d, line, sizeof(line));
        hcrt_debug(HCRT_MOD_SCHED, "%s: window %d from %" PRIu64 ": %s",
                   p->loc && p->loc->psource ? p->loc->psource : "loop",
                   d->window, d->first, line);
    }
    if (hcrt__rank() != 0 || !hcrt__stats_on)
        return;
    pthread_mutex_lock(&rec_mu);
    loop_rec_t *r = rec_of(p);
    if (r) {
        r->runs += first;
        r->windows++;
        r->probe_iters += probed ? p->hp->probed : 0;
        r->extended += extended;
        r->dealt += dealt > 0;
        if (d->why == HCRT_HP_WHY_CACHED)
            r->cached++;
        else if (d->kind == HCRT_HP_CROSS)
            r->cross++;
        else if (d->kind == HCRT_HP_SINGLE)
            r->single++;
        else
            r->small++;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            fprintf(f, "    window %d, iterations from %" PRIu64 ":\n",
                    d->window, d->first);
            hcrt__hetprobe_decision_print(f, "      ", d);
            fclose(f);
            free(r->last);
            r->last = buf;
        }
    }
    pthread_mutex_unlock(&rec_mu);
}

static int print_decisions(FILE *out, void *arg)
{
    int said = recs != NULL;

    (void)arg;
    for (int k = 0; k < 4; k++)
        said |= chunk_counts[k] || refill_counts[k];
    fprintf(out,
            "node pools (head): dynamic %" PRIu64 " chunks / %" PRIu64
            " global claims, guided %" PRIu64 " / %" PRIu64
            ", hetprobe %" PRIu64 ", hetprobe_i %" PRIu64 " chunks\n",
            chunk_counts[0], refill_counts[0], chunk_counts[1],
            refill_counts[1], chunk_counts[2], chunk_counts[3]);
    if (!recs)
        return said;
    fprintf(out, "threshold %.1f us (%s)\n",
            hcrt__cl_sched.hp.threshold.threshold_us,
            hcrt__cl_sched.hp.threshold.source);
    for (loop_rec_t *r = recs; r; r = r->next) {
        if (r->where)
            fprintf(out, "loop %s", r->where);
        else
            fprintf(out, "loop at ident %p (build with -g for its line)",
                    r->ident);
        fprintf(out,
                ": %" PRIu64 " runs, %" PRIu64
                " decisions (probed: cross %" PRIu64 ", single %" PRIu64
                "; from the probe cache %" PRIu64
                "; too small to probe %" PRIu64 "), %" PRIu64
                " iterations probed, %" PRIu64
                " run while waiting for the others' probes",
                r->runs, r->windows, r->cross, r->single, r->cached, r->small,
                r->probe_iters, r->extended);
        if (r->dealt)
            fprintf(out, ", %" PRIu64 " rests dealt in rounds", r->dealt);
        fprintf(out, "; last:\n");
        if (r->last)
            fputs(r->last, out);
    }
    return said;
}

void hcrt__cl_sched_stats_init(void)
{
    hcrt__stats_register("cluster loop schedules", print_decisions, NULL);
}
