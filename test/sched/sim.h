/*
 * sim.h - drives a HetProbe scheduler the way the cluster loop code will:
 * every thread of every node asks for chunks in a random interleaving,
 * runs them on a modelled node (seconds = cost / speed), completes them and
 * the nodes report DSM counters when due. Checks on the way that every
 * logical iteration is handed out exactly once and that no thread gets work
 * after DONE, and detects deadlocks (every live thread told WAIT forever).
 */
#ifndef HCRT_TEST_SCHED_SIM_H
#define HCRT_TEST_SCHED_SIM_H

#include "sched/hetprobe.h"
#include "check.h"

#define SIM_MAX_NODES 64

typedef struct sim {
    hcrt__hetprobe_t *hp;
    int nnodes;
    const int *threads;
    uint64_t trip;
    rng_t rng;
    /* model */
    double speed[SIM_MAX_NODES];  /* iterations/s per thread */
    double speed2[SIM_MAX_NODES]; /* speed from iteration `switch_at` on */
    uint64_t switch_at;           /* trip: never */
    uint64_t faults[SIM_MAX_NODES];
    double period_us[SIM_MAX_NODES];
    double cmpki[SIM_MAX_NODES];
    int random_counters; /* random faults/periods at every report */
    /* results */
    unsigned char *seen;
    uint64_t iters[SIM_MAX_NODES];
    double busy[SIM_MAX_NODES];  /* summed thread-seconds */
    hcrt__hetprobe_chunk_t *log; /* every chunk handed out, in order */
    int *log_node;
    size_t nlog, logcap;
    int deadlock, errors;
} sim_t;

/* A model with all nodes at speed 1, no faults, no switch. */
void sim_init(sim_t *s, int nnodes, const int *threads, uint64_t trip,
              uint64_t seed);
void sim_fini(sim_t *s);
/* Runs the loop to the end; 0 if every check held. */
int sim_run(sim_t *s);

#endif /* HCRT_TEST_SCHED_SIM_H */
