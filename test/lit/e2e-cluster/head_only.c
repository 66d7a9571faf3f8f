// Regions the cluster cannot run across nodes stay on the head and still
// give the right answer: copyin of a threadprivate variable (its master
// copy lives in the head's thread-local storage) and num_threads(1).
// A loop region before and after runs on every node.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdio.h>

static long tp = 100;
#pragma omp threadprivate(tp)

static long a[1000];

static long loop_sum(int k)
{
    long s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 1000; i++) {
        a[i] = (long)i * k;
        s += a[i];
    }
    return s;
}

int main(void)
{
    printf("loop %ld\n", loop_sum(2));
    tp = 7;
    long sum = 0;
    int n = 0;
#pragma omp parallel copyin(tp) reduction(+ : sum)
    {
        sum += tp;
#pragma omp single
        n = omp_get_num_threads();
    }
    printf("copyin ok %d\n", sum == 7L * n);
    int one = 0;
#pragma omp parallel num_threads(1)
    one = omp_get_num_threads();
    printf("num_threads(1) team %d\n", one);
    printf("loop %ld\n", loop_sum(3));
    return 0;
}
