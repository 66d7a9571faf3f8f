/*
 * observe.c - per-node statistics of cluster regions and loops, and the
 * shutdown step that gathers them (and the trace) at the head.
 *
 * Every rank counts what it ran: per cluster region its calls, time and
 * DSM traffic (deltas of the DSM counters around the node's run of the
 * region), per cluster loop the iterations and chunks its threads ran and
 * the time its local thread 0 spent in it. Hooks in cluster.c, fork.c,
 * sync.c, loops.c and cluster_loops.c call in here only when HCRT_STATS or
 * HCRT_TRACE is on (trace.h). At shutdown hcrt__obs_fini (collective) sends
 * every worker's figures to the head as text lines, which merges them into
 * the "per node" sections of the HCRT_STATS report and writes the trace.
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/node.h"
#include "base/stats.h"
#include "dsm/dsm.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"
#include "libhcrt/runtime.h"

#define NREGIONS 512
#define NLOOPS 1024 /* power of two */

int hcrt__obs_on;

typedef struct obs_region {
    uint64_t id, calls, ns, faults, bytes, diff;
} obs_region_t;

typedef struct obs_loop {
    hcrt_ident_t *loc; /* key; set once with a CAS */
    uint64_t calls, iters, chunks, ns;
} obs_loop_t;

static struct {
    uint64_t start_ns;
    obs_region_t regions[NREGIONS];
    int nregions;
    uint64_t region_t0, region_ns, region_calls;
    hcrt_dsm_counters_t c0;
    obs_loop_t loops[NLOOPS];
} me;

/* The calling thread's loop in progress. */
static _Thread_local struct {
    obs_loop_t *l;
    uint64_t t0, iters, chunks;
} cur;
/* Start of the last cluster region this thread forked (see local_region). */
static _Thread_local uint64_t cluster_t0;

void hcrt__obs_init(void)
{
    const char *trace = hcrt__config_string("HCRT_TRACE");

    me.start_ns = hcrt__now_ns();
    hcrt__trace_on = trace && *trace;
    hcrt__obs_on = hcrt__stats_level() != HCRT_STATS_OFF || hcrt__trace_on;
    if (hcrt__trace_on)
        hcrt__trace_init();
}

/* ---- regions ---------------------------------------------------------------
 */

static void dsm_now(hcrt_dsm_counters_t *c)
{
    if (hcrt__dsm_initialized())
        hcrt__dsm_counters(c);
    else
        memset(c, 0, sizeof(*c));
}

static uint64_t faults_of(const hcrt_dsm_counters_t *c)
{
    return c->read_faults + c->write_faults + c->home_faults;
}

void hcrt__obs_region_begin(const hcrt_region_desc_t *region)
{
    (void)region;
    dsm_now(&me.c0);
    me.region_t0 = cluster_t0 = hcrt__now_ns();
}

static obs_region_t *region_slot(uint64_t id)
{
    for (int i = 0; i < me.nregions; i++)
        if (me.regions[i].id == id)
            return &me.regions[i];
    if (me.nregions == NREGIONS)
        return NULL; /* counted in the node totals only */
    me.regions[me.nregions].id = id;
    return &me.regions[me.nregions++];
}

void hcrt__obs_region_end(const hcrt_region_desc_t *region)
{
    hcrt_dsm_counters_t c;
    uint64_t t1 = hcrt__now_ns(), ns = t1 - me.region_t0;
    obs_region_t *r = region_slot(region->id);

    dsm_now(&c);
    me.region_ns += ns, me.region_calls++;
    if (r) {
        r->calls++, r->ns += ns;
        r->faults += faults_of(&c) - faults_of(&me.c0);
        r->bytes += c.bytes_fetched - me.c0.bytes_fetched;
        r->diff += c.diff_bytes - me.c0.diff_bytes;
    }
    if (hcrt__trace_on) {
        hcrt__trace_add(HCRT_TEV_REGION, region, me.region_t0, t1, 0, 0);
        hcrt__trace_add(HCRT_TEV_DSM, NULL, t1, t1, faults_of(&c),
                        c.bytes_fetched);
    }
}

void hcrt__obs_local_region(const hcrt_region_desc_t *region, uint64_t t0)
{
    if (!hcrt__trace_on || !region || (cluster_t0 && cluster_t0 >= t0))
        return; /* a cluster fork: run_region recorded it */
    hcrt__trace_add(HCRT_TEV_REGION, region, t0, hcrt__now_ns(), 1, 0);
}

/* ---- loops ------------------------------------------------------------------
 */

