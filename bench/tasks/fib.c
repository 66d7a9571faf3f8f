/* fib.c - recursive Fibonacci with tasks and a sequential cutoff (BOTS
 * style). Usage: fib N CUTOFF. Prints "fib(N)=... time_s=...". A small
 * cutoff makes a tree of tiny tasks (that must stay home); a larger one
 * makes a few big subtrees (worth running on other nodes). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

static long fib(int n, int cutoff)
{
    long x, y;

    if (n <= cutoff)
        return fib_seq(n);
#pragma omp task shared(x) firstprivate(n, cutoff)
    x = fib(n - 1, cutoff);
#pragma omp task shared(y) firstprivate(n, cutoff)
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int cutoff = argc > 2 ? atoi(argv[2]) : 30;
    long r = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    r = fib(n, cutoff);
    double t = omp_get_wtime() - t0;
    printf("fib(%d)=%ld time_s=%.4f\n", n, r, t);
    return 0;
}
