// Home migration through the compiler (HCRT_DSM_MIGRATE, docs/dsm.md §3):
// the head allocates and fills arrays, then region after region every node
// updates its static share of them, and now and then the head reads and
// writes some. Over messages the pages of each worker's share move to it
// (HCRT_STATS: a non-zero mig-in on rank 1) and the output stays the
// reference's (the values are exact binary fractions: any summation order
// gives the same digits).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env HCRT_DSM_MIGRATE=1 --env HCRT_DSM_SHM=0 --env HCRT_SCHED_PLACE=0 --stats '^  1 +([0-9]+ +){10}[1-9][0-9]*$' %s %t
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 17)
#define ITERS 12

int main(void)
{
    double *a = malloc(N * sizeof *a);
    long *hits = calloc(N, sizeof *hits);
    for (int i = 0; i < N; i++)
        a[i] = i % 97;
    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++) {
            a[i] = a[i] * 0.5 + (double)(i % 13);
            hits[i]++;
        }
        if (it % 4 == 3) { /* the head reads and writes some of it */
            double s = 0;
            for (int i = 0; i < N; i += 1000)
                s += a[i];
            a[N / 2] += 1.0;
            printf("iteration %d: sample sum %.6f\n", it, s);
        }
    }
    double s = 0;
    long h = 0;
#pragma omp parallel for reduction(+ : s, h)
    for (int i = 0; i < N; i++) {
        s += a[i];
        h += hits[i];
    }
    printf("sum %.6f hits %ld\n", s, h);
    free(a);
    free(hits);
    return 0;
}
