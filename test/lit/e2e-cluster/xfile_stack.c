// Pointer flows between separately compiled files through the head's stack:
// a local array of a function in this file passed to regions in another
// file (atomic, reduction over an array section, in a static library), a
// local struct holding pointers to locals updated under critical, a local
// whose address another file keeps in its global and fills in a region, a
// local context handed with a callback, and a local array sorted by a
// qsort-based parallel sort. Per-module escape analysis cannot see these
// (the pointer leaves this module as a call argument); the regions of the
// other file must still compute with the head's values. They do because
// the head's main runs on a DSM stack (docs/runtime.md, "Stacks in DSM memory").
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   -I %S/Inputs/xfile --src %S/Inputs/xfile/flows_b.c \
// RUN:   --lib %S/Inputs/xfile/flows_lib.c %s %t
#include <omp.h>
#include <stdio.h>

#include "flows.h"

static void show(const char *what, const double *x)
{
    printf("%s: %.1f %.1f %.1f %.1f %.1f\n", what, x[0], x[1], x[2], x[3],
           x[4]);
}

static void verify(void)
{
    double x[5];
    norm_atomic(x);
    show("local, atomic", x);
    norm_reduce(x);
    show("local, reduction", x);
    lib_norm(x);
    show("local, static library", x);
}

static void with_struct(void)
{
    double out[5] = {0};
    long count = 0;
    struct work w = {out, &count, NROW};
    norm_critical(&w);
    show("local struct, critical", out);
    printf("critical sections entered by every thread: %d\n",
           count == omp_get_max_threads());
}

static void with_global(void)
{
    double t[NROW];
    set_target(t);
    fill_target(NROW);
    double s = 0;
    for (int i = 0; i < NROW; i++)
        s += t[i];
    printf("local kept in another file's global: %.1f\n", s);
}

struct acc {
    long sum;
    int hits[64];
};

static void cb(void *ctx, int i)
{
    struct acc *a = ctx;
#pragma omp atomic
    a->sum += i;
    if (i < 64)
        a->hits[i]++;
}

static void with_callback(void)
{
    struct acc a = {0};
    apply(cb, &a, 1000);
    int hits = 0;
    for (int i = 0; i < 64; i++)
        hits += a.hits[i] == 1;
    printf("callback with a local context: sum %ld, %d of 64 hit once\n",
           a.sum, hits);
}

static int by_key(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void with_sort(void)
{
    enum { NS = 4000 };
    long keys[NS];
    for (int i = 0; i < NS; i++)
        keys[i] = (i * 7919L) % 10007;
    psort(keys, NS, sizeof *keys, by_key);
    int sorted = 1;
    for (int i = 1; i < NS; i++)
        sorted &= keys[i - 1] <= keys[i];
    printf("local array sorted in parallel: sorted %d, first %ld last %ld\n",
           sorted, keys[0], keys[NS - 1]);
}

int main(void)
{
    for (int i = 0; i < NROW; i++)
        grid[i] = i % 10;
    verify();
    with_struct();
    with_global();
    with_callback();
    with_sort();
    return 0;
}