static obs_loop_t *loop_slot(hcrt_ident_t *loc)
{
    uintptr_t h = (uintptr_t)loc * 0x9e3779b97f4a7c15ULL;

    for (size_t i = 0; i < NLOOPS; i++) {
        obs_loop_t *l = &me.loops[((h >> 20) + i) & (NLOOPS - 1)];
        hcrt_ident_t *k = __atomic_load_n(&l->loc, __ATOMIC_ACQUIRE);
        if (k == loc)
            return l;
        if (!k && __atomic_compare_exchange_n(
                      &l->loc, &k, loc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return l;
        if (k == loc)
            return l;
    }
    return NULL;
}

static void loop_start(hcrt_ident_t *loc, uint64_t iters, uint64_t chunks)
{
    obs_loop_t *l = loop_slot(loc);

    cur.l = l;
    cur.t0 = hcrt__now_ns();
    cur.iters = iters, cur.chunks = chunks;
    if (l && omp_get_thread_num() == 0)
        __atomic_fetch_add(&l->calls, 1, __ATOMIC_RELAXED);
}

static void loop_done(void)
{
    obs_loop_t *l = cur.l;
    uint64_t t1 = hcrt__now_ns();

    if (!l)
        return;
    cur.l = NULL;
    __atomic_fetch_add(&l->iters, cur.iters, __ATOMIC_RELAXED);
    __atomic_fetch_add(&l->chunks, cur.chunks, __ATOMIC_RELAXED);
    if (omp_get_thread_num() == 0)
        __atomic_fetch_add(&l->ns, t1 - cur.t0, __ATOMIC_RELAXED);
    if (hcrt__trace_on)
        hcrt__trace_add(HCRT_TEV_LOOP, l->loc, cur.t0, t1, cur.iters,
                        cur.chunks);
}

/* Iterations of a thread whose chunks of `len` start at logical index
 * `first` every `step` indices, in a loop of `trip`. */
static uint64_t chunked_share(uint64_t first, uint64_t len, uint64_t step,
                              uint64_t trip, uint64_t *chunks)
{
    if (len == 0 || first >= trip)
        return *chunks = 0, 0;
    if (step < len)
        step = len;
    uint64_t k = (trip - first + step - 1) / step; /* chunks started */
    uint64_t last = first + (k - 1) * step;
    *chunks = k;
    return (k - 1) * len + (trip - last < len ? trip - last : len);
}

void hcrt__obs_loop_static(hcrt_ident_t *loc, uint64_t lb, uint64_t trip,
                           uint64_t lo, uint64_t hi, int64_t stride,
                           int64_t incr)
{
    uint64_t chunks = 0, iters = 0;

    if (cur.l)
        loop_done(); /* a nowait loop's end we were not told about */
    if (incr != 0 && trip > 0) {
        int64_t first = (int64_t)(lo - lb) / incr;
        int64_t len = (int64_t)(hi - lo) / incr + 1;
        int64_t step = stride / incr;
        if (first >= 0 && len > 0)
            iters =
                chunked_share((uint64_t)first, (uint64_t)len,
                              step > 0 ? (uint64_t)step : trip, trip, &chunks);
    }
    loop_start(loc, iters, chunks);
}

void hcrt__obs_loop_dispatch(hcrt_ident_t *loc)
{
    if (cur.l)
        loop_done();
    loop_start(loc, 0, 0);
}

void hcrt__obs_loop_chunk(uint64_t n)
{
    if (!cur.l)
        return;
    if (n == 0) {
        loop_done();
        return;
    }
    cur.iters += n, cur.chunks++;
}

void hcrt__obs_loop_end(void)
{
    if (cur.l)
        loop_done();
}

void hcrt__obs_barrier(uint64_t t0)
{
    if (hcrt__trace_on && t0)
        hcrt__trace_add(HCRT_TEV_BARRIER, NULL, t0, hcrt__now_ns(), 0, 0);
}

/* ---- this rank's figures as text (for the head) -------------------------
 * N host threads avail cores calls region_ns faults bytes diff events
 *   dropped wall_ns source...
 * R id calls ns faults bytes diff
 * L calls iters chunks ns <ident address>psource...
 */
char *hcrt__obs_text(size_t *len)
{
    const hcrt_node_info_t *ni = hcrt__node_info();
    int cores;
    hcrt_dsm_counters_t c;
    size_t cap = 512 + (size_t)me.nregions * 128 + NLOOPS * 64, n = 0;
    char *s = malloc(cap);

    if (!s)
        return *len = 0, NULL;
    dsm_now(&c);
    hcrt__node_cores(&cores, NULL);
#define EMIT(...)                                                              \
    n += (size_t)snprintf(s + n, n < cap ? cap - n : 0, __VA_ARGS__)
    EMIT("N %s %d %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
         " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %s\n",
         ni->host[0] ? ni->host : "?", hcrt__node_default_threads(),
         hcrt__node_avail_cores(), cores, me.region_calls, me.region_ns,
         faults_of(&c), c.bytes_fetched, c.diff_bytes,
         hcrt__trace_on ? hcrt__trace_count() : 0,
         hcrt__trace_on ? hcrt__trace_dropped() : 0,
         hcrt__now_ns() - me.start_ns, hcrt__node_threads_source());
    for (int i = 0; i < me.nregions && n < cap; i++) {
        const obs_region_t *r = &me.regions[i];
        EMIT("R %016" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
             " %" PRIu64 "\n",
             r->id, r->calls, r->ns, r->faults, r->bytes, r->diff);
    }
    for (size_t i = 0; i < NLOOPS && n < cap; i++) {
        const obs_loop_t *l = &me.loops[i];
        const char *ps = l->loc && l->loc->psource ? l->loc->psource : "?";
        if (!l->loc)
            continue;
        /* The ident's address tells apart loops of one line (or of
         * unknown place); it is the same in every rank of a cluster run. */
        EMIT("L %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %p%.180s\n",
             l->calls, l->iters, l->chunks, l->ns, (void *)l->loc, ps);
    }
#undef EMIT
    if (n >= cap) { /* cannot happen with the sizes above; be safe */
        n = cap - 1;
        s[n] = '\0';
    }
    *len = n;
    return s;
}

uint64_t hcrt__obs_start_ns(void)
{
    return me.start_ns;
}
