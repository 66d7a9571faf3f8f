/*
 * writes.c - a kernel's writes to device data it maps `alloc`, `to` or
 * present (no `from`, or a `depend(in:)` naming it) persist in the device
 * copy and come home with a later `from` / `update from`, on any device;
 * concurrent nowait kernels updating one mapped buffer in place see one
 * copy; omp_target_alloc memory of a worker device works with
 * is_device_ptr and omp_target_memcpy; omp_is_initial_device() in a kernel
 * is 0 on a worker. Built by
 * hcc and run at 1, 2 and 4 ranks (run_engine.sh); the patterns are
 * OpenMP_VV 4.5's (target_teams_distribute_map, target_data_map_devices,
 * teams_distribute_depend_in_out, teams_distribute_nowait).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "writes.c:%d: check failed: %s\n", __LINE__, #c);  \
            fails++;                                                           \
        }                                                                      \
    } while (0)

#define N 512
#define NT 12

/* enter alloc, a kernel mapping it `to` writes it, exit from: on every
 * device, and read on another device before coming home: there it is
 * present only in one shared data environment (HCRT_OFFLOAD_DATA_ENV=
 * shared); with one per device, the other device maps the host's b. */

static void alloc_then_to(int nd)
{
    const char *env = getenv("HCRT_OFFLOAD_DATA_ENV");
    int shared = env && strcmp(env, "shared") == 0;
    int a[N], b[N], c[N];
    for (int i = 0; i < N; i++)
        a[i] = i, b[i] = 0, c[i] = -1;
    int ndev = nd > 0 ? nd : 1;
    for (int d = 0; d < ndev; d++) {
        int dev = nd > 0 ? d : omp_get_initial_device();
#pragma omp target enter data map(alloc : b[0 : N]) device(dev)
#pragma omp target map(to : a[0 : N], b[0 : N]) device(dev)
        for (int i = 0; i < N; i++)
            b[i] = 2 * a[i] + d;
        int other = nd > 0 ? (d + 1) % nd : dev;
#pragma omp target map(to : b[0 : N]) map(tofrom : c[0 : N]) device(other)
        for (int i = 0; i < N; i++)
            c[i] = b[i] + 1;
#pragma omp target exit data map(from : b[0 : N]) device(dev)
        for (int i = 0; i < N; i++) {
            CHECK(b[i] == 2 * i + d);
            /* the host's b: 0, then what the last exit brought home */
            int host_b = d == 0 ? 0 : 2 * i + d - 1;
            CHECK(c[i] == (shared || other == dev ? 2 * i + d + 1 : host_b + 1));
            if (fails)
                return;
        }
    }
}

/* target data map(from:) around a kernel that maps the section `alloc`
 * with device(d), for each device (target_data_map_devices). */
static void data_from_alloc(int nd)
{
    int ndev = nd > 0 ? nd : 1;
    int *m = malloc((size_t)ndev * N * sizeof(int));
    for (int d = 0; d < ndev; d++) {
        int dev = nd > 0 ? d : omp_get_initial_device();
#pragma omp target data map(from : m[d * N : N]) device(dev)
        {
#pragma omp target map(alloc : m[d * N : N]) device(dev)
            for (int i = 0; i < N; i++)
                m[d * N + i] = d + i;
        }
    }
    for (int d = 0; d < ndev; d++)
        for (int i = 0; i < N; i++)
            if (m[d * N + i] != d + i) {
                CHECK(m[d * N + i] == d + i);
                break;
            }
    free(m);
}

/* depend(in: c) on data the kernel writes, then depend(out: c) reading it
 * (teams_distribute_depend_in_out), inside target data; update from. */
