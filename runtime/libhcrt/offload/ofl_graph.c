/*
 * ofl_graph.c - whole-graph HEFT placement of `target nowait depend(...)`
 * tasks in the live engine (HCRT_OFFLOAD_POLICY=heft, the default).
 *
 * Every target task created with a depend list is recorded in a dependence
 * graph (depgraph.c, libomp's edge rules) when it is created, before libomp
 * sees it. When the first not yet placed task of the graph starts, HEFT
 * (runtime/sched) places every recorded task not placed yet in one go:
 * upward ranks over the recorded successors, then earliest finish time per
 * task with the learned kernel times and the data on the edges. A program
 * that creates its graph and then waits (OMPC's model) therefore gets the
 * whole graph placed at once; tasks created while others already run are
 * placed in the next batch, when the first of them starts. Nothing is held
 * back: libomp runs the tasks exactly as without recording, so no
 * construct can wait for a task that was never handed over.
 *
 * What the graph knows at creation time: the depend items (addresses and
 * lengths of the sections), the region (the task's entry function: after
 * its first run, the kernel id and learned per-node times; before, a
 * default time), and a device clause (a pin). The data each task maps is
 * only known when its body runs, so the graph uses the depend sections as
 * the task's data: `in` items are inputs, the others inputs and outputs;
 * an edge carries the bytes of the sections it connects, and an input that
 * no earlier task of the batch writes is a HEFT data item at the nodes the
 * data manager says hold it.
 *
 * A claim (a running kernel sharing a buffer, ofl_target.c) still comes
 * first: that is correctness, HEFT is a preference.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/event/event.h"
#include "libhcrt/offload/depgraph.h"
#include "libhcrt/offload/offload_int.h"
#include "libhcrt/offload/ofl_exec_int.h"
#include "sched/heft.h"

enum {
    LEARN_SLOTS = 1024, /* regions whose kernel is known (power of 2) */
    GRAPH_MAX = 4096    /* a larger recorded batch is placed at once */
};
#define HOST_NEVER_S 1000.0 /* a kernel "on the head": never chosen */

/* The link for the cost model, measured once when the first task is
 * recorded (measure_link); these if that fails: an event round trip on
 * this machine is ~10-20 us, its bandwidth ~2 GB/s (bench/RESULTS.md). */
static double link_latency_s = 15e-6, link_bytes_per_s = 2e9;
static int link_measured;
static pthread_once_t link_once = PTHREAD_ONCE_INIT;

static struct {
    hcrt__dg_t *dg;
    hcrt__taskgraph_t *tg;
    hcrt__heft_cost_t *cm;
    int **pending; /* per recorded task of the current batch: its node slot */
    int32_t npending, cap;
    int broken; /* out of memory once: online placement only */
    long batches, placed;
} g;

static struct learned {
    uintptr_t entry;
    uint64_t kernel;
    int data;
} learned[LEARN_SLOTS];

static struct learned *learn_slot(uintptr_t entry, int add)
{
    size_t h = (size_t)((entry >> 4) * 0x9E3779B97F4A7C15ULL) % LEARN_SLOTS;
    for (size_t k = 0; k < LEARN_SLOTS; k++) {
        struct learned *l = &learned[(h + k) % LEARN_SLOTS];
        if (l->entry == entry)
            return l;
        if (l->entry == 0)
            return add ? (l->entry = entry, l) : NULL;
    }
    return NULL; /* full: such regions keep the default time */
}

void hcrt__ofl_graph_learn(hcrt_task_entry_t entry, uint64_t kernel,
                           int is_data)
{
    struct learned *l = learn_slot((uintptr_t)entry, 1);
    if (l) {
        l->kernel = kernel;
        l->data = is_data;
    }
}

