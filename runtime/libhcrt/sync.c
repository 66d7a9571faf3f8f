/*
 * sync.c - barriers, single, master/masked, critical, flush, cancellation.
 *
 * One node: libomp's own implementations. At the outer level of a cluster
 * region (cluster.h) they become cluster-wide: barrier = libomp's barrier
 * (node tasks done) + DSM team barrier; single and master = cluster thread
 * 0 (any one thread is allowed, and it keeps the single's output on the
 * head); critical = libomp's critical, then a DSM lock named by its address,
 * at every nesting level inside a cluster region (a critical section
 * excludes every thread of the program, and nested teams of two nodes run at
 * once).
 */
#include <sched.h>

#include "base/clock.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/node.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"

#define HERE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_here())
#define INSIDE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_inside())
#define CANCEL_LOOP 2 /* libomp's kind of `cancel for` */

HCRT_ABI_EXPORT void __hcrt_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE) {
        hcrt__cluster_barrier(loc, gtid);
        return;
    }
    __kmpc_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE) {
        if (hcrt__cancel_on)
            return hcrt__cancel_barrier(loc, gtid);
        hcrt__cluster_barrier(loc, gtid);
        return 0;
    }
    return __kmpc_cancel_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t kind)
{
    if (HCRT_UNLIKELY(hcrt__cancel_on) && hcrt__cluster_here())
        return hcrt__cancel_request(loc, gtid, kind);
    int32_t r = __kmpc_cancel(loc, gtid, kind);
    if (r && kind == CANCEL_LOOP)
        hcrt__loops_cancel_drain(loc, gtid);
    return r;
}

HCRT_ABI_EXPORT int32_t __hcrt_cancellationpoint(hcrt_ident_t *loc,
                                                 int32_t gtid, int32_t kind)
{
    if (HCRT_UNLIKELY(hcrt__cancel_on) && hcrt__cluster_here())
        return hcrt__cancel_point(loc, gtid, kind);
    int32_t r = __kmpc_cancellationpoint(loc, gtid, kind);
    if (r && kind == CANCEL_LOOP)
        hcrt__loops_cancel_drain(loc, gtid);
    return r;
}

HCRT_ABI_EXPORT int32_t __hcrt_single(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return hcrt__cluster_tid() == 0;
    return __kmpc_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_single(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_copyprivate(hcrt_ident_t *loc, int32_t gtid,
                                        size_t size, void *data,
                                        hcrt_cpy_fn_t fn, int32_t didit)
{
    if (HERE) {
        hcrt__cluster_copyprivate(loc, gtid, size, data, fn, didit);
        return;
    }
    __kmpc_copyprivate(loc, gtid, size, data, fn, didit);
}

HCRT_ABI_EXPORT int32_t __hcrt_master(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return hcrt__cluster_tid() == 0;
    return __kmpc_master(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_master(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_master(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_masked(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t filter)
{
    if (HERE)
        return hcrt__cluster_tid() == filter;
    return __kmpc_masked(loc, gtid, filter);
}

HCRT_ABI_EXPORT void __hcrt_end_masked(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_masked(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_critical(hcrt_ident_t *loc, int32_t gtid,
                                     hcrt_critical_name_t *crit)
{
    __kmpc_critical(loc, gtid, crit);
    if (INSIDE)
        hcrt__cluster_lock((uint64_t)(uintptr_t)crit);
}

HCRT_ABI_EXPORT void __hcrt_critical_with_hint(hcrt_ident_t *loc, int32_t gtid,
                                               hcrt_critical_name_t *crit,
                                               uint32_t hint)
{
    __kmpc_critical_with_hint(loc, gtid, crit, hint);
    if (INSIDE)
        hcrt__cluster_lock((uint64_t)(uintptr_t)crit);
}

HCRT_ABI_EXPORT void __hcrt_end_critical(hcrt_ident_t *loc, int32_t gtid,
                                         hcrt_critical_name_t *crit)
{
    if (INSIDE)
        hcrt__cluster_unlock((uint64_t)(uintptr_t)crit);
    __kmpc_end_critical(loc, gtid, crit);
}

/* Threads that wait for a flag by spinning on flush (NPB LU's pipeline)
 * hold their core until the scheduler's tick when the threads of this
 * host outnumber its cores: the thread that would set the flag waits for
 * that core. A thread whose flushes come less than SPIN_GAP_NS apart,
 * SPIN_CALLS times in a row, yields at each further one while the host
 * is oversubscribed (this team x the ranks on this host > the cores this
 * process may use). */
#define SPIN_GAP_NS 5000
#define SPIN_CALLS 16
static _Thread_local uint64_t flush_last;
static _Thread_local uint32_t flush_quick;
static int host_cores;

static int oversubscribed(void)
{
    if (!host_cores) {
        cpu_set_t set;
        int n =
            sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        __atomic_store_n(&host_cores, n > 0 ? n : 1, __ATOMIC_RELAXED);
    }
    const hcrt_node_info_t *ni = hcrt__node_info();
    int ranks = ni && ni->local_size > 0 ? ni->local_size : 1;
    return omp_get_num_threads() * ranks > host_cores;
}

static void flush_spin(void)
{
    uint64_t now = hcrt__now_ns();

    if (now - flush_last > SPIN_GAP_NS)
        flush_quick = 0;
    flush_last = now;
    if (++flush_quick > SPIN_CALLS && oversubscribed())
        sched_yield();
}

HCRT_ABI_EXPORT void __hcrt_flush(hcrt_ident_t *loc)
{
    /* Only cluster regions have peers writing at the same time: the head's
     * sequential code and its head-alone calls see every node's writes
     * since the last join. */
    if (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_inside())
        hcrt__dsm_acquire(); /* releases first */
    __kmpc_flush(loc);
    flush_spin();
}
