/* ft_tasks.c [PHASES] [KERNEL_MS] [PAUSE_S] [STATUS]: target task graphs for FT
 * mode (docs/faults.md "FT mode"), run while a worker rank is lost.
 *
 * Each of PHASES (default 6) phases builds one graph of `target nowait`
 * tasks over blocks of longs with every dependency pattern of the offload
 * suite -- a chain of in-place updates, a fan-out, a fan-in, a diamond,
 * tasks pinned with device(n) -- each kernel also busy for KERNEL_MS
 * (default 40) so that a failure meets tasks in flight; then the head
 * sleeps PAUSE_S seconds (default 0) in sequential code. Kernels are
 * integer and order-sensitive (a lost, stale or repeated update changes
 * the result); the program also runs the same graph sequentially and
 * prints, per phase, the checksum and "ok" or "MISMATCH". The output of a
 * run that lost a rank must equal the output of a fault-free run (and of
 * plain clang). Maps are per task (to / from / tofrom). The exit status
 * is 1 after a mismatch, else STATUS (default 0).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define B 256       /* longs per block */
#define NB 10       /* blocks */
#define P 1000003L  /* modulus: exact values */

enum { SEQ = 0, OFFLOAD = 1 };
static double kernel_ms = 40;

#pragma omp declare target
static long mix(long x, long y, long salt, int i)
{
    return (x * 31 + y * 7 + salt * 131 + i) % P;
}
static void busy(double ms)
{
    double t0 = omp_get_wtime();
    while (omp_get_wtime() - t0 < ms * 1e-3)
        ;
}
static void k_upd(long *x, long salt, double ms)
{
    busy(ms);
    for (int i = 0; i < B; i++)
        x[i] = mix(x[i], 3, salt, i);
}
static void k_prod(const long *a, long *y, long salt, double ms)
{
    busy(ms);
    for (int i = 0; i < B; i++)
        y[i] = mix(a[i], 1, salt, i);
}
static void k_prod2(const long *a, const long *b, long *y, long salt,
                    double ms)
{
    busy(ms);
    for (int i = 0; i < B; i++)
        y[i] = mix(a[i], b[i], salt, i);
}
static void k_acc(const long *a, long *x, long salt, double ms)
{
    busy(ms);
    for (int i = 0; i < B; i++)
        x[i] = mix(x[i], a[i], salt, i);
}
#pragma omp end declare target

static void t_upd(int m, long *x, long s)
{
    double ms = kernel_ms;
    if (m == SEQ)
        k_upd(x, s, 0);
    else
#pragma omp target map(tofrom : x[0 : B]) depend(inout : x[0]) nowait
        k_upd(x, s, ms);
}

static void t_upd_dev(int m, long *x, long s, int d)
{
    double ms = kernel_ms;
    if (m == SEQ)
        k_upd(x, s, 0);
    else
#pragma omp target device(d) map(tofrom : x[0 : B]) depend(inout : x[0]) nowait
        k_upd(x, s, ms);
}

static void t_prod(int m, const long *a, long *y, long s)
{
    double ms = kernel_ms;
    if (m == SEQ)
        k_prod(a, y, s, 0);
    else
#pragma omp target map(to : a[0 : B]) map(from : y[0 : B]) depend(in : a[0]) \
    depend(out : y[0]) nowait
        k_prod(a, y, s, ms);
}

static void t_prod2(int m, const long *a, const long *b, long *y, long s)
{
    double ms = kernel_ms;
    if (m == SEQ)
        k_prod2(a, b, y, s, 0);
    else
#pragma omp target map(to : a[0 : B], b[0 : B]) map(from : y[0 : B])         \
    depend(in : a[0], b[0]) depend(out : y[0]) nowait
        k_prod2(a, b, y, s, ms);
}

static void t_acc(int m, const long *a, long *x, long s)
{
    double ms = kernel_ms;
    if (m == SEQ)
        k_acc(a, x, s, 0);
    else
#pragma omp target map(to : a[0 : B]) map(tofrom : x[0 : B])                 \
    depend(in : a[0]) depend(inout : x[0]) nowait
        k_acc(a, x, s, ms);
}

/* One phase's graph: chain, fan-out, fan-in, diamond, pinned tasks. */
static void graph(int m, long **b, int ph, int ndev)
{
    long s = 1000 * ph;
    for (int k = 0; k < 5; k++)
        t_upd(m, b[0], s + k); /* chain */
    for (int k = 1; k <= 4; k++)
        t_prod(m, b[0], b[k], s + 10 + k); /* fan-out */
    for (int k = 1; k <= 4; k++)
        t_acc(m, b[k], b[5], s + 20 + k); /* fan-in */
    t_prod2(m, b[1], b[2], b[6], s + 31); /* diamond */
    t_prod2(m, b[3], b[4], b[7], s + 32);
    t_prod2(m, b[6], b[7], b[8], s + 33);
    for (int k = 0; k < 4; k++) /* device(n), every device in turn */
        t_upd_dev(m, b[9], s + 40 + k, ndev ? k % ndev : 0);
    t_acc(m, b[8], b[9], s + 50);
}

static long checksum(long **b)
{
    long c = 0;
    for (int k = 0; k < NB; k++)
        for (int i = 0; i < B; i++)
            c = (c * 17 + b[k][i] + k) % P;
    return c;
}

int main(int argc, char **argv)
{
    int phases = argc > 1 ? atoi(argv[1]) : 6;
    double pause_s = argc > 3 ? atof(argv[3]) : 0;
    int status = argc > 4 ? atoi(argv[4]) : 0; /* the exit status if right */
    if (argc > 2)
        kernel_ms = atof(argv[2]);
    long *dev[NB], *ref[NB];
    for (int k = 0; k < NB; k++) {
        dev[k] = malloc(B * sizeof(long));
        ref[k] = malloc(B * sizeof(long));
        for (int i = 0; i < B; i++)
            dev[k][i] = ref[k][i] = (k * 7919L + i * 104729L) % P;
    }
    int ndev = omp_get_num_devices(), bad = 0;
    for (int ph = 0; ph < phases; ph++) {
#pragma omp parallel
#pragma omp single
        {
            graph(OFFLOAD, dev, ph, ndev);
#pragma omp taskwait
        }
        graph(SEQ, ref, ph, ndev);
        long c = checksum(dev), r = checksum(ref);
        printf("phase %d: checksum %ld %s\n", ph, c, c == r ? "ok" : "MISMATCH");
        fflush(stdout);
        bad |= c != r;
        if (pause_s > 0)
            usleep((useconds_t)(pause_s * 1e6));
    }
    printf("%s\n", bad ? "FAILED" : "all phases ok");
    return bad ? 1 : status;
}
