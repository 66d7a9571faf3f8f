/*
 * hcrt/abi.h - the contract between the hcc compiler pass (HCCPasses.so) and
 * the runtime (libhcrt).
 *
 * Every entry point the pass emits is declared here and nowhere else. The pass
 * rewrites calls that clang-19/flang-new-19 emit for OpenMP (`__kmpc_*`,
 * `__tgt_*`, `omp_*`, the C heap, atomics, globals, escaping stack slots) into
 * the `__hcrt_*` calls below. Unless a comment says otherwise an
 * `__hcrt_<x>` entry has exactly the signature of libomp's `__kmpc_<x>` (or
 * libomptarget's `__tgt_<x>`, or the OpenMP API's `omp_<x>`), so the pass can
 * rename such calls mechanically; the runtime gives them cluster semantics.
 *
 * Bump HCRT_ABI_VERSION on any incompatible change: every module registers
 * with the version it was compiled against and the runtime refuses a mismatch.
 */
#ifndef HCRT_ABI_H
#define HCRT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HCRT_ABI_VERSION 3

#if defined(HCRT_BUILDING_RUNTIME)
#define HCRT_ABI_EXPORT __attribute__((visibility("default")))
#else
#define HCRT_ABI_EXPORT
#endif

/* libomp's source-location record; opaque to hcrt except `psource`
 * (";file;function;line;column;;"), which names loops and regions. */
typedef struct hcrt_ident {
    int32_t reserved_1;
    int32_t flags;
    int32_t reserved_2;
    int32_t reserved_3;
    const char *psource;
} hcrt_ident_t;

typedef int32_t hcrt_critical_name_t[8]; /* libomp's kmp_critical_name */

/* ------------------------------------------------------------------------
 * Modules, regions and kernels.
 *
 * All ranks run the same binary, so code is named by table entries, never by
 * raw pointers sent between processes. The pass emits one module descriptor per
 * translation unit and a constructor (priority 101) that registers it.
 * ------------------------------------------------------------------------ */

typedef enum hcrt_region_kind {
    HCRT_REGION_CLUSTER = 0, /* has worksharing loops: runs on every node */
    HCRT_REGION_HEAD = 1,    /* target tasks, no worksharing: head only */
    /* Creates plain tasks, has no worksharing loop and no target construct:
     * runs on every node when other nodes' threads pay for taking its
     * tasks (docs/tasks.md), else on the head's threads. */
    HCRT_REGION_TASKS = 2,
    /* Reads or writes a stream, file descriptor or Fortran unit only this
     * process has (a FILE the program opened, stdin, a unit other than
     * the standard output and error): runs on the head alone, with the
     * whole logical team. */
    HCRT_REGION_LOCAL_IO = 3
} hcrt_region_kind_t;

/* Calls the outlined microtask with args[0..nargs-1] converted back to the
 * microtask's parameter types (pointers as is, integers via ptrtoint/trunc,
 * floating point bit-cast from the integer of the same width). */
typedef void (*hcrt_region_tramp_t)(int32_t *gtid, int32_t *btid, void **args);

typedef struct hcrt_region_desc {
    uint64_t id;      /* stable: FNV-1a of "<module id>:<microtask>" */
    const char *name; /* the outlined function's name */
    const char *file; /* user source file ("" if unknown) */
    int32_t line;     /* user source line (0 if unknown) */
    int32_t kind;     /* hcrt_region_kind_t */
    int32_t nargs;    /* number of shared/firstprivate arguments */
    int32_t nloops;   /* worksharing loops found in the region */
    hcrt_region_tramp_t tramp;
    void *microtask; /* the outlined function itself */
    uint32_t flags;  /* HCRT_REGION_* flags below */
    uint32_t reserved;
} hcrt_region_desc_t;

/* hcrt_region_desc_t.flags */
enum {
    /* The region's threads work on their own data
     * (compiler/passes/RegionData.cpp): they write their stack slots and
     * threadprivate variables, shared memory only through atomics and
     * reduction clauses, and read no shared array. Between hosts its first
     * call runs on every node (docs/placement.md). */
    HCRT_REGION_OWN_DATA = 1u << 0
};

/* Calls the host fallback of one target region with args[0..nargs-1]:
 * the kernel parameters, one per entry whose map type has
 * OMP_TGT_MAPTYPE_TARGET_PARAM (0x20), in entry order: the base pointer, or
 * the value for LITERAL (0x100) entries, or, for PTR_AND_OBJ (0x10)
 * entries, the pointer stored at the base (`*(void **)base`: e.g. a global
 * `long *p` mapped as `p[0:n]` has base &p, and the kernel receives p), all
 * translated to the executing node's copies as libomptarget does. */
typedef void (*hcrt_kernel_tramp_t)(void **args);

/* A global named directly by code nested in a target region (below). */
typedef struct hcrt_kernel_global {
    const char *name; /* NULL ends a list */
    void *addr;
    uint64_t size;
} hcrt_kernel_global_t;

