// Map clauses from the user's side, with the data on other nodes: always
// from inside a data region, array sections in the middle of an array,
// enter/update/exit data as nowait tasks with depend, a struct with a
// pointer member (the pointee attached), one read-only input mapped once
// and read by many kernels, alloc'ed device scratch, and delete/release
// with reference counts. Written to be correct under separate device
// memory; every part checks itself and prints its verdict. The reference
// (plain clang, host fallback) shares memory with the "device": where the
// two models legitimately differ (a host write to mapped data, a device
// write to `to`-only data), a part accepts either outcome and nothing else.
// RUN: %offload %s %t
// RUN: env HCRT_OFFLOAD_BATCH=0 OFFLOAD_RANKS=4 %offload %s %t.nobatch
// Round-robin spreads the one_to_many kernels: a kernel joining another
// on a node must wait for the input the other's forward brings.
// RUN: env HCRT_OFFLOAD_POLICY=rr OFFLOAD_RANKS=4 %offload %s %t.rr
#include <stdio.h>
#include <stdlib.h>

#define N 1000
#define K 8

static int verdict(const char *what, long bad)
{
    printf("%s: %s\n", what, bad ? "WRONG" : "ok");
    return bad != 0;
}

/* `always, from` copies back at the kernel's end although the enclosing
 * data region keeps the buffer present. */
static int always_from(void)
{
    long *a = malloc(N * sizeof(long)), bad = 0;
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp target data map(tofrom : a[0 : N])
    {
#pragma omp target map(always, from : a[0 : N])
        for (int i = 0; i < N; i++)
            a[i] = 3 * a[i] + 1;
        for (int i = 0; i < N; i++) /* visible before the region ends */
            bad += a[i] != 3 * i + 1;
#pragma omp target map(tofrom : a[0 : N]) /* present: no copy either way */
        for (int i = 0; i < N; i++)
            a[i] += 5;
        a[0] = -1; /* host write: a device copy overwrites it at the end */
    }
    bad += a[0] != 6 && a[0] != -1;
    for (int i = 1; i < N; i++)
        bad += a[i] != 3 * i + 6;
    free(a);
    return verdict("always_from", bad);
}

/* Sections in the middle of an array: only [lo, lo+len) moves. */
static int sections(void)
{
    long *a = malloc(N * sizeof(long)), bad = 0;
    for (int i = 0; i < N; i++)
        a[i] = i;
    int lo = 300, len = 200;
#pragma omp target map(tofrom : a[lo : len])
    for (int i = lo; i < lo + len; i++)
        a[i] = -a[i];
#pragma omp target data map(to : a[0 : N])
    {
#pragma omp target map(from : a[lo + len : 100]) /* inside: present */
        for (int i = lo + len; i < lo + len + 100; i++)
            a[i] = 7;
    } /* a[] was mapped `to`: a device keeps the 7s */
    for (int i = 0; i < N; i++)
        if (i >= lo + len && i < lo + len + 100)
            bad += a[i] != i && a[i] != 7;
        else
            bad += a[i] != (i >= lo && i < lo + len ? -i : i);
    free(a);
    return verdict("sections", bad);
}

/* enter data -> K kernels -> update from -> a host task -> exit data, all
 * deferred and ordered by depend only. */
static int data_tasks(void)
{
    long *a = malloc(N * sizeof(long)), *seen = calloc(N, sizeof(long)),
         bad = 0;
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp parallel
#pragma omp single
    {
#pragma omp target enter data map(to : a[0 : N]) depend(out : a[0]) nowait
        for (int k = 0; k < K; k++)
#pragma omp target depend(inout : a[0]) nowait /* a is present */
            for (int i = 0; i < N; i++)
                a[i] = (a[i] * 3 + k) % 1000003;
#pragma omp target update from(a[0 : N]) depend(inout : a[0]) nowait
#pragma omp task depend(in : a[0]) /* a plain task: runs on the head */
        for (int i = 0; i < N; i++)
            seen[i] = a[i];
#pragma omp target exit data map(release : a[0 : N]) depend(inout : a[0]) nowait
#pragma omp taskwait
    }
    for (int i = 0; i < N; i++) {
        long v = i;
        for (int k = 0; k < K; k++)
            v = (v * 3 + k) % 1000003;
        bad += seen[i] != v || a[i] != v;
    }
    free(a);
    free(seen);
    return verdict("data_tasks", bad);
}

