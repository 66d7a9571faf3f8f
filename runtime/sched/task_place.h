/*
 * task_place.h - where tasks run: the MPI-free decisions of task sharing
 * between nodes (docs/tasks.md).
 *
 * Two decisions, both from measurements taken on real calls:
 *   - per task site (one task construct): is a task of it worth taking to
 *     another node? Yes while too few of its tasks were timed, or while
 *     their mean time is at least `factor` times the measured cost of a
 *     steal; otherwise its tasks stay home and only one in `sample_every`
 *     is timed, so a site whose tasks grow is noticed again;
 *   - per TASKS region (a region whose only work is creating tasks): run it
 *     on every node (other nodes' threads take its tasks) or on the head
 *     alone, as on one node. The first call spreads; a spread call in which
 *     other nodes ran less than `min_share` of its time in tasks, or that
 *     was slower than the region's head-alone calls, sends the region to
 *     the head for `refresh` calls (doubling on each further miss, up to
 *     64 x refresh), after which one call spreads again.
 *
 * Thread-safe: sites and costs are updated by every thread that times a
 * task, regions only by the head's main thread.
 */
#ifndef HCRT_SCHED_TASK_PLACE_H
#define HCRT_SCHED_TASK_PLACE_H

#include <pthread.h>
#include <stdint.h>

typedef struct hcrt_tp_params {
    double factor;         /* export when mean task time >= factor x cost */
    double cost_ns;        /* the cost of a steal before one was measured */
    double min_share;      /* spread pays: other nodes' task time / call */
    uint32_t min_samples;  /* tasks timed before a site's mean counts */
    uint32_t sample_every; /* a home site times one task in this many */
    uint32_t refresh;      /* head-alone calls before spreading again */
} hcrt_tp_params_t;

void hcrt__tp_params_default(hcrt_tp_params_t *p);

/* A decayed mean: the last ~window samples weigh most. */
typedef struct hcrt_tp_mean {
    pthread_mutex_t lock;
    double n, sum;
} hcrt_tp_mean_t;

#define HCRT_TP_MEAN_INIT {PTHREAD_MUTEX_INITIALIZER, 0, 0}

void hcrt__tp_mean_add(hcrt_tp_mean_t *m, double v);
/* The mean, or `dflt` when no sample was added. */
double hcrt__tp_mean(hcrt_tp_mean_t *m, double dflt);
/* Samples behind the mean (decayed). */
double hcrt__tp_mean_weight(hcrt_tp_mean_t *m);

/* One task site. */
typedef struct hcrt_tp_site {
    hcrt_tp_mean_t ns; /* task time, body start to end */
    uint64_t timed;    /* tasks timed (atomic) */
    uint32_t tick;     /* tasks created, for sampling (atomic) */
} hcrt_tp_site_t;

typedef enum hcrt_tp_mode {
    HCRT_TP_PLAIN = 0, /* an ordinary task of this node */
    HCRT_TP_TIMED = 1, /* stays home, its time is measured */
    HCRT_TP_EXPORT = 2 /* may run on another node (and is timed) */
} hcrt_tp_mode_t;

/* What to do with the next task of `s`, given the mean cost of a steal. */
hcrt_tp_mode_t hcrt__tp_site_mode(hcrt_tp_site_t *s, double steal_ns,
                                  const hcrt_tp_params_t *p);
void hcrt__tp_site_time(hcrt_tp_site_t *s, uint64_t ns);

/* One TASKS region (state of the head's main thread). */
typedef struct hcrt_tp_region {
    uint64_t calls, spread_calls;
    uint32_t hold;    /* head-alone calls left before spreading again */
    uint32_t misses;  /* spread calls in a row that did not pay */
    int last_spread;  /* the last call spread */
    double head_ns;   /* EWMA of head-alone call times (0: none yet) */
    double spread_ns; /* EWMA of spread call times (0: none yet) */
} hcrt_tp_region_t;

/* Whether the next call of `r` runs on every node. */
int hcrt__tp_region_spread(hcrt_tp_region_t *r);
/* A call ended: it spread or not, took wall_ns, and other nodes ran tasks
 * of it for remote_ns in all. Returns 1 when a spread call did not pay. */
int hcrt__tp_region_end(hcrt_tp_region_t *r, int spread, uint64_t wall_ns,
                        uint64_t remote_ns, const hcrt_tp_params_t *p);

#endif /* HCRT_SCHED_TASK_PLACE_H */
