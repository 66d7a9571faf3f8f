/*
 * task_thief.c - the thief's side of task sharing (task_share.h): at a
 * barrier of a spread region, and at its end, a thread whose node has no
 * task left asks the other nodes for theirs until every node passed that
 * barrier, and runs what it gets.
 *
 * A node "passed" barrier k when its team passed libomp's barrier k: its
 * own tasks are complete then (those other nodes ran too: their routines
 * waited for DONE), so it will never have another task before the
 * cluster barrier k, which nobody passes before every thief stopped. A
 * request names the region (its generation) and the barrier; the answer is
 * a task, NONE (nothing now) or OVER (that node passed it).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/event/event.h"
#include "libhcrt/task_int.h"

#define NAP_MIN_NS 20000ULL   /* first nap after a round of NONE answers */
#define NAP_MAX_NS 1000000ULL /* naps double up to this */
#define MAX_NODES 1024

static _Thread_local uint32_t bar_seq;
_Thread_local hcrt_ts_origin_t hcrt__ts_origin;
static _Thread_local char *buf[2]; /* the reply buffers of this thread */

void hcrt__ts_thread_begin(void)
{
    bar_seq = 0;
    hcrt__ts_depth = 0;
    hcrt__ts_origin = (hcrt_ts_origin_t){0, 0};
    hcrt__ts_frame_reset();
}

static void bufs_ready(void)
{
    for (int i = 0; i < 2; i++)
        if (!buf[i] && !(buf[i] = malloc(hcrt__ts.max_bytes)))
            hcrt_fatal(HCRT_MOD_CORE, "out of memory for a task's data");
}

/* One request to rank v; the reply's status (its data in buf). */
static int ask(int v, uint32_t seq, uint64_t want, hcrt_ts_steal_rep_t *rep)
{
    hcrt_ts_steal_req_t q = {__atomic_load_n(&hcrt__ts.gen, __ATOMIC_ACQUIRE),
                             seq, want};
    hcrt__event_buf_t rb[2] = {{buf[0], hcrt__ts.max_bytes},
                               {buf[1], hcrt__ts.max_bytes}};
    hcrt__event_send_t s = {.type = HCRT_TS_EV_STEAL,
                            .dest = v,
                            .hdr = &q,
                            .hdr_len = sizeof q,
                            .nreply = 2,
                            .reply_bufs = rb,
                            .sync = 1};
    hcrt__event_t *ev = NULL;
    uint64_t t0 = hcrt__now_ns();

    __atomic_add_fetch(&hcrt__ts.asked, 1, __ATOMIC_RELAXED);
    hcrt_status_t st = hcrt__event_send(&s, &ev);
    if (st == HCRT_OK)
        st = hcrt__event_wait(ev, -1.0); /* the event's deadline applies */
    if (st != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "asking rank %d for a task failed: %s", v,
                   hcrt_strerror(st));
    size_t len = 0;
    const void *h = hcrt__event_reply_hdr(ev, &len);
    if (len < sizeof(*rep))
        hcrt_fatal(HCRT_MOD_CORE,
                   "rank %d answered a task request with %zu "
                   "bytes",
                   v, len);
    memcpy(rep, h, sizeof(*rep));
    hcrt__event_release(ev);
    __atomic_add_fetch(&hcrt__ts.steal_rtt_ns, hcrt__now_ns() - t0,
                       __ATOMIC_RELAXED);
    return rep->status;
}

static void send_done(int v, uint64_t cookie, uint64_t run_ns, uint64_t cost_ns)
{
    hcrt_ts_done_t d = {cookie, run_ns, cost_ns};
    hcrt__event_send_t s = {
        .type = HCRT_TS_EV_DONE, .dest = v, .hdr = &d, .hdr_len = sizeof d};

    hcrt_status_t st = hcrt__event_send(&s, NULL);
    if (st != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "telling rank %d a task is done failed: %s",
                   v, hcrt_strerror(st));
}

/* Runs a task of rank v here, with every task it creates (a taskgroup),
 * between an acquire of what v wrote before handing it over and a release
 * of what it wrote; then tells v. */
