/*
 * maps.c - map semantics of target offload across nodes, clause by clause,
 * built by hcc and run at 1, 2 and 4 ranks (run_engine.sh). Every check
 * states what OpenMP requires of a device with memory of its own; with one
 * rank the host is the device, where `to`-only and `alloc` data alias the
 * host, so checks that need separate memory are skipped there.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "maps.c:%d: check failed: %s\n", __LINE__, #c);    \
            fails++;                                                           \
        }                                                                      \
    } while (0)

#define N 256
struct vec {
    int n;
    double *p;
};

static long isum(const int *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

int main(void)
{
    int nd = omp_get_num_devices(), sep = nd > 0; /* separate memory */
    /* HCRT_OFFLOAD_DATA_ENV=shared: one data environment for all devices */
    const char *env = getenv("HCRT_OFFLOAD_DATA_ENV");
    int shared = env && strcmp(env, "shared") == 0;
    int a[N], b[N];
    for (int i = 0; i < N; i++)
        a[i] = i, b[i] = 0;

    /* tofrom, and where the kernel ran */
    int where = -7;
#pragma omp target map(tofrom : a) map(from : where)
    {
        for (int i = 0; i < N; i++)
            a[i] += 1;
        where = omp_get_device_num();
    }
    CHECK(isum(a, N) == (long)N * (N - 1) / 2 + N);
    CHECK(where == (nd ? omp_get_default_device() : nd));

    /* to: device writes stay on the device */
#pragma omp target map(to : a) map(from : b)
    {
        for (int i = 0; i < N; i++) {
            b[i] = a[i] * 2;
            a[i] = -1;
        }
    }
    CHECK(b[10] == 22);
    if (sep)
        CHECK(a[10] == 11);

    /* target data: host changes are not seen, device results come home once */
    for (int i = 0; i < N; i++)
        a[i] = 1;
#pragma omp target data map(tofrom : a)
    {
#pragma omp target
        for (int i = 0; i < N; i++)
            a[i] += 1;
        if (sep)
            a[0] = 100; /* host copy only */
#pragma omp target
        for (int i = 0; i < N; i++)
            a[i] *= 3;
        if (sep)
            CHECK(a[0] == 100 && a[1] == 1);
    }
    CHECK(a[0] == 6 && a[N - 1] == 6);

    /* update to / from inside target data */
#pragma omp target data map(alloc : b)
    {
        for (int i = 0; i < N; i++)
            b[i] = i;
#pragma omp target update to(b)
#pragma omp target
        for (int i = 0; i < N; i++)
            b[i] += 1000;
        if (sep)
            CHECK(b[5] == 5);
#pragma omp target update from(b[0 : 10])
        CHECK(b[5] == 1005);
        if (sep)
            CHECK(b[20] == 20);
    }
    if (sep) /* alloc: nothing comes home at the end */
        CHECK(b[20] == 20);

    /* enter/exit data with reference counts, always, delete */
    for (int i = 0; i < N; i++)
        a[i] = 2;
    if (sep)
        CHECK(!omp_target_is_present(a, 0));
#pragma omp target enter data map(to : a)
    if (sep) /* the default device's; the last device's only if shared */
        CHECK(omp_target_is_present(a, 0) &&
              omp_target_is_present(a, nd - 1) == (shared || nd == 1));
#pragma omp target enter data map(to : a) /* count 2, no copy */
#pragma omp target
    for (int i = 0; i < N; i++)
        a[i] += 5;
#pragma omp target exit data map(from : a) /* count 1: no copy home */
    if (sep)
        CHECK(a[3] == 2);
    a[3] = 50;
#pragma omp target update to(a[3 : 1])
#pragma omp target map(always, to : a) /* present, copied again */
    for (int i = 0; i < N; i++)
        a[i] += 1;
#pragma omp target exit data map(from : a) /* count 0: home */
    CHECK(a[3] == 51 && a[4] == (sep ? 3 : 8));
#pragma omp target enter data map(to : a)
#pragma omp target
    a[0] = 999;
#pragma omp target exit data map(delete : a)
    if (sep)
        CHECK(a[0] == 3 && !omp_target_is_present(a, 0));

    /* array sections and a struct with a pointer member (attachment) */
    double *d = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        d[i] = i;
#pragma omp target map(tofrom : d[64 : 64])
    for (int i = 64; i < 128; i++)
        d[i] = -d[i];
    CHECK(d[63] == 63 && d[64] == -64 && d[127] == -127 && d[128] == 128);
    struct vec v = {N, d};
#pragma omp target map(to : v) map(tofrom : v.p[0 : N])
    for (int i = 0; i < v.n; i++)
        v.p[i] += 1;
    CHECK(d[0] == 1 && d[64] == -63 && d[200] == 201);

    /* firstprivate scalars and aggregates */
    int k = 7;
    struct {
        int x[4];
    } fp = {{1, 2, 3, 4}};
    int out = 0;
#pragma omp target firstprivate(k, fp) map(from : out)
    {
        fp.x[0] += k;
        out = fp.x[0] + fp.x[3];
    }
    CHECK(out == 12 && fp.x[0] == 1);

    /* device(n): each device runs its region. One shared environment: acc,
     * mapped by the data region, is present on every device and moves node
     * to node. One per device (OpenMP): only device 0 (the default) has it
     * from the data region, whose end brings device 0's copy home; the
     * others copy the host's to and from for each region. */
    long acc = 0;
#pragma omp target data map(tofrom : acc)
    for (int dev = 0; dev < (nd ? nd : 1); dev++)
        for (int r = 0; r < 3; r++) {
#pragma omp target device(nd ? dev : omp_get_initial_device()) map(tofrom : acc)
            acc = acc * 10 + (nd ? omp_get_device_num() : 0) + 1;
        }
    long want = 0;
    for (int dev = 0; dev < (nd && shared ? nd : 1); dev++)
        for (int r = 0; r < 3; r++)
            want = want * 10 + dev + 1;
    CHECK(acc == want);

    free(d);
    printf("maps: %d device(s), %d failure(s)\n", nd, fails);
    return fails != 0;
}
