/* pattern.h - the kernels and checks shared by the dependency-pattern tests.
 *
 * Every test builds its task graph twice through the same code: once as
 * `target ... nowait depend(...)` tasks over mapped blocks (OFFLOAD), once
 * as plain sequential calls on a second set of blocks (the reference). The
 * kernels are integer and order-sensitive (mix(x, y) != mix(y, x), an
 * update of x depends on x's previous value), so a dependence the runtime
 * drops, a stale copy, or a lost write changes the result. The program
 * prints a checksum and whether the two runs agree: both must match what
 * plain clang prints (test/lit/offload/Inputs/run.sh).
 */
#ifndef PATTERN_H
#define PATTERN_H
#include <stdio.h>
#include <stdlib.h>

#define B 384      /* longs per block */
#define W 8        /* blocks per layer */
#define P 1000003L /* modulus: keeps values exact */

enum { SEQ = 0, OFFLOAD = 1 };

#pragma omp declare target
static long mix(long x, long y, long salt, int i)
{
    return (x * 31 + y * 7 + salt * 131 + i) % P;
}
/* y := f(a) */
static void k_prod1(const long *a, long *y, long salt)
{
    for (int i = 0; i < B; i++)
        y[i] = mix(a[i], 1, salt, i);
}
/* y := f(a, b) */
static void k_prod2(const long *a, const long *b, long *y, long salt)
{
    for (int i = 0; i < B; i++)
        y[i] = mix(a[i], b[i], salt, i);
}
/* y := f(a, b, c) */
static void k_prod3(const long *a, const long *b, const long *c, long *y,
                    long salt)
{
    for (int i = 0; i < B; i++)
        y[i] = mix(mix(a[i], b[i], salt, i), c[i], salt, i);
}
/* x := f(x, a) */
static void k_acc(const long *a, long *x, long salt)
{
    for (int i = 0; i < B; i++)
        x[i] = mix(x[i], a[i], salt, i);
}
/* x := f(x) */
static void k_upd(long *x, long salt)
{
    for (int i = 0; i < B; i++)
        x[i] = mix(x[i], 3, salt, i);
}
#pragma omp end declare target

/* The task forms: each either spawns a target task (OFFLOAD) or calls the
 * kernel at once (SEQ). */
static void t_prod1(int mode, const long *a, long *y, long salt)
{
    if (mode == SEQ)
        k_prod1(a, y, salt);
    else
#pragma omp target map(to : a[0 : B]) map(from : y[0 : B]) depend(in : a[0])   \
    depend(out : y[0]) nowait
        k_prod1(a, y, salt);
}

static void t_prod2(int mode, const long *a, const long *b, long *y, long salt)
{
    if (mode == SEQ)
        k_prod2(a, b, y, salt);
    else
#pragma omp target map(to : a[0 : B], b[0 : B]) map(from : y[0 : B])           \
    depend(in : a[0], b[0]) depend(out : y[0]) nowait
        k_prod2(a, b, y, salt);
}

static void t_prod3(int mode, const long *a, const long *b, const long *c,
                    long *y, long salt)
{
    if (mode == SEQ)
        k_prod3(a, b, c, y, salt);
    else
#pragma omp target map(to : a[0 : B], b[0 : B], c[0 : B]) map(from : y[0 : B]) \
    depend(in : a[0], b[0], c[0]) depend(out : y[0]) nowait
        k_prod3(a, b, c, y, salt);
}

static void t_acc(int mode, const long *a, long *x, long salt)
{
    if (mode == SEQ)
        k_acc(a, x, salt);
    else
#pragma omp target map(to : a[0 : B]) map(tofrom : x[0 : B]) depend(in : a[0]) \
    depend(inout : x[0]) nowait
        k_acc(a, x, salt);
}

static void t_upd(int mode, long *x, long salt)
{
    if (mode == SEQ)
        k_upd(x, salt);
    else
#pragma omp target map(tofrom : x[0 : B]) depend(inout : x[0]) nowait
        k_upd(x, salt);
}

/* y := f(v[0], ..., v[7]): a task reading all W blocks of a layer. */
static void t_gather(int mode, long *const v[W], long *y, long salt)
{
    long *v0 = v[0], *v1 = v[1], *v2 = v[2], *v3 = v[3], *v4 = v[4], *v5 = v[5],
         *v6 = v[6], *v7 = v[7];
    if (mode == SEQ) {
        k_prod1(v0, y, salt);
        for (int j = 1; j < W; j++)
            k_acc(v[j], y, salt + j);
        return;
    }
#pragma omp target map(to : v0[0 : B], v1[0 : B], v2[0 : B], v3[0 : B],        \
                           v4[0 : B], v5[0 : B], v6[0 : B], v7[0 : B])         \
    map(from : y[0 : B])                                                       \
    depend(in : v0[0], v1[0], v2[0], v3[0], v4[0], v5[0], v6[0], v7[0])        \
    depend(out : y[0]) nowait
    {
        long *vv[W] = {v0, v1, v2, v3, v4, v5, v6, v7};
        k_prod1(v0, y, salt);
        for (int j = 1; j < W; j++)
            k_acc(vv[j], y, salt + j);
    }
}

/* n blocks, filled deterministically from a seed. */
static long **blocks(int n, long seed)
{
    long **b = malloc(n * sizeof(long *));
    for (int j = 0; j < n; j++) {
        b[j] = malloc(B * sizeof(long));
        for (int i = 0; i < B; i++)
            b[j][i] = (seed * 1009 + j * 97 + i * 13) % P;
    }
    return b;
}

/* Runs GRAPH(mode, blocks) as target tasks and sequentially on two copies
 * of the same n initial blocks, then prints the checksum and the verdict. */
static int check(const char *name, int n, void (*graph)(int, long **))
{
    long **dev = blocks(n, 7), **seq = blocks(n, 7);
#pragma omp parallel
#pragma omp single
    {
        graph(OFFLOAD, dev);
#pragma omp taskwait
    }
    graph(SEQ, seq);
    long sum = 0, bad = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < B; i++) {
            sum = (sum * 17 + dev[j][i]) % P;
            bad += dev[j][i] != seq[j][i];
        }
    printf("%s: %d blocks, checksum %ld, %s\n", name, n, sum,
           bad ? "MISMATCH with the sequential run"
               : "matches the sequential run");
    for (int j = 0; j < n; j++) {
        free(dev[j]);
        free(seq[j]);
    }
    free(dev);
    free(seq);
    return bad != 0;
}
#endif
