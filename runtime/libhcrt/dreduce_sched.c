/*
 * dreduce_sched.c - the dynamic reduction, its scheduler's side: ready and
 * done messages feed sched/dred.c, its tasks go out as TASK (to the
 * holder) and GIVE (to the giver), and the end goes to every rank.
 */
#include <stdlib.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "libhcrt/dreduce_int.h"

static dr_sched_t *scheds;
static hcrt__dred_perf_t perf;
static int spread = -1; /* HCRT_REDUCE_SCHED=spread */

int hcrt__dr_sched_rank(uint32_t id)
{
    if (spread < 0)
        spread = hcrt__config_enum("HCRT_REDUCE_SCHED") == 1;
    return spread ? (int)(id % (uint32_t)hcrt__dr_size) : 0;
}

double hcrt__dr_perf_spread(void)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    double s = perf.ns_per_b ? hcrt__dred_perf_spread(&perf) : 1;
    pthread_mutex_unlock(&hcrt__dr_lock);
    return s;
}

static dr_sched_t *get(uint32_t id, int root)
{
    for (dr_sched_t *s = scheds; s; s = s->next)
        if (s->id == id)
            return s;
    if (!perf.ns_per_b &&
        hcrt__dred_perf_init(&perf, hcrt__dr_size,
                             hcrt__config_double("HCRT_REDUCE_PERF_ALPHA")) !=
            HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    dr_sched_t *s = calloc(1, sizeof *s);
    if (!s || hcrt__dred_init(&s->d, hcrt__dr_size, root, &perf) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE,
                   "reduction %u: root %d is not a rank of "
                   "%d, or out of memory",
                   id, root, hcrt__dr_size);
    s->id = id, s->root = root;
    s->start_ns = hcrt__now_ns();
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
    hcrt__dred_fini(&s->d);
    free(s);
}

static void finish(dr_sched_t *s)
{
    hcrt__dred_t *d = &s->d;
    hcrt_status_t st =
        d->state == HCRT_DRED_DONE ? HCRT_OK : HCRT_ERR_NODE_FAILED;
    int hint = hcrt__dr_omp_decide(s->max_window, hcrt__dred_perf_spread(&perf),
                                   (double)(s->last_ns - s->first_ns));
    dr_ctl_t m = {.kind = CTL_END,
                  .id = s->id,
                  .root = s->root,
                  .a = d->lost_rank,
                  .b = hint,
                  .status = st,
                  .extra = d->recovered};
    s->ended = 1;
    hcrt__dr_stats_note(s, st, (double)(hcrt__now_ns() - s->start_ns) * 1e-9);
    for (int r = 0; r < hcrt__dr_size; r++)
        if (!d->failed[r] && r != hcrt__dr_rank)
            hcrt__dr_send(r, &m);
    if (!d->failed[hcrt__dr_rank])
        hcrt__dr_send(hcrt__dr_rank, &m); /* last: it may free s's caller */
    forget(s);
}

static void dispatch(dr_sched_t *s)
{
    hcrt__dred_task_t t;
    while (hcrt__dred_next(&s->d, &t)) {
        dr_ctl_t task = {.kind = CTL_TASK,
                         .id = s->id,
                         .root = s->root,
                         .a = t.id,
                         .b = t.giver};
        dr_ctl_t give = {
            .kind = CTL_GIVE, .id = s->id, .root = s->root, .a = t.holder};
        hcrt__dr_send(t.giver, &give); /* the data starts moving first */
        hcrt__dr_send(t.holder, &task);
    }
    if (s->d.state != HCRT_DRED_RUNNING)
        finish(s);
}

void hcrt__dr_sched_handle(const dr_ctl_t *m)
{
    dr_sched_t *s = get(m->id, m->root);
    uint64_t now = hcrt__now_ns();
    if (m->kind == CTL_READY) {
        if (!s->first_ns)
            s->first_ns = now;
        s->last_ns = now;
        if (m->window > s->max_window)
            s->max_window = m->window;
        if (m->bytes > s->bytes)
            s->bytes = m->bytes;
        if (m->root != s->root || hcrt__dred_arrive(&s->d, m->rank) != HCRT_OK)
            hcrt_fatal(HCRT_MOD_CORE,
                       "reduction %u: rank %d joined with root %d where "
                       "another said %d; every rank must start the same "
                       "reductions in the same order",
                       m->id, m->rank, m->root, s->root);
    } else if (m->kind == CTL_DONE) {
        hcrt__dred_task_done(&s->d, m->a, m->ns, (double)m->bytes);
    } else if (m->kind == CTL_FAILED) {
        hcrt__dred_task_failed(&s->d, m->a);
    }
    dispatch(s);
}
