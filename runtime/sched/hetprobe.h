/*
 * hetprobe.h - the HetProbe / HetProbe-I loop scheduler core, the probe
 * cache and the CSR-weighted static split (runtime/sched, internal).
 *
 * Pure C11 state machines, no MPI, no clock, no settings table: the loop
 * code of the cluster runtime (#4) feeds them measurements and asks them for
 * chunks, so the same decisions can be replayed in unit tests. Iterations
 * are numbered 0 .. trip-1 in loop order ("logical" indices);
 * hcrt__hetprobe_space_* maps them back to the loop variable. See
 * docs/hetprobe.md.
 *
 * Not thread-safe: call every hcrt__hetprobe_* function of one loop under
 * that loop's lock (each call is O(1) amortised except the decisions, which
 * are O(nodes + segments)).
 */
#ifndef HCRT_SCHED_HETPROBE_H
#define HCRT_SCHED_HETPROBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hcrt/hcrt.h"

/* ---- iteration spaces ------------------------------------------------- */

/* A loop `for (v = lb; v <= ub (or >= ub for st < 0); v += st)` with the
 * libomp convention of an inclusive upper bound. */
typedef struct hcrt__hetprobe_space {
    uint64_t lb;   /* bits of the first value (signed loops: two's compl.) */
    uint64_t step; /* bits of the step */
    uint64_t trip; /* number of iterations */
} hcrt__hetprobe_space_t;

/* Trip counts of 2^64 (a step of +-1 over the whole type) are rejected with
 * HCRT_ERR_UNSUPPORTED; st == 0 with HCRT_ERR_INVALID. An empty loop is
 * valid (trip 0). */
hcrt_status_t hcrt__hetprobe_space_s64(int64_t lb, int64_t ub, int64_t st,
                                       hcrt__hetprobe_space_t *out);
hcrt_status_t hcrt__hetprobe_space_u64(uint64_t lb, uint64_t ub, int64_t st,
                                       hcrt__hetprobe_space_t *out);
/* Loop value of logical iteration `i` (cast to int64_t for signed loops). */
static inline uint64_t
hcrt__hetprobe_space_value(const hcrt__hetprobe_space_t *s, uint64_t i)
{
    return s->lb + i * s->step; /* modulo 2^64 is exact for both kinds */
}

/* ---- CSR-weighted static split ---------------------------------------- */

/* Splits `n` iterations into contiguous node ranges: node k gets
 * [start[k], start[k+1]) with start[0] = 0, start[nnodes] = n, sizes
 * proportional to weight[k] * threads[k] (weight NULL: all 1). Integer
 * arithmetic after rounding the weights to 2^-20, leftover iterations one
 * each by largest remainder (ties to the lower node id): the result depends
 * only on the arguments, so equal trip counts always map alike, on every
 * node. Nodes of weight or threads 0 get nothing; all zero is INVALID. */
hcrt_status_t hcrt__sched_weighted_split(uint64_t n, int nnodes,
                                         const double *weight,
                                         const int *threads, uint64_t *start);

/* ---- decisions -------------------------------------------------------- */

typedef enum hcrt__hetprobe_kind {
    HCRT_HP_CROSS = 1,  /* node ranges proportional to CSR x threads */
    HCRT_HP_SINGLE = 2, /* the whole remainder on one node */
    HCRT_HP_STATIC = 3  /* no probe: split by the prior weights */
} hcrt__hetprobe_kind_t;

typedef enum hcrt__hetprobe_why {
    HCRT_HP_WHY_FAULTS_RARE = 1,     /* every node's fault period >= thr */
    HCRT_HP_WHY_FAULTS_SUBSET = 2,   /* >= 2 nodes above thr, others out */
    HCRT_HP_WHY_FAULTS_FREQUENT = 3, /* < 2 nodes above the threshold */
    HCRT_HP_WHY_ONE_NODE = 4,        /* a one-node cluster */
    HCRT_HP_WHY_SMALL_LOOP = 5,      /* too few iterations to probe */
    HCRT_HP_WHY_CACHED = 6,          /* probe cache: stable loop */
    HCRT_HP_WHY_REMAINDER_SMALL = 7, /* HetProbe-I: remainder too small */
    HCRT_HP_WHY_CRAWLS = 8,    /* >= 2 nodes above thr, but faulting nodes ran
                                  below the faulting floor: < 2 left */
    HCRT_HP_WHY_UNMEASURED = 9 /* < 2 nodes above thr, the others without
                                  a measurement (resting, time bound) */
} hcrt__hetprobe_why_t;

