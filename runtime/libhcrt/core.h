/*
 * core.h - state shared between libhcrt's source files (internal).
 *
 * Each object (fork, loops, target, ...) has its own .c file; what they share
 * is declared here. Nothing here is exported from the library.
 */
#ifndef HCRT_CORE_H
#define HCRT_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/clock.h"
#include "base/stats.h"
#include "hcrt/abi.h"
#include "hcrt/hcrt.h"

#define HCRT_LIKELY(x) __builtin_expect(!!(x), 1)
#define HCRT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* --- init.c: process state --------------------------------------------- */

/* Non-zero once hcrt__runtime_init() has completed. */
extern int hcrt__ready;
/* Initialises the runtime for a program whose main was not built by hcc
 * (a C test, a library user): MPI is brought up and torn down at exit. */
void hcrt__runtime_lazy_init(void);
/* 1 in a program whose main hcc built, on several ranks: only the head
 * runs main (the workers run regions). */
int hcrt__runtime_head_runs_main(void);
/* In a program that calls MPI_Init itself (abi.h, __hcrt_mpi_program): the
 * launcher's job size (1 alone); 0 in any other program. The runtime has
 * no MPI there: each rank is a job of one node to it. */
int hcrt__runtime_mpi_program(void);
static inline void hcrt__runtime_ensure(void)
{
    if (HCRT_UNLIKELY(!hcrt__ready))
        hcrt__runtime_lazy_init();
}

/* --- mainstack.c: main threads on DSM stacks (cluster mode) ------------ */
/* Before MPI and libomp start, in a cluster job: settings libomp must see. */
void hcrt__mainstack_prepare(void);
/* Before the DSM starts: reserves the stack region (HCRT_STACK_*). */
void hcrt__mainstack_reserve(void);
/* The head: runs the user's main on its DSM stack with argv and the
 * environment copied there (or directly, outside cluster mode). */
int hcrt__mainstack_run_main(hcrt_main_fn_t fn, int argc, char **argv,
                             char **envp);
/* A worker: runs its command loop on its DSM stack, its original stack
 * protected meanwhile. */
int hcrt__mainstack_run_worker(int (*loop)(void));

/* --- stack.c: the arena of escaping stack slots -------------------------- */
void hcrt__stack_each_chunk(void (*fn)(void *p, size_t len));

/* --- threads.c: libomp's threads on DSM stacks, fork() off them -------- */
/* After cluster start-up: decides whether libomp's new threads get DSM
 * stacks (cluster mode, HCRT_STACK_THREADS). */
void hcrt__threads_init(void);
/* Bytes of DSM memory the stacks of libomp's threads may need here. */
size_t hcrt__threads_stack_budget(void);

/* --- registry.c: modules, regions, kernels ------------------------------ */
typedef struct hcrt_region_stats {
    const hcrt_region_desc_t *desc;
    uint64_t forks;      /* updated atomically */
    uint64_t serial;     /* forks run serialized (if(0)) */
    uint64_t time_ns;    /* total wall time in the region */
    const char *psource; /* first fork's ident psource (desc may lack file) */
    uint64_t cluster;    /* forks run on every node (cluster.c) */
    uint64_t head_only;  /* cluster-kind forks kept on the head (fallback) */
} hcrt_region_stats_t;

typedef struct hcrt_kernel_stats {
    const hcrt_kernel_desc_t *desc;
    uint64_t launches;  /* all, updated atomically */
    uint64_t offloaded; /* of which a worker node ran */
    uint64_t time_ns;   /* of the launches run on the head */
} hcrt_kernel_stats_t;

/* The stats slot of `region`, created on first use. Never NULL. */
hcrt_region_stats_t *hcrt__registry_region(const hcrt_region_desc_t *region);
/* The kernel whose region_id is host_ptr, or NULL. */
hcrt_kernel_stats_t *hcrt__registry_kernel(const void *host_ptr);
void hcrt__registry_stats_init(void);
uint32_t hcrt__registry_num_modules(void);
const hcrt_module_desc_t *hcrt__registry_module(uint32_t i);
const hcrt_region_desc_t *hcrt__registry_region_by_id(uint64_t id);
/* Parallel regions forked so far on this rank (counted with HCRT_STATS). */
uint64_t hcrt__registry_forks(void);

/* --- loops.c, target.c, stack.c, heap.c: their stats sections ----------- */
void hcrt__loops_stats_init(void);
void hcrt__target_stats_init(void);

/* --- settings.c: every module's rows of the settings table ------------ */
/* Registers the rows of dsm, sched, libhcrt and the event system with the
 * table (base/config.h) in that order, after base's own. Idempotent. */
void hcrt__settings_register(void);

/* Number of worker nodes that can run offloaded regions (0 on one node). */
int hcrt__num_devices(void);

#endif /* HCRT_CORE_H */