typedef struct hcrt_kernel_desc {
    uint64_t id;      /* stable: FNV-1a of the offload entry name */
    const char *name; /* "__omp_offloading_<dev>_<file>_<fn>_l<line>" */
    const void
        *region_id; /* the host_ptr clang passes to __tgt_target_kernel */
    hcrt_kernel_tramp_t tramp;
    void *host_fn; /* the host fallback function */
    int32_t nargs;
    int32_t line;
    /* Non-NULL: the writable globals that code nested in the region (a
     * task or parallel region outlined inside it, a function it calls)
     * names directly. Host code reads such a global at its own address,
     * not at the device copy the region maps: clang's host outlining
     * captures a mapped global for the region itself but not for a task
     * inside it. The runtime runs such a region on the head, on the host's
     * data, with the device copies of these globals brought back before
     * and sent out after (ABI version 3). An empty list: the pass could
     * not follow all the code; the region runs on the head all the same.
     * An entry with a NULL addr names a lock routine (omp_set_lock & co.)
     * the region calls on a lock it does not initialise itself: the lock
     * is the host's, and the region runs on the head for it. */
    const hcrt_kernel_global_t *host_only;
} hcrt_kernel_desc_t;

/* hcrt_module_desc_t.flags */
/* The module hands device addresses to host code (use_device_ptr or
 * use_device_addr: map entries with RETURN_PARAM). Added in ABI version 1
 * (additive: older modules report 0). */
#define HCRT_MODULE_DEVICE_ADDR 1u

typedef struct hcrt_module_desc {
    uint32_t abi_version; /* HCRT_ABI_VERSION at compile time */
    uint32_t flags;       /* HCRT_MODULE_* */
    const char *name;     /* module identifier (source file name) */
    uint64_t hash;        /* FNV-1a of the module identifier */
    uint32_t nregions;
    uint32_t nkernels;
    const hcrt_region_desc_t *regions;
    const hcrt_kernel_desc_t *kernels;
    /* [shared_begin, shared_end): the linker's __start_/__stop_ symbols of
     * section "hcrt_shared" (initialised writable globals, page aligned);
     * NULL if the module has none. Every module of one executable reports
     * the same. */
    void *shared_begin;
    void *shared_end;
    /* The same for section "hcrt_shared_bss" (zero-initialised writable
     * globals, SHT_NOBITS, page aligned). The linker places it apart from
     * "hcrt_shared" (after .bss), so it is a second range. */
    void *shared_bss_begin;
    void *shared_bss_end;
} hcrt_module_desc_t;

HCRT_ABI_EXPORT void __hcrt_register_module(const hcrt_module_desc_t *m);

/* One task construct: the entry function clang outlines for it (the
 * `entry` of __kmpc_omp_task_alloc), so a task that runs on another node
 * is named by its site id, never by a code pointer. `flags` name what keeps
 * the site's tasks on the node that creates them. */
#define HCRT_TASK_SITE_REDUCTION 0x1   /* in_reduction: the creator's copies */
#define HCRT_TASK_SITE_TARGET 0x2      /* target constructs inside the task */
#define HCRT_TASK_SITE_UNSUPPORTED 0x4 /* runtime calls hcc cannot lower */
#define HCRT_TASK_SITE_TASKLOOP 0x8    /* the pattern task of a taskloop */

typedef int32_t (*hcrt_task_entry_t)(int32_t gtid, void *task);

typedef struct hcrt_task_site {
    uint64_t id;      /* stable: FNV-1a of "<module id>:<entry name>" */
    const char *name; /* the entry function's name */
    const char *file; /* user source file of the construct ("" if unknown) */
    int32_t line;     /* its line (0 if unknown) */
    uint32_t flags;   /* HCRT_TASK_SITE_* */
    hcrt_task_entry_t entry;
} hcrt_task_site_t;

/* The module's task sites; the pass calls it from the module's constructor
 * right after __hcrt_register_module, when the module has any. */
HCRT_ABI_EXPORT void __hcrt_register_tasks(const hcrt_module_desc_t *m,
                                           const hcrt_task_site_t *sites,
                                           uint32_t nsites);

/* The pass renames the user's `main` to `__hcrt_user_main` and emits a `main`
 * that calls this. It initialises the runtime (MPI, DSM, roles); the head runs
 * `user_main` and returns its status, workers serve events and return the
 * job's status. Never returns on a fatal error (the job is aborted). */
typedef int (*hcrt_main_fn_t)(int argc, char **argv, char **envp);
HCRT_ABI_EXPORT int __hcrt_main(int argc, char **argv, char **envp,
                                hcrt_main_fn_t user_main);

/* Defined by the pass, weak, in every module that calls MPI_Init,
 * MPI_Init_thread or one of their PMPI or Fortran forms: "file:line:
 * function calls NAME". Such a program owns MPI, so the runtime (which
 * refers to it weakly: null in every other program) leaves MPI alone and
 * every rank runs main (docs/runtime.md, "MPI programs"). */
