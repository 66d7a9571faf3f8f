// A 256 MiB array initialised in parallel and swept twice: pages stream
// between ranks (prefetch), and the mapping count must stay far below
// vm.max_map_count.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh -I %S/../e2e/Inputs %s %t
#include <stdlib.h>

#include "e2e.h"

#define N (32L << 20) /* 32 Mi doubles = 256 MiB */

int main(void)
{
    double *a = malloc(N * sizeof *a);
#pragma omp parallel for
    for (long i = 0; i < N; i++)
        a[i] = (double)(i % 1000);
    double s = 0;
    for (int sweep = 0; sweep < 2; sweep++) {
#pragma omp parallel for reduction(+ : s)
        for (long i = 0; i < N; i++)
            s += a[N - 1 - i];
    }
    double want = 0;
    for (long i = 0; i < N; i++)
        want += 2.0 * (double)(i % 1000);
    CHECK(s == want, "sum %.0f want %.0f", s, want);
    printf("sum %.0f\n", s);
    free(a);
    return e2e_failures != 0;
}