typedef enum hcrt__hetprobe_tie {
    HCRT_HP_TIE_NONE = 0,   /* a clear winner by throughput */
    HCRT_HP_TIE_CMPKI = 1,  /* throughput tie broken by cache misses */
    HCRT_HP_TIE_NODE_ID = 2 /* tie broken by the lower node id */
} hcrt__hetprobe_tie_t;

/* What a probe window measured on each node (inputs of a decision). */
typedef struct hcrt__hetprobe_node_meas {
    double speed;     /* iterations per second per thread (> 0) */
    uint64_t iters;   /* iterations measured */
    uint64_t faults;  /* DSM faults in the window (0: no fault) */
    double period_us; /* mean time between faults; ignored if faults == 0 */
    double cmpki;     /* cache misses per kilo-instruction, < 0: unknown */
    /* share of the probe's thread time spent resolving DSM faults, in
     * (0, 1]; 0: unknown (then any fault counts for the faulting floor) */
    double fault_share;
    /* pages homed on other nodes the probe wrote (included in faults):
     * each goes home as a diff after the loop */
    uint64_t written;
} hcrt__hetprobe_node_meas_t;

/* One decision and why, with the numbers (for HCRT_STATS). Arrays have
 * nnodes entries and are owned by the scheduler (or the cache). */
typedef struct hcrt__hetprobe_decision {
    hcrt__hetprobe_kind_t kind;
    hcrt__hetprobe_why_t why;
    hcrt__hetprobe_tie_t tie;
    int node; /* SINGLE: the chosen node, else -1 */
    int nnodes;
    int window;           /* 0: first probe, k: k-th re-probe */
    uint64_t first;       /* logical iterations done or handed out before */
    uint64_t remaining;   /* iterations this decision distributed */
    double threshold_us;  /* the fault-period threshold in force */
    double floor;         /* the faulting floor in force (WHY_CRAWLS) */
    double min_period_us; /* smallest fault period measured (inf: none) */
    /* SINGLE: the node of highest throughput, passed over because its
     * faults were too frequent and a node without was within
     * faulting_margin of it (else -1); its throughput over the chosen's */
    int passed_over;
    double passed_gain;
    double *csr;     /* per-thread speed / fastest (0: not used) */
    uint64_t *share; /* iterations given to each node */
    hcrt__hetprobe_node_meas_t *meas; /* NULL for STATIC and cached decisions */
} hcrt__hetprobe_decision_t;

/* One line, e.g. "cross-node: min fault period 350.0us >= 100.0us on all 2
 * nodes; CSR 1.000:0.502; shares 6000:3012". Returns snprintf's value. */
int hcrt__hetprobe_decision_format(const hcrt__hetprobe_decision_t *d,
                                   char *buf, size_t len);

/* The decision's line, then (probed decisions) one line per node with its
 * threads' speed, iterations, faults, fault period and cache misses, each
 * line starting with `indent`: the HCRT_STATS section of a loop. */
void hcrt__hetprobe_decision_print(FILE *out, const char *indent,
                                   const hcrt__hetprobe_decision_t *d);

/* ---- the loop scheduler ----------------------------------------------- */

typedef enum hcrt__hetprobe_mode {
    HCRT_HP_MODE_HETPROBE = 0,
    HCRT_HP_MODE_HETPROBE_I = 1
} hcrt__hetprobe_mode_t;

typedef struct hcrt__hetprobe_params {
    hcrt__hetprobe_mode_t mode;
    double probe_pct;         /* % of the iterations probed, (0, 50]; 10 */
    double reprobe_pct;       /* HetProbe-I: re-probe every N%, (0,100]; 10 */
    uint64_t min_probe_iters; /* per thread; smaller loops: no probe. 4 */
    double threshold_us;      /* fault period above which cross-node; 100 */
    double speed_tie;         /* relative throughput gap still a tie; 0.02 */
    double faulting_floor;    /* HCRT_HP_FAULTING_FLOOR */
    double faulting_margin;   /* HCRT_HP_FAULTING_MARGIN */
    uint64_t min_chunk;       /* smallest chunk after a decision; 1 */
    int fractions;            /* HetProbe-I: grabs per thread per window; 4 */
    double deal_spread;       /* HetProbe-I: HCRT_HP_DEAL_SPREAD */
} hcrt__hetprobe_params_t;