#if defined(HCRT_BUILDING_RUNTIME)
__attribute__((weak))
#endif
HCRT_ABI_EXPORT extern const char *const __hcrt_mpi_program;

/* ------------------------------------------------------------------------
 * Parallel regions.
 * ------------------------------------------------------------------------ */

/* Replaces __kmpc_fork_call(loc, argc, microtask, a0, ..., an-1): args holds
 * the n variadic arguments, each widened to pointer size. */
HCRT_ABI_EXPORT void __hcrt_fork(hcrt_ident_t *loc,
                                 const hcrt_region_desc_t *region, void **args);
/* Replaces __kmpc_fork_call_if(loc, argc, microtask, cond, args). */
HCRT_ABI_EXPORT void __hcrt_fork_if(hcrt_ident_t *loc,
                                    const hcrt_region_desc_t *region,
                                    int32_t cond, void **args);
/* Replaces __kmpc_fork_teams(loc, argc, microtask, ...). */
HCRT_ABI_EXPORT void __hcrt_fork_teams(hcrt_ident_t *loc,
                                       const hcrt_region_desc_t *region,
                                       void **args);

HCRT_ABI_EXPORT int32_t __hcrt_global_thread_num(hcrt_ident_t *loc);
/* Called before a __kmpc_fork_call the pass left to libomp (its region
 * uses a call hcc cannot lower) unless a num_threads push precedes it: on
 * the head at level 0 in a cluster job, pushes the team size
 * omp_get_max_threads() announced. Added in ABI version 3 (additive). */
HCRT_ABI_EXPORT void __hcrt_libomp_team(hcrt_ident_t *loc);
/* The calling thread's copy of a threadprivate variable libomp keeps
 * (flang's threadprivate; clang's with -fno-openmp-use-tls), called
 * outside the regions that run on the head: the head asks libomp, a worker
 * keeps its threads' own copies (tprivate.c). Added in ABI version 3
 * (additive). */
HCRT_ABI_EXPORT void *__hcrt_threadprivate_cached(hcrt_ident_t *loc,
                                                  int32_t gtid, void *data,
                                                  size_t size, void ***cache);
HCRT_ABI_EXPORT void __hcrt_push_num_threads(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nthreads);
HCRT_ABI_EXPORT void __hcrt_push_proc_bind(hcrt_ident_t *loc, int32_t gtid,
                                           int32_t bind);
HCRT_ABI_EXPORT void __hcrt_push_num_teams(hcrt_ident_t *loc, int32_t gtid,
                                           int32_t nteams, int32_t nthreads);
/* thread_limit clause of a target construct (clang calls it in the
 * construct's task before the kernel launch). Added in ABI version 1
 * (additive). */
HCRT_ABI_EXPORT void __hcrt_set_thread_limit(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t limit);
HCRT_ABI_EXPORT void __hcrt_serialized_parallel(hcrt_ident_t *loc,
                                                int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_end_serialized_parallel(hcrt_ident_t *loc,
                                                    int32_t gtid);

/* ------------------------------------------------------------------------
 * Worksharing loops (signatures of __kmpc_for_static_init_* etc.).
 * ------------------------------------------------------------------------ */

#define HCRT_DECL_STATIC_INIT(sfx, T)                                          \
    HCRT_ABI_EXPORT void __hcrt_for_static_init_##sfx(                         \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, T *pstride, T incr, T chunk);                    \
    HCRT_ABI_EXPORT void __hcrt_dist_for_static_init_##sfx(                    \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, T *pupperd, T *pstride, T incr, T chunk);        \
    HCRT_ABI_EXPORT void __hcrt_team_static_init_##sfx(                        \
        hcrt_ident_t *loc, int32_t gtid, int32_t *plast, T *plower, T *pupper, \
        T *pstride, T incr, T chunk);                                          \
    HCRT_ABI_EXPORT void __hcrt_dispatch_init_##sfx(                           \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, T lb, T ub, T st,      \
        T chunk);                                                              \
    HCRT_ABI_EXPORT int32_t __hcrt_dispatch_next_##sfx(                        \
        hcrt_ident_t *loc, int32_t gtid, int32_t *plast, T *plower, T *pupper, \
        T *pstride);                                                           \
    HCRT_ABI_EXPORT void __hcrt_dispatch_fini_##sfx(hcrt_ident_t *loc,         \
                                                    int32_t gtid);

/* The stride type of the unsigned variants is signed in libomp. */
HCRT_DECL_STATIC_INIT(4, int32_t)
HCRT_DECL_STATIC_INIT(8, int64_t)
#undef HCRT_DECL_STATIC_INIT

HCRT_ABI_EXPORT void
__hcrt_for_static_init_4u(hcrt_ident_t *loc, int32_t gtid, int32_t sched,
                          int32_t *plast, uint32_t *plower, uint32_t *pupper,
                          int32_t *pstride, int32_t incr, int32_t chunk);
