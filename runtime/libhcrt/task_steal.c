/*
 * task_steal.c - the owner's side of task sharing (task_share.h): records
 * of exported tasks, this node's ring of waiting ones, and the event
 * handlers that hand a task to another node (STEAL) and complete it when
 * that node is done (DONE).
 *
 * A record lives from the export to the last of its references: the ring's
 * (which becomes the thief's while another node runs the task) and the
 * task's own (its routine). States: QUEUED (in the ring), LOCAL (a thread
 * of this node runs it), REMOTE (another node does), DONE (it did).
 * QUEUED ends by one compare-and-swap, so exactly one side runs the task.
 * Tasks with dependences never get a record: the dependence graph stays
 * with libomp on the creating node, and they run there.
 *
 * How libomp waits for a task another node runs:
 *   - shared teams: the task is an ordinary one; when a thread of this
 *     node reaches it and finds it REMOTE, its routine waits for DONE
 *     (hcrt__ts_claim). Not a detachable task completed by
 *     omp_fulfill_event from the event gate: libomp serves a completion
 *     from outside the team by its out-of-order proxy path, which
 *     livelocked nested taskgroups (docs/tasks.md, "Complete");
 *   - solo teams: libomp's serialized accounting of detached tasks breaks
 *     when other tasks are created meanwhile (its children counter is
 *     tracked only while it is non-zero), so held tasks are ordinary ones:
 *     a taken one is given to libomp as an empty task, and this layer's
 *     scheduling points wait for DONE themselves (hcrt__ts_wait).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/event/event.h"
#include "libhcrt/task_int.h"

/* libomp's, without omp.h. */
extern int ts_in_final(void) __asm__("omp_in_final");

#define KMP_TASK_TIED 0x1
/* Flags a task may carry and still travel: tied, final, merged_if0,
 * priority. Destructors (C++ objects copied bytewise), detach (the event
 * is this node's) and anything unknown keep a task home. */
#define TRAVEL_FLAGS (0x1 | 0x2 | 0x4 | 0x20)
#define KMP_TASK_HEAD 40 /* sizeof(kmp_task_t) */

enum { REC_FREE, REC_QUEUED, REC_LOCAL, REC_REMOTE, REC_DONE };

typedef struct ts_rec {
    int state, refs; /* atomic */
    uint32_t gen;    /* bumped at each reuse: stale cookies fail */
    void *task;
    hcrt_ts_site_t *site;
    int32_t kflags;
    uint32_t size, shsize;
    uint64_t seq;   /* order of export on this node */
    uint32_t depth; /* the task's (task_share.h) */
    int thief;
    int sent; /* solo, taken: its data left (steal_sent) (atomic) */
    hcrt_ts_origin_t origin; /* created under a task of another node */
} ts_rec_t;

hcrt__ts_state_t hcrt__ts;
static ts_rec_t *recs;
static uint32_t *free_stack, nfree;
static uint32_t *ring, ring_head, ring_len; /* deque of record indices */
static uint32_t *unsub, nunsub;             /* solo: taken, not given to
                                               libomp yet */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local uint64_t frame_start; /* solo: held tasks after
                                              this seq are the current
                                              task's */

/* ---- records and the ring (under lock) ---------------------------------- */

static ts_rec_t *rec_alloc(void)
{
    ts_rec_t *r = NULL;

    pthread_mutex_lock(&lock);
    if (nfree)
        r = &recs[free_stack[--nfree]];
    pthread_mutex_unlock(&lock);
    return r;
}

static uint32_t rec_index(const ts_rec_t *r)
{
    return (uint32_t)(r - recs);
}

static void rec_unref(ts_rec_t *r)
{
    if (__atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    pthread_mutex_lock(&lock);
    r->gen++;
    __atomic_store_n(&r->state, REC_FREE, __ATOMIC_RELAXED);
    r->task = NULL;
    free_stack[nfree++] = rec_index(r);
    pthread_mutex_unlock(&lock);
}

static uint32_t ring_at(uint32_t i)
{
    return ring[(ring_head + i) % hcrt__ts.ring_cap];
}

/* Drops the records nobody can steal any more (a local thread took them):
 * the ring of a shared team keeps them until then. */
static void ring_compact(ts_rec_t **dead, uint32_t *ndead)
{
    uint32_t kept = 0, n = ring_len;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t idx = ring_at(i);
        if (__atomic_load_n(&recs[idx].state, __ATOMIC_ACQUIRE) == REC_QUEUED)
            ring[(ring_head + kept++) % hcrt__ts.ring_cap] = idx;
        else
            dead[(*ndead)++] = &recs[idx];
    }
    ring_len = kept;
}

