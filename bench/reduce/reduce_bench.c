/*
 * reduce_bench.c - hcrt's dynamic reduction (hcrt_reduce, hcrt.h) against
 * MPI_Reduce, MPI_Allreduce and concurrent MPI_Ireduce of the same doubles
 * on the same ranks, in one run, configurations interleaved per repetition
 * (bench/reduce/run.sh, RESULTS.md "Dynamic reduction").
 *
 *   hcrt-reduce-bench [-min BYTES] [-max BYTES] [-reps N] [-conc LIST]
 *                     [-csize BYTES] [-hog RANK]
 *
 * A time is the slowest rank's, from a barrier to its return; each figure
 * is the median of N repetitions (min and max printed too). -hog R starts
 * a thread on rank R that spins for the whole run (a CPU hog on its
 * core).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcrt/hcrt.h"

static int rank, nranks;
static atomic_int stop_hog;

static void *hog(void *arg)
{
    volatile unsigned long x = 0;
    (void)arg;
    while (!atomic_load_explicit(&stop_hog, memory_order_relaxed))
        x++;
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { M_HCRT, M_REDUCE, M_ALLREDUCE, M_IREDUCE, M_HCRT_CONC, NM };
static const char *mname[NM] = {"hcrt", "MPI_Reduce", "MPI_Allreduce",
                                "MPI_Ireduce", "hcrt"};

/* One timed run of method m over k reductions of n doubles. */
static double run(int m, int k, size_t n, double **send, double **recv)
{
    MPI_Request req[64];
    hcrt_future_t *f[64];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (m == M_HCRT) {
        if (hcrt_reduce(send[0], recv[0], n, HCRT_DOUBLE, HCRT_OP_SUM, 0,
                        NULL) != HCRT_OK)
            MPI_Abort(MPI_COMM_WORLD, 1);
    } else if (m == M_REDUCE) {
        MPI_Reduce(send[0], recv[0], (int)n, MPI_DOUBLE, MPI_SUM, 0,
                   MPI_COMM_WORLD);
    } else if (m == M_ALLREDUCE) {
        MPI_Allreduce(send[0], recv[0], (int)n, MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
    } else if (m == M_IREDUCE) {
        for (int i = 0; i < k; i++)
            MPI_Ireduce(send[i], recv[i], (int)n, MPI_DOUBLE, MPI_SUM, 0,
                        MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    } else {
        for (int i = 0; i < k; i++)
            hcrt_reduce_start(send[i], recv[i], n, HCRT_DOUBLE, HCRT_OP_SUM, 0,
                              &f[i]);
        for (int i = 0; i < k; i++)
            if (hcrt_future_wait(f[i], NULL) != HCRT_OK)
                MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t = MPI_Wtime() - t0, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void check(double *recv, size_t n)
{
    double want = (double)nranks * (nranks - 1) / 2 + nranks;
    if (rank == 0 && n && (recv[0] != want || recv[n - 1] != want)) {
        fprintf(stderr, "wrong sum %g, want %g\n", recv[0], want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void stats(double *t, int reps, double out[3])
{
    qsort(t, (size_t)reps, sizeof *t, cmp);
    out[0] = t[reps / 2], out[1] = t[0], out[2] = t[reps - 1];
}

/* Sizes from min to max by 4x: hcrt against the three MPI calls. */
static void single(size_t min, size_t max, int reps, double **s, double **r)
{
    if (rank == 0)
        printf("| bytes | hcrt ms (min-max) | MPI_Reduce ms | MPI_Allreduce ms "
               "| Reduce/hcrt | Allreduce/hcrt |\n|---|---|---|---|---|---|\n");
    for (size_t b = min; b <= max; b *= 4) {
        size_t n = b / sizeof(double);
        double t[3][64], st[3][3];
        for (int i = 0; i < reps; i++)
            for (int m = 0; m < 3; m++) { /* interleaved */
                t[m][i] = run(m, 1, n, s, r);
                check(r[0], m == M_HCRT || rank == 0 ? n : 0);
            }
        for (int m = 0; m < 3; m++)
            stats(t[m], reps, st[m]);
        if (rank == 0)
            printf("| %zu | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f "
                   "(%.2f-%.2f) | %.2f | %.2f |\n",
                   b, st[0][0] * 1e3, st[0][1] * 1e3, st[0][2] * 1e3,
                   st[1][0] * 1e3, st[1][1] * 1e3, st[1][2] * 1e3,
                   st[2][0] * 1e3, st[2][1] * 1e3, st[2][2] * 1e3,
                   st[1][0] / st[0][0], st[2][0] / st[0][0]);
        fflush(stdout);
    }
}

static void concurrent(const int *ks, int nk, size_t b, int reps, double **s,
                       double **r)
{
    size_t n = b / sizeof(double);
    if (rank == 0)
        printf("\n| concurrent x %zu bytes | hcrt ms (min-max) | MPI_Ireduce "
               "ms (min-max) | Ireduce/hcrt |\n|---|---|---|---|\n", b);
    for (int j = 0; j < nk; j++) {
        double t[2][64], st[2][3];
        for (int i = 0; i < reps; i++) {
            t[0][i] = run(M_HCRT_CONC, ks[j], n, s, r);
            t[1][i] = run(M_IREDUCE, ks[j], n, s, r);
        }
        stats(t[0], reps, st[0]);
        stats(t[1], reps, st[1]);
        if (rank == 0)
            printf("| %d | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f |\n",
                   ks[j], st[0][0] * 1e3, st[0][1] * 1e3, st[0][2] * 1e3,
                   st[1][0] * 1e3, st[1][1] * 1e3, st[1][2] * 1e3,
                   st[1][0] / st[0][0]);
        fflush(stdout);
    }
}

static double **buffers(int k, size_t bytes, int fill)
{
    double **b = malloc((size_t)k * sizeof *b);
    for (int i = 0; i < k; i++) {
        b[i] = malloc(bytes);
        for (size_t j = 0; j < bytes / sizeof(double); j++)
            b[i][j] = fill ? rank + 1 : 0;
    }
    return b;
}

int main(int argc, char **argv)
{
    size_t min = 128 << 10, max = 128 << 20, csize = 8 << 20;
    int reps = 5, hog_rank = -1, ks[16] = {4, 8, 16, 28}, nk = 4, provided;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-min"))
            min = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-max"))
            max = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-csize"))
            csize = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-hog"))
            hog_rank = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-conc")) {
            nk = 0;
            for (char *p = strtok(argv[i + 1], ","); p && nk < 16;
                 p = strtok(NULL, ","))
                ks[nk++] = atoi(p);
        }
    }
    if (reps < 1 || reps > 64)
        reps = 5;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    pthread_t h;
    if (rank == hog_rank)
        pthread_create(&h, NULL, hog, NULL);
    int kmax = 1;
    for (int j = 0; j < nk; j++)
        kmax = ks[j] > kmax ? ks[j] : kmax;
    if (max) {
        double **s = buffers(1, max, 1), **r = buffers(1, max, 0);
        if (rank == 0)
            printf("%d ranks, CPU hog on rank %d, %d repetitions, medians\n\n",
                   nranks, hog_rank, reps);
        single(min, max, reps, s, r);
        free(s[0]), free(r[0]), free(s), free(r);
    }
    if (nk && csize) {
        double **s = buffers(kmax, csize, 1), **r = buffers(kmax, csize, 0);
        concurrent(ks, nk, csize, reps, s, r);
    }
    atomic_store(&stop_hog, 1);
    if (rank == hog_rank)
        pthread_join(h, NULL);
    MPI_Finalize();
    return 0;
}
