/*
 * ofl_exec_int.h - the head's executor of offload tasks (internal to
 * ofl_exec.c and ofl_target.c).
 */
#ifndef HCRT_OFFLOAD_EXEC_INT_H
#define HCRT_OFFLOAD_EXEC_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "libhcrt/offload/datamgr.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/offload/ofl_wire.h"

/* One task in execution: its data plans, then its kernel (if any), then
 * the plan after it. Async executors advance in event callbacks; sync
 * ones on the caller's thread. */
typedef struct ofl_x {
    struct ofl_x *next_blocked;
    int64_t wait_id; /* op this executor is blocked on */
    hcrt__dm_plan_t pre, post;
    int phase; /* 0 pre, 1 kernel, 2 post, 3 done */
    int32_t opi;
    int node, sync;
    /* kernel */
    int has_kernel;
    ofl_kernel_hdr_t kh;
    size_t kh_len;
    ofl_param_t *xparams; /* params beyond the header's */
    char *priv;           /* firstprivate aggregates */
    size_t priv_len;
    double est_ns; /* placement estimate, counted in the node's load */
    /* buffers this running kernel uses (ofl_target.c's claims) */
    uint64_t *cbuf;
    uint8_t *cshared; /* 1: a shared read (hcrt__ofl_map_shared_read) */
    int32_t nclaims;
    double t0;
    /* current batch (ofl_exec.c): its ops, blob and GET staging */
    const hcrt__dm_op_t **bops;
    int32_t nbops, bops_cap;
    int bphase, bopi, bkernel; /* where it ends; 1: it runs the kernel */
    void *bblob, *bget;
    /* current op */
    void *stage;
    size_t stage_len;
    void *stage_host;
    /* completion */
    uintptr_t omp_event; /* detached task to fulfil, 0: none */
    atomic_int done;
} ofl_x_t;

typedef struct ofl_state {
    int up, rank, size, ndev;
    hcrt__dm_t *dm;
    pthread_mutex_t lock; /* the data manager, op table, blocked list */
    pthread_cond_t cv;
    uint8_t *opdone; /* by op id - op_base */
    int64_t op_base, op_cap, op_end, ops_live;
    ofl_x_t *blocked;
    double *load_ns; /* per node: estimated work placed and not done */
    /* per node, under the kernel-time lock: kernels completed there and
     * the run time they reported (HCRT_STATS) */
    long *dev_kernels;
    double *dev_run_ns;
    int policy;     /* 0 eft, 1 rr, 2 locality, 3 heft (ofl_graph.c) */
    int shared_env; /* HCRT_OFFLOAD_DATA_ENV=shared: one for all devices */
    atomic_uint rr;
    atomic_long inflight, max_inflight, launched, ops_run;
} ofl_state_t;

extern ofl_state_t hcrt__ofl;

/* Registers a planned plan's ops as live (lock held). */
void hcrt__ofl_ops_add(const hcrt__dm_plan_t *p);
/* Runs x to its end: async (returns at once) or sync (returns when done). */
void hcrt__ofl_x_start(ofl_x_t *x);
void hcrt__ofl_x_free(ofl_x_t *x);
/* Releases the buffers x's kernel claimed for placement (lock held). */
void hcrt__ofl_claims_drop(ofl_x_t *x);
/* Learned kernel time on a node (ns), or a default. */
double hcrt__ofl_kernel_est(uint64_t kernel, int node);
/* The learned time of kernel on node (ns), -1 if it never ran there. */
double hcrt__ofl_kernel_seen(uint64_t kernel, int node);
void hcrt__ofl_kernel_learn(uint64_t kernel, int node, double ns);

/* The default-device ICV (omp_get_default_device, without omp.h). */
extern int ofl_default_device(void) __asm__("omp_get_default_device");

/* ---- ofl_graph.c: whole-graph HEFT placement (HCRT_OFFLOAD_POLICY=heft) */
/* Records a target task with its depend list at creation; *slot becomes
 * -1 (recorded, not placed), later the node HEFT chose (> 0) or 0 (no
 * choice: online placement). 0 when recorded. Takes the lock. */
int hcrt__ofl_graph_record(hcrt_task_entry_t entry, int pin,
                           const hcrt_depend_info_t *deps, int32_t ndeps,
                           int *slot);
/* Places every recorded task not placed yet (lock held). */
void hcrt__ofl_graph_place(void);
/* What the region of `entry` runs, learned when it runs (lock held). */
void hcrt__ofl_graph_learn(hcrt_task_entry_t entry, uint64_t kernel,
                           int is_data);
/* Tasks placed, batches, and the link HEFT assumes (measured or not). */
void hcrt__ofl_graph_stats(long *batches, long *placed, double *lat_s,
                           double *bytes_per_s, int *measured);
void hcrt__ofl_graph_fini(void);

#endif /* HCRT_OFFLOAD_EXEC_INT_H */
