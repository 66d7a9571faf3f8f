/*
 * lock.c - cluster locks with a manager per lock (id modulo ranks).
 *
 * The manager's service thread keeps, per held lock, a FIFO of waiting
 * requests; unlock hands the lock to the next waiter by answering its
 * pending request. Lock = grant + acquire; unlock = release + notice, so
 * the critical sections of different ranks are ordered with their data.
 */
#include <stdlib.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

typedef struct waiter {
    struct waiter *next;
    int rank;
    uint32_t op;
} waiter_t;

typedef struct lockrec {
    struct lockrec *next;
    uint64_t id;
    int held;
    waiter_t *head, *tail;
} lockrec_t;

#define LOCK_BUCKETS 1024
static lockrec_t *table[LOCK_BUCKETS]; /* service thread only */

static int manager(uint64_t id)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ULL;
    return (int)((h >> 32) % (uint64_t)dsm.size);
}

static lockrec_t *find(uint64_t id)
{
    size_t b = (size_t)((id * 0x9E3779B97F4A7C15ULL) >> 40) % LOCK_BUCKETS;
    for (lockrec_t *l = table[b]; l; l = l->next)
        if (l->id == id)
            return l;
    lockrec_t *l = calloc(1, sizeof *l);
    if (!l)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM lock manager");
    l->id = id;
    l->next = table[b];
    table[b] = l;
    return l;
}

static void grant(int rank, uint32_t op, uint64_t id)
{
    dsm_msg_t r = {M_LOCK_R, op, id, 0, 0, 0};
    hcrt__dsm_send(rank, &r, sizeof r);
}

void hcrt__dsm_lock_serve(int src, dsm_msg_t *m)
{
    lockrec_t *l = find(m->a);
    if (!l->held) {
        l->held = 1;
        grant(src, m->op, m->a);
        return;
    }
    waiter_t *w = malloc(sizeof *w);
    if (!w)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM lock manager");
    *w = (waiter_t){NULL, src, m->op};
    if (l->tail)
        l->tail->next = w;
    else
        l->head = w;
    l->tail = w;
}

void hcrt__dsm_unlock_serve(int src, dsm_msg_t *m)
{
    lockrec_t *l = find(m->a);
    if (!l->held)
        hcrt_fatal(HCRT_MOD_DSM,
                   "rank %d unlocked cluster lock %#llx, "
                   "which is not held",
                   src, (unsigned long long)m->a);
    waiter_t *w = l->head;
    if (!w) {
        l->held = 0;
        return;
    }
    l->head = w->next;
    if (!l->head)
        l->tail = NULL;
    grant(w->rank, w->op, m->a);
    free(w);
}

hcrt_status_t hcrt__dsm_lock(uint64_t id)
{
    if (!dsm.ready)
        return HCRT_ERR_INVALID;
    hcrt__dsm_call(manager(id), M_LOCK, id, 0, 0, 0);
    dsm_count(locks, 1);
    return hcrt__dsm_acquire();
}

hcrt_status_t hcrt__dsm_unlock(uint64_t id)
{
    if (!dsm.ready)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__dsm_release();
    dsm_msg_t m = {M_UNLOCK, 0, id, 0, 0, 0};
    dsm_op_t op = {0};
    op.dest = manager(id);
    op.sbuf = &m;
    op.slen = sizeof m;
    hcrt__dsm_submit(&op);
    hcrt__dsm_wait(&op);
    return st;
}
