// A target construct's thread_limit clause sets thread-limit-var in the
// kernel, on whichever node it runs (before, a kernel on a worker answered
// omp_get_thread_limit() with the worker's default), and only there: the
// next kernel without the clause, and the host, keep theirs. Also a target
// inside a parallel region (the clause no longer keeps that region on the
// head).
// RUN: %offload %s %t
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int a = -1, b = -1, c = -1, host = omp_get_thread_limit();
#pragma omp target map(from : a) thread_limit(32)
    a = omp_get_thread_limit();
#pragma omp target map(from : b)
    b = omp_get_thread_limit();
#pragma omp target map(from : c) thread_limit(5)
    c = omp_get_thread_limit();
    printf("kernel with thread_limit(32): %d; without: default %d; with "
           "thread_limit(5): %d; host unchanged %d\n",
           a, b == host, c, omp_get_thread_limit() == host);
    int seen[8] = {0};
#pragma omp parallel for num_threads(2)
    for (int i = 0; i < 8; i++) {
        int v = -1;
#pragma omp target map(from : v) thread_limit(7)
        v = omp_get_thread_limit();
        seen[i] = v;
    }
    int ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= seen[i] == 7;
    printf("targets in a parallel loop see thread_limit(7): %d\n", ok);
    return 0;
}