void hcrt__hetprobe_params_default(hcrt__hetprobe_params_t *p);
/* INVALID (and a sentence in err) if a field is out of its range. */
hcrt_status_t hcrt__hetprobe_params_check(const hcrt__hetprobe_params_t *p,
                                          char *err, size_t errlen);

/* One loop's parameters: `base` (the settings) with the mode and the
 * schedule clause applied. `pct` > 0 is the clause's percentage: the probe
 * percentage for schedule(hetprobe, pct), the re-probe percentage for
 * schedule(hetprobe_i, pct); `chunk` > 0 becomes min_chunk. INVALID (and a
 * sentence in err) when the result is out of range. */
hcrt_status_t hcrt__hetprobe_params_for_loop(
    const hcrt__hetprobe_params_t *base, hcrt__hetprobe_mode_t mode, int pct,
    int64_t chunk, hcrt__hetprobe_params_t *out, char *err, size_t errlen);

typedef struct hcrt__hetprobe hcrt__hetprobe_t;

/* A chunk of logical iterations [begin, end). */
typedef struct hcrt__hetprobe_chunk {
    uint64_t begin, end;
    int probe;  /* part of a probe window (time it, report it) */
    int window; /* the window it belongs to */
} hcrt__hetprobe_chunk_t;

typedef enum hcrt__hetprobe_next {
    HCRT_HP_NEXT_CHUNK = 0, /* *chunk is set: run it, then _complete() */
    HCRT_HP_NEXT_WAIT = 1,  /* nothing yet: ask again after a change of
                             * hcrt__hetprobe_epoch() */
    HCRT_HP_NEXT_DONE = 2   /* this thread's part of the loop is over */
} hcrt__hetprobe_next_t;

/* A scheduler for `trip` iterations over nnodes nodes with threads[k] >= 1
 * threads each. prior: per-node core-speed ratios used before anything is
 * measured (NULL: all 1). reuse: a decision from the probe cache to apply
 * without probing (NULL: probe). Copies everything it needs. */
hcrt_status_t hcrt__hetprobe_create(const hcrt__hetprobe_params_t *p,
                                    uint64_t trip, int nnodes,
                                    const int *threads, const double *prior,
                                    const hcrt__hetprobe_decision_t *reuse,
                                    hcrt__hetprobe_t **out);
void hcrt__hetprobe_destroy(hcrt__hetprobe_t *hp);

/* The next chunk for (node, thread): sets *what, and *chunk for CHUNK. */
hcrt_status_t hcrt__hetprobe_next(hcrt__hetprobe_t *hp, int node, int thread,
                                  hcrt__hetprobe_chunk_t *chunk,
                                  hcrt__hetprobe_next_t *what);
/* A chunk handed out by _next has run for `seconds` on (node, thread). */
hcrt_status_t hcrt__hetprobe_complete(hcrt__hetprobe_t *hp, int node,
                                      int thread,
                                      const hcrt__hetprobe_chunk_t *c,
                                      double seconds);
/* 1 when `node` has finished its probe iterations of the current window
 * and owes its DSM counters for that window (hcrt__hetprobe_counters). */
int hcrt__hetprobe_counters_due(const hcrt__hetprobe_t *hp, int node);
/* The node's DSM faults in the probe window, their mean period in us, and
 * its cache misses per kilo-instruction (< 0: unknown). The decision is
 * taken when the last probe chunk is complete and every node reported. */
hcrt_status_t hcrt__hetprobe_counters(hcrt__hetprobe_t *hp, int node,
                                      uint64_t faults, double period_us,
                                      double cmpki);

/* Changes whenever threads told WAIT may get work or DONE. */
uint64_t hcrt__hetprobe_epoch(const hcrt__hetprobe_t *hp);
/* 1 once every iteration was handed out and completed. */
int hcrt__hetprobe_finished(const hcrt__hetprobe_t *hp);
int hcrt__hetprobe_ndecisions(const hcrt__hetprobe_t *hp);
const hcrt__hetprobe_decision_t *
hcrt__hetprobe_decision(const hcrt__hetprobe_t *hp, int i);
/* The measurements of the last probe window, or for a loop that was not
 * probed (cached/static decision) the per-thread speeds measured over the
 * whole run (faults unknown: 0). nnodes entries; NULL if nothing measured. */
