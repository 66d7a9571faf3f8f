/*
 * sim.h - the pieces of hcrt-sched-sim: a graph + cost model read from a
 * text file (sim_parse.c) or generated (sim_gen.c), scheduled by each policy
 * (sim_main.c). The format is documented in docs/heft.md.
 */
#ifndef HCRT_SCHED_SIM_H
#define HCRT_SCHED_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "sched/heft.h"

typedef struct sim_graph {
    hcrt__taskgraph_t *g;
    hcrt__heft_cost_t *cm;
    int64_t *label; /* [ntasks] the task's id as the user wrote it */
    int64_t nlabel, lcap;
    char name[128];
} sim_graph_t;

void sim_graph_fini(sim_graph_t *sg);
/* Records `label` for the task just added to sg->g. */
int sim_graph_label(sim_graph_t *sg, int64_t label);

/* Reads a graph file; on error returns -1 with "file:line: what" in err. */
int sim_parse_file(const char *path, sim_graph_t *out, char *err, size_t len);

typedef struct sim_gen_opts {
    const char *family; /* chain fanout fanin diamond stencil tree fft
                           alltoall random */
    int64_t tasks;      /* about how many tasks */
    int nodes;
    uint64_t seed;
    double ccr;  /* mean transfer time / mean run time */
    double het;  /* spread of node speeds and kernel affinities, [0, 1.9] */
    int kernels; /* distinct kernels */
    int width;   /* stencil / alltoall / random width; 0 = automatic */
} sim_gen_opts_t;

/* The families sim_generate knows, space separated. */
extern const char *const sim_gen_families;
int sim_generate(const sim_gen_opts_t *o, sim_graph_t *out, char *err,
                 size_t len);

#endif /* HCRT_SCHED_SIM_H */
