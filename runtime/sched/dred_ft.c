/*
 * dred_ft.c - the dynamic reduction's recovery from a lost rank (seed §3,
 * dred.h): requeue the survivor's latest message, split the lost path
 * into single-rank messages flagged for recovery, served from raw inputs.
 */
#include <stdlib.h>

#include "sched/dred.h"
#include "sched/dred_int.h"

void hcrt__dred_replica_done(hcrt__dred_t *d, int rank, int buddy)
{
    if (rank < 0 || rank >= d->nranks || buddy < 0 || buddy >= d->nranks ||
        buddy == rank || d->failed[buddy])
        return;
    d->replica[rank] = 1;
    d->buddy[rank] = buddy;
}

static void end_lost(hcrt__dred_t *d, int rank, const char *why)
{
    if (d->state != HCRT_DRED_RUNNING)
        return;
    d->state = HCRT_DRED_LOST;
    d->lost_rank = rank;
    d->why = why;
}

/* One single-rank message for rank k's raw input, from k itself while it
 * lives, else from its buddy's complete replica. */
static void split_one(hcrt__dred_t *d, int k)
{
    int from = k;
    if (d->failed[k]) {
        if (!d->replica[k])
            return end_lost(d, k,
                            "its input was lost before its replica "
                            "was complete");
        from = d->buddy[k];
        if (d->failed[from])
            return end_lost(d, k,
                            "it and the buddy holding its replica "
                            "both failed");
    }
    hcrt__dred_msg_t m = {from, 1 + k, HCRT_DRED_RECOVER,
                          hcrt__dred_path_new(d, k), 1};
    if (!m.path || hcrt__dred_push(d, &m) != HCRT_OK) {
        free(m.path);
        return end_lost(d, k, "out of memory while recovering");
    }
    d->recovered++;
}

/* Splits a lost message's path into single-rank messages (step 3). */
static void split(hcrt__dred_t *d, hcrt__dred_msg_t *m)
{
    for (int k = 0; k < d->nranks; k++)
        if (m->path[k / 64] >> (k % 64) & 1)
            split_one(d, k);
    free(m->path);
}

static void requeue(hcrt__dred_t *d, hcrt__dred_msg_t *m)
{
    if (hcrt__dred_push(d, m) != HCRT_OK) {
        free(m->path);
        end_lost(d, m->holder, "out of memory while recovering");
    }
}

/* Messages `rank` held in the queue: their paths are split. */
static void drop_queued(hcrt__dred_t *d, int rank)
{
    int n = d->qlen;
    for (int i = 0; i < n; i++) {
        hcrt__dred_msg_t m = hcrt__dred_pop(d);
        if (m.holder == rank)
            split(d, &m);
        else
            requeue(d, &m);
    }
}

/* Tasks `rank` ran (cases 1-2): the giver's message goes back (a giver
 * never changes what it gives), the holder's path is split. */
static void drop_tasks(hcrt__dred_t *d, int rank)
{
    for (int i = d->ntasks - 1; i >= 0; i--) {
        hcrt__dred_task_t t = d->tasks[i];
        if (t.holder != rank)
            continue;
        hcrt__dred_msg_t a = d->tmsg[2 * i], b = d->tmsg[2 * i + 1];
        hcrt__dred_drop_task(d, i);
        split(d, &a);
        if (t.giver == rank)
            split(d, &b);
        else
            requeue(d, &b);
    }
}

void hcrt__dred_task_failed(hcrt__dred_t *d, int id)
{
    int i = hcrt__dred_find_task(d, id);
    if (i < 0)
        return;
    hcrt__dred_msg_t a = d->tmsg[2 * i], b = d->tmsg[2 * i + 1];
    hcrt__dred_drop_task(d, i);
    requeue(d, &a);
    split(d, &b);
}

void hcrt__dred_exclude(hcrt__dred_t *d, int rank)
{
    if (rank < 0 || rank >= d->nranks || d->failed[rank] || d->arrived[rank])
        return;
    if (rank == d->root)
        return hcrt__dred_fail(d, rank);
    d->failed[rank] = d->arrived[rank] = 1;
    d->nparts--;
    if (d->excluded < 0)
        d->excluded = rank;
}

void hcrt__dred_fail(hcrt__dred_t *d, int rank)
{
    if (rank < 0 || rank >= d->nranks || d->failed[rank])
        return;
    d->failed[rank] = 1;
    if (d->state != HCRT_DRED_RUNNING)
        return;
    if (rank == d->root) {
        d->state = HCRT_DRED_ROOT_LOST;
        d->lost_rank = rank;
        d->why = "the root failed";
        return;
    }
    if (!d->arrived[rank]) {
        /* it never called the reduction: its input exists nowhere */
        if (!d->replica[rank] || d->failed[d->buddy[rank]])
            return end_lost(d, rank,
                            "it failed before it joined the "
                            "reduction");
        d->arrived[rank] = 1;
        split_one(d, rank);
        return;
    }
    drop_queued(d, rank);
    drop_tasks(d, rank);
}
