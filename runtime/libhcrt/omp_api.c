/*
 * omp_api.c - the OpenMP API as called by user code (__hcrt_omp_<name>).
 *
 * One node: thread and team queries, ICVs and locks are libomp's. Device
 * queries answer for hcrt's devices (worker nodes; none in this version), so
 * the host is the initial device and the only one.
 */
#include <time.h>

#include "base/kmp_abi.h"
#include "base/proc.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/offload/ofl_exec.h"

#define FWD_INT0(name)                                                         \
    HCRT_ABI_EXPORT int __hcrt_omp_##name(void)                                \
    {                                                                          \
        return omp_##name();                                                   \
    }
#define FWD_VOID_INT(name)                                                     \
    HCRT_ABI_EXPORT void __hcrt_omp_##name(int v)                              \
    {                                                                          \
        omp_##name(v);                                                         \
    }
#define FWD_INT_INT(name)                                                      \
    HCRT_ABI_EXPORT int __hcrt_omp_##name(int v)                               \
    {                                                                          \
        return omp_##name(v);                                                  \
    }
#define FWD_LOCK(name, T)                                                      \
    HCRT_ABI_EXPORT void __hcrt_omp_##name(T *l)                               \
    {                                                                          \
        omp_##name(l);                                                         \
    }

#define CLUSTER HCRT_UNLIKELY(hcrt__cluster_on)

/* ---- team queries: cluster-wide at the outer level of a cluster region -- */

HCRT_ABI_EXPORT int __hcrt_omp_get_thread_num(void)
{
    if (CLUSTER && hcrt__cluster_here())
        return hcrt__cluster_tid();
    return omp_get_thread_num();
}

HCRT_ABI_EXPORT int __hcrt_omp_get_num_threads(void)
{
    if (CLUSTER && hcrt__cluster_here())
        return hcrt__cluster_team.total;
    return omp_get_num_threads();
}

/* Outside any region (the head's serial code): the size of the next
 * cluster team, so that an array sized by omp_get_max_threads() holds every
 * omp_get_thread_num(). Inside regions libomp's nthreads-var, which the
 * cluster's forks set to the head's (cluster_nest.c). */
HCRT_ABI_EXPORT int __hcrt_omp_get_max_threads(void)
{
    if (CLUSTER && omp_get_level() == 0 && !hcrt__cluster_inside())
        return hcrt__cluster_max_threads();
    return omp_get_max_threads();
}

HCRT_ABI_EXPORT void __hcrt_omp_set_num_threads(int n)
{
    if (CLUSTER && omp_get_level() == 0 && !hcrt__cluster_inside())
        hcrt__cluster_set_num_threads(n > 0 ? n : 1); /* as libomp does */
    omp_set_num_threads(n);
}

/* Inside a cluster region (any level) the cluster team of level 1 is an
 * active region: a team of several threads. */
HCRT_ABI_EXPORT int __hcrt_omp_in_parallel(void)
{
    if (CLUSTER && hcrt__cluster_inside())
        return 1;
    return omp_in_parallel();
}

HCRT_ABI_EXPORT int __hcrt_omp_get_active_level(void)
{
    if (CLUSTER && hcrt__cluster_inside())
        return hcrt__cluster_active_level();
    return omp_get_active_level();
}

/* Level 1 is the cluster team; deeper levels are teams of this node. */
HCRT_ABI_EXPORT int __hcrt_omp_get_ancestor_thread_num(int level)
{
    if (CLUSTER && level == 1 && hcrt__cluster_inside() && omp_get_level() >= 1)
        return hcrt__cluster_nest.tid1;
    return omp_get_ancestor_thread_num(level);
}

HCRT_ABI_EXPORT int __hcrt_omp_get_team_size(int level)
{
    if (CLUSTER && level == 1 && hcrt__cluster_inside() && omp_get_level() >= 1)
        return hcrt__cluster_nest.total;
    return omp_get_team_size(level);
}

/* In a cluster job the processors the program runs on are the cluster's:
 * as many as its default team (each node's threads, hcrun --threads). The
 * common `omp_set_num_threads(omp_get_num_procs())` (XSBench, RSBench)
 * asked for one node's count, a team too small to reach the other nodes,
 * and every region ran on the head. */
