/*
 * migrate_int.h - state shared by migrate.c (which pages move) and
 * migrate_move.c (how they move): the homes' records and the moves agreed
 * at a barrier (HCRT_DSM_MIGRATE, docs/dsm.md "Home migration").
 */
#ifndef HCRT_DSM_MIGRATE_INT_H
#define HCRT_DSM_MIGRATE_INT_H

#include "dsm/dsm_int.h"

/* A page moves after this many written epochs with one writer; a page
 * that moved k times before needs MIG_AFTER << k (so a page whose writer
 * changes with the phase of the program, a transpose, settles down after
 * a few moves instead of following every phase). */
#define MIG_AFTER 2
#define MIG_MAX_MOVES 6 /* then 128 epochs: in effect never again */
/* Pages per pull message (4 MiB of data). */
#define PULL_MAX 1024

/* The home's record of a page: the epoch of its last diff, that epoch's
 * writer (or MANY), and the streak of earlier written epochs with one
 * writer (pw, run). Bits set by the barrier's scan: queued (in the
 * candidate list), probed (the home write-protected it to see whether it
 * writes it), moving (being moved: atomics at the home retry). */
#define R_EP(r) ((uint32_t)(r))
#define R_W(r) ((int)(((r) >> 32) & 0xff))
#define R_PW(r) ((int)(((r) >> 40) & 0xff))
#define R_RUN(r) ((int)(((r) >> 48) & 0xff))
#define R_QUEUED (1ULL << 56)
#define R_PROBED (1ULL << 57)
#define R_MOVING (1ULL << 58)
#define R_HAS (1ULL << 59)
#define R_MOVES(r) ((int)(((r) >> 60) & 7)) /* moves so far (at its home) */
#define R_MOVES_MASK (7ULL << 60)
#define MANY 0xff
#define NONE 0xfe

static inline uint64_t rec_make(uint32_t ep, int w, int pw, int run,
                                uint64_t bits)
{
    return (uint64_t)ep | (uint64_t)(w & 0xff) << 32 |
           (uint64_t)(pw & 0xff) << 40 | (uint64_t)(run & 0xff) << 48 | bits;
}

/* A move: page idx to rank `to & 0xffff`; `to >> 16` is the page's
 * number of moves, this one included (it travels to the new home). */
typedef struct mv {
    uint32_t idx, to;
} mv_t;
#define MV_TO(m) ((int)((m).to & 0xffff))
#define MV_MOVES(m) ((m).to >> 16)

struct dsm_mig {
    _Atomic uint64_t *rec; /* per page, at its home */
    _Atomic uint32_t epoch;
    pthread_mutex_t mu; /* the candidate list */
    uint32_t *cand;
    size_t ncand, cap;
    mv_t *props; /* this home's proposals at the current barrier */
    size_t nprops, capprops;
    int *counts; /* per rank, from the allgather */
    long total;
};
extern struct dsm_mig hcrt__dsm_mig;

static inline void rec_set(size_t idx, uint64_t set, uint64_t clear)
{
    uint64_t o = atomic_load(&hcrt__dsm_mig.rec[idx]);
    while (!atomic_compare_exchange_weak(&hcrt__dsm_mig.rec[idx], &o,
                                         (o | set) & ~clear))
        ;
}

#endif /* HCRT_DSM_MIGRATE_INT_H */
