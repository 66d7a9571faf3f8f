/*
 * cluster_loops.h - loop scheduling over a cluster team (internal).
 *
 * Loop values are passed as 64-bit patterns: signed types sign-extended,
 * unsigned zero-extended; `sgn` and `width` (4 or 8) say which.
 */
#ifndef HCRT_CLUSTER_LOOPS_H
#define HCRT_CLUSTER_LOOPS_H

#include <stdint.h>

#include "base/kmp_abi.h"
#include "hcrt/abi.h"

/* A dynamic loop carrying the pragma scan's marker chunk: a worksharing loop
 * written without a schedule clause (abi.h, HCRT_SCHED_DEFAULT_CHUNK). */
static inline int hcrt__is_default_loop(int32_t sched, int64_t chunk)
{
    return __builtin_expect(chunk == HCRT_SCHED_DEFAULT_CHUNK, 0) &&
           (sched &
            ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC)) ==
               KMP_SCH_DYNAMIC_CHUNKED;
}

void hcrt__cl_static_init(hcrt_ident_t *loc, int32_t sched, int32_t *plast,
                          uint64_t *plo, uint64_t *phi, int64_t *pstride,
                          int64_t incr, int64_t chunk, int sgn, int width);
void hcrt__cl_dispatch_init(hcrt_ident_t *loc, int32_t sched, uint64_t lb,
                            uint64_t ub, int64_t incr, int64_t chunk, int sgn,
                            int width);
int hcrt__cl_dispatch_next(int32_t *plast, uint64_t *plo, uint64_t *phi,
                           int64_t *pstride);

/* The calling thread leaves its dispatch loop (if any) early: cancel. */
void hcrt__cl_loop_abandon(hcrt_ident_t *loc);

/* ordered regions of an ordered dispatch loop, and its per-iteration end */
void hcrt__cl_ordered(hcrt_ident_t *loc);
void hcrt__cl_end_ordered(void);
void hcrt__cl_dispatch_fini(void);

/* loops.c: cancellation is on (omp_get_cancellation(), read at start-up);
 * the calling thread runs the libomp dispatch loop it is in to its end
 * without running iterations (it left the loop by cancel). */
extern int hcrt__loops_cancel_on;
void hcrt__loops_cancel_drain(hcrt_ident_t *loc, int32_t gtid);

/* loops.c: the schedule hint for the calling thread's next dynamic loop
 * (HCRT_SCHED_HINT_*; *percent 0..100), consumed by the call; the head's
 * pending hint travels with a fork (take on the head, set on every rank). */
int hcrt__loops_take_hint(int *percent);
void hcrt__loops_take_region_hint(int32_t *kind, int32_t *percent);
void hcrt__loops_set_region_hint(int32_t kind, int32_t percent);
/* loops.c: OMP_SCHEDULE=hetprobe[_i][,pct] seen at start-up, and
 * HCRT_SCHED_DEFAULT for schedule(auto). Returns the pool kind (sched/pool.h;
 * and the OMP_SCHEDULE percentage in *pct, if any), or -1 for "a plain
 * schedule" with *plain set to the KMP schedule to use. */
int hcrt__cl_sched_default(int32_t *plain, int *pct);

#endif /* HCRT_CLUSTER_LOOPS_H */
