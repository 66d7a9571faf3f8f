/*
 * heft.h - task graphs, the task cost model and the task placement policies
 * (HEFT, round-robin, locality-greedy) of runtime/sched (internal).
 *
 * A task graph is recorded between two scheduling points (taskwait or
 * barrier in a head region) and then placed on the nodes in one go: every
 * task gets a node, a start and a finish time predicted by the cost model.
 * The same code runs inside libhcrt and in the stand-alone simulator
 * `hcrt-sched-sim`, which feeds it graphs far larger than this machine.
 * See docs/heft.md.
 *
 * Times are in seconds inside the runtime; the simulator uses whatever unit
 * its input uses (the published HEFT example uses abstract time units).
 */
#ifndef HCRT_SCHED_HEFT_H
#define HCRT_SCHED_HEFT_H

#include <stddef.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

/* ---- cost model ------------------------------------------------------- */

/* Per (kernel, node) execution-time estimates learned with an EWMA, node
 * speed factors, and per link latency + bandwidth. Outlives task graphs: the
 * runtime keeps one for the whole run so estimates improve run after run. */
typedef struct hcrt__heft_cost hcrt__heft_cost_t;

hcrt_status_t hcrt__heft_cost_create(int nnodes, hcrt__heft_cost_t **out);
void hcrt__heft_cost_destroy(hcrt__heft_cost_t *cm);
int hcrt__heft_cost_nnodes(const hcrt__heft_cost_t *cm);

/* EWMA weight of a new observation, in (0, 1]. Default 0.3. */
hcrt_status_t hcrt__heft_cost_set_alpha(hcrt__heft_cost_t *cm, double alpha);
/* Estimate for a kernel never seen on any node, on a node of speed 1. */
hcrt_status_t hcrt__heft_cost_set_default_time(hcrt__heft_cost_t *cm,
                                               double seconds);
/* Relative speed of a node (> 0, default 1): unknown kernels and kernels
 * known only on other nodes are scaled by it. */
hcrt_status_t hcrt__heft_cost_set_speed(hcrt__heft_cost_t *cm, int node,
                                        double speed);
/* Same latency and bandwidth between every pair of distinct nodes. */
hcrt_status_t hcrt__heft_cost_set_uniform_link(hcrt__heft_cost_t *cm,
                                               double latency,
                                               double bandwidth);
/* One directed link (switches the model to a full node-pair matrix). */
hcrt_status_t hcrt__heft_cost_set_link(hcrt__heft_cost_t *cm, int from, int to,
                                       double latency, double bandwidth);

/* Records one measured run of `kernel` on `node` (EWMA; the first sample is
 * taken as is). */
hcrt_status_t hcrt__heft_cost_observe(hcrt__heft_cost_t *cm, uint64_t kernel,
                                      int node, double seconds);
/* Sets the estimate outright (e.g. a simulator's known cost table). */
hcrt_status_t hcrt__heft_cost_set_exec(hcrt__heft_cost_t *cm, uint64_t kernel,
                                       int node, double seconds);
/* Expected run time of `kernel` on `node`: the learned estimate; else, if the
 * kernel was seen on other nodes, their speed-normalised mean; else the
 * default time scaled by the node's speed. */
double hcrt__heft_cost_exec(const hcrt__heft_cost_t *cm, uint64_t kernel,
                            int node);
/* How many runs of `kernel` on `node` were observed (0: not learned). */
uint64_t hcrt__heft_cost_samples(const hcrt__heft_cost_t *cm, uint64_t kernel,
                                 int node);
/* Time to move `bytes` from `from` to `to`: 0 on the same node, else
 * latency + bytes / bandwidth of that link. */
double hcrt__heft_cost_comm(const hcrt__heft_cost_t *cm, int from, int to,
                            uint64_t bytes);

/* ---- task graph ------------------------------------------------------- */

typedef enum hcrt__taskgraph_access {
    HCRT_TG_READ = 1,
    HCRT_TG_WRITE = 2,
    HCRT_TG_READWRITE = 3
} hcrt__taskgraph_access_t;

/* Tasks, edges and data items in growable arrays; ids are dense indices in
 * insertion order. Building is amortised O(1) per call. */
typedef struct hcrt__taskgraph hcrt__taskgraph_t;

hcrt_status_t hcrt__taskgraph_create(int nnodes, hcrt__taskgraph_t **out);
void hcrt__taskgraph_destroy(hcrt__taskgraph_t *g);
/* Forgets every task, edge and data item but keeps the memory. */
void hcrt__taskgraph_clear(hcrt__taskgraph_t *g);

/* A task whose run time comes from the cost model: `work` times the
 * estimate of `kernel` (work 1 for a plain kernel launch). */
hcrt_status_t hcrt__taskgraph_add_task(hcrt__taskgraph_t *g, uint64_t kernel,
                                       double work, int32_t *out_id);
/* A task with an explicit run time on each of the graph's nodes. */
hcrt_status_t hcrt__taskgraph_add_task_costs(hcrt__taskgraph_t *g,
                                             const double *costs,
                                             int32_t *out_id);
/* Work placed before this graph keeps `node` busy until `until` (>= 0, in
 * the graph's time unit, from the moment it is scheduled): HEFT starts
 * nothing there earlier. A live engine placing graphs batch after batch
 * passes each node's estimated work in flight. Cleared with the graph. */