HCRT_ABI_EXPORT int __hcrt_omp_get_num_procs(void)
{
    if (CLUSTER && hcrt__cluster_default_threads() > 0)
        return hcrt__cluster_default_threads();
    return omp_get_num_procs();
}
FWD_INT0(get_level)
FWD_INT0(get_thread_limit)
FWD_VOID_INT(set_dynamic)
FWD_INT0(get_dynamic)
FWD_VOID_INT(set_nested)
FWD_INT0(get_nested)
FWD_VOID_INT(set_max_active_levels)
FWD_INT0(get_max_active_levels)
FWD_INT0(in_final)
FWD_INT0(get_cancellation)
FWD_INT0(get_num_teams)
FWD_INT0(get_team_num)
FWD_INT0(get_default_device)
FWD_VOID_INT(set_default_device)

HCRT_ABI_EXPORT void __hcrt_omp_set_schedule(hcrt_omp_sched_t kind, int chunk)
{
    omp_set_schedule(kind, chunk);
}

HCRT_ABI_EXPORT void __hcrt_omp_get_schedule(hcrt_omp_sched_t *kind, int *chunk)
{
    omp_get_schedule(kind, chunk);
}

HCRT_ABI_EXPORT double __hcrt_omp_get_wtime(void)
{
    return omp_get_wtime();
}

HCRT_ABI_EXPORT double __hcrt_omp_get_wtick(void)
{
    return omp_get_wtick();
}

HCRT_ABI_EXPORT hcrt_omp_proc_bind_t __hcrt_omp_get_proc_bind(void)
{
    return omp_get_proc_bind();
}

/* ---- devices: worker nodes are the devices, the head is the host ------- */

HCRT_ABI_EXPORT int __hcrt_omp_get_num_devices(void)
{
    return hcrt__num_devices();
}

HCRT_ABI_EXPORT int __hcrt_omp_get_initial_device(void)
{
    return hcrt__num_devices(); /* OpenMP 5.1: the host is num_devices */
}

HCRT_ABI_EXPORT int __hcrt_omp_get_device_num(void)
{
    int d = hcrt__offload_cur_device(); /* in a kernel on a worker node */
    return d >= 0 ? d : hcrt__num_devices();
}

HCRT_ABI_EXPORT int __hcrt_omp_is_initial_device(void)
{
    return hcrt__offload_cur_device() < 0;
}

/* hcrt numbers the devices (the host is num_devices); libomp's own
 * omp_pause_resource knows only its numbering and would take the host for a
 * libomptarget device. A worker device keeps its threads for the cluster
 * regions it serves, which the spec allows: pausing it succeeds. */
static int pause_host(int kind)
{
    int rc = __kmpc_pause_resource(kind);

    /* A hard pause gives the ICVs their initial values again, also the
     * cluster's nthreads-var (omp_set_num_threads on the head). */
    if (rc == 0 && kind >= 2 && CLUSTER)
        hcrt__cluster_set_num_threads(0);
    return rc;
}

HCRT_ABI_EXPORT int __hcrt_omp_pause_resource(int kind, int dev)
{
    if (dev == hcrt__num_devices())
        return pause_host(kind);
    return dev >= 0 && dev < hcrt__num_devices() ? 0 : 1;
}

HCRT_ABI_EXPORT int __hcrt_omp_pause_resource_all(int kind)
{
    return pause_host(kind);
}

/* ---- locks --------------------------------------------------------------- */

/* Cluster mode: a lock that lives in DSM memory is a word in that memory
 * (libomp's lock object is a pointer into one process's memory, meaningless
 * on the other nodes): 0 free, 1 held, changed by DSM atomics at the page's
 * home. Taking it is a compare-and-swap followed by a DSM acquire; giving
 * it back a DSM release followed by a store of 0, so the data it protects
 * moves with it; omp_test_lock is one compare-and-swap and never waits. */
#define DSM_LOCK(l) (CLUSTER && hcrt__dsm_contains(l))

static void word_store(void *l, uint64_t v, int order)
{
    hcrt__dsm_atomic(l, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE, v, 0, order);
}

/* The head alone (hcrt__cluster_head_alone_now): the lock word takes
 * plain atomics, without the DSM's acquire and release. NPB UA in Fortran
 * takes a lock per element face in `transfb`: with its calls on the head
 * alone it ran 4-5x slower at 2 ranks than on one node. */
static inline int word_local(void)
{
    return hcrt__cluster_head_alone_now();
}

static int word_try(void *l)
{
    if (word_local()) {
        uint64_t free_word = 0;
        return __atomic_compare_exchange_n((uint64_t *)l, &free_word, 1, 0,
                                           __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    }
    if (hcrt__dsm_atomic(l, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS, 1, 0,
                         __ATOMIC_RELAXED) != 0)
        return 0;
    hcrt__dsm_acquire();
    return 1;
}

/* Waits with a growing nap: the holder may be on another node. */
static void word_lock(void *l)
{
    long nap_ns = 1000;

    while (!word_try(l)) {
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 100000)
            nap_ns *= 2;
    }
}