const hcrt__hetprobe_node_meas_t *
hcrt__hetprobe_observation(const hcrt__hetprobe_t *hp, int *probed);

/* The pure decision rule (exposed for the cache and the tests): fills
 * d->kind/why/tie/node/min_period_us and d->csr from the measurements. */
void hcrt__hetprobe_decide(const hcrt__hetprobe_params_t *p, int nnodes,
                           const int *threads,
                           const hcrt__hetprobe_node_meas_t *m,
                           hcrt__hetprobe_decision_t *d);

/* ---- probe cache ------------------------------------------------------ */

typedef struct hcrt__probecache_params {
    double alpha;     /* EWMA weight of a new measurement, (0, 1]; 0.5 */
    int stable_runs;  /* consistent runs before probing stops (0: never
                       * stop); 3 */
    double drift;     /* relative band of "consistent"; 0.25 */
    int refresh_runs; /* re-probe a stable loop every N runs (0: never) */
} hcrt__probecache_params_t;

void hcrt__probecache_params_default(hcrt__probecache_params_t *p);

typedef struct hcrt__probecache hcrt__probecache_t;

hcrt_status_t hcrt__probecache_create(const hcrt__probecache_params_t *p,
                                      const hcrt__hetprobe_params_t *hp,
                                      hcrt__probecache_t **out);
void hcrt__probecache_destroy(hcrt__probecache_t *pc);

/* For a loop about to run on nnodes nodes: *reuse is a decision to apply
 * without probing (valid until the next call on this cache) or NULL when
 * the loop must be probed. *prior (nnodes entries, or NULL) is the smoothed
 * CSR to place the probe slices with. */
hcrt_status_t hcrt__probecache_lookup(hcrt__probecache_t *pc, uint64_t loop,
                                      int nnodes, const int *threads,
                                      const hcrt__hetprobe_decision_t **reuse,
                                      const double **prior);
/* Whether `node` sits out this run's probe of `loop`: a node that crawled
 * while it faulted (below the faulting floor of the fastest, so the
 * decision leaves it out whatever it measures) in c probed runs in a row
 * is probed again only after 2^c - 1 runs without it (c capped at
 * HCRT_HP_REST_MAX_LOG2: every 64th run), in case it has sped up, e.g.
 * by keeping read-only copies. Its probe costs at least one iteration's
 * page transfers, paid by every call otherwise. */
int hcrt__probecache_rests(const hcrt__probecache_t *pc, uint64_t loop,
                           int nnodes, int node);
#define HCRT_HP_REST_MAX_LOG2 6
/* Folds one run's observation (hcrt__hetprobe_observation) into the
 * loop's EWMA; a value outside the drift band resets its stability. */
hcrt_status_t hcrt__probecache_update(hcrt__probecache_t *pc, uint64_t loop,
                                      int nnodes,
                                      const hcrt__hetprobe_node_meas_t *m,
                                      int probed);

typedef struct hcrt__probecache_info {
    uint64_t runs, probes, drifts;
    int consistent;   /* consecutive runs inside the band */
    int stable;       /* probing stopped */
    double period_us; /* smoothed fault period (inf: no faults) */
} hcrt__probecache_info_t;

hcrt_status_t hcrt__probecache_info(const hcrt__probecache_t *pc, uint64_t loop,
                                    hcrt__probecache_info_t *out);
/* The last run's work in µs at the whole cluster's rate, window by window
 * (HetProbe-I: sum of each window's iterations over the rate its probe
 * measured), which sizes the next run's windows; 0: unknown. */
hcrt_status_t hcrt__probecache_set_work(hcrt__probecache_t *pc, uint64_t loop,
                                        int nnodes, double us);
double hcrt__probecache_work(const hcrt__probecache_t *pc, uint64_t loop,
                             int nnodes);
/* Whether the cluster's iteration rate moved between the windows of the
 * loop's last HetProbe-I call by HCRT_HP_DEAL_SPREAD or more (1), stayed
 * within it (0), or is unknown (-1): HetProbe-I deals a cross-node rest in
 * rounds only for such an irregular loop (hp_window.c). */
hcrt_status_t hcrt__probecache_set_irregular(hcrt__probecache_t *pc,
                                             uint64_t loop, int nnodes,
                                             int irregular);