static void depend_in_writes(void)
{
    int a[N], c[N], d[N];
    for (int i = 0; i < N; i++)
        a[i] = i, c[i] = 0, d[i] = 0;
#pragma omp target data map(to : a[0 : N]) map(alloc : c[0 : N])               \
    map(from : d[0 : N])
    {
#pragma omp target nowait depend(in : c) map(alloc : a[0 : N], c[0 : N])
        for (int i = 0; i < N; i++)
            c[i] = a[i] + 5;
#pragma omp target nowait depend(out : c) map(alloc : c[0 : N], d[0 : N])
        for (int i = 0; i < N; i++)
            d[i] = c[i] * 2;
#pragma omp taskwait
#pragma omp target update from(c[0 : N])
    }
    for (int i = 0; i < N; i++)
        if (c[i] != i + 5 || d[i] != 2 * (i + 5)) {
            CHECK(c[i] == i + 5);
            CHECK(d[i] == 2 * (i + 5));
            break;
        }
}

/* Unordered nowait kernels updating one counter atomically and one array
 * in place (teams_distribute_nowait): one device copy, every update kept. */
static void nowait_shared(void)
{
    int ticket[1] = {0}, order[NT];
    long work[NT];
    for (int i = 0; i < NT; i++)
        order[i] = -1;
#pragma omp target enter data map(to : ticket[0 : 1], order[0 : NT])
    for (int t = 0; t < NT; t++) {
#pragma omp target map(alloc : ticket[0 : 1], order[0 : NT])                   \
    map(from : work[t : 1]) nowait
        {
            long w = 0;
            for (long k = 0; k < 20000L * (NT - t); k++)
                w += k % 7;
            work[t] = w;
            int my;
#pragma omp atomic capture
            my = ticket[0]++;
            order[t] = my;
        }
    }
#pragma omp taskwait
#pragma omp target exit data map(from : ticket[0 : 1], order[0 : NT])
    CHECK(ticket[0] == NT);
    int seen[NT] = {0};
    for (int t = 0; t < NT; t++) {
        CHECK(order[t] >= 0 && order[t] < NT);
        if (order[t] >= 0 && order[t] < NT)
            seen[order[t]]++;
    }
    for (int t = 0; t < NT; t++)
        CHECK(seen[t] == 1);
}

/* omp_target_alloc on each device, filled by an is_device_ptr region from
 * mapped data, read back with omp_target_memcpy (target_data_map_to). */
static void device_memory(int nd)
{
    int a[N], back[N];
    for (int i = 0; i < N; i++)
        a[i] = 3 * i, back[i] = 0;
    int ndev = nd > 0 ? nd : 1;
    for (int d = 0; d < ndev; d++) {
        int dev = nd > 0 ? d : omp_get_initial_device();
        int *p = omp_target_alloc(N * sizeof(int), dev);
        CHECK(p != NULL);
        if (!p)
            return;
#pragma omp target data map(to : a[0 : N]) device(dev)
        {
#pragma omp target is_device_ptr(p) map(alloc : a[0 : N]) device(dev)
            for (int i = 0; i < N; i++)
                p[i] = a[i] + d;
        }
        CHECK(omp_target_memcpy(back, p, N * sizeof(int), 0, 0,
                                omp_get_initial_device(), dev) == 0);
        for (int i = 0; i < N; i++)
            if (back[i] != 3 * i + d) {
                CHECK(back[i] == 3 * i + d);
                break;
            }
        omp_target_free(p, dev);
    }
}

int main(void)
{
    int nd = omp_get_num_devices();
    alloc_then_to(nd);
    data_from_alloc(nd);
    depend_in_writes();
    nowait_shared();
    device_memory(nd);
    int init = -1;
#pragma omp target map(from : init)
    init = omp_is_initial_device();
    CHECK(init == (nd == 0));
    /* also in the kernel's own parallel threads, and 1 under if(target:0) */
    int per[64];
    for (int att = 0; att < 2; att++) {
#pragma omp target teams distribute parallel for num_threads(2)                \
    map(tofrom : per) if (target : att == 1)
        for (int i = 0; i < 64; i++)
            per[i] = omp_is_initial_device();
        for (int i = 0; i < 64; i++)
            if (per[i] != (att == 0 || nd == 0)) {
                CHECK(per[i] == (att == 0 || nd == 0));
                break;
            }
    }
    if (fails)
        return 1;
    printf("writes: ok (%d devices)\n", nd);
    return 0;
}
