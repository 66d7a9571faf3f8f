/*
 * cluster.h - cluster execution of parallel regions (internal).
 *
 * With HCRT_CLUSTER=1 and more than one rank, a CLUSTER region forked by the
 * head at nesting level 0 runs on every rank's libomp team; shared data lives
 * in the DSM. The entries of the ABI test hcrt__cluster_on first, so a
 * one-node run (or HCRT_CLUSTER=0) pays one predictable branch.
 */
#ifndef HCRT_CLUSTER_H
#define HCRT_CLUSTER_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "libhcrt/core.h"

struct hcrt_bell;

/* Cluster mode is on: size > 1, HCRT_CLUSTER=1, started by __hcrt_main,
 * DSM up. Set once before the user's main runs. */
extern int hcrt__cluster_on;

/* The DSM range while it existed: blocks freed after shutdown are dropped. */
extern uintptr_t hcrt__cluster_heap_lo, hcrt__cluster_heap_hi;

/* The team of the cluster region this process is running (one at a time). */
typedef struct hcrt_cluster_team {
    int base;  /* cluster number of this node's local thread 0 */
    int total; /* threads in the whole cluster team */
    int local; /* threads of this node's team */
} hcrt_cluster_team_t;
extern hcrt_cluster_team_t hcrt__cluster_team;

/* The cluster region the calling thread runs in, at any nesting level
 * (cluster_nest.c): its level-1 threads set it, nested forks hand it on. */
typedef struct hcrt_cluster_nest {
    int tid1;   /* cluster number of the level-1 ancestor thread */
    int total;  /* threads of the cluster team; 0: not in a cluster region */
    int hidden; /* 1: this node's share of level 1 is one thread, which
                   libomp runs serialized, so it counts no active level */
} hcrt_cluster_nest_t;
extern _Thread_local hcrt_cluster_nest_t hcrt__cluster_nest;

/* Data-environment ICVs of the head's task at a fork, which the implicit
 * tasks of the cluster team inherit on every node. */
typedef struct hcrt_cluster_icv {
    int32_t nthreads;   /* nthreads-var in cluster terms (next team size) */
    int32_t dynamic;    /* dyn-var */
    int32_t max_active; /* max-active-levels-var */
    int32_t device;     /* default-device-var */
} hcrt_cluster_icv_t;

/* Threads of node `node` in the current cluster team (like team_of). */
int hcrt__cluster_node_threads(int node);
/* Whether the calling thread runs the outermost level of a cluster region
 * (where worksharing and synchronisation are cluster-wide). */
int hcrt__cluster_here(void);
/* Whether the calling thread is inside a cluster region at any level. */
static inline int hcrt__cluster_inside(void)
{
    return hcrt__cluster_nest.total != 0;
}
/* omp_get_active_level() inside a cluster region, counting level 1 where
 * libomp runs this node's share serialized. */
int hcrt__cluster_active_level(void);
/* The calling thread's number in the cluster team (hcrt__cluster_here()). */
int hcrt__cluster_tid(void);
/* omp_get_max_threads() outside a region: the size of the next team. */
int hcrt__cluster_max_threads(void);
/* Whether this rank runs a region on every node now (the head: between
 * the fork and the join of such a region, TASKS regions included). */
int hcrt__cluster_region_active(void);
/* The head while no region runs on other nodes (its serial code, a call
 * on the head alone): every thread that can touch DSM memory is one of
 * the head's, whose memory the hardware keeps coherent, and the next
 * fork's release carries the head's writes to the other nodes. Atomics
 * and lock words then take plain CPU atomics instead of the DSM's at the
 * page's home (a fault makes a page valid and writable, as for any
 * store). A flag kept with the region's start and end: every atomic of
 * region code reads it. */
extern volatile int hcrt__cluster_head_alone;
static inline int hcrt__cluster_head_alone_now(void)
{
    return hcrt__cluster_head_alone;
}
/* The cluster's default team: the sum of the nodes' default teams. */
int hcrt__cluster_default_threads(void);
void hcrt__cluster_set_num_threads(int n);
/* num_threads clause of the next fork of this thread (0: none). */
void hcrt__cluster_push_num_threads(int32_t n);
/* Only the head's main thread forks cluster regions, never inside teams. */
void hcrt__cluster_set_main_thread(void);
void hcrt__cluster_teams(int delta);
/* Takes back a deferred num_threads (for a fork that stays local). */
int32_t hcrt__cluster_take_push(void);

/* Start-up (init.c), every rank, after MPI. The binary check runs for every
 * job of more than one rank started by __hcrt_main; init brings the DSM up
 * and turns cluster mode on. */
void hcrt__cluster_check_binary(int cluster);
void hcrt__cluster_init(void);
/* Worker command loop: runs forks until the head's exit; returns the job's
 * exit status. */
int hcrt__cluster_worker_loop(void);
/* From the exit handler of every rank: ends the job at once (MPI_Abort)
 * when exit() was called where the exit protocol cannot run. */
