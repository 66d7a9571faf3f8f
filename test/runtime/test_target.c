/*
 * test_target.c - target regions on the host device: kernel dispatch
 * through a registered kernel table (parameter vector from TARGET_PARAM
 * entries, literals by value), the host-fallback answers (unknown kernel,
 * wrong args version), data mapping with a user-defined mapper, and the
 * omp_target_* device memory routines.
 */
#include <limits.h>
#include <string.h>

#include "rt_test.h"

#define MAP_TO 0x01
#define MAP_FROM 0x02
#define MAP_PTR_AND_OBJ 0x10
#define MAP_TARGET_PARAM 0x20
#define MAP_LITERAL 0x100

static void kern_host(int *a, intptr_t add, double *d)
{
    for (int i = 0; i < 8; i++)
        a[i] += (int)add;
    *d *= 2;
}

static void kern_tramp(void **args)
{
    kern_host(args[0], (intptr_t)args[1], args[2]);
}

static const char kern_id; /* clang's region id: the address is the key */

static const hcrt_kernel_desc_t kernels[] = {{
    .id = 0x6001,
    .name = "__omp_offloading_10302_rt_kern_l1",
    .region_id = &kern_id,
    .tramp = kern_tramp,
    .host_fn = (void *)kern_host,
    .nargs = 3,
    .line = 1,
}};

static const hcrt_module_desc_t module = {
    .abi_version = HCRT_ABI_VERSION,
    .name = "test_target.c",
    .hash = 0x6000,
    .nkernels = 1,
    .kernels = kernels,
};

static int launch(const void *host_ptr, uint32_t version, int *a, double *d)
{
    void *bases[4] = {a, (void *)(intptr_t)5, a, d};
    void *ptrs[4] = {a, (void *)(intptr_t)5, &a[1], d};
    int64_t sizes[4] = {8 * sizeof(int), sizeof(int), sizeof(int),
                        sizeof(double)};
    int64_t types[4] = {MAP_TO | MAP_FROM | MAP_TARGET_PARAM,
                        MAP_LITERAL | MAP_TARGET_PARAM, MAP_PTR_AND_OBJ,
                        MAP_TO | MAP_FROM | MAP_TARGET_PARAM};
    hcrt_kernel_args_t args = {
        .version = version,
        .num_args = 4,
        .arg_base_ptrs = bases,
        .arg_ptrs = ptrs,
        .arg_sizes = sizes,
        .arg_types = types,
        .num_teams = {1, 0, 0},
        .thread_limit = {0, 0, 0},
    };
    return __hcrt_target_kernel(&rt_loc, -1, 1, 0, (void *)host_ptr, &args);
}

static void test_kernels(void)
{
    int a[8] = {0};
    double d = 1.5;
    static const char unknown_id;

    __hcrt_register_module(&module);
    __hcrt_register_module(&module); /* twice is harmless */
    CHECK_EQ(launch(&kern_id, HCRT_KERNEL_ARGS_VERSION, a, &d), 0);
    CHECK_EQ(a[0], 5);
    CHECK_EQ(a[7], 5);
    CHECK_DEQ(d, 3.0);
    CHECK_EQ(launch(&kern_id, HCRT_KERNEL_ARGS_VERSION, a, &d), 0);
    CHECK_EQ(a[3], 10);
    /* Not ours: the caller runs the host fallback. */
    CHECK_EQ(launch(&unknown_id, HCRT_KERNEL_ARGS_VERSION, a, &d), 1);
    CHECK_EQ(launch(&kern_id, HCRT_KERNEL_ARGS_VERSION - 1, a, &d), 1);
    CHECK_EQ(a[3], 10);
    CHECK_DEQ(d, 6.0);
}

static int mapper_calls;

static void pair_mapper(void *h, void *base, void *begin, int64_t size,
                        int64_t type, void *name)
{
    mapper_calls++;
    CHECK_EQ(__hcrt_mapper_num_components(h), 0);
    __hcrt_push_mapper_component(h, base, begin, size / 2, type, name);
    __hcrt_push_mapper_component(h, base, (char *)begin + size / 2, size / 2,
                                 type, name);
    CHECK_EQ(__hcrt_mapper_num_components(h), 2);
}

static void test_mapping(void)
{
    double buf[16];
    void *bases[2] = {buf, buf};
    void *ptrs[2] = {buf, &buf[8]};
    int64_t sizes[2] = {8 * sizeof(double), 8 * sizeof(double)};
    int64_t types[2] = {MAP_TO, MAP_FROM};
    void *mappers[2] = {NULL, (void *)pair_mapper};

    __hcrt_target_data_begin_mapper(&rt_loc, -1, 2, bases, ptrs, sizes, types,
                                    NULL, mappers);
    CHECK_EQ(mapper_calls, 1);
    CHECK_EQ(__hcrt_omp_target_is_present(buf, __hcrt_omp_get_initial_device()),
             1);
    __hcrt_target_data_update_mapper(&rt_loc, -1, 1, bases, ptrs, sizes, types,
                                     NULL, NULL);
    __hcrt_target_data_end_nowait_mapper(&rt_loc, -1, 2, bases, ptrs, sizes,
                                         types, NULL, mappers, 0, NULL, 0,
                                         NULL);
    CHECK_EQ(mapper_calls, 2);
    __hcrt_register_requires(1);
}

static void test_devices(void)
{
    int host = __hcrt_omp_get_initial_device();
    char src[100], dst[100];
    double m[10][10], out[3][4];
    size_t vol[2] = {3, 4}, doff[2] = {0, 0}, soff[2] = {2, 5};
    size_t ddim[2] = {3, 4}, sdim[2] = {10, 10};

    CHECK_EQ(__hcrt_omp_get_num_devices(), 0);
    CHECK_EQ(host, 0);
    CHECK_EQ(__hcrt_omp_is_initial_device(), 1);
    CHECK_EQ(__hcrt_omp_get_device_num(), host);

    char *p = __hcrt_omp_target_alloc(100, host);
    CHECK(p != NULL);
    CHECK(__hcrt_omp_target_alloc(100, host + 3) == NULL);
    memset(src, 'q', sizeof(src));
    CHECK_EQ(__hcrt_omp_target_memcpy(p, src, 100, 0, 0, host, -1), 0);
    CHECK_EQ(__hcrt_omp_target_memcpy(dst, p, 50, 10, 20, -1, host), 0);
    CHECK_EQ(dst[10], 'q');
    CHECK(__hcrt_omp_target_memcpy(dst, p, 50, 0, 0, host + 1, host) != 0);
    CHECK_EQ(__hcrt_omp_target_is_present(p, host + 1), 0);
    __hcrt_omp_target_free(p, host);

    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++)
            m[i][j] = i * 10 + j;
    CHECK(__hcrt_omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL,
                                        NULL, NULL, host, host) >= 2);
    CHECK_EQ(__hcrt_omp_target_memcpy_rect(out, m, sizeof(double), 2, vol, doff,
                                           soff, ddim, sdim, host, host),
             0);
    CHECK_DEQ(out[0][0], 25);
    CHECK_DEQ(out[2][3], 48);

    CHECK_EQ(__hcrt_omp_target_associate_ptr(src, src, 100, 0, host), 0);
    CHECK(__hcrt_omp_target_associate_ptr(src, dst, 100, 0, host) != 0);
    CHECK_EQ(__hcrt_omp_target_disassociate_ptr(src, host), 0);
    CHECK(__hcrt_omp_target_disassociate_ptr(src, host) != 0);
}

int main(void)
{
    test_kernels();
    test_mapping();
    test_devices();
    return rt_report("test_target");
}