static void word_unlock(void *l)
{
    if (word_local()) {
        __atomic_store_n((uint64_t *)l, 0, __ATOMIC_RELEASE);
        return;
    }
    pthread_mutex_lock(&hcrt__cluster_unlock_mutex);
    word_store(l, 0, __ATOMIC_RELEASE); /* DSM release, then the store */
    pthread_mutex_unlock(&hcrt__cluster_unlock_mutex);
}

HCRT_ABI_EXPORT void __hcrt_omp_init_lock(hcrt_omp_lock_t *l)
{
    if (DSM_LOCK(l))
        word_store(l, 0, __ATOMIC_RELAXED);
    else
        omp_init_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_destroy_lock(hcrt_omp_lock_t *l)
{
    if (!DSM_LOCK(l))
        omp_destroy_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_set_lock(hcrt_omp_lock_t *l)
{
    if (DSM_LOCK(l))
        word_lock(l);
    else
        omp_set_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_unset_lock(hcrt_omp_lock_t *l)
{
    if (DSM_LOCK(l))
        word_unlock(l);
    else
        omp_unset_lock(l);
}

/* A nestable lock in DSM memory: the lock word is taken once by the owning
 * thread, which counts its re-entries in a small per-thread table (only the
 * owner ever needs the count). */
#define MAX_NEST_HELD 16
static _Thread_local struct {
    void *lock;
    int count;
} nest_held[MAX_NEST_HELD];

static int nest_find(void *l)
{
    for (int i = 0; i < MAX_NEST_HELD; i++)
        if (nest_held[i].lock == l)
            return i;
    return -1;
}

/* Returns the new nesting count, or 0 when `try` and the lock is busy. */
static int dsm_nest_set(void *l, int try)
{
    int i = nest_find(l);

    if (i >= 0)
        return ++nest_held[i].count;
    i = nest_find(NULL);
    if (i < 0)
        hcrt__cluster_unsupported(NULL, "holding more than 16 nestable "
                                        "locks at once");
    if (try) {
        if (!word_try(l))
            return 0;
    } else {
        word_lock(l);
    }
    nest_held[i].lock = l;
    nest_held[i].count = 1;
    return 1;
}

static void dsm_nest_unset(void *l)
{
    int i = nest_find(l);

    if (i < 0)
        hcrt__cluster_unsupported(NULL, "unsetting a nestable lock this "
                                        "thread does not hold");
    if (--nest_held[i].count == 0) {
        nest_held[i].lock = NULL;
        word_unlock(l);
    }
}

HCRT_ABI_EXPORT void __hcrt_omp_init_nest_lock(hcrt_omp_nest_lock_t *l)
{
    if (DSM_LOCK(l))
        word_store(l, 0, __ATOMIC_RELAXED);
    else
        omp_init_nest_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_destroy_nest_lock(hcrt_omp_nest_lock_t *l)
{
    if (!DSM_LOCK(l))
        omp_destroy_nest_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_set_nest_lock(hcrt_omp_nest_lock_t *l)
{
    if (DSM_LOCK(l))
        dsm_nest_set(l, 0);
    else
        omp_set_nest_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_unset_nest_lock(hcrt_omp_nest_lock_t *l)
{
    if (DSM_LOCK(l))
        dsm_nest_unset(l);
    else
        omp_unset_nest_lock(l);
}

HCRT_ABI_EXPORT void __hcrt_omp_init_lock_with_hint(hcrt_omp_lock_t *l,
                                                    hcrt_omp_lock_hint_t h)
{
    if (DSM_LOCK(l))
        word_store(l, 0, __ATOMIC_RELAXED);
    else
        omp_init_lock_with_hint(l, h);
}

HCRT_ABI_EXPORT void
__hcrt_omp_init_nest_lock_with_hint(hcrt_omp_nest_lock_t *l,
                                    hcrt_omp_lock_hint_t h)
{
    if (DSM_LOCK(l))
        word_store(l, 0, __ATOMIC_RELAXED);
    else
        omp_init_nest_lock_with_hint(l, h);
}

HCRT_ABI_EXPORT int __hcrt_omp_test_lock(hcrt_omp_lock_t *l)
{
    if (DSM_LOCK(l))
        return word_try(l);
    return omp_test_lock(l);
}

HCRT_ABI_EXPORT int __hcrt_omp_test_nest_lock(hcrt_omp_nest_lock_t *l)
{
    if (DSM_LOCK(l))
        return dsm_nest_set(l, 1);
    return omp_test_nest_lock(l);
}

/* ---- Fortran entry points ---------------------------------------------
 * A Fortran program that declares the routines `external` (NPB: `external
 * omp_get_max_threads`) instead of `use omp_lib` calls libomp's Fortran
 * names, omp_<name>_, with every argument by reference; the pass renames
 * those in HCRT_OMP_FAPI_LIST to these. Without them the program asked
 * libomp, which answers for the node alone: one thread of one at every
 * rank of a cluster region (NPB MG's zran3 failed its verification), and
 * its locks were each node's own. */
#define FTN_INT0(name)                                                         \
    HCRT_ABI_EXPORT int __hcrt_omp_##name##_(void)                             \
    {                                                                          \
        return __hcrt_omp_##name();                                            \
    }
#define FTN_VOID_INT(name)                                                     \
    HCRT_ABI_EXPORT void __hcrt_omp_##name##_(const int *v)                    \
    {                                                                          \
        __hcrt_omp_##name(*v);                                                 \
    }
#define FTN_INT_INT(name)                                                      \
    HCRT_ABI_EXPORT int __hcrt_omp_##name##_(const int *v)                     \
    {                                                                          \
        return __hcrt_omp_##name(*v);                                          \
    }
#define FTN_LOCK(name, R, T)                                                   \
    HCRT_ABI_EXPORT R __hcrt_omp_##name##_(T *l)                               \
    {                                                                          \
        return __hcrt_omp_##name(l);                                           \
    }

FTN_INT0(get_thread_num)
FTN_INT0(get_num_threads)
FTN_INT0(get_max_threads)
FTN_INT0(get_num_procs)
FTN_INT0(in_parallel)
FTN_INT0(get_level)
FTN_INT0(get_active_level)
FTN_INT0(get_thread_limit)
FTN_INT0(get_dynamic)
FTN_INT0(get_nested)
FTN_INT0(get_max_active_levels)
FTN_INT0(in_final)
FTN_INT0(get_cancellation)
FTN_INT0(get_num_teams)
FTN_INT0(get_team_num)
FTN_INT0(get_num_devices)
FTN_INT0(get_device_num)
FTN_INT0(get_default_device)
FTN_INT0(is_initial_device)
FTN_INT0(get_initial_device)
FTN_VOID_INT(set_num_threads)
FTN_VOID_INT(set_dynamic)
FTN_VOID_INT(set_nested)
FTN_VOID_INT(set_max_active_levels)
FTN_VOID_INT(set_default_device)
FTN_INT_INT(get_ancestor_thread_num)
FTN_INT_INT(get_team_size)
FTN_LOCK(init_lock, void, hcrt_omp_lock_t)
FTN_LOCK(destroy_lock, void, hcrt_omp_lock_t)
FTN_LOCK(set_lock, void, hcrt_omp_lock_t)
FTN_LOCK(unset_lock, void, hcrt_omp_lock_t)
FTN_LOCK(test_lock, int, hcrt_omp_lock_t)
FTN_LOCK(init_nest_lock, void, hcrt_omp_nest_lock_t)
FTN_LOCK(destroy_nest_lock, void, hcrt_omp_nest_lock_t)
FTN_LOCK(set_nest_lock, void, hcrt_omp_nest_lock_t)
FTN_LOCK(unset_nest_lock, void, hcrt_omp_nest_lock_t)
FTN_LOCK(test_nest_lock, int, hcrt_omp_nest_lock_t)

HCRT_ABI_EXPORT int __hcrt_omp_get_proc_bind_(void)
{
    return (int)__hcrt_omp_get_proc_bind();
}

HCRT_ABI_EXPORT double __hcrt_omp_get_wtime_(void)
{
    return __hcrt_omp_get_wtime();
}

HCRT_ABI_EXPORT double __hcrt_omp_get_wtick_(void)
{
    return __hcrt_omp_get_wtick();
}

HCRT_ABI_EXPORT void __hcrt_omp_set_schedule_(const int *kind, const int *chunk)
{
    __hcrt_omp_set_schedule((hcrt_omp_sched_t)*kind, *chunk);
}

HCRT_ABI_EXPORT void __hcrt_omp_get_schedule_(int *kind, int *chunk)
{
    hcrt_omp_sched_t k;

    __hcrt_omp_get_schedule(&k, chunk);
    *kind = (int)k;
}
