// Pointer flows between separately compiled files, through memory that is
// not on a stack: a heap block and a global handed to regions in another
// file (atomic, reduction over an array section, critical, plain writes
// through a pointer another file keeps in its global), buffers returned
// through out-parameters (heap, and the other file's static array), a
// region in a static library, a callback through a function pointer with a
// heap context, and a qsort-based parallel sort with the caller's
// comparator. The locals of the same flows: xfile_stack.c.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   -I %S/Inputs/xfile --src %S/Inputs/xfile/flows_b.c \
// RUN:   --lib %S/Inputs/xfile/flows_lib.c %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "flows.h"

static double gout[5];
static double gtarget[NROW];

static void show(const char *what, const double *x)
{
    printf("%s: %.1f %.1f %.1f %.1f %.1f\n", what, x[0], x[1], x[2], x[3],
           x[4]);
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
        a->hits[i]++; /* each i once: no race */
}

static int by_key(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    for (int i = 0; i < NROW; i++)
        grid[i] = i % 10;

    double *h = calloc(5, sizeof *h);
    norm_atomic(h);
    show("heap, atomic", h);
    norm_reduce(h);
    show("heap, reduction", h);
    norm_atomic(gout);
    show("global, atomic", gout);
    lib_norm(h);
    show("heap, static library", h);

    struct work *w = malloc(sizeof *w);
    w->out = calloc(5, sizeof(double));
    w->count = calloc(1, sizeof(long));
    w->n = NROW;
    norm_critical(w);
    show("heap struct, critical", w->out);
    printf("critical sections entered by every thread: %d\n",
           *w->count == omp_get_max_threads());

    set_target(gtarget);
    fill_target(NROW);
    double *t = malloc(NROW * sizeof *t);
    set_target(t);
    fill_target(NROW);
    double s1 = 0, s2 = 0;
    for (int i = 0; i < NROW; i++)
        s1 += gtarget[i], s2 += t[i];
    printf("through another file's global: %.1f %.1f\n", s1, s2);

    double *p, *q;
    make_buffer(&p, NROW);
    static_buffer(&q);
#pragma omp parallel for
    for (int i = 0; i < NROW; i++) {
        p[i] = 0.5 * i;
        q[i] = i % 7;
    }
    printf("out-parameters: %.1f %.1f\n", sum_buffer(p, NROW),
           sum_buffer(q, NROW));

    struct acc *a = calloc(1, sizeof *a);
    apply(cb, a, 1000);
    int hits = 0;
    for (int i = 0; i < 64; i++)
        hits += a->hits[i] == 1;
    printf("callback: sum %ld, %d of 64 hit once\n", a->sum, hits);

    enum { NS = 20000 };
    long *keys = malloc(NS * sizeof *keys);
    for (int i = 0; i < NS; i++)
        keys[i] = (i * 7919L) % 10007;
    psort(keys, NS, sizeof *keys, by_key);
    int sorted = 1;
    for (int i = 1; i < NS; i++)
        sorted &= keys[i - 1] <= keys[i];
    printf("qsort-style sort with the caller's comparator: sorted %d, "
           "first %ld last %ld\n",
           sorted, keys[0], keys[NS - 1]);
    return 0;
}
