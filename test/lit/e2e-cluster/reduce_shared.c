// A parallel for with reductions (+ on double and long, max, min) over a
// heap array, a writable global array and a stack array written by every
// node's threads, then read back by the head's serial code.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <stdio.h>
#include <stdlib.h>

#define N 200000
#define G 5000

long global_sq[G];
int global_init[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

int main(void)
{
    double *a = malloc(N * sizeof *a);
    long stack_arr[300];
    double sum = 0;
    long lsum = 0, mx = -1, mn = 1L << 40;

    for (int i = 0; i < 300; i++)
        stack_arr[i] = -1;
#pragma omp parallel for reduction(+ : sum, lsum) reduction(max : mx)      \
    reduction(min : mn)
    for (int i = 0; i < N; i++) {
        a[i] = (i % 1000) * 0.25;
        sum += a[i];
        lsum += i % 7 + global_init[i % 16];
        long v = (long)(i * 7919L % 100003);
        if (v > mx)
            mx = v;
        if (v < mn)
            mn = v;
        if (i < G)
            global_sq[i] = (long)i * i;
        if (i < 300)
            stack_arr[i] = 3L * i;
    }
    double check = 0;
    for (int i = 0; i < N; i++)
        check += a[i];
    long gs = 0, ss = 0;
    for (int i = 0; i < G; i++)
        gs += global_sq[i];
    for (int i = 0; i < 300; i++)
        ss += stack_arr[i];
    printf("sum %.2f (check %.2f) lsum %ld max %ld min %ld\n", sum, check,
           lsum, mx, mn);
    printf("globals %ld stack %ld\n", gs, ss);

    /* A second region reads what the first wrote, and updates in place. */
    double sum2 = 0;
#pragma omp parallel for reduction(+ : sum2)
    for (int i = 0; i < N; i++) {
        a[i] = a[i] * 2 + (i < G ? (double)global_sq[i] : 0);
        sum2 += a[i];
    }
    printf("sum2 %.2f\n", sum2);
    free(a);
    return 0;
}