HCRT_ABI_EXPORT void
__hcrt_for_static_init_8u(hcrt_ident_t *loc, int32_t gtid, int32_t sched,
                          int32_t *plast, uint64_t *plower, uint64_t *pupper,
                          int64_t *pstride, int64_t incr, int64_t chunk);
HCRT_ABI_EXPORT void
__hcrt_dist_for_static_init_4u(hcrt_ident_t *loc, int32_t gtid, int32_t sched,
                               int32_t *plast, uint32_t *plower,
                               uint32_t *pupper, uint32_t *pupperd,
                               int32_t *pstride, int32_t incr, int32_t chunk);
HCRT_ABI_EXPORT void
__hcrt_dist_for_static_init_8u(hcrt_ident_t *loc, int32_t gtid, int32_t sched,
                               int32_t *plast, uint64_t *plower,
                               uint64_t *pupper, uint64_t *pupperd,
                               int64_t *pstride, int64_t incr, int64_t chunk);
HCRT_ABI_EXPORT void
__hcrt_team_static_init_4u(hcrt_ident_t *loc, int32_t gtid, int32_t *plast,
                           uint32_t *plower, uint32_t *pupper, int32_t *pstride,
                           int32_t incr, int32_t chunk);
HCRT_ABI_EXPORT void
__hcrt_team_static_init_8u(hcrt_ident_t *loc, int32_t gtid, int32_t *plast,
                           uint64_t *plower, uint64_t *pupper, int64_t *pstride,
                           int64_t incr, int64_t chunk);
HCRT_ABI_EXPORT void __hcrt_dispatch_init_4u(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t sched, uint32_t lb,
                                             uint32_t ub, int32_t st,
                                             int32_t chunk);
HCRT_ABI_EXPORT void __hcrt_dispatch_init_8u(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t sched, uint64_t lb,
                                             uint64_t ub, int64_t st,
                                             int64_t chunk);
HCRT_ABI_EXPORT int32_t __hcrt_dispatch_next_4u(hcrt_ident_t *loc, int32_t gtid,
                                                int32_t *plast,
                                                uint32_t *plower,
                                                uint32_t *pupper,
                                                int32_t *pstride);
HCRT_ABI_EXPORT int32_t __hcrt_dispatch_next_8u(hcrt_ident_t *loc, int32_t gtid,
                                                int32_t *plast,
                                                uint64_t *plower,
                                                uint64_t *pupper,
                                                int64_t *pstride);