/* Appends r (QUEUED, its ring reference taken); 0 if the ring is full. */
static int ring_push(ts_rec_t *r)
{
    ts_rec_t *dead[256];
    uint32_t ndead = 0;
    int ok;

    pthread_mutex_lock(&lock);
    if (ring_len == hcrt__ts.ring_cap && !hcrt__ts.solo)
        ring_compact(dead, &ndead);
    ok = ring_len < hcrt__ts.ring_cap;
    if (ok) {
        r->seq = ++hcrt__ts.seq;
        ring[(ring_head + ring_len++) % hcrt__ts.ring_cap] = rec_index(r);
    }
    pthread_mutex_unlock(&lock);
    for (uint32_t i = 0; i < ndead; i++)
        rec_unref(dead[i]);
    return ok;
}

/* Takes entry i out of the ring (keeping the order of the others). */
static void ring_remove(uint32_t i)
{
    uint32_t cap = hcrt__ts.ring_cap;

    for (; i + 1 < ring_len; i++)
        ring[(ring_head + i) % cap] = ring[(ring_head + i + 1) % cap];
    ring_len--;
}

/* The oldest task no local thread took, now REMOTE; NULL if none. With
 * `want`, only one created under the thief's task of that cookie: a task
 * waiting for it takes only its own descendants (OpenMP's task scheduling
 * constraint for tied tasks). */