static void run_stolen(int32_t gtid, int v, const hcrt_ts_steal_rep_t *rep,
                       uint64_t t_ask)
{
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;stolen task;0;0;;"};
    hcrt_ts_site_t *site = hcrt__ts_site_of_id(rep->site);

    if (!site)
        hcrt_fatal(HCRT_MOD_CORE,
                   "rank %d handed over a task of site %#llx, which this "
                   "rank does not know: every rank must run the same binary",
                   v, (unsigned long long)rep->site);
    if (hcrt__dsm_acquire() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM acquire failed taking a task");
    hcrt__tp_site_hint(&site->tp, rep->worth_depth);
    uint64_t t0 = hcrt__now_ns();
    __kmpc_taskgroup(&loc, gtid);
    void *t =
        hcrt__task_alloc_copy(gtid, rep->kflags, buf[0], rep->size, buf[1],
                              rep->shsize, site->desc->entry, rep->depth);
    uint64_t saved = hcrt__ts_frame_push();
    hcrt_ts_origin_t up = hcrt__ts_origin;
    uint32_t depth = hcrt__ts_depth;
    hcrt__ts_origin = (hcrt_ts_origin_t){v, rep->cookie};
    hcrt__ts_depth = rep->depth; /* its children: one deeper, as at home */
    __hcrt_omp_task_begin_if0(&loc, gtid, t);
    site->desc->entry(gtid, t);
    __hcrt_omp_task_complete_if0(&loc, gtid, t);
    hcrt__ts_wait(gtid, 0); /* its children held here (a solo team) */
    __kmpc_end_taskgroup(&loc, gtid);
    hcrt__ts_depth = depth;
    hcrt__ts_origin = up;
    hcrt__ts_frame_pop(saved);
    uint64_t t1 = hcrt__now_ns();
    if (hcrt__dsm_release() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM release failed after a task");
    uint64_t t2 = hcrt__now_ns();
    __atomic_add_fetch(&hcrt__ts.stolen_ns, t1 - t0, __ATOMIC_RELAXED);
    hcrt_debug(HCRT_MOD_CORE,
               "stolen task of rank %d: asked %.1f us before it began, ran "
               "%.1f us, release %.1f us",
               v, (double)(t0 - t_ask) * 1e-3, (double)(t1 - t0) * 1e-3,
               (double)(t2 - t1) * 1e-3);
    send_done(v, rep->cookie, t1 - t0, (t0 - t_ask) + (t2 - t1));
}

static void nap(uint64_t ns)
{
    struct timespec ts = {0, (long)ns};
    nanosleep(&ts, NULL);
}

/* Takes other nodes' tasks until every node passed barrier `seq`. */
static void steal_phase(int32_t gtid, uint32_t seq)
{
    int n = hcrt__ts.size, me = hcrt__ts.rank, left = n - 1, v = me;
    unsigned char over[MAX_NODES] = {0};
    uint64_t wait = NAP_MIN_NS;
    int refused = 0;

    bufs_ready();
    while (left > 0) {
        do /* the next node not known to have passed */
            v = (v + 1) % n;
        while (v == me || over[v]);
        hcrt_ts_steal_rep_t rep;
        uint64_t t_ask = hcrt__now_ns();
        int st = ask(v, seq, 0, &rep);
        if (st == HCRT_TS_TASK) {
            __atomic_add_fetch(&hcrt__ts.got, 1, __ATOMIC_RELAXED);
            run_stolen(gtid, v, &rep, t_ask);
            wait = NAP_MIN_NS, refused = 0;
        } else if (st == HCRT_TS_OVER) {
            over[v] = 1, left--;
            __atomic_add_fetch(&hcrt__ts.over, 1, __ATOMIC_RELAXED);
        } else if (++refused >= left) { /* a whole round: nothing anywhere */
            nap(wait);
            wait = wait * 2 < NAP_MAX_NS ? wait * 2 : NAP_MAX_NS;
            refused = 0;
        }
    }
}

int hcrt__ts_steal_back(int32_t gtid, int v, uint64_t want)
{
    hcrt_ts_steal_rep_t rep;
    uint64_t t_ask = hcrt__now_ns();

    bufs_ready();
    if (ask(v, 0, want, &rep) != HCRT_TS_TASK)
        return 0;
    __atomic_add_fetch(&hcrt__ts.got, 1, __ATOMIC_RELAXED);
    run_stolen(gtid, v, &rep, t_ask);
    return 1;
}

static void mark_passed(uint32_t seq)
{
    uint32_t p = __atomic_load_n(&hcrt__ts.passed, __ATOMIC_RELAXED);
    while (p < seq &&
           !__atomic_compare_exchange_n(&hcrt__ts.passed, &p, seq, 1,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

/* Barrier k of a spread region: this node's tasks (held ones first), then
 * other nodes' tasks until every node passed it. The DSM barrier follows
 * (cluster.c). */
void hcrt__ts_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    uint32_t seq = ++bar_seq;

    hcrt__ts_wait(gtid, 1);
    __kmpc_barrier(loc, gtid);
    mark_passed(seq);
    steal_phase(gtid, seq);
}

/* The region's end: the same with one more libomp barrier, so that the
 * node's tasks are done before its threads go stealing. */
void hcrt__ts_thread_end(int32_t gtid)
{
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;region end;0;0;;"};

    hcrt__ts_wait(gtid, 1);
    __kmpc_barrier(&loc, gtid);
    mark_passed(HCRT_TS_END);
    steal_phase(gtid, HCRT_TS_END);
}
