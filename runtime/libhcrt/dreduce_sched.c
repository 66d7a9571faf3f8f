/*
 * dreduce_sched.c - the dynamic reduction, its scheduler's side: ready and
 * done messages feed sched/dred.c, its tasks go out as TASK (to the
 * holder) and GIVE (to the giver), and the end goes to every rank.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/fault/ft.h"

static dr_sched_t *scheds;
static hcrt__dred_perf_t perf;
static int spread = -1; /* HCRT_REDUCE_SCHED=spread */

/* Ended instances (FT mode: late messages about them are dropped). */
static uint64_t *ended_ids;
static size_t ended_words;

/* FT mode: losses the detector announced (set on the detector's thread,
 * which marks the rank failed for the waits only after the callbacks: so
 * the rank is noted here) and those the instances have seen. */
static atomic_int losses_pending;
static _Atomic uint8_t *lost_note;
static uint8_t *lost_seen;

int hcrt__dr_sched_rank(uint32_t id)
{
    if (spread < 0) /* FT mode: the head, which a job never survives */
        spread = !hcrt__ft_on() && hcrt__config_enum("HCRT_REDUCE_SCHED") == 1;
    return spread ? (int)(id % (uint32_t)hcrt__dr_size) : 0;
}

static void note_ended(uint32_t id)
{
    size_t w = id / 64;
    if (w >= ended_words) {
        size_t n = w + 1024;
        uint64_t *e = realloc(ended_ids, n * sizeof *e);
        if (!e)
            return;
        memset(e + ended_words, 0, (n - ended_words) * sizeof *e);
        ended_ids = e, ended_words = n;
    }
    ended_ids[w] |= 1ULL << (id % 64);
}

static int is_ended(uint32_t id)
{
    return id / 64 < ended_words && (ended_ids[id / 64] >> (id % 64) & 1);
}

static void on_lost(int rank, void *arg)
{
    (void)arg;
    if (rank < 0 || rank >= hcrt__dr_size)
        return;
    atomic_store(&lost_note[rank], 1);
    atomic_store(&losses_pending, 1);
}

void hcrt__dr_sched_ft_init(void)
{
    lost_note = calloc((size_t)hcrt__dr_size, sizeof *lost_note);
    lost_seen = calloc((size_t)hcrt__dr_size, 1);
    if (!lost_note || !lost_seen)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    hcrt__ft_on_lost(on_lost, NULL);
}

double hcrt__dr_perf_spread(void)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    double s = perf.ns_per_b ? hcrt__dred_perf_spread(&perf) : 1;
    pthread_mutex_unlock(&hcrt__dr_lock);
    return s;
}

/* A rank lost before the instance began at its scheduler takes no part. */
static void exclude_lost(hcrt__dred_t *d)
{
    if (!lost_note)
        return;
    for (int k = 0; k < hcrt__dr_size; k++)
        if (atomic_load(&lost_note[k]) || hcrt__ft_lost(k))
            hcrt__dred_exclude(d, k);
}

