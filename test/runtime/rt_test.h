/*
 * rt_test.h - a tiny harness for the runtime's C tests (libuv style).
 *
 * Tests call the runtime directly through include/hcrt/abi.h with
 * hand-written region descriptors and trampolines, as the pass would emit.
 * CHECK* print the values on failure and count failures; main returns the
 * count so ctest sees a non-zero exit.
 */
#ifndef HCRT_RT_TEST_H
#define HCRT_RT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "hcrt/abi.h"
#include "hcrt/hcrt.h"

static int rt_failures;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            __atomic_fetch_add(&rt_failures, 1, __ATOMIC_RELAXED);             \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                  \
        if (va_ != vb_) {                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",          \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                     \
            __atomic_fetch_add(&rt_failures, 1, __ATOMIC_RELAXED);             \
        }                                                                      \
    } while (0)

#define CHECK_DEQ(a, b)                                                        \
    do {                                                                       \
        double va_ = (double)(a), vb_ = (double)(b);                           \
        if (va_ != vb_) {                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %g != %g\n", __FILE__,    \
                    __LINE__, #a, #b, va_, vb_);                               \
            __atomic_fetch_add(&rt_failures, 1, __ATOMIC_RELAXED);             \
        }                                                                      \
    } while (0)

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
    if (rt_failures)
        fprintf(stderr, "%s: %d failure(s) on node %d\n", name, rt_failures,
                hcrt_node_id());
    return rt_failures;
}

#endif /* HCRT_RT_TEST_H */