static ts_rec_t *ring_steal(int thief, uint64_t want)
{
    ts_rec_t *dead[256], *got = NULL;
    uint32_t ndead = 0, i = 0;

    pthread_mutex_lock(&lock);
    while (i < ring_len && !got && ndead < 256) {
        ts_rec_t *r = &recs[ring_at(i)];
        if (want && (r->origin.rank != thief || r->origin.cookie != want) &&
            __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == REC_QUEUED) {
            i++;
            continue;
        }
        int q = REC_QUEUED;
        r->thief = thief; /* published by the CAS (await_done reads it) */
        if (__atomic_compare_exchange_n(&r->state, &q, REC_REMOTE, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            /* Counted before it leaves the ring: a wait that finds the
             * ring without it sees it in flight (hcrt__ts_wait). */
            __atomic_add_fetch(&hcrt__ts.inflight, 1, __ATOMIC_SEQ_CST);
            if (r->seq > hcrt__ts.taken_seq)
                __atomic_store_n(&hcrt__ts.taken_seq, r->seq, __ATOMIC_SEQ_CST);
            got = r;
        } else {
            dead[ndead++] = r;
        }
        ring_remove(i);
    }
    pthread_mutex_unlock(&lock);
    for (uint32_t k = 0; k < ndead; k++)
        rec_unref(dead[k]);
    return got;
}

/* ---- exporting ------------------------------------------------------------
 */

_Thread_local int hcrt__ts_local_only;

int hcrt__ts_exporting(void)
{
    return !hcrt__ts_local_only && hcrt__cluster_here();
}

/* The sites of the last two task entries this thread created tasks of (a
 * recursive tree has one or two): no hash lookup per task. */
static _Thread_local struct {
    hcrt_task_entry_t entry;
    hcrt_ts_site_t *site;
} site_cache[2];
static _Thread_local uint32_t alloc_tick;

static hcrt_ts_site_t *site_of(hcrt_task_entry_t entry)
{
    if (site_cache[0].entry == entry)
        return site_cache[0].site;
    hcrt_ts_site_t *s = site_cache[1].entry == entry
                            ? site_cache[1].site
                            : hcrt__ts_site_of_entry(entry);
    if (s) { /* sites live as long as the process */
        site_cache[1] = site_cache[0];
        site_cache[0].entry = entry;
        site_cache[0].site = s;
    }
    return s;
}

uint32_t hcrt__ts_alloc_mode(hcrt_task_entry_t entry, int32_t flags,
                             size_t size, size_t shsize, uint32_t depth,
                             hcrt_ts_site_t **site)
{
    hcrt_ts_site_t *s = site_of(entry);

    if (!s)
        return 0;
    /* Every task of a spread region passes here (a tree's leaves cost
     * ~60 ns each on one node): no read-modify-write on the way to a plain
     * task; the count is a statistic (shared teams may lose a few). */
    __atomic_store_n(&s->created,
                     __atomic_load_n(&s->created, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    if (s->desc->flags & (HCRT_TASK_SITE_REDUCTION | HCRT_TASK_SITE_TARGET |
                          HCRT_TASK_SITE_UNSUPPORTED | HCRT_TASK_SITE_TASKLOOP))
        return 0;
    /* A shared team runs a plain task on any thread: its children need
     * its depth. */
    uint32_t plain = hcrt__ts.solo ? 0 : HCRT_EXT_DEPTH;
    /* Deep in a tree of tasks known to be small: plain without deciding,
     * but one in sample_every, which is timed (as the decision would time
     * it) and refreshes the shortcut. */
    uint32_t every =
        hcrt__ts.params.sample_every ? hcrt__ts.params.sample_every : 64;
    uint32_t t = ++alloc_tick,
             from = __atomic_load_n(&s->plain_from, __ATOMIC_RELAXED);
    int sample = t % every == 0;
    if (from && depth >= from && !sample)
        return plain;
    double cost = hcrt__ts_steal_cost();
    hcrt_tp_mode_t m =
        hcrt__tp_site_mode(&s->tp, depth, cost, &hcrt__ts.params);
    if (sample) {
        __atomic_store_n(
            &s->plain_from,
            hcrt__tp_site_plain_from(&s->tp, cost, &hcrt__ts.params),
            __ATOMIC_RELAXED);
        if (m == HCRT_TP_PLAIN && from && depth >= from &&
            hcrt__ts.params.sample_every)
            m = HCRT_TP_TIMED; /* the sample the shortcut skipped */
    }
    if (m == HCRT_TP_PLAIN)
        return plain;
    if (!hcrt__ts_exporting() || (flags & ~TRAVEL_FLAGS) ||
        size < KMP_TASK_HEAD || size + shsize > hcrt__ts.max_bytes ||
        ts_in_final())
        return plain;
    *site = s;
    return m == HCRT_TP_EXPORT ? HCRT_EXT_EXPORT | HCRT_EXT_TIMED
                               : HCRT_EXT_TIMED;
}

static void kept_private(hcrt_ts_site_t *s)
{
    __atomic_add_fetch(&s->kept_private, 1, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&s->warned, 1, __ATOMIC_RELAXED))
        return;
    hcrt_info(HCRT_MOD_CORE,
              "tasks of %s:%d (%s) share data outside the DSM (a pointer "
              "into this process's own memory, e.g. a thread stack or the "
              "C library's heap): they run on the node that creates them",
              s->desc->file && *s->desc->file ? s->desc->file : "?",
              s->desc->line, s->desc->name);
}

static int data_travels(void *task, hcrt_task_ext_t *ext)
{
    char *t = task;
    return hcrt__ts_words_travel(t + KMP_TASK_HEAD,
                                 ext->size - KMP_TASK_HEAD) &&
           hcrt__ts_shareds_travel(*(char **)t, ext->shsize);
}

/* To libomp as any task (a solo team runs it at once, inside the call). */
static int32_t give_libomp(hcrt_ident_t *loc, int32_t gtid, void *task,
                           int32_t ndeps, hcrt_depend_info_t *deps,
                           int32_t ndeps_noalias, hcrt_depend_info_t *noalias)
{
    uint64_t saved = hcrt__ts_frame_push();
    int32_t r = ndeps || ndeps_noalias
                    ? __kmpc_omp_task_with_deps(loc, gtid, task, ndeps, deps,
                                                ndeps_noalias, noalias)
                    : __kmpc_omp_task(loc, gtid, task);
    hcrt__ts_frame_pop(saved);
    return r;
}

/* Solo: gives libomp the held tasks other nodes took (each completes at
 * once as an empty task), so their records come free. */
static void flush_taken(int32_t gtid)
{
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;taken task;0;0;;"};

    while (__atomic_load_n(&nunsub, __ATOMIC_RELAXED)) {
        void *task = NULL;
        pthread_mutex_lock(&lock);
        if (nunsub)
            task = recs[unsub[--nunsub]].task;
        pthread_mutex_unlock(&lock);
        if (task)
            __kmpc_omp_task(&loc, gtid, task);
    }
}

int32_t hcrt__ts_submit(hcrt_ident_t *loc, int32_t gtid, void *task,
                        hcrt_task_ext_t *ext, int32_t ndeps,
                        hcrt_depend_info_t *deps, int32_t ndeps_noalias,
                        hcrt_depend_info_t *noalias)
{
    ts_rec_t *r;

    if (hcrt__ts.solo)
        flush_taken(gtid);
    /* The dependence graph is libomp's on this node: a dependent task
     * becomes ready inside libomp, past this layer (a solo team's libomp
     * runs it at once, in order). */
    if (ndeps > 0 || ndeps_noalias > 0)
        goto plain;
    if (!data_travels(task, ext)) {
        kept_private(ext->site);
        goto plain;
    }
    if (!(r = rec_alloc()))
        goto plain;
    r->task = task;
    r->sent = 1;
    r->origin = hcrt__ts_origin;
    r->site = ext->site;
    r->kflags = ext->kflags;
    r->size = ext->size;
    r->shsize = ext->shsize;
    r->depth = ext->depth;
    ext->rec = rec_index(r) + 1;
    __atomic_store_n(&r->refs, 2, __ATOMIC_RELAXED); /* ring + the task */
    __atomic_store_n(&r->state, REC_QUEUED, __ATOMIC_RELEASE);
    if (!ring_push(r)) { /* full: it runs here (its routine completes it) */
        __atomic_store_n(&r->state, REC_LOCAL, __ATOMIC_RELEASE);
        rec_unref(r); /* the ring's; the routine drops the other */
        return give_libomp(loc, gtid, task, 0, NULL, 0, NULL);
    }
    __atomic_add_fetch(&ext->site->exported, 1, __ATOMIC_RELAXED);
    if (hcrt__ts.solo)
        return 0; /* held: runs at a scheduling point, or elsewhere */
    return __kmpc_omp_task(loc, gtid, task);
plain: /* no record: an ordinary task */
    ext->mode &= (uint16_t)~HCRT_EXT_EXPORT;
    return give_libomp(loc, gtid, task, ndeps, deps, ndeps_noalias, noalias);
}

/* ---- running here ---------------------------------------------------------
 */

/* A thread of a shared team reached a task another node runs: the task
 * (and every wait on it: taskwait, taskgroup, dependences, the barrier)
 * ends when its DONE has arrived (done_run acquired the thief's writes
 * before setting DONE). The thread waits with naps, woken by the fault
 * detector if the thief's node is lost (there is no re-execution of
 * plain tasks: the job ends with a message). */
static void await_done(ts_rec_t *r)
{
    hcrt_wait_t w = {.what = "a task another node runs", .peer = r->thief};
    hcrt_wait_state_t ws;
    hcrt_pause_t pause;

    hcrt__wait_begin(&ws);
    hcrt__pause_begin(&pause);
    while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != REC_DONE) {
        if (hcrt__wait_poll(&ws, &w) != HCRT_OK)
            hcrt_fatal(HCRT_MOD_CORE,
                       "rank %d was lost while it ran a task of this rank; "
                       "plain tasks are not re-executed",
                       w.peer);
        hcrt__pause(&pause, 50000);
    }
    hcrt__wait_end(&ws);
}

int hcrt__ts_claim(hcrt_task_ext_t *ext)
{
    ts_rec_t *r = &recs[ext->rec - 1];
    int st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);

    if (st == REC_QUEUED &&
        __atomic_compare_exchange_n(&r->state, &st, REC_LOCAL, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return 1;
    if (st == REC_LOCAL) /* a solo drain took it for this thread */
        return 1;
    if (!hcrt__ts.solo) /* the task ends when the thief's does */
        await_done(r);
    rec_unref(r);
    return 0;
}

void hcrt__ts_ran_here(hcrt_task_ext_t *ext)
{
    rec_unref(&recs[ext->rec - 1]);
}

/* ---- solo teams -----------------------------------------------------------
 */

uint64_t hcrt__ts_frame_push(void)
{
    uint64_t saved = frame_start;
    frame_start = __atomic_load_n(&hcrt__ts.seq, __ATOMIC_RELAXED);
    return saved;
}

void hcrt__ts_frame_pop(uint64_t saved)
{
    frame_start = saved;
}

void hcrt__ts_frame_reset(void)
{
    frame_start = 0;
}

/* The newest held task after `start` (LOCAL now), or one a thief took that
 * libomp has not seen yet (*taken = 1). */
static ts_rec_t *drain_next(uint64_t start, int *taken)
{
    ts_rec_t *r = NULL;

    /* nothing held, nothing taken: no lock (every taskwait asks) */
    if (!__atomic_load_n(&ring_len, __ATOMIC_RELAXED) &&
        !__atomic_load_n(&nunsub, __ATOMIC_RELAXED))
        return NULL;
    pthread_mutex_lock(&lock);
    if (ring_len) {
        ts_rec_t *t = &recs[ring_at(ring_len - 1)];
        if (t->seq > start) {
            ring_len--;
            __atomic_store_n(&t->state, REC_LOCAL, __ATOMIC_RELEASE);
            r = t, *taken = 0;
        }
    }
    for (uint32_t i = 0; !r && i < nunsub; i++)
        if (recs[unsub[i]].seq > start) {
            r = &recs[unsub[i]], *taken = 1;
            unsub[i] = unsub[--nunsub];
        }
    pthread_mutex_unlock(&lock);
    return r;
}

void hcrt__ts_drain(int32_t gtid, int all)
{
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;held task;0;0;;"};
    uint64_t start = all ? 0 : frame_start;
    ts_rec_t *r;
    int taken;

    if (!hcrt__ts.solo)
        return;
    while ((r = drain_next(start, &taken))) {
        void *task = r->task;
        if (!taken)
            rec_unref(r); /* the ring's; the routine drops the task's */
        __kmpc_omp_task(&loc, gtid, task); /* runs now (empty if taken) */
    }
}

/* A task held here after `start` that runs on another node now (its
 * thief and the cookie it knows it by): 1; one another node ran whose
 * data this node has not finished sending (the thief's DONE can overtake
 * the completion of the send, and libomp may get the task only after
 * steal_sent): 2; 0 if none. The scan starts after the last one found,
 * so waits on several take from each in turn. */
static int remote_after(uint64_t start, int *thief, uint64_t *cookie)
{
    static _Thread_local uint32_t from;

    for (uint32_t k = 0; k < hcrt__ts.nrecs; k++) {
        uint32_t i = (from + 1 + k) % hcrt__ts.nrecs;
        ts_rec_t *r = &recs[i];
        int st = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
        if (r->seq <= start)
            continue;
        if (st == REC_REMOTE) {
            *thief = r->thief;
            *cookie = ((uint64_t)r->gen << 32) | i;
            from = i;
            return 1;
        }
        if (st == REC_DONE && !__atomic_load_n(&r->sent, __ATOMIC_ACQUIRE))
            return 2;
    }
    return 0;
}

void hcrt__ts_wait(int32_t gtid, int all)
{
    uint64_t start = all ? 0 : frame_start;
    int thief;
    uint64_t cookie;

    if (!hcrt__ts.solo)
        return;
    /* Nothing held, taken or in flight (every taskwait of a tree asks):
     * the ring is read first, as a task taken from it was counted in
     * flight before it left (ring_steal). */
    if (!__atomic_load_n(&ring_len, __ATOMIC_ACQUIRE) &&
        !__atomic_load_n(&nunsub, __ATOMIC_ACQUIRE) &&
        !__atomic_load_n(&hcrt__ts.inflight, __ATOMIC_SEQ_CST) &&
        !__atomic_load_n(&hcrt__ts.unsent, __ATOMIC_SEQ_CST))
        return;
    hcrt__ts_drain(gtid, all);
    /* Every held task after `start` ran here, or another node took it
     * (counted in flight before it left the ring). None taken after
     * `start`: nothing to wait for, without a scan of the records (a
     * tree's every taskwait asks while its big task runs elsewhere). */
    if (!__atomic_load_n(&hcrt__ts.inflight, __ATOMIC_SEQ_CST) &&
        !__atomic_load_n(&hcrt__ts.unsent, __ATOMIC_SEQ_CST))
        return;
    if (__atomic_load_n(&hcrt__ts.taken_seq, __ATOMIC_SEQ_CST) <= start)
        return;
    hcrt_pause_t pause;
    hcrt__pause_begin(&pause);
    /* Until DONE (the event gate) ends them: meanwhile take back tasks
     * they created, as a thread of one node would. */
    int k;
    while ((k = remote_after(start, &thief, &cookie))) {
        if (k == 1 && hcrt__ts_steal_back(gtid, thief, cookie))
            hcrt__pause_begin(&pause);
        else
            hcrt__pause(&pause, 200000);
    }
    hcrt__ts_drain(gtid, all); /* hand-overs that completed meanwhile */
}

/* ---- the events: STEAL and DONE ------------------------------------------
 */

/* Solo: the task's data went out; its owner thread may now give it to
 * libomp (which frees it after its empty run). */
static void steal_sent(hcrt__event_ctx_t *c)
{
    ts_rec_t *r = c->user;

    pthread_mutex_lock(&lock);
    unsub[nunsub++] = rec_index(r);
    pthread_mutex_unlock(&lock);
    __atomic_store_n(&r->sent, 1, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&hcrt__ts.unsent, 1, __ATOMIC_RELEASE);
}

static hcrt_status_t steal_run(hcrt__event_ctx_t *c)
{
    const hcrt_ts_steal_req_t *q = c->hdr;
    hcrt_ts_steal_rep_t *p = (hcrt_ts_steal_rep_t *)c->reply_hdr;

    if (c->hdr_len < sizeof(*q))
        return HCRT_ERR_INVALID;
    memset(p, 0, sizeof(*p));
    c->reply_hdr_len = sizeof(*p);
    __atomic_add_fetch(&hcrt__ts.served_req, 1, __ATOMIC_RELAXED);
    uint32_t gen = __atomic_load_n(&hcrt__ts.gen, __ATOMIC_ACQUIRE);
    if (gen > q->gen ||
        (gen == q->gen && q->seq &&
         __atomic_load_n(&hcrt__ts.passed, __ATOMIC_ACQUIRE) >= q->seq)) {
        p->status = HCRT_TS_OVER;
        return HCRT_OK;
    }
    ts_rec_t *r = gen == q->gen && hcrt__ts_spread
                      ? ring_steal(c->origin, q->want)
                      : NULL;
    if (!r) {
        p->status = HCRT_TS_NONE;
        return HCRT_OK;
    }
    if (c->nout_max < 2 || c->out_cap[0] < r->size || c->out_cap[1] < r->shsize)
        hcrt_fatal(HCRT_MOD_CORE,
                   "a steal request from rank %d has room "
                   "for %zu + %zu bytes, a task needs %u + %u: "
                   "set HCRT_TASKS_MAX_BYTES the same on "
                   "every rank",
                   c->origin, c->out_cap[0], c->out_cap[1], r->size, r->shsize);
    __atomic_add_fetch(&hcrt__ts.served, 1, __ATOMIC_RELAXED);
    /* What the creator wrote before the task reaches the homes first. */
    if (hcrt__dsm_release() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM release failed handing over a task");
    p->status = HCRT_TS_TASK;
    p->cookie = ((uint64_t)r->gen << 32) | rec_index(r);
    p->site = r->site->desc->id;
    p->kflags = r->kflags;
    p->size = r->size;
    p->shsize = r->shsize;
    p->depth = r->depth;
    p->worth_depth = hcrt__tp_site_worth_depth(
        &r->site->tp, hcrt__ts_steal_cost(), &hcrt__ts.params);
    c->nout = 2;
    c->out[0] = (hcrt__event_buf_t){r->task, r->size};
    c->out[1] = (hcrt__event_buf_t){*(void **)r->task, r->shsize};
    if (hcrt__ts.solo) { /* a shared team's task lives until DONE; this not */
        __atomic_store_n(&r->sent, 0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&hcrt__ts.unsent, 1, __ATOMIC_RELAXED);
        c->user = r;
        c->out_release = steal_sent;
    }
    return HCRT_OK;
}

static hcrt_status_t done_run(hcrt__event_ctx_t *c)
{
    const hcrt_ts_done_t *d = c->hdr;

    if (c->hdr_len < sizeof(*d))
        return HCRT_ERR_INVALID;
    uint32_t idx = (uint32_t)d->cookie, gen = (uint32_t)(d->cookie >> 32);
    ts_rec_t *r = idx < hcrt__ts.nrecs ? &recs[idx] : NULL;
    if (!r || r->gen != gen ||
        __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != REC_REMOTE) {
        hcrt_error(HCRT_MOD_CORE,
                   "rank %d finished task %#" PRIx64 " that this rank did "
                   "not hand to it",
                   c->origin, d->cookie);
        return HCRT_ERR_INVALID;
    }
    /* The thief released its writes: see them before anyone waits on. */
    if (hcrt__dsm_acquire() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM acquire failed completing a task");
    hcrt__tp_site_time(&r->site->tp, r->depth, d->run_ns);
    /* One slow steal (the thief's first: its DSM acquire, a gate that
     * napped) moves the cost at most 4x: it had made every task below
     * 4 x that cost stay home (a 2 ms first steal among 60 us ones). */
    double cap = 4 * hcrt__ts_steal_cost(), cost = (double)d->cost_ns;
    hcrt__tp_mean_add(&hcrt__ts.cost, cost < cap ? cost : cap);
    __atomic_add_fetch(&r->site->ran_remote, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&hcrt__ts.remote_ns, d->run_ns, __ATOMIC_RELAXED);
    __atomic_add_fetch(&hcrt__ts.remote_ns_total, d->run_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&r->state, REC_DONE, __ATOMIC_RELEASE);
    __atomic_sub_fetch(&hcrt__ts.inflight, 1, __ATOMIC_RELAXED);
    rec_unref(r); /* the thief's */
    return HCRT_OK;
}

double hcrt__ts_steal_cost(void)
{
    return hcrt__tp_mean(&hcrt__ts.cost, hcrt__ts.params.cost_ns);
}

void hcrt__ts_register(void)
{
    hcrt__event_type_ops_t steal = {
        .name = "task steal", .queue = HCRT_EVENT_QUEUE_DATA, .run = steal_run};
    hcrt__event_type_ops_t done = {
        .name = "task done", .queue = HCRT_EVENT_QUEUE_DATA, .run = done_run};
    hcrt__event_register(HCRT_TS_EV_STEAL, &steal);
    hcrt__event_register(HCRT_TS_EV_DONE, &done);
}

/* The records and the ring, sized from the settings (task_region.c). */
void hcrt__ts_tables_init(void)
{
    uint32_t n = hcrt__ts.nrecs;

    recs = calloc(n, sizeof(*recs));
    free_stack = calloc(n, sizeof(*free_stack));
    ring = calloc(hcrt__ts.ring_cap, sizeof(*ring));
    unsub = calloc(n, sizeof(*unsub));
    if (!recs || !free_stack || !ring || !unsub)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory for the task records");
    for (uint32_t i = 0; i < n; i++)
        free_stack[nfree++] = n - 1 - i;
}

/* A spread region begins on this rank. */
void hcrt__ts_tables_reset(int solo)
{
    pthread_mutex_lock(&lock);
    hcrt__ts.solo = solo;
    pthread_mutex_unlock(&lock);
}

/* Its local team joined: every task is complete, the ring holds only
 * records local threads ran (a shared team leaves them there). */
void hcrt__ts_tables_end(void)
{
    ts_rec_t *dead[256];
    uint32_t ndead = 0;

    pthread_mutex_lock(&lock);
    ring_compact(dead, &ndead);
    if (ring_len || nunsub)
        hcrt_fatal(HCRT_MOD_CORE,
                   "internal error: %u task(s) still waiting for a node and "
                   "%u taken by another node not given back to libomp at "
                   "the end of a region",
                   ring_len, nunsub);
    ring_head = 0;
    pthread_mutex_unlock(&lock);
    for (uint32_t i = 0; i < ndead; i++)
        rec_unref(dead[i]);
    if (nfree != hcrt__ts.nrecs) /* every task completed: none in use */
        hcrt_warn(HCRT_MOD_CORE,
                  "internal: %u of %u task records still in use at the end "
                  "of a region (fewer tasks can travel from now on)",
                  hcrt__ts.nrecs - nfree, hcrt__ts.nrecs);
}

int hcrt__ts_solo(void)
{
    return hcrt__ts.solo;
}
