/*
 * hp_int.h - the HetProbe / HetProbe-I window protocol's state of a node's
 * loop pool, shared by hp_window.c (windows, probe slices, zones, splits)
 * and hp_run.c (handing out chunks, the exchange at a window's end).
 */
#ifndef HCRT_HP_INT_H
#define HCRT_HP_INT_H

#include <stdint.h>

#include "dsm/dsm.h"
#include "sched/pool_int.h"

enum { PH_PROBE, PH_RUN, PH_DONE };

/* Weight in a probe slice of a node without an estimate (left out by the
 * last decision, or never measured): it is measured again, on a slice
 * small enough that its slowness costs little. A node with a measured
 * speed gets a slice in proportion to it however small, so that it takes
 * as long as the others' (a floor at this value gave spmv's slow node 120
 * times too many iterations: the fast node waited 8 ms of a 65 ms call). */
#define PROBE_FLOOR 0.02

struct hcrt__cl_hp {
    hcrt__hetprobe_params_t prm;
    uint64_t loop_id;
    int *thr;
    double *weight; /* current CSR estimate (probe sizing, final split) */
    uint8_t *rests; /* node sits out the first window's probe (the cache) */
    int single;     /* last decision: single node (-1: none) */
    int crossed;    /* a window of this call was split across nodes */
    /* HetProbe-I: deal cross-node rests in rounds (the loop's rate moved
     * between windows by prm.deal_spread); the rates seen this call */
    int dealing;
    double rate_lo, rate_hi;
    int win, maxwin, phase, exchanging;
    uint64_t pos, wlen, run_end, probe_n, max_c;
    uint64_t plo, phi;           /* this node's probe slice */
    uint64_t *pstart;            /* every node's probe slice (nn + 1) */
    int rounds, closed;          /* sub-chunk rounds; probe over here */
    int pchunks, phanded, pdone; /* this node's probe chunks */
    uint64_t probed;             /* probe iterations run, all nodes */
    int nseg;                    /* > 0: [lo, hi) index these segments */
    /* ilv: [lo, hi) indexes this node's pieces of a HetProbe-I cross-node
     * rest dealt in rounds (deal()): il_full rounds of il_len with its
     * piece il_q at il_o, then one of the rest with il_q2 at il_o2;
     * il_base: the rest's first iteration (0 with segments) */
    int ilv;
    uint64_t il_len, il_full, il_q, il_o, il_q2, il_o2, il_base;
    uint64_t *sg_lo, *sg_v; /* segment's first iteration, its index */
    /* extensions (exchange_end): zb (2 nn) holds node k's zone [zb[2k],
     * zb[2k + 1]) after the probe; zopen: the node whose zone comes last
     * and is open-ended (-1: no zones); this node's is [zlo, zhi), of
     * which it handed out ext iterations in chunks of ext_c while it
     * waited */
    uint64_t *zb, zlo, zhi, ext, ext_c;
    int zopen, published, ext_closed;
    double psecs, cm_sum;   /* thread seconds, cache misses */
    double run_it, run_s;   /* run-phase iterations, thread seconds */
    double call_it, call_s; /* the same over the whole call (all windows) */
    double acc_it, acc_s;   /* this node's speed basis (published) */
    int cm_n;
    uint64_t t0; /* first probe chunk handed out */
    /* the probe's first quiet_us do not look for a close (probe_over) */
    double quiet_us;
    double *speed;  /* the probe cache's per-thread speeds (0: unknown) */
    double work_us; /* HetProbe-I: windows so far at their measured rates */
    hcrt_dsm_counters_t c0;
    hcrt__hetprobe_decision_t d; /* scratch decision */
};

/* hp_window.c */
/* Offset in the node's probe share of sub-chunk j (j = pchunks: its end). */
uint64_t hcrt__cl_hp_sub_off(const hcrt__cl_pool_t *p, int j);
/* HetProbe-I: deals a cross-node rest in rounds (0: not dealt). */
int hcrt__cl_hp_deal(hcrt__cl_pool_t *p, uint64_t base, uint64_t n,
                     const double *w);
/* A window ending at `e`, or at the loop's end when too little is left. */
uint64_t hcrt__cl_hp_window_end(const hcrt__cl_pool_t *p, uint64_t e);
/* Starts the window at `pos` (same on every node). */
void hcrt__cl_hp_start_window(hcrt__cl_pool_t *p, uint64_t pos);

#endif /* HCRT_HP_INT_H */