int hcrt__probecache_irregular(const hcrt__probecache_t *pc, uint64_t loop,
                               int nnodes);
/* This node's run phase in the loop's last call: iterations and thread
 * seconds (0, 0: it ran none, or the caller keeps no basis). Node-local, kept
 * apart from the shared averages; hcrt__probecache_basis adds it to the next
 * probe. */
hcrt_status_t hcrt__probecache_set_run(hcrt__probecache_t *pc, uint64_t loop,
                                       int nnodes, double iters, double secs);
/* The basis of the speed this node publishes for a probe of *iters
 * iterations in *secs thread seconds: the probe plus the last call's run
 * phase, its iterations counted up to HCRT_HP_RUN_WEIGHT times the
 * probe's (at their measured speed). A probe of a few milliseconds on a
 * loaded node is noisy (kmeans under a CPU quota: the slow node's CSR
 * 0.19, 0.32 and 0.69 in three runs, 0.38-0.42 in the run phases); the run
 * phase of the same loop is ten times longer. The cap keeps a change
 * visible at once: a node half as fast as in the last call publishes
 * 0.83 of its old speed, and its new speed a call later (its run phase
 * then ran at it). A run phase more than HCRT_HP_RUN_BAND times faster or
 * slower than the probe is left out: it measured other iterations, of
 * another cost (the irregular kernel's hot quarter moves between calls;
 * with it, HetProbe's split followed where the hot part had been, and the
 * kernel took 0.41-0.46 s instead of 0.33-0.38 s). */
void hcrt__probecache_basis(const hcrt__probecache_t *pc, uint64_t loop,
                            int nnodes, double *iters, double *secs);
#define HCRT_HP_RUN_WEIGHT 4.0
#define HCRT_HP_RUN_BAND 2.0
/* Smoothed per-thread speed of every node (0: never measured). */
const double *hcrt__probecache_speeds(const hcrt__probecache_t *pc,
                                      uint64_t loop);

/* ---- threshold, calibration and the CSR setting ------------------------ */

#define HCRT_HP_DEFAULT_THRESHOLD_US 100.0
/* A node that runs below this fraction of the fastest node's per-thread
 * speed while taking faults is left out of a cross-node split (default of
 * HCRT_SCHED_FAULTING_FLOOR). It would add at most floor / (1 + floor) of
 * the loop's throughput, and the probe does not see what its share costs
 * the others: its written pages going home as diffs and being fetched
 * back, the homes' service threads answering it while they compute. With
 * 0.02, triad's node 1 measured 0.04-0.09 of node 0 while fetching, was
 * given its share, and the first call took 0.74-1.47 s instead of 0.44. */
#define HCRT_HP_FAULTING_FLOOR 0.12
/* Single node: a node whose fault period is below the threshold is chosen
 * over the fastest node whose is not only if its throughput is more than
 * this much higher (default of HCRT_SCHED_FAULTING_MARGIN). Its probe
 * does not show what running the rest costs beyond the fetches: the pages
 * it writes go home as diffs at the loop's end, the home's copies of them
 * are invalid until then, and the next call fetches again whatever the
 * home rewrote. A loaded CI run sent a loop reading a[] and writing b[]
 * to node 1, which measured 10 % faster than the head while fetching a[];
 * it then took 67 ms a call against a few ms on the head. */
#define HCRT_HP_FAULTING_MARGIN 0.25
/* A node below the floor crawls "while faulting" only if at least this
 * share of its probe time went into resolving faults (when the share is
 * known). Below it the node is slow for another reason, e.g. a core it
 * shares, and keeps its small share. (Black-scholes' worker, with the hog
 * or the quota, measured 0.14-0.30 of the head and spent 78-99 % of its
 * probe in faults, fetching the inputs the head rewrites every call: it
 * crawls.) */
#define HCRT_HP_CRAWL_SHARE 0.5
/* HetProbe-I deals a cross-node rest to the nodes in rounds (so that a
 * jump in the cost inside a window falls on every node) once the
 * cluster's iteration rate differed by this factor between two windows
 * of the call or of the loop's last call; otherwise each node takes one
 * contiguous range (the default of HCRT_SCHED_DEAL_SPREAD; 1: always
 * dealt). Within one call the irregular kernel's window rates
 * spanned 27-54x (5.8 to 464 iterations/µs), k-means' (with the hog)
 * 1.07-1.23x, and dealing its rest there cost
 * the worker 1.5x the page fetches (every dealt piece straddles pages
 * the other node writes). */