/* One sync event to node 1 on a probe buffer; its round trip (s). */
static double probe(int type, uint64_t len, void *data)
{
    ofl_buf_hdr_t h = {UINT64_MAX - 1, 0, len}; /* an id the dm never uses */
    hcrt__event_buf_t b = {data, (size_t)len};
    hcrt__event_send_t snd = {.dest = 1,
                              .type = type,
                              .hdr = &h,
                              .hdr_len = sizeof(h),
                              .sync = 1,
                              .nbufs = data ? 1 : 0,
                              .bufs = data ? &b : NULL};
    hcrt__event_t *ev;
    uint64_t t = hcrt__now_ns();
    hcrt_status_t st = hcrt__event_send(&snd, &ev);
    if (st == HCRT_OK) {
        st = hcrt__event_wait(ev, -1.0);
        hcrt__event_release(ev);
    }
    return st == HCRT_OK ? (double)(hcrt__now_ns() - t) * 1e-9 : -1.0;
}

/* HEFT's link: the best of a few 8-byte copies to node 1 (latency: every
 * transfer the executor makes is one such round trip) and of a few 1 MiB
 * copies (bandwidth, latency removed). Worker-to-worker links are taken
 * to be the same: one fabric. */
static void measure_link(void)
{
    enum { BIG = 1 << 20, REPS = 4 };
    char *data = calloc(1, BIG);
    double small = 1e9, big = 1e9;
    if (data && probe(OFL_EV_ALLOC, BIG, NULL) >= 0) {
        for (int r = 0; r < REPS; r++) {
            double a = probe(OFL_EV_PUT, 8, data),
                   c = probe(OFL_EV_PUT, BIG, data);
            if (a < 0 || c < 0)
                break;
            small = a < small ? a : small;
            big = c < big ? c : big;
        }
        probe(OFL_EV_FREE, BIG, NULL);
    }
    free(data);
    if (small < 1e9 && big > small) {
        link_latency_s = small;
        link_bytes_per_s = BIG / (big - small);
        link_measured = 1;
    }
    hcrt_debug(HCRT_MOD_TARGET,
               "HEFT link (head to node 1, %s): %.1f us, %.2f GB/s",
               link_measured ? "measured" : "default", link_latency_s * 1e6,
               link_bytes_per_s * 1e-9);
}

static int graph_init(void)
{
    int n = hcrt__ofl.ndev + 1; /* node 0 is the head */
    if (g.broken)
        return -1;
    if (g.dg)
        return 0;
    if (hcrt__dg_create(&g.dg) != HCRT_OK ||
        hcrt__taskgraph_create(n, &g.tg) != HCRT_OK ||
        hcrt__heft_cost_create(n, &g.cm) != HCRT_OK) {
        g.broken = 1;
        return -1;
    }
    hcrt__heft_cost_set_uniform_link(g.cm, link_latency_s, link_bytes_per_s);
    return 0;
}

int hcrt__ofl_graph_record(hcrt_task_entry_t entry, int pin,
                           const hcrt_depend_info_t *deps, int32_t ndeps,
                           int *slot)
{
    ofl_state_t *s = &hcrt__ofl;
    hcrt__ofl_map_t *maps = malloc((size_t)(ndeps ? ndeps : 1) * sizeof(*maps));
    if (!maps)
        return -1;
    pthread_once(&link_once, measure_link); /* not under the lock */
    for (int32_t i = 0; i < ndeps; i++) {
        void *p = (void *)deps[i].base_addr;
        int64_t type = deps[i].flags == 1 ? HCRT_OFL_MAP_TO
                                          : HCRT_OFL_MAP_TO | HCRT_OFL_MAP_FROM;
        maps[i] = (hcrt__ofl_map_t){p, p, (int64_t)deps[i].len, type};
    }
    pthread_mutex_lock(&s->lock);
    int rc = -1;
    if (graph_init() == 0 &&
        hcrt__ofl_grow((void **)&g.pending, &g.cap, g.npending + 1,
                       sizeof(*g.pending)) == HCRT_OK) {
        struct learned *l = learn_slot((uintptr_t)entry, 0);
        hcrt__ofl_task_desc_t d = {
            .kind = l && l->data ? HCRT_OFL_DATA_EXIT : HCRT_OFL_KERNEL,
            .kernel = l ? l->kernel : (uint64_t)(uintptr_t)entry,
            .work = 1,
            .pin = pin,
            .deps = (hcrt_depend_info_t *)deps,
            .ndeps = ndeps,
            .maps = maps,
            .nmaps = ndeps};
        int32_t id;
        if (hcrt__dg_record(g.dg, &d, &id) == HCRT_OK) {
            *slot = -1; /* recorded, not placed */
            g.pending[id] = slot;
            g.npending = id + 1;
            rc = 0;
            if (g.npending >= GRAPH_MAX)
                hcrt__ofl_graph_place();
        }
    }
    pthread_mutex_unlock(&s->lock);
    free(maps);
    return rc;
}

