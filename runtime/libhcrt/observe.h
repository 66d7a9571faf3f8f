/*
 * observe.h - observation hooks of the cluster runtime (internal): the
 * per-node statistics behind HCRT_STATS and the HCRT_TRACE timeline.
 *
 * Other files call the hooks through HCRT_OBS(...), which costs one
 * predictable branch on a global flag when neither HCRT_STATS nor
 * HCRT_TRACE is set. Figures are kept per rank and gathered to the head at
 * shutdown (hcrt__obs_fini, collective), which prints the statistics and
 * writes the one trace file (base/trace.h keeps the events).
 * docs/observability.md describes the output.
 */
#ifndef HCRT_OBSERVE_H
#define HCRT_OBSERVE_H

#include <stdint.h>

#include "base/clock.h"
#include "base/trace.h"
#include "hcrt/abi.h"

/* Non-zero when HCRT_STATS or HCRT_TRACE is on (set at init). */
extern int hcrt__obs_on;

#define HCRT_OBS(call)                                                         \
    do {                                                                       \
        if (__builtin_expect(hcrt__obs_on, 0))                                 \
            call;                                                              \
    } while (0)

/* ---- hooks (every rank) ------------------------------------------------ */
/* A cluster region starts / ends on this node (cluster.c run_region, on the
 * thread that forks the node's team). */
void hcrt__obs_region_begin(const hcrt_region_desc_t *region);
void hcrt__obs_region_end(const hcrt_region_desc_t *region);
/* A region forked as one node's team ended; it began at `t0` (fork.c). */
void hcrt__obs_local_region(const hcrt_region_desc_t *region, uint64_t t0);
/* A thread got its share of a static cluster loop: its first block
 * [lo, hi] and stride as returned to the program, from a loop of `trip`
 * iterations starting at `lb` with increment `incr` (64-bit patterns). */
void hcrt__obs_loop_static(hcrt_ident_t *loc, uint64_t lb, uint64_t trip,
                           uint64_t lo, uint64_t hi, int64_t stride,
                           int64_t incr);
/* A thread starts a dynamic cluster loop, gets a chunk of `n` iterations,
 * or (n == 0) has no more. */
void hcrt__obs_loop_dispatch(hcrt_ident_t *loc);
void hcrt__obs_loop_chunk(uint64_t n);
/* End of a static loop for this thread (__hcrt_for_static_fini). */
void hcrt__obs_loop_end(void);
/* A thread waited in a cluster barrier since `t0` (sync.c). */
void hcrt__obs_barrier(uint64_t t0);
/* hcrt__now_ns() when observing, else 0 (so hooks cost nothing off). */
static inline uint64_t hcrt__obs_now(void)
{
    return __builtin_expect(hcrt__obs_on, 0) ? hcrt__now_ns() : 0;
}

/* ---- life cycle -------------------------------------------------------- */
/* Reads HCRT_STATS and HCRT_TRACE* (every rank, at start-up). */
void hcrt__obs_init(void);
/* Every rank, at shutdown while MPI works (collective over the runtime's
 * communicator): gathers statistics and trace events at the head, prints
 * the statistics report there (HCRT_STATS) and writes the trace file. */
void hcrt__obs_fini(void);
/* A program that owns MPI (runtime.md "MPI programs"): this process is
 * rank job_rank of the launcher's job_size, and reports for itself. */
void hcrt__obs_set_job(int job_rank, int job_size);

/* ---- between observe.c and obs_report.c -------------------------------- */
/* This rank's figures as text lines (malloc'd, *len bytes). */
char *hcrt__obs_text(size_t *len);
uint64_t hcrt__obs_start_ns(void);

#endif /* HCRT_OBSERVE_H */