HCRT_ABI_EXPORT void __hcrt_dispatch_fini_4u(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_dispatch_fini_8u(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_dispatch_deinit(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_for_static_fini(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_ordered(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_end_ordered(hcrt_ident_t *loc, int32_t gtid);

/* Loop schedule hints from hcc-s2s (`schedule(hetprobe[, pct])`,
 * `schedule(hetprobe_i[, pct])`): s2s turns the clause into
 * `schedule(runtime)` and places a call to this right before the construct;
 * the hint applies to the next worksharing loop this thread (or the team it
 * forks next) initialises. `percent` is 1..100 as written in the clause, or
 * 0 when the clause has none (use the runtime's default). */
typedef enum hcrt_sched_hint_kind {
    HCRT_SCHED_HINT_NONE = 0,
    HCRT_SCHED_HINT_HETPROBE = 1,
    HCRT_SCHED_HINT_HETPROBE_I = 2
} hcrt_sched_hint_kind_t;
HCRT_ABI_EXPORT void __hcrt_sched_hint(int32_t kind, int32_t percent,
                                       const char *file, int32_t line);

/* A worksharing loop without a schedule clause: clang lowers it exactly like
 * schedule(static), so hcc's pragma scan writes
 * `schedule(dynamic, HCRT_SCHED_DEFAULT_CHUNK)` on it instead, and a dynamic
 * loop with this chunk gets the implementation's schedule: static on one
 * node, HCRT_SCHED_DEFAULT across nodes. (compiler/s2s/pragma_scan.h.) */
#define HCRT_SCHED_DEFAULT_CHUNK 2147483629

/* Migration points. The pass inserts, at the chunk boundaries of every
 * cluster loop whose chunks do not already pass through the runtime
 * (static schedules), the equivalent of
 *     if (__builtin_expect(__hcrt_migrate_pending, 0))
 *         __hcrt_migration_point(loc, gtid);
 * The flag is set by the runtime when work should move between nodes. */
extern HCRT_ABI_EXPORT volatile int32_t __hcrt_migrate_pending;
HCRT_ABI_EXPORT void __hcrt_migration_point(hcrt_ident_t *loc, int32_t gtid);

/* ------------------------------------------------------------------------
 * Synchronisation and reductions (signatures of the __kmpc_ entries).
 * ------------------------------------------------------------------------ */

typedef void (*hcrt_reduce_fn_t)(void *lhs, void *rhs);
typedef void (*hcrt_cpy_fn_t)(void *dst, void *src);

HCRT_ABI_EXPORT int32_t __hcrt_reduce(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t nvars, size_t size, void *data,
                                      hcrt_reduce_fn_t fn,
                                      hcrt_critical_name_t *lck);
HCRT_ABI_EXPORT int32_t __hcrt_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nvars, size_t size,
                                             void *data, hcrt_reduce_fn_t fn,
                                             hcrt_critical_name_t *lck);
HCRT_ABI_EXPORT void __hcrt_end_reduce(hcrt_ident_t *loc, int32_t gtid,
                                       hcrt_critical_name_t *lck);
HCRT_ABI_EXPORT void __hcrt_end_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                              hcrt_critical_name_t *lck);

HCRT_ABI_EXPORT void __hcrt_barrier(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT int32_t __hcrt_cancel_barrier(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT int32_t __hcrt_cancel(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t kind);
HCRT_ABI_EXPORT int32_t __hcrt_cancellationpoint(hcrt_ident_t *loc,
                                                 int32_t gtid, int32_t kind);
HCRT_ABI_EXPORT int32_t __hcrt_single(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_end_single(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_copyprivate(hcrt_ident_t *loc, int32_t gtid,
                                        size_t size, void *data,
                                        hcrt_cpy_fn_t fn, int32_t didit);
HCRT_ABI_EXPORT int32_t __hcrt_master(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_end_master(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT int32_t __hcrt_masked(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t filter);
HCRT_ABI_EXPORT void __hcrt_end_masked(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_critical(hcrt_ident_t *loc, int32_t gtid,
                                     hcrt_critical_name_t *crit);
HCRT_ABI_EXPORT void __hcrt_critical_with_hint(hcrt_ident_t *loc, int32_t gtid,
                                               hcrt_critical_name_t *crit,
                                               uint32_t hint);
HCRT_ABI_EXPORT void __hcrt_end_critical(hcrt_ident_t *loc, int32_t gtid,
                                         hcrt_critical_name_t *crit);
HCRT_ABI_EXPORT void __hcrt_flush(hcrt_ident_t *loc);

/* ------------------------------------------------------------------------
 * Atomics in region code (atomicrmw, cmpxchg, atomic load/store).
 * `order` is a C11/GCC __ATOMIC_* constant. Integers are passed zero-extended
 * in the unsigned type of their width; pointers as width 8.
 * ------------------------------------------------------------------------ */

#define HCRT_DECL_ATOMIC_INT(N, T)                                             \
    HCRT_ABI_EXPORT T __hcrt_atomic_xchg_##N(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_add_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_sub_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_and_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_nand_##N(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_or_##N(void *p, T v, int32_t order);       \
    HCRT_ABI_EXPORT T __hcrt_atomic_xor_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_max_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_min_##N(void *p, T v, int32_t order);      \
    HCRT_ABI_EXPORT T __hcrt_atomic_umax_##N(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_umin_##N(void *p, T v, int32_t order);     \
    /* Returns the old value; *p = desired iff old == expected. */             \
    HCRT_ABI_EXPORT T __hcrt_atomic_cas_##N(void *p, T expected, T desired,    \
                                            int32_t succ, int32_t fail);       \
    HCRT_ABI_EXPORT T __hcrt_atomic_load_##N(const void *p, int32_t order);    \
    HCRT_ABI_EXPORT void __hcrt_atomic_store_##N(void *p, T v, int32_t order);

HCRT_DECL_ATOMIC_INT(1, uint8_t)
HCRT_DECL_ATOMIC_INT(2, uint16_t)
HCRT_DECL_ATOMIC_INT(4, uint32_t)
HCRT_DECL_ATOMIC_INT(8, uint64_t)
#undef HCRT_DECL_ATOMIC_INT

/* `max`/`min` above are signed comparisons on the bit pattern of width N. */

#define HCRT_DECL_ATOMIC_FP(S, T)                                              \
    HCRT_ABI_EXPORT T __hcrt_atomic_fadd_##S(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_fsub_##S(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_fmax_##S(void *p, T v, int32_t order);     \
    HCRT_ABI_EXPORT T __hcrt_atomic_fmin_##S(void *p, T v, int32_t order);

HCRT_DECL_ATOMIC_FP(f32, float)
HCRT_DECL_ATOMIC_FP(f64, double)
#undef HCRT_DECL_ATOMIC_FP

/* ------------------------------------------------------------------------
 * Memory: user heap, escaping stack slots, writable globals.
 * ------------------------------------------------------------------------ */

/* Same semantics as the C library's. __hcrt_free/__hcrt_realloc accept
 * pointers that did not come from the DSM heap (e.g. from strdup/getline)
 * and hand them to the C library. */
HCRT_ABI_EXPORT void *__hcrt_malloc(size_t size);
HCRT_ABI_EXPORT void *__hcrt_calloc(size_t n, size_t size);
HCRT_ABI_EXPORT void *__hcrt_realloc(void *p, size_t size);
HCRT_ABI_EXPORT void __hcrt_free(void *p);
HCRT_ABI_EXPORT void *__hcrt_aligned_alloc(size_t align, size_t size);
HCRT_ABI_EXPORT int __hcrt_posix_memalign(void **out, size_t align,
                                          size_t size);
HCRT_ABI_EXPORT void *__hcrt_memalign(size_t align, size_t size);

/* C++'s replaceable global operator new/delete (Itanium names on x86_64;
 * `nt` is the std::nothrow_t reference, `al` the std::align_val_t): the pass
 * renames _Znwm to __hcrt_cxx_new and so on (compiler/passes/Heap.cpp). The
 * same contract as the C++ library's operators; delete accepts pointers of
 * the library's own operator new. Added in ABI version 1 (additive). */
HCRT_ABI_EXPORT void *__hcrt_cxx_new(size_t size);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_array(size_t size);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_nothrow(size_t size, const void *nt);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_nothrow(size_t size, const void *nt);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned(size_t size, size_t al);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_aligned(size_t size, size_t al);
HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned_nothrow(size_t size, size_t al,
                                                     const void *nt);
HCRT_ABI_EXPORT void *
__hcrt_cxx_new_array_aligned_nothrow(size_t size, size_t al, const void *nt);
HCRT_ABI_EXPORT void __hcrt_cxx_delete(void *p);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array(void *p);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_sized(void *p, size_t n);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_sized(void *p, size_t n);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_nothrow(void *p, const void *nt);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_nothrow(void *p, const void *nt);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_aligned(void *p, size_t al);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_aligned(void *p, size_t al);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_sized_aligned(void *p, size_t n,
                                                     size_t al);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_sized_aligned(void *p, size_t n,
                                                           size_t al);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_aligned_nothrow(void *p, size_t al,
                                                       const void *nt);
HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_aligned_nothrow(void *p, size_t al,
                                                             const void *nt);

/* C++ function-local statics (Itanium guards, `g` the 64-bit guard
 * variable): the pass renames __cxa_guard_acquire/release/abort to these
 * and turns the inline fast path's acquire load of the guard's first byte
 * into __hcrt_cxa_guard_done. In cluster mode a guard in DSM memory is
 * initialised once for the whole program (libhcrt/guard.c); otherwise they
 * are the C++ library's. Added in ABI version 1 (additive). */
HCRT_ABI_EXPORT uint8_t __hcrt_cxa_guard_done(uint64_t *g);
HCRT_ABI_EXPORT int __hcrt_cxa_guard_acquire(uint64_t *g);
HCRT_ABI_EXPORT void __hcrt_cxa_guard_release(uint64_t *g);
HCRT_ABI_EXPORT void __hcrt_cxa_guard_abort(uint64_t *g);

/* Storage for stack variables whose address may reach a parallel region.
 * A frame calls __hcrt_stack_save() on entry, __hcrt_stack_alloc() for each
 * such variable (VLAs and dynamic allocas included), and
 * __hcrt_stack_restore(mark) on every exit: a per-thread LIFO in DSM memory. */
HCRT_ABI_EXPORT void *__hcrt_stack_save(void);
HCRT_ABI_EXPORT void *__hcrt_stack_alloc(size_t size, size_t align);
HCRT_ABI_EXPORT void __hcrt_stack_restore(void *mark);

/* The calling thread's arena as frames use it inline (hcc's stack pass):
 * the mark is `top`; a frame's fixed-size variables are one block bumped
 * from `top` when it fits below `end` (else __hcrt_stack_alloc); a mark
 * within [base, end] is restored by storing it to `top` (else
 * __hcrt_stack_restore). All NULL before the thread's first chunk. Added
 * in ABI version 1 (additive). */
typedef struct hcrt_stack_arena {
    char *top;  /* next free byte of the current chunk */
    char *end;  /* its end */
    char *base; /* its first byte */
} hcrt_stack_arena_t;
extern HCRT_ABI_EXPORT _Thread_local hcrt_stack_arena_t __hcrt_stack_arena;

/* The allocate directive and clause: clang's __kmpc_alloc family (the
 * allocator is an omp_allocator_handle_t); DSM memory in cluster mode. */
HCRT_ABI_EXPORT void *__hcrt_kmpc_alloc(int gtid, size_t size,
                                        uintptr_t allocator);
HCRT_ABI_EXPORT void *__hcrt_kmpc_aligned_alloc(int gtid, size_t align,
                                                size_t size,
                                                uintptr_t allocator);
HCRT_ABI_EXPORT void *__hcrt_kmpc_calloc(int gtid, size_t n, size_t size,
                                         uintptr_t allocator);
HCRT_ABI_EXPORT void *__hcrt_kmpc_realloc(int gtid, void *p, size_t size,
                                          uintptr_t allocator,
                                          uintptr_t free_allocator);
HCRT_ABI_EXPORT void __hcrt_kmpc_free(int gtid, void *p, uintptr_t allocator);

/* Writable, defined, non-TLS globals are moved by the pass into section
 * "hcrt_shared" (initialised, PROGBITS) or "hcrt_shared_bss"
 * (zero-initialised, NOBITS), each module ending both with a 4 KiB,
 * page-aligned anchor so that each section starts and ends on a page.
 * The module descriptor carries the bounds of both. */

/* ------------------------------------------------------------------------
 * Tasks (signatures of the __kmpc_omp_* entries).
 * ------------------------------------------------------------------------ */

typedef struct hcrt_depend_info {
    intptr_t base_addr;
    size_t len;
    uint8_t flags; /* 1 in, 2 out, 3 inout, 4 mutexinoutset, 8 set */
} hcrt_depend_info_t;

HCRT_ABI_EXPORT void *__hcrt_omp_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                            int32_t flags, size_t sizeof_task,
                                            size_t sizeof_shareds,
                                            hcrt_task_entry_t entry);
HCRT_ABI_EXPORT void *
__hcrt_omp_target_task_alloc(hcrt_ident_t *loc, int32_t gtid, int32_t flags,
                             size_t sizeof_task, size_t sizeof_shareds,
                             hcrt_task_entry_t entry, int64_t device_id);
HCRT_ABI_EXPORT int32_t __hcrt_omp_task(hcrt_ident_t *loc, int32_t gtid,
                                        void *task);
HCRT_ABI_EXPORT int32_t __hcrt_omp_task_with_deps(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task,
                                                  int32_t ndeps,
                                                  hcrt_depend_info_t *deps,
                                                  int32_t ndeps_noalias,
                                                  hcrt_depend_info_t *noalias);
HCRT_ABI_EXPORT void __hcrt_omp_wait_deps(hcrt_ident_t *loc, int32_t gtid,
                                          int32_t ndeps,
                                          hcrt_depend_info_t *deps,
                                          int32_t ndeps_noalias,
                                          hcrt_depend_info_t *noalias);
HCRT_ABI_EXPORT void
__hcrt_omp_taskwait_deps_51(hcrt_ident_t *loc, int32_t gtid, int32_t ndeps,
                            hcrt_depend_info_t *deps, int32_t ndeps_noalias,
                            hcrt_depend_info_t *noalias, int32_t nowait);
HCRT_ABI_EXPORT void __hcrt_omp_task_begin_if0(hcrt_ident_t *loc, int32_t gtid,
                                               void *task);
HCRT_ABI_EXPORT void __hcrt_omp_task_complete_if0(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task);
HCRT_ABI_EXPORT int32_t __hcrt_omp_taskwait(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT int32_t __hcrt_omp_taskyield(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t end_part);
HCRT_ABI_EXPORT void __hcrt_taskgroup(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_end_taskgroup(hcrt_ident_t *loc, int32_t gtid);
HCRT_ABI_EXPORT void __hcrt_taskloop(hcrt_ident_t *loc, int32_t gtid,
                                     void *task, int32_t if_val, uint64_t *lb,
                                     uint64_t *ub, int64_t st, int32_t nogroup,
                                     int32_t sched, uint64_t grainsize,
                                     void *task_dup);
HCRT_ABI_EXPORT void __hcrt_taskloop_5(hcrt_ident_t *loc, int32_t gtid,
                                       void *task, int32_t if_val, uint64_t *lb,
                                       uint64_t *ub, int64_t st,
                                       int32_t nogroup, int32_t sched,
                                       uint64_t grainsize, int32_t modifier,
                                       void *task_dup);
HCRT_ABI_EXPORT void *__hcrt_taskred_init(int32_t gtid, int32_t num,
                                          void *data);
HCRT_ABI_EXPORT void *__hcrt_taskred_modifier_init(hcrt_ident_t *loc,
                                                   int32_t gtid, int32_t is_ws,
                                                   int32_t num, void *data);
HCRT_ABI_EXPORT void __hcrt_task_reduction_modifier_fini(hcrt_ident_t *loc,
                                                         int32_t gtid,
                                                         int32_t is_ws);
HCRT_ABI_EXPORT void *__hcrt_task_reduction_get_th_data(int32_t gtid, void *tg,
                                                        void *d);

/* ------------------------------------------------------------------------
 * Target offload (signatures of libomptarget's __tgt_* entries).
 * ------------------------------------------------------------------------ */

#define HCRT_KERNEL_ARGS_VERSION 3 /* OMP_KERNEL_ARG_VERSION of LLVM 19 */

typedef struct hcrt_kernel_args {
    uint32_t version;
    uint32_t num_args;
    void **arg_base_ptrs;
    void **arg_ptrs;
    int64_t *arg_sizes;
    int64_t *arg_types;
    void **arg_names;
    void **arg_mappers;
    uint64_t tripcount;
    uint64_t flags; /* bit 0: nowait */
    uint32_t num_teams[3];
    uint32_t thread_limit[3];
    uint32_t dyn_cgroup_mem;
} hcrt_kernel_args_t;

/* Returns 0 when the region ran (on some node); non-zero makes the caller run
 * the host fallback itself, as with libomptarget. */
HCRT_ABI_EXPORT int32_t __hcrt_target_kernel(
    hcrt_ident_t *loc, int64_t device_id, int32_t num_teams,
    int32_t thread_limit, void *host_ptr, hcrt_kernel_args_t *args);

#define HCRT_DECL_TGT_DATA(what)                                               \
    HCRT_ABI_EXPORT void __hcrt_target_data_##what##_mapper(                   \
        hcrt_ident_t *loc, int64_t device_id, int32_t nargs, void **bases,     \
        void **ptrs, int64_t *sizes, int64_t *types, void **names,             \
        void **mappers);                                                       \
    HCRT_ABI_EXPORT void __hcrt_target_data_##what##_nowait_mapper(            \
        hcrt_ident_t *loc, int64_t device_id, int32_t nargs, void **bases,     \
        void **ptrs, int64_t *sizes, int64_t *types, void **names,             \
        void **mappers, int32_t ndeps, void *deps, int32_t ndeps_noalias,      \
        void *noalias);

HCRT_DECL_TGT_DATA(begin)
HCRT_DECL_TGT_DATA(end)
HCRT_DECL_TGT_DATA(update)
#undef HCRT_DECL_TGT_DATA

HCRT_ABI_EXPORT void __hcrt_register_requires(int64_t flags);
HCRT_ABI_EXPORT int64_t __hcrt_mapper_num_components(void *handle);
HCRT_ABI_EXPORT void __hcrt_push_mapper_component(void *handle, void *base,
                                                  void *begin, int64_t size,
                                                  int64_t type, void *name);

/* ------------------------------------------------------------------------
 * OpenMP API calls made by user code: `omp_<name>(...)` becomes
 * `__hcrt_omp_<name>(...)` with the same signature, for every name in
 * HCRT_OMP_API_LIST. Names not listed keep calling libomp directly.
 * ------------------------------------------------------------------------ */

// clang-format off
#define HCRT_OMP_API_LIST(X)                                                 \
    X(get_thread_num) X(get_num_threads) X(get_max_threads)                  \
    X(set_num_threads) X(get_num_procs) X(in_parallel) X(get_level)          \
    X(get_active_level) X(get_ancestor_thread_num) X(get_team_size)          \
    X(get_thread_limit) X(set_dynamic) X(get_dynamic) X(set_nested)          \
    X(get_nested) X(set_max_active_levels) X(get_max_active_levels)          \
    X(set_schedule) X(get_schedule) X(get_wtime) X(get_wtick)                \
    X(in_final) X(get_cancellation) X(get_proc_bind)                         \
    X(get_num_teams) X(get_team_num)                                         \
    X(pause_resource) X(pause_resource_all)                                  \
    X(get_num_devices) X(get_device_num) X(get_default_device)               \
    X(set_default_device) X(is_initial_device) X(get_initial_device)         \
    X(init_lock) X(init_lock_with_hint) X(destroy_lock) X(set_lock)          \
    X(unset_lock) X(test_lock) X(init_nest_lock)                             \
    X(init_nest_lock_with_hint) X(destroy_nest_lock) X(set_nest_lock)        \
    X(unset_nest_lock) X(test_nest_lock)                                     \
    X(target_alloc) X(target_free) X(target_is_present) X(target_memcpy)     \
    X(target_memcpy_rect) X(target_associate_ptr)                            \
    X(target_disassociate_ptr)                                               \
    X(init_allocator) X(destroy_allocator) X(alloc) X(aligned_alloc)         \
    X(calloc) X(aligned_calloc) X(realloc) X(free)
// clang-format on

/* The runtime defines each __hcrt_omp_<name> with omp.h's prototype. */

/* libomp's Fortran entry points, `omp_<name>_` (every argument by
 * reference), called by Fortran code that declares the routines `external`
 * rather than `use omp_lib`: each becomes `__hcrt_omp_<name>_` with the
 * same signature. */
// clang-format off
#define HCRT_OMP_FAPI_LIST(X)                                                \
    X(get_thread_num) X(get_num_threads) X(get_max_threads)                  \
    X(get_num_procs) X(in_parallel) X(get_level) X(get_active_level)         \
    X(get_thread_limit) X(get_dynamic) X(get_nested)                         \
    X(get_max_active_levels) X(in_final) X(get_cancellation)                 \
    X(get_num_teams) X(get_team_num) X(get_num_devices) X(get_device_num)    \
    X(get_default_device) X(is_initial_device) X(get_initial_device)         \
    X(set_num_threads) X(set_dynamic) X(set_nested)                          \
    X(set_max_active_levels) X(set_default_device)                           \
    X(get_ancestor_thread_num) X(get_team_size)                              \
    X(init_lock) X(destroy_lock) X(set_lock) X(unset_lock) X(test_lock)      \
    X(init_nest_lock) X(destroy_nest_lock) X(set_nest_lock)                  \
    X(unset_nest_lock) X(test_nest_lock)                                     \
    X(get_proc_bind) X(get_wtime) X(get_wtick) X(set_schedule)               \
    X(get_schedule)
// clang-format on

#ifdef __cplusplus
}
#endif

#endif /* HCRT_ABI_H */
