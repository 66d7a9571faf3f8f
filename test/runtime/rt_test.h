/*
 * rt_test.h - a tiny harness for the runtime's C tests (libuv style).
 *
 * Tests call the runtime directly through include/hcrt/abi.h with
 * hand-written region descriptors and trampolines, as the pass would emit.
 * The checks are test/check.h's; main returns the failure count so ctest
 * sees a non-zero exit.
 */
#ifndef HCRT_RT_TEST_H
#define HCRT_RT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "hcrt/abi.h"
#include "hcrt/hcrt.h"

/* The __hcrt_omp_* entries have omp.h's prototypes (abi.h lists names). */
typedef struct rt_omp_lock {
    void *lk;
} rt_omp_lock_t;
int __hcrt_omp_get_thread_num(void);
int __hcrt_omp_get_num_threads(void);
int __hcrt_omp_in_parallel(void);
int __hcrt_omp_get_level(void);
int __hcrt_omp_get_num_teams(void);
int __hcrt_omp_get_num_devices(void);
int __hcrt_omp_get_initial_device(void);
int __hcrt_omp_get_device_num(void);
int __hcrt_omp_is_initial_device(void);
void __hcrt_omp_set_max_active_levels(int n);
void __hcrt_omp_set_schedule(int kind, int chunk);
void __hcrt_omp_init_lock(rt_omp_lock_t *l);
void __hcrt_omp_destroy_lock(rt_omp_lock_t *l);
void __hcrt_omp_set_lock(rt_omp_lock_t *l);
void __hcrt_omp_unset_lock(rt_omp_lock_t *l);
int __hcrt_omp_test_lock(rt_omp_lock_t *l);
void *__hcrt_omp_target_alloc(size_t size, int dev);
void __hcrt_omp_target_free(void *p, int dev);
int __hcrt_omp_target_is_present(const void *p, int dev);
int __hcrt_omp_target_memcpy(void *dst, const void *src, size_t len,
                             size_t dst_off, size_t src_off, int dst_dev,
                             int src_dev);
int __hcrt_omp_target_memcpy_rect(void *dst, const void *src, size_t esize,
                                  int dims, const size_t *volume,
                                  const size_t *dst_off, const size_t *src_off,
                                  const size_t *dst_dims,
                                  const size_t *src_dims, int dst_dev,
                                  int src_dev);
int __hcrt_omp_target_associate_ptr(const void *host, const void *dev_ptr,
                                    size_t size, size_t off, int dev);
int __hcrt_omp_target_disassociate_ptr(const void *host, int dev);

/* A source location as clang emits it. */
static hcrt_ident_t rt_loc = {0, 2, 0, 22, ";rt_test.c;test;1;1;;"};

/* Declares a region descriptor `name##_region` whose trampoline calls
 * name##_body(gtid, btid, args). */
#define RT_REGION(nm, id_, nargs_)                                             \
    static void nm##_body(int32_t gtid, int32_t btid, void **args);            \
    static void nm##_tramp(int32_t *gtid, int32_t *btid, void **args)          \
    {                                                                          \
        nm##_body(*gtid, *btid, args);                                         \
    }                                                                          \
    static const hcrt_region_desc_t nm##_region = {                            \
        .id = (id_),                                                           \
        .name = #nm,                                                           \
        .file = __FILE__,                                                      \
        .line = __LINE__,                                                      \
        .kind = HCRT_REGION_CLUSTER,                                           \
        .nargs = (nargs_),                                                     \
        .tramp = nm##_tramp,                                                   \
        .microtask = NULL,                                                     \
    }

/* Forks `region` on `nthreads` threads. */
static inline void rt_fork(const hcrt_region_desc_t *region, int nthreads,
                           void **args)
{
    int32_t gtid = __hcrt_global_thread_num(&rt_loc);
    if (nthreads > 0)
        __hcrt_push_num_threads(&rt_loc, gtid, nthreads);
    __hcrt_fork(&rt_loc, region, args);
}

static inline int rt_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d failure(s) on node %d\n", name, check_failures,
                hcrt_node_id());
    return check_failures;
}

#endif /* HCRT_RT_TEST_H */