static dr_sched_t *find(uint32_t id)
{
    for (dr_sched_t *s = scheds; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

static dr_sched_t *get(uint32_t id, int root)
{
    dr_sched_t *s = find(id);
    if (s)
        return s;
    if (!perf.ns_per_b &&
        hcrt__dred_perf_init(&perf, hcrt__dr_size,
                             hcrt__config_double("HCRT_REDUCE_PERF_ALPHA")) !=
            HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    s = calloc(1, sizeof *s);
    if (!s || hcrt__dred_init(&s->d, hcrt__dr_size, root, &perf) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE,
                   "reduction %u: root %d is not a rank of "
                   "%d, or out of memory",
                   id, root, hcrt__dr_size);
    s->id = id, s->root = root;
    s->start_ns = hcrt__now_ns();
    if (!(s->bud = malloc((size_t)hcrt__dr_size * sizeof *s->bud)))
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    for (int k = 0; k < hcrt__dr_size; k++)
        s->bud[k] = -1;
    exclude_lost(&s->d);
    s->next = scheds;
    scheds = s;
    return s;
}

static void forget(dr_sched_t *s)
{
    for (dr_sched_t **p = &scheds; *p; p = &(*p)->next)
        if (*p == s) {
            *p = s->next;
            break;
        }
    note_ended(s->id);
    hcrt__dred_fini(&s->d);
    free(s->bud);
    free(s);
}

/* The END's status and reason. */
static hcrt_status_t outcome(const hcrt__dred_t *d, dr_ctl_t *m)
{
    if (d->state == HCRT_DRED_DONE && d->excluded < 0) {
        m->a = -1;
        snprintf(m->why, sizeof m->why, "%s",
                 d->recovered ? "complete, with recovered inputs" : "complete");
        return HCRT_OK;
    }
    if (d->state == HCRT_DRED_DONE) {
        m->a = d->excluded;
        snprintf(m->why, sizeof m->why,
                 "rank %d was lost before this reduction began: the result "
                 "folds the %d survivors' inputs",
                 d->excluded, d->nparts);
    } else {
        m->a = d->lost_rank;
        snprintf(m->why, sizeof m->why, "rank %d was lost: %s", d->lost_rank,
                 d->why ? d->why : "failed");
    }
    return HCRT_ERR_NODE_FAILED;
}

static void finish(dr_sched_t *s)
{
    hcrt__dred_t *d = &s->d;
    int hint = hcrt__dr_omp_decide(s->max_window, hcrt__dred_perf_spread(&perf),
                                   (double)(s->last_ns - s->first_ns));
    dr_ctl_t m = {.kind = CTL_END,
                  .id = s->id,
                  .root = s->root,
                  .b = hint,
                  .extra = d->recovered,
                  .hitem = d->final_item,
                  .gitem = d->state == HCRT_DRED_DONE};
    hcrt_status_t st = outcome(d, &m);
    m.status = st;
    s->ended = 1;
    hcrt__dr_stats_note(s, st, (double)(hcrt__now_ns() - s->start_ns) * 1e-9);
    for (int r = 0; r < hcrt__dr_size; r++)
        if (!d->failed[r] && r != hcrt__dr_rank)
            hcrt__dr_send(r, &m);
    if (!d->failed[hcrt__dr_rank])
        hcrt__dr_send(hcrt__dr_rank, &m); /* last: it may free s's caller */
    forget(s);
}

/* An instance ends on the ranks only when every live rank joined it and
 * every replica sent to a live buddy arrived: then no rank still sends
 * anything for it, and none waits on a rank that has left. */
static int can_end(const dr_sched_t *s)
{
    const hcrt__dred_t *d = &s->d;
    for (int k = 0; k < hcrt__dr_size; k++) {
        if (d->failed[k])
            continue;
        if (!d->arrived[k])
            return 0;
        int b = s->bud[k];
        if (b >= 0 && !d->failed[b] && !d->replica[k])
            return 0;
    }
    return 1;
}

static void dispatch(dr_sched_t *s)
{
    hcrt__dred_task_t t;
    while (hcrt__dred_next(&s->d, &t)) {
        dr_ctl_t task = {.kind = CTL_TASK,
                         .id = s->id,
                         .root = s->root,
                         .a = t.id,
                         .b = t.giver,
                         .hitem = t.holder_item,
                         .gitem = t.giver_item,
                         .oitem = t.out_item};
        dr_ctl_t give = {.kind = CTL_GIVE,
                         .id = s->id,
                         .root = s->root,
                         .a = t.holder,
                         .b = t.id,
                         .gitem = t.giver_item};
        hcrt__dr_send(t.giver, &give); /* the data starts moving first */
        hcrt__dr_send(t.holder, &task);
    }
    if (s->d.state != HCRT_DRED_RUNNING && can_end(s))
        finish(s);
}

void hcrt__dr_sched_losses(void)
{
    if (!lost_note || !atomic_load(&losses_pending))
        return;
    /* a replica complete before the loss is applied serves the lost
     * rank's input: its report may sit here with the loss (read on any
     * path that applies it, e.g. this rank's own READY) */
    hcrt__dr_poll_replicas();
    if (!atomic_exchange(&losses_pending, 0))
        return;
    for (int k = 0; k < hcrt__dr_size; k++) {
        if (lost_seen[k] || !atomic_load(&lost_note[k]))
            continue;
        lost_seen[k] = 1;
        for (dr_sched_t *s = scheds, *next; s; s = next) {
            next = s->next; /* dispatch may end and free s */
            hcrt__dred_fail(&s->d, k);
            dispatch(s);
        }
    }
}

void hcrt__dr_sched_handle(const dr_ctl_t *m)
{
    /* a FAILED may come before the loss is seen; a REPLICA (complete
     * before the loss was applied) counts for the lost rank */
    if (m->kind != CTL_REPLICA)
        hcrt__dr_sched_losses();
    dr_sched_t *s = find(m->id);
    if (!s &&
        (is_ended(m->id) || (m->kind != CTL_READY && m->kind != CTL_REPLICA)))
        return; /* about an instance that ended (FT mode: after a loss) */
    if (!s)
        s = get(m->id, m->root);
    uint64_t now = hcrt__now_ns();
    if (m->kind == CTL_READY && s->d.failed[m->rank]) {
        /* from a rank lost since: not a participant */
    } else if (m->kind == CTL_READY) {
        if (!s->first_ns)
            s->first_ns = now;
        s->last_ns = now;
        if (m->window > s->max_window)
            s->max_window = m->window;
        if (m->bytes > s->bytes)
            s->bytes = m->bytes;
        if (m->b >= 0 && m->b < hcrt__dr_size)
            s->bud[m->rank] = m->b;
        if (s->d.state != HCRT_DRED_RUNNING && m->root == s->root)
            s->d.arrived[m->rank] = 1; /* ended: it only has to join */
        else if (m->root != s->root ||
                 hcrt__dred_arrive(&s->d, m->rank) != HCRT_OK)
            hcrt_fatal(HCRT_MOD_CORE,
                       "reduction %u: rank %d joined with root %d where "
                       "another said %d; every rank must start the same "
                       "reductions in the same order",
                       m->id, m->rank, m->root, s->root);
    } else if (m->kind == CTL_DONE) {
        hcrt__dred_task_done(&s->d, m->a, m->ns, (double)m->bytes);
    } else if (m->kind == CTL_FAILED) {
        hcrt__dred_task_failed(&s->d, m->a);
    } else if (m->kind == CTL_REPLICA) {
        hcrt__dred_replica_done(&s->d, m->a, m->rank);
    }
    dispatch(s);
}