/* A struct mapped with its pointee: the device struct points at the device
 * copy of the data. */
struct vec {
    int n;
    long scale;
    long *data;
};

static int struct_pointee(void)
{
    struct vec v = {N, 4, malloc(N * sizeof(long))};
    long bad = 0;
    for (int i = 0; i < N; i++)
        v.data[i] = i;
#pragma omp target map(to : v) map(tofrom : v.data[0 : v.n])
    for (int i = 0; i < v.n; i++)
        v.data[i] = v.data[i] * v.scale + v.n;
    for (int i = 0; i < N; i++)
        bad += v.data[i] != 4 * i + N;
    free(v.data);
    return verdict("struct_pointee", bad);
}

/* One input mapped once, read by K concurrent kernels that each write their
 * own output (with hcc: spread to the workers, not sent K times). */
static int one_to_many(void)
{
    long *in = malloc(N * sizeof(long)), *out[K], bad = 0;
    for (int i = 0; i < N; i++)
        in[i] = i * 7 % 101;
    for (int k = 0; k < K; k++)
        out[k] = malloc(N * sizeof(long));
#pragma omp target data map(to : in[0 : N])
#pragma omp parallel
#pragma omp single
    {
        for (int k = 0; k < K; k++) {
            long *o = out[k];
#pragma omp target map(from : o[0 : N]) depend(out : o[0]) nowait
            for (int i = 0; i < N; i++)
                o[i] = in[i] * (k + 1);
        }
#pragma omp taskwait
    }
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < N; i++)
            bad += out[k][i] != (i * 7 % 101) * (k + 1);
        free(out[k]);
    }
    free(in);
    return verdict("one_to_many", bad);
}

/* alloc'ed scratch written by one kernel and read by the next, reference
 * counts with nested enter data, and delete dropping every reference. */
static int alloc_refcount(void)
{
    long *s = malloc(N * sizeof(long)), *r = malloc(N * sizeof(long)), bad = 0;
    for (int i = 0; i < N; i++)
        s[i] = -1, r[i] = 0;
#pragma omp target enter data map(alloc : s[0 : N])
#pragma omp target enter data map(to : s[0 : N]) /* count 2: no copy */
#pragma omp target
    for (int i = 0; i < N; i++)
        s[i] = i * i;
#pragma omp target map(from : r[0 : N])
    for (int i = 0; i < N; i++)
        r[i] = s[i] + 1;
#pragma omp target exit data map(from : s[0 : N]) /* count 1: no copy */
    for (int i = 0; i < N; i++) /* -1 on a device, i*i with shared memory */
        bad += (s[i] != -1 && s[i] != (long)i * i) || r[i] != (long)i * i + 1;
#pragma omp target update from(s[0 : N])
    for (int i = 0; i < N; i++)
        bad += s[i] != (long)i * i;
    s[5] = 99;
#pragma omp target enter data map(to : s[0 : N]) /* count 2 again */
#pragma omp target exit data map(delete : s[0 : N])
#pragma omp target map(tofrom : s[0 : N]) /* fresh mapping: copies 99 in */
    s[5] += 1;
    bad += s[5] != 100;
    free(s);
    free(r);
    return verdict("alloc_refcount", bad);
}

int main(void)
{
    int bad = always_from() + sections() + data_tasks() + struct_pointee() +
              one_to_many() + alloc_refcount();
    printf("map_clauses: %d parts wrong\n", bad);
    return bad != 0;
}
