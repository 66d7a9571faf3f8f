/*
 * ofl_sim.h - test helpers: a cluster simulator that executes data-manager
 * plans on per-node byte arrays, and an independent reference model of one
 * discrete OpenMP device (libomptarget's map rules) to compare against.
 */
#ifndef HCRT_TEST_OFL_SIM_H
#define HCRT_TEST_OFL_SIM_H

#include "libhcrt/offload/datamgr.h"

/* ---- cluster simulator --------------------------------------------------- */

typedef struct sim sim_t;

sim_t *sim_create(int nnodes);
void sim_destroy(sim_t *s);
/* Applies one op; returns the number of violations found (copy from a
 * node without the buffer, wait_op not applied yet, ...), printed. */
int sim_apply(sim_t *s, const hcrt__dm_op_t *op);
int sim_apply_plan(sim_t *s, const hcrt__dm_plan_t *p);
/* Node's copy of buf (+off), NULL if not allocated there. */
unsigned char *sim_addr(sim_t *s, int node, uint64_t buf, uint64_t off);
/* Live allocations over all nodes (leak check after everything unmapped). */
int sim_nallocs(const sim_t *s);
/* Whether op id was applied. */
int sim_done(const sim_t *s, int64_t id);

/* ---- reference: one discrete device, sequential ------------------------- */

typedef struct ref ref_t;
typedef void (*ref_kernel_fn)(void *arg, void **args);

ref_t *ref_create(void);
void ref_destroy(ref_t *r);
/* Runs a task as one device would: map-enter, the kernel (args as the
 * trampoline gets them), map-exit. `writes` (NULL: the `from` entries)
 * says which entries the kernel writes, i.e. holds initialised data after.
 * Returns an hcrt_status_t like the data manager's for the same misuse
 * (present, extension). */
int ref_task(ref_t *r, hcrt__ofl_kind_t kind, const hcrt__ofl_map_t *maps,
             int n, const int *writes, ref_kernel_fn fn, void *arg);
int64_t ref_refcount(const ref_t *r, const void *addr);
/* Whether every byte of the range has been written on the device. */
int ref_initialized(const ref_t *r, const void *addr, int64_t len);

/* Kernel arguments from the data manager's translation on `node`. */
void sim_kernel_args(sim_t *s, int node, const hcrt__ofl_map_t *maps, int n,
                     const hcrt__dm_xlate_t *xl, void **args);

#endif

/* ---- a world: data manager + simulator + reference on twin host memories */

typedef struct world {
    int nnodes;
    hcrt__dm_t *dm;
    sim_t *sim;
    ref_t *ref;
    unsigned char *H, *R; /* the cluster's host memory and the reference's */
    size_t size;
    hcrt__dm_plan_t pre, post;
    int errs; /* simulator violations */
} world_t;

void world_init(world_t *w, int nnodes, size_t size);
void world_fini(world_t *w);
/* Shifts a map list from H to R (the reference's twin). */
void world_shift(const world_t *w, const hcrt__ofl_map_t *in, int n,
                 hcrt__ofl_map_t *out);
/* Plans t on node, runs the plans and the kernel in the simulator, runs the
 * same task on the reference; returns the data manager's status (the
 * reference's must match, else it counts as a simulator violation). The
 * plans stay in w->pre / w->post for inspection. */
int world_task(world_t *w, const hcrt__ofl_task_desc_t *t, int node,
               const int *writes, ref_kernel_fn fn, void *arg);
/* The reference's mapping holding addr: 1 and its range, or 0. */
int ref_mapping(const ref_t *r, const void *addr, uintptr_t *begin,
                uint64_t *size);
