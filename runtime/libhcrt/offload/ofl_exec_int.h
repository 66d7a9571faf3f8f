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

/* FT mode (ofl_ft.c): what re-planning a kernel task on a survivor
 * needs, and the data it brings home, held back until it completes (a
 * task re-run after a loss must find its inputs on the host unchanged). */
typedef struct ofl_commit {
    void *host, *data;
    size_t len;
} ofl_commit_t;

typedef struct ofl_ft {
    hcrt__ofl_map_t *maps;
    int32_t nmaps, ndeps;
    hcrt_depend_info_t *deps;
    hcrt__dm_xlate_t *xl;
    int64_t device_id;
    int pin;          /* the node device(n) named, -1: free */
    const char *name; /* the kernel's */
    int retries;
    double t_fail; /* when it first failed (MPI_Wtime) */
    ofl_commit_t *commits;
    int32_t ncommits, capcommits;
} ofl_ft_t;

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
    ofl_ft_t *ft; /* FT mode, kernel tasks only */
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

/* ---- ofl_ft.c: FT mode (fault/ft.h, docs/faults.md "FT mode") ---- */
/* Head, once the offload engine is up: listens for lost ranks. */
void hcrt__ofl_ft_init(void);
/* Whether node can take work (not a lost rank). */
int hcrt__ofl_node_live(int node);
/* A live node for a task pinned to `node` (device(n) of a lost rank goes
 * to a survivor, said once per rank); 0 if no worker is left. */
int hcrt__ofl_ft_pinned(int node);
/* After an event of x failed with st on node: in FT mode, when the node
 * was lost, re-plans x from its start on a survivor and returns 1 (the
 * caller goes on advancing x); else returns 0 (the caller fails). Ends
 * the job when x's data cannot be recovered. */
int hcrt__ofl_ft_retry(ofl_x_t *x, int node, hcrt_status_t st);
/* Holds back data brought home (takes `data`, a malloc'ed block). */
void hcrt__ofl_ft_hold(ofl_x_t *x, void *host, void *data, size_t len);
/* x completed: its held-back data lands in host memory; counts re-runs. */
void hcrt__ofl_ft_complete(ofl_x_t *x);
void hcrt__ofl_ft_free(ofl_x_t *x);
int hcrt__ofl_ft_print(FILE *out);
/* x got a new plan after rank `lost` was lost: count and log it. */
void hcrt__ofl_ft_count(ofl_x_t *x, int lost);
/* ofl_target.c: re-plans x (lock held) on a live node; its old plans go
 * to *old_pre and *old_post. HCRT_ERR_UNSUPPORTED when x maps data that
 * outlives it, HCRT_ERR_NODE_FAILED when no worker is left. */
hcrt_status_t hcrt__ofl_replan(ofl_x_t *x, hcrt__dm_plan_t *old_pre,
                               hcrt__dm_plan_t *old_post);

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