hcrt_status_t hcrt__taskgraph_set_busy(hcrt__taskgraph_t *g, int node,
                                       double until);
/* Forces a task onto one node (OpenMP `task`s run on the head); -1 unpins. */
hcrt_status_t hcrt__taskgraph_pin(hcrt__taskgraph_t *g, int32_t task, int node);
/* `to` needs `from`'s result: `bytes` travel unless both share a node. A
 * `cost` >= 0 fixes the transfer time (published examples give it); < 0
 * derives it from the bytes and the link. */
hcrt_status_t hcrt__taskgraph_add_edge(hcrt__taskgraph_t *g, int32_t from,
                                       int32_t to, uint64_t bytes, double cost);
/* A buffer that exists before the graph runs, with its valid copies. */
hcrt_status_t hcrt__taskgraph_add_data(hcrt__taskgraph_t *g, uint64_t bytes,
                                       const int *holders, int nholders,
                                       int32_t *out_id);
/* Task `task` reads and/or writes data item `data`. A read of a buffer the
 * graph has not written yet costs a transfer from its nearest holder;
 * flows between tasks are edges. */
hcrt_status_t hcrt__taskgraph_add_access(hcrt__taskgraph_t *g, int32_t task,
                                         int32_t data,
                                         hcrt__taskgraph_access_t mode);

int32_t hcrt__taskgraph_ntasks(const hcrt__taskgraph_t *g);
int64_t hcrt__taskgraph_nedges(const hcrt__taskgraph_t *g);
int hcrt__taskgraph_nnodes(const hcrt__taskgraph_t *g);
uint64_t hcrt__taskgraph_kernel(const hcrt__taskgraph_t *g, int32_t task);

/* ---- schedules and policies -------------------------------------------- */

/* A placement: per task node, predicted start and finish; the makespan.
 * `rank` holds HEFT's upward ranks (NULL for the other policies). */
typedef struct hcrt__heft_schedule {
    int32_t ntasks;
    int32_t *node;
    double *start;
    double *finish;
    double *rank;
    double makespan;
} hcrt__heft_schedule_t;

hcrt_status_t hcrt__heft_schedule_init(hcrt__heft_schedule_t *s,
                                       int32_t ntasks);
void hcrt__heft_schedule_fini(hcrt__heft_schedule_t *s);

/* A task placement policy (Argobots-style ops table). `schedule` fills `out`
 * (hcrt__heft_schedule_init'ed for this graph's task count) and returns
 * HCRT_ERR_INVALID for a cyclic graph, a cost model with another node
 * count or a schedule of another size; HCRT_ERR_NOMEM on OOM. */
typedef struct hcrt_sched_policy_ops {
    const char *name; /* the HCRT_SCHED_TASK_POLICY spelling */
    const char *help;
    hcrt_status_t (*schedule)(const hcrt__taskgraph_t *g,
                              const hcrt__heft_cost_t *cm,
                              hcrt__heft_schedule_t *out);
} hcrt_sched_policy_ops_t;

typedef enum hcrt__heft_policy_id {
    HCRT_SCHED_TASK_HEFT = 0, /* order matches HCRT_SCHED_TASK_POLICY */
    HCRT_SCHED_TASK_RR = 1,
    HCRT_SCHED_TASK_LOCALITY = 2,
    HCRT_SCHED_TASK_NPOLICIES
} hcrt__heft_policy_id_t;

extern const hcrt_sched_policy_ops_t hcrt__heft_policy_heft;
extern const hcrt_sched_policy_ops_t hcrt__heft_policy_rr;
extern const hcrt_sched_policy_ops_t hcrt__heft_policy_locality;

const hcrt_sched_policy_ops_t *hcrt__heft_policy(hcrt__heft_policy_id_t id);
/* By name ("heft", "rr", "locality"); NULL if unknown. */
const hcrt_sched_policy_ops_t *hcrt__heft_policy_find(const char *name);

/* HEFT's upward ranks alone: rank(i) = mean cost(i) + max over successors
 * (mean comm(i,j) + rank(j)). `ranks` has one slot per task. */
hcrt_status_t hcrt__heft_upward_ranks(const hcrt__taskgraph_t *g,
                                      const hcrt__heft_cost_t *cm,
                                      double *ranks);

/* Checks a schedule against the graph and the model: every task on a valid
 * node (its pin, if any), finish = start + run time, no two tasks overlap on
 * a node, and every edge/data transfer fits before the consumer's start.
 * Returns HCRT_OK or HCRT_ERR_INVALID; writes the first violation to `why`
 * (may be NULL). Tests and the simulator's --check use it. */
hcrt_status_t hcrt__heft_schedule_check(const hcrt__taskgraph_t *g,
                                        const hcrt__heft_cost_t *cm,
                                        const hcrt__heft_schedule_t *s,
                                        char *why, size_t whylen);

/* ---- settings (needs runtime/base/config.c and sched's rows) --------- */

/* Builds the policy and cost-model knobs from HCRT_SCHED_TASK_* settings. */
typedef struct hcrt__heft_settings {
    hcrt__heft_policy_id_t policy;
    double alpha;
    double default_time;
} hcrt__heft_settings_t;

void hcrt__heft_settings_load(hcrt__heft_settings_t *out);

#endif /* HCRT_SCHED_HEFT_H */
