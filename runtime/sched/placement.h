/*
 * placement.h - region placement: which nodes form a parallel region's team
 * (internal, no MPI; docs/placement.md).
 *
 * Per region (its descriptor id) the head chooses, before each fork, to run
 * the region on all nodes or on the head alone. The choice comes from
 * measured per-call costs of real calls, never from a re-run: a call's
 * cost is its *cycle*, the time from its fork to the next fork of any
 * region on the head, so what the call leaves to the sequential code after
 * it (faults on pages the other nodes hold, diffs) is charged to it. The first
 * call of a region runs on all nodes; the other placement is tried for a few
 * calls when the loss such a try can cost fits the exploration budget (a
 * fraction of the time the program has run), one region at a time, and
 * re-checked at growing intervals or when the chosen placement's cost drifts.
 * A try of one region alone pays the page moves its neighbours' placements
 * cause, so a program whose regions share data can rest with every region
 * on all nodes (or mixed) while the head alone would win for all of them
 * together: a *group try* runs every region on all nodes on the head at
 * once for a few calls each, and each decides from those samples.
 */
#ifndef HCRT_SCHED_PLACEMENT_H
#define HCRT_SCHED_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>

typedef enum hcrt_place {
    HCRT_PLACE_ALL = 0, /* every node's team */
    HCRT_PLACE_HEAD = 1 /* the head alone, with the whole logical team */
} hcrt_place_t;

typedef struct hcrt__place_params {
    int enabled;         /* 0: every call on all nodes */
    int nodes;           /* nodes in the job */
    double capacity;     /* the cores a call on all nodes has over those
                            of a call on the head alone (>= 1; nodes when
                            each rank has its own) */
    int head_first;      /* first calls on the head when capacity <= 1,
                            or after a long first call that waited */
    double budget;       /* fraction of elapsed time tries may lose */
    double allowance_ns; /* loss allowed at any time on top of it */

    double tie;           /* the head wins unless all nodes are faster
                             by more than this fraction */
    double drift;         /* chosen calls slower by more than this
                             fraction (3 in a row) restart its average
                             and bring the next try forward */
    uint32_t try_calls;   /* calls of a try (the first is a transition) */
    uint32_t recheck_min; /* calls between re-checks, doubled while the */
    uint32_t recheck_max; /*   decision holds, up to this */
} hcrt__place_params_t;

#define HCRT_PLACE_RING 5 /* steady cycles kept per placement */

typedef struct hcrt__place_region {
    uint64_t id;
    uint64_t calls;      /* calls chosen so far */
    uint64_t next_check; /* call number of the next try */
    double avg[2];       /* median of the steady cycles (ns), 0: none */
    double ring[2][HCRT_PLACE_RING]; /* the last steady cycles */
    uint8_t nring[2], rpos[2];
    uint64_t runs[2];  /* calls run per placement */
    double peak[2];    /* the longest cycle (ns) per placement */
    double time_ns[2]; /* cycle time measured per placement */
    double lost_ns;    /* what this region's tries lost */

    uint64_t epoch_at; /* the table's epoch at the last call */
    uint32_t interval; /* calls between re-checks now */
    uint32_t trying;   /* calls of the current try still to run */
    uint32_t tries, switches;
    uint8_t used, choice, last, pending; /* pending: a call awaits its cycle */
    uint8_t transition; /* the pending call changed placement */
    uint8_t slow;       /* chosen calls in a row above the drift band */
    uint8_t quiet;      /* no other region's try ran at the last call */
    uint64_t last_at;   /* the table's call count at its last call */
    uint64_t gap;       /* calls of any region between its last two */
    uint64_t fork_ns;   /* when its last call was chosen */
    /* its first call on all nodes, fork to join; the head's main thread's
     * waits for the other nodes in it (base/wait.h) and its CPU time, ns;
     * 0: not measured */
    double region_ns, wait_ns, cpu_ns;
    /* the region may read or write shared arrays (the compiler did not
     * mark it HCRT_REGION_OWN_DATA): with more cores on all nodes its first
     * call runs on the head alone too (first_place) */
    uint8_t shared_data;
    uint8_t in_group;    /* takes part in the group try under way */
    uint8_t group_calls; /* its calls on the head in that group try */
} hcrt__place_region_t;

typedef struct hcrt__place_table {
    hcrt__place_params_t p;
    hcrt__place_region_t *slots;
    uint32_t cap;
    uint64_t start_ns; /* the program's start: the budget grows from it */
    double lost_ns;    /* what all tries lost so far */
    hcrt__place_region_t *busy; /* the region trying, NULL: none */
    uint64_t busy_t0;           /* when its try started */
    uint64_t epoch;             /* bumped when a try starts or ends */
    double budget_refused;      /* tries refused for the budget */
    uint32_t try_cut; /* tries of all nodes ended early: over the budget */
    /* the most a call on all nodes has cost against the head alone (a
     * first call against the head's own share of it, a try against the
     * region's longest call on the head): estimates the tries of regions
     * never measured on all nodes; 2 until measured */
    double all_ratio;

    /* group tries: every region on all nodes tried on the head at once */
    uint64_t calls;       /* calls of every region so far */
    uint64_t group_next;  /* table call count of the next group try */
    uint64_t group_gap;   /* calls between group tries now */
    uint64_t group_t0;    /* when the group try under way started */
    uint64_t group_start; /* the call count then */
    uint64_t group_moved; /* the call count at a member's last call */
    uint32_t group_left;  /* its members still short of try_calls calls */
    uint32_t groups, group_switches; /* group tries, regions they moved */
    uint8_t group_on;

    /* first calls: the last long first call on all nodes (at least
     * FIRST_LONG_NS) had the head waiting for the other nodes most of the
     * time, and how many regions started on the head for that reason */
    uint8_t first_waited;
    uint32_t first_head;
    /* regions that started on the head because they use shared arrays */
    uint32_t first_shared;
} hcrt__place_table_t;

/* The defaults the settings table also documents (sched/settings.def). */
void hcrt__place_params_default(hcrt__place_params_t *p, int nodes);
/* The same from the settings table (placement_config.c, libhcrt only). */
void hcrt__place_params_load(hcrt__place_params_t *p, int nodes);
/* A table of `cap` regions (a power of two is not needed); 0 or a
 * negative status (out of memory). */
int hcrt__place_init(hcrt__place_table_t *t, const hcrt__place_params_t *p,
                     uint32_t cap, uint64_t now_ns);
void hcrt__place_fini(hcrt__place_table_t *t);
/* The entry of region `id`, created on first use; NULL when the table is
 * full (the region then runs on all nodes). */
hcrt__place_region_t *hcrt__place_region(hcrt__place_table_t *t, uint64_t id);
/* Where the next call of `r` runs; the call's cycle must be reported with
 * hcrt__place_record before the region's next choice. */
hcrt_place_t hcrt__place_choose(hcrt__place_table_t *t, hcrt__place_region_t *r,
                                uint64_t now_ns);
/* The cycle (ns) of the call last chosen for `r` (for its first call, on
 * all nodes, set r->region_ns, r->wait_ns and r->cpu_ns first). */
void hcrt__place_record(hcrt__place_table_t *t, hcrt__place_region_t *r,
                        uint64_t cycle_ns);

/* Mean measured cycle (ns) per call of `r` on `where` (EWMA of steady
 * calls, else the mean of all), 0 when never run there. */
double hcrt__place_cost(const hcrt__place_region_t *r, hcrt_place_t where);

#endif /* HCRT_SCHED_PLACEMENT_H */
