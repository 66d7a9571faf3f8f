/*
 * task_place.h - where tasks run: the MPI-free decisions of task sharing
 * between nodes (docs/tasks.md).
 *
 * Two decisions, both from measurements taken on real calls:
 *   - per task site (one task construct) and task depth (how many tasks
 *     enclose it): is a task of it worth taking to another node? Yes while
 *     too few of the site's tasks were timed, or while the mean time of its
 *     tasks at that depth is at least `factor` times the measured cost of a
 *     steal; otherwise its tasks stay home and only one in `sample_every`
 *     is timed, so a site whose tasks grow is noticed again. Depth matters
 *     for recursive trees: one site makes the tree's big tasks near the
 *     root and its tiny ones at the leaves, and a mean over the whole
 *     site kept the big ones home too (no work for an idle node). A depth
 *     with too few timed tasks is estimated from the nearest deeper one
 *     (a task is at least as long as the tasks it waits for), and its
 *     tasks are timed until it has its own samples (a depth below every
 *     known one stays home meanwhile);
 *   - per TASKS region (a region whose only work is creating tasks): run it
 *     on every node (other nodes' threads take its tasks) or on the head
 *     alone, as on one node. The first call spreads (unless `head_first`:
 *     then it and `refresh` more run on the head); a spread call in which
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
    double factor;          /* export when mean task time >= factor x cost */
    double cost_ns;         /* the cost of a steal before one was measured */
    double min_share;       /* spread pays: other nodes' task time / call */
    uint32_t min_samples;   /* tasks timed before a site's mean counts */
    uint32_t depth_samples; /* ... before one depth's mean counts */
    uint32_t sample_every;  /* a home site times one task in this many */
    uint32_t refresh;       /* head-alone calls before spreading again */
    int head_first;         /* a region's first call runs on the head alone
                               (and `refresh` more before one spreads) */
} hcrt_tp_params_t;

void hcrt__tp_params_default(hcrt_tp_params_t *p);

/* A decayed mean: the last ~window samples weigh most. Samples are added
 * under the lock; the mean is also kept in `mean` (0: no sample yet), which
 * readers load without it (every task a site creates reads two means). */
typedef struct hcrt_tp_mean {
    pthread_mutex_t lock;
    double n, sum;
    double mean;
} hcrt_tp_mean_t;

#define HCRT_TP_MEAN_INIT {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}

void hcrt__tp_mean_add(hcrt_tp_mean_t *m, double v);
/* The mean, or `dflt` when no sample was added. */
double hcrt__tp_mean(hcrt_tp_mean_t *m, double dflt);
/* Samples behind the mean (decayed). */
double hcrt__tp_mean_weight(hcrt_tp_mean_t *m);

/* Depths told apart by a site; deeper tasks share the last. */
#define HCRT_TP_DEPTHS 24

/* One task site. */
typedef struct hcrt_tp_site {
    hcrt_tp_mean_t ns; /* task time, body start to end */
    uint64_t timed;    /* tasks timed (atomic) */
    uint32_t tick;     /* tasks created, for sampling (atomic loads and
                          stores: threads may lose a tick) */
    hcrt_tp_mean_t at[HCRT_TP_DEPTHS]; /* task time by depth (1: a task
                                          of the implicit task) */
    uint32_t timed_at[HCRT_TP_DEPTHS]; /* tasks timed by depth (atomic) */
    uint32_t hint; /* depths up to this one were worth a steal where a
                      task of the site taken from another node came from
                      (atomic): they travel until timed here */
} hcrt_tp_site_t;

/* A site with no sample yet. */
void hcrt__tp_site_init(hcrt_tp_site_t *s);

typedef enum hcrt_tp_mode {
    HCRT_TP_PLAIN = 0, /* an ordinary task of this node */
    HCRT_TP_TIMED = 1, /* stays home, its time is measured */
    HCRT_TP_EXPORT = 2 /* may run on another node (and is timed) */
} hcrt_tp_mode_t;

/* What to do with the next task of `s` at `depth` (0 counts as 1), given
 * the mean cost of a steal. */
hcrt_tp_mode_t hcrt__tp_site_mode(hcrt_tp_site_t *s, uint32_t depth,
                                  double steal_ns, const hcrt_tp_params_t *p);
/* The deepest depth whose tasks `s` would let travel now (its estimate
 * at least factor x the steal cost; 0 if none or too few were timed):
 * sent with a task another node takes, so that the thief lets the tasks
 * it creates at those depths travel too before it timed them itself. */
uint32_t hcrt__tp_site_worth_depth(hcrt_tp_site_t *s, double steal_ns,
                                   const hcrt_tp_params_t *p);
/* The shallowest depth from which every deeper task of `s` is an
 * ordinary task of its node (each depth timed enough and below factor x
 * the steal cost): a creator may skip the decision for
 * them but one in `sample_every`. 0: none (some deeper depth is unknown
 * or worth a steal). */
uint32_t hcrt__tp_site_plain_from(hcrt_tp_site_t *s, double steal_ns,
                                  const hcrt_tp_params_t *p);
/* A task of `s` came from a node where depths up to `depth` were worth a
 * steal. */
void hcrt__tp_site_hint(hcrt_tp_site_t *s, uint32_t depth);
/* A task of `s` at `depth` took `ns`. */
void hcrt__tp_site_time(hcrt_tp_site_t *s, uint32_t depth, uint64_t ns);
/* The mean time of the tasks of `s` at `depth` as the decision sees it
 * (that depth's own, else the nearest deeper one's); 0 if neither was
 * timed enough. */
double hcrt__tp_site_estimate(hcrt_tp_site_t *s, uint32_t depth,
                              const hcrt_tp_params_t *p);

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
int hcrt__tp_region_spread(hcrt_tp_region_t *r, const hcrt_tp_params_t *p);
/* A call ended: it spread or not, took wall_ns, and other nodes ran tasks
 * of it for remote_ns in all. Returns 1 when a spread call did not pay. */
int hcrt__tp_region_end(hcrt_tp_region_t *r, int spread, uint64_t wall_ns,
                        uint64_t remote_ns, const hcrt_tp_params_t *p);

#endif /* HCRT_SCHED_TASK_PLACE_H */