void hcrt__cluster_exit_check(int status);
/* Head: tells the workers to leave with `status`. */
void hcrt__cluster_head_exit(int status);
/* Every rank, at shutdown before MPI_Finalize. */
void hcrt__cluster_fini(void);

/* fork.c: runs `region` on every node, or on this node with the cluster's
 * ICVs (head region, nested, unsupported, a TASKS region whose tasks do not
 * pay across nodes). Returns 1 when done, 0 when the caller forks it with
 * libomp as on one node (a worker's own threads). */
int hcrt__cluster_fork(hcrt_ident_t *loc, const hcrt_region_desc_t *region,
                       void **args, hcrt_region_stats_t *st);

/* cluster_nest.c: the ICVs that travel with a fork (see there). */
void hcrt__cluster_icv_init(void);
void hcrt__cluster_icv_capture(hcrt_cluster_icv_t *icv);
void hcrt__cluster_icv_fork_begin(const hcrt_cluster_icv_t *icv);
void hcrt__cluster_icv_fork_end(const hcrt_cluster_icv_t *icv);
void hcrt__cluster_icv_enter(const hcrt_cluster_icv_t *icv);
/* The head's thread running main (cluster.c). */
int hcrt__cluster_is_main_thread(void);
/* After __kmpc_serialized_parallel of parallel if(false) (fork.c). */
void hcrt__cluster_serial_enter(void);
/* A region forked by the head's serial code that stays on the head. */
void hcrt__cluster_fork_local(hcrt_ident_t *loc,
                              const hcrt_region_desc_t *region, void **args);
/* A region forked inside a cluster region (any level). */
void hcrt__cluster_fork_nested(hcrt_ident_t *loc,
                               const hcrt_region_desc_t *region, void **args);

/* Per-thread sequence number of worksharing constructs in the current
 * cluster region (loops, single): keys of per-instance shared state. */
uint32_t hcrt__cluster_next_ws(void);
/* Node `rank`'s share of a team of `total` threads (base, local). */
void hcrt__cluster_team_of(int total, int rank, hcrt_cluster_team_t *t);
/* The fork/join communicator (commands, threadprivate images). */
MPI_Comm hcrt__cluster_fork_comm(void);
/* Head: asks every worker for its threads' threadprivate images. */
void hcrt__cluster_request_tls(int total);
/* A DSM word for per-instance state, indexed by sequence number. */
uint64_t *hcrt__cluster_slot(uint32_t seq);

/* Serialises the releases of a rank's unlocks (cluster.c, omp_api.c): two
 * threads releasing the same dirty page at once lost updates in tests. */
extern pthread_mutex_t hcrt__cluster_unlock_mutex;

/* DSM cluster locks named by an address (critical, reductions). */
void hcrt__cluster_lock(uint64_t id);
void hcrt__cluster_unlock(uint64_t id);

/* Communicator of the cross-node reduction tree (reduce.c). */
MPI_Comm hcrt__cluster_reduce_comm(void);
/* Reductions of this rank by method: cross-node tree, or under a lock. */
void hcrt__cluster_reduce_counts(uint64_t *tree, uint64_t *locked);

/* libomp barrier of the node, then the DSM team barrier. */
void hcrt__cluster_barrier(hcrt_ident_t *loc, int32_t gtid);
/* cluster_copy.c: copyprivate from cluster thread 0 to the whole team. */
void hcrt__cluster_copyprivate(hcrt_ident_t *loc, int32_t gtid, size_t size,
                               void *data, hcrt_cpy_fn_t fn, int32_t didit);

/* A construct the slice cannot run across nodes: stops with a message. */
_Noreturn void hcrt__cluster_unsupported(hcrt_ident_t *loc, const char *what);
/* The same with the fix to suggest. */
_Noreturn void hcrt__cluster_unsupported_fix(hcrt_ident_t *loc,
                                             const char *what, const char *fix);

/* ---- cluster_ft.c: cluster mode under FT mode (fault/ft.h) ---- */
void hcrt__cluster_ft_init(MPI_Comm fork_comm);
/* Commands go point to point (FT mode). */
int hcrt__cluster_ft_p2p(void);
void hcrt__cluster_ft_send(void *buf, int len, const char *what);
/* bell: the one the sender rings (base/wait.h), or NULL */
void hcrt__cluster_ft_recv(void *buf, int len, const char *what,
                           uint64_t spin_ns, struct hcrt_bell *bell);
/* The head forks a region on every node, and has joined it: a worker lost
 * between the two cannot be recovered (regions are not transactions). */
void hcrt__cluster_ft_fork(const hcrt_region_desc_t *region);
void hcrt__cluster_ft_joined(void);
/* The head's forks to every node so far (any mode). */
unsigned long hcrt__cluster_ft_nforks(void);
/* A rank was lost: regions run on the head alone. */
int hcrt__cluster_ft_head_only(void);
/* The head's lost ranks (bit r), carried by the exit command; a worker
 * adopts them so that every survivor has the same view at shutdown. */
uint64_t hcrt__cluster_ft_lost_mask(void);
void hcrt__cluster_ft_adopt(uint64_t lost);

#endif /* HCRT_CLUSTER_H */
