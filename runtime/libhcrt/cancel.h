/*
 * cancel.h - cancellation across nodes (internal; cancel.c).
 *
 * With OMP_CANCELLATION=true, `cancel parallel|for|sections` and
 * `cancellation point` at the outer level of a cluster region act on the
 * whole cluster team: a DSM word per construct instance, set by the
 * cancelling thread and read at cancellation points, cancellation-aware
 * barriers and chunk requests of worksharing loops. `taskgroup` stays with
 * libomp: a taskgroup's tasks all run on the node that created them.
 */
#ifndef HCRT_CANCEL_H
#define HCRT_CANCEL_H

#include <stdint.h>

#include "hcrt/abi.h"

/* Cancellation is on in cluster mode (the head's cancel-var, the same on
 * every rank); set by hcrt__cancel_init. */
extern int hcrt__cancel_on;
/* Cluster barriers this thread passed in the running region. */
extern _Thread_local uint32_t hcrt__cancel_bars;

/* Collective, from hcrt__cluster_init: checks every rank has the head's
 * OMP_CANCELLATION and (when on) sets up the DSM words. */
void hcrt__cancel_init(void);
/* Every rank, before forking its team for a cluster region. */
void hcrt__cancel_region_begin(void);
/* Every thread of a cluster team, at the start of the region. */
void hcrt__cancel_thread_enter(void);

/* A cluster barrier passed (hcrt__cluster_barrier). */
_Noreturn void hcrt__cancel_too_many_barriers(void);
static inline void hcrt__cancel_note_barrier(void)
{
    if (__builtin_expect(hcrt__cancel_on, 0) &&
        __builtin_expect(++hcrt__cancel_bars == 0, 0))
        hcrt__cancel_too_many_barriers();
}

/* A worksharing loop or sections construct starts (every thread of the
 * team, in the same order). */
void hcrt__cancel_ws_begin(void);
/* Whether the calling thread's worksharing loop or its region was
 * cancelled (polled at most every HCRT_CANCEL_POLL_US): a chunk request
 * then gets nothing. */
int hcrt__cancel_ws_stopped(void);

/* __hcrt_cancel, __hcrt_cancellationpoint and __hcrt_cancel_barrier at the
 * outer level of a cluster region, with hcrt__cancel_on. */
int32_t hcrt__cancel_request(hcrt_ident_t *loc, int32_t gtid, int32_t kind);
int32_t hcrt__cancel_point(hcrt_ident_t *loc, int32_t gtid, int32_t kind);
int32_t hcrt__cancel_barrier(hcrt_ident_t *loc, int32_t gtid);

/* reduce.c: a reduction's key, unique in the job (region, construct). */
uint64_t hcrt__cancel_reduce_key(uint32_t seq);
/* reduce.c: stops the job when the worksharing loop this reduction ends
 * was cancelled: clang's cancelling thread skips the reduction, so the
 * others would wait for it for ever (libomp hangs there too). */
void hcrt__cancel_reduce_check(hcrt_ident_t *loc);
/* The same stop, when a thread of the node did not reach the reduction. */
_Noreturn void hcrt__cancel_reduce_refuse(hcrt_ident_t *loc);

#endif /* HCRT_CANCEL_H */