#define HCRT_HP_DEAL_SPREAD 1.5
/* Whether node measurement `m` (its speed, faults and share of its time
 * in them) crawls while faulting, against the fastest node's speed (the
 * decision rule, the probe cache). */
static inline int hcrt__hetprobe_crawls(const hcrt__hetprobe_node_meas_t *m,
                                        double fastest, double floor)
{
    return m->faults > 0 && m->speed < floor * fastest &&
           !(m->fault_share > 0.0 && m->fault_share < HCRT_HP_CRAWL_SHARE);
}

/* A calibration file (docs/hetprobe.md): '#' comments and `key = value`
 * lines; `format = hcc-calibration-1` and `fault_period_us = X` (X > 0)
 * are required, other keys are kept for humans. */
typedef struct hcrt__hetprobe_calibration {
    double threshold_us;
    char source[256]; /* where the value came from */
} hcrt__hetprobe_calibration_t;

hcrt_status_t
hcrt__hetprobe_calibration_parse(const char *text, const char *name,
                                 hcrt__hetprobe_calibration_t *out, char *err,
                                 size_t errlen);
/* Reads `path`; HCRT_ERR_NOT_FOUND if it does not exist. */
hcrt_status_t hcrt__hetprobe_calibration_read(const char *path,
                                              hcrt__hetprobe_calibration_t *out,
                                              char *err, size_t errlen);
/* The calibration file to read: `named` (the setting HCRT_SCHED_CALIBRATION)
 * if not empty, else the first existing one of
 * $XDG_CACHE_HOME/hcc/calibration (or ~/.cache/hcc/calibration) and
 * <prefix>/share/hcc/calibration. NOT_FOUND if none. */
hcrt_status_t hcrt__hetprobe_calibration_find(const char *named,
                                              const char *prefix, char *path,
                                              size_t len);
/* The threshold in force: `override_us` > 0 wins (the setting
 * HCRT_SCHED_FAULT_PERIOD_US), else the calibration file found, else 100.
 * A malformed file, or a named one that cannot be read, is an error (err
 * says which file and why). */
hcrt_status_t hcrt__hetprobe_threshold(double override_us, const char *named,
                                       const char *prefix,
                                       hcrt__hetprobe_calibration_t *out,
                                       char *err, size_t errlen);

/* Parses "3,1,1.5" into out[nnodes]: missing entries are 1, extra entries
 * are an error, each value must be in (0, 1e6]. Empty string: all 1. */
hcrt_status_t hcrt__hetprobe_parse_csr(const char *text, int nnodes,
                                       double *out, char *err, size_t errlen);

/* ---- settings (hetprobe_config.c: in libhcrt, not in hcrt_hetprobe) ---- */

typedef enum hcrt__hetprobe_default_sched {
    HCRT_HP_DEFAULT_HETPROBE = 0, /* order of HCRT_SCHED_DEFAULT's choices */
    HCRT_HP_DEFAULT_HETPROBE_I = 1,
    HCRT_HP_DEFAULT_STATIC = 2,
    HCRT_HP_DEFAULT_DYNAMIC = 3,
    HCRT_HP_DEFAULT_GUIDED = 4
} hcrt__hetprobe_default_sched_t;

typedef struct hcrt__hetprobe_settings {
    hcrt__hetprobe_params_t params; /* mode HETPROBE; threshold filled */
    hcrt__probecache_params_t cache;
    hcrt__hetprobe_default_sched_t default_sched;
    hcrt__hetprobe_calibration_t threshold; /* value and where it came from */
    double *csr;                            /* [nnodes] from HCRT_SCHED_CSR */
} hcrt__hetprobe_settings_t;

/* Reads the HCRT_SCHED_* loop settings (after hcrt__config_init) and the
 * calibration file. INVALID, after logging what to fix, on a malformed
 * HCRT_SCHED_CSR or calibration file. Free with _settings_fini. */
hcrt_status_t hcrt__hetprobe_settings_load(int nnodes,
                                           hcrt__hetprobe_settings_t *out);
void hcrt__hetprobe_settings_fini(hcrt__hetprobe_settings_t *s);

#endif /* HCRT_SCHED_HETPROBE_H */
