/*
 * omp_api.c - the OpenMP API as called by user code (__hcrt_omp_<name>).
 *
 * One node: thread and team queries, ICVs and locks are libomp's. Device
 * queries answer for hcrt's devices (worker nodes; none in this version), so
 * the host is the initial device and the only one.
 */
#include "libhcrt/core.h"
#include "libhcrt/kmp_abi.h"

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

FWD_INT0(get_thread_num)
FWD_INT0(get_num_threads)
FWD_INT0(get_max_threads)
FWD_VOID_INT(set_num_threads)
FWD_INT0(get_num_procs)
FWD_INT0(in_parallel)
FWD_INT0(get_level)
FWD_INT0(get_active_level)
FWD_INT_INT(get_ancestor_thread_num)
FWD_INT_INT(get_team_size)
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
    return hcrt__num_devices(); /* code here always runs on the host */
}

HCRT_ABI_EXPORT int __hcrt_omp_is_initial_device(void)
{
    return 1;
}

/* ---- locks --------------------------------------------------------------- */

FWD_LOCK(init_lock, hcrt_omp_lock_t)
FWD_LOCK(destroy_lock, hcrt_omp_lock_t)
FWD_LOCK(set_lock, hcrt_omp_lock_t)
FWD_LOCK(unset_lock, hcrt_omp_lock_t)
FWD_LOCK(init_nest_lock, hcrt_omp_nest_lock_t)
FWD_LOCK(destroy_nest_lock, hcrt_omp_nest_lock_t)
FWD_LOCK(set_nest_lock, hcrt_omp_nest_lock_t)
FWD_LOCK(unset_nest_lock, hcrt_omp_nest_lock_t)

HCRT_ABI_EXPORT void __hcrt_omp_init_lock_with_hint(hcrt_omp_lock_t *l,
                                                    hcrt_omp_lock_hint_t h)
{
    omp_init_lock_with_hint(l, h);
}

HCRT_ABI_EXPORT void
__hcrt_omp_init_nest_lock_with_hint(hcrt_omp_nest_lock_t *l,
                                    hcrt_omp_lock_hint_t h)
{
    omp_init_nest_lock_with_hint(l, h);
}

HCRT_ABI_EXPORT int __hcrt_omp_test_lock(hcrt_omp_lock_t *l)
{
    return omp_test_lock(l);
}

HCRT_ABI_EXPORT int __hcrt_omp_test_nest_lock(hcrt_omp_nest_lock_t *l)
{
    return omp_test_nest_lock(l);
}