/* Places the recorded batch (lock held). */
void hcrt__ofl_graph_place(void)
{
    ofl_state_t *s = &hcrt__ofl;
    hcrt__dg_batch_t b;
    if (g.npending == 0 || hcrt__dg_take(g.dg, &b) != HCRT_OK)
        return;
    /* Edges to tasks of earlier batches are not HEFT's to use (they are
     * placed and may be done): forget them, so the graph stays small. */
    hcrt__dg_sync(g.dg);
    hcrt__heft_schedule_t sch;
    /* data held where: the default device's environment, that of every
     * task without a device clause (the ones HEFT places) */
    hcrt__dm_select(s->dm, s->shared_env ? 0 : ofl_default_device());
    int ok = b.ntasks == g.npending &&
             hcrt__dg_build_taskgraph(&b, g.tg, hcrt__dm_holders, s->dm) ==
                 HCRT_OK &&
             hcrt__heft_schedule_init(&sch, b.ntasks) == HCRT_OK;
    if (ok) {
        for (int32_t i = 0; i < b.ntasks; i++) {
            uint64_t k = b.tasks[i].kernel;
            if (b.tasks[i].kind != HCRT_OFL_KERNEL)
                continue;
            hcrt__heft_cost_set_exec(g.cm, k, 0, HOST_NEVER_S);
            for (int node = 1; node <= s->ndev; node++) /* FT: lost ones */
                hcrt__heft_cost_set_exec(g.cm, k, node,
                                         hcrt__ofl_node_live(node)
                                             ? hcrt__ofl_kernel_est(k, node) *
                                                   1e-9
                                             : HOST_NEVER_S);
        }
        /* Batches placed earlier may still run: a node is busy for the
         * estimated work in flight there (without it every batch saw idle
         * nodes and piled onto the nodes fastest for its own tasks). */
        for (int node = 1; node <= s->ndev; node++)
            hcrt__taskgraph_set_busy(g.tg, node, s->load_ns[node] * 1e-9);
        ok = hcrt__heft_policy_heft.schedule(g.tg, g.cm, &sch) == HCRT_OK;
        for (int32_t i = 0; i < b.ntasks; i++)
            *g.pending[i] = ok && sch.node[i] > 0 ? sch.node[i] : 0;
        hcrt__heft_schedule_fini(&sch);
        g.batches++;
        g.placed += b.ntasks;
    }
    if (!ok) /* online placement for these */
        for (int32_t i = 0; i < g.npending; i++)
            *g.pending[i] = 0;
    hcrt__dg_batch_fini(&b);
    g.npending = 0;
}

void hcrt__ofl_graph_stats(long *batches, long *placed, double *lat_s,
                           double *bytes_per_s, int *measured)
{
    *batches = g.batches;
    *placed = g.placed;
    *lat_s = link_latency_s;
    *bytes_per_s = link_bytes_per_s;
    *measured = link_measured;
}

void hcrt__ofl_graph_fini(void)
{
    if (g.dg)
        hcrt__dg_destroy(g.dg);
    if (g.tg)
        hcrt__taskgraph_destroy(g.tg);
    if (g.cm)
        hcrt__heft_cost_destroy(g.cm);
    free(g.pending);
    memset(&g, 0, sizeof g);
    memset(learned, 0, sizeof learned);
}
