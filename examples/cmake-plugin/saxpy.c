/*
 * saxpy.c - an ordinary OpenMP program of an existing CMake project; see
 * CMakeLists.txt for the lines that make it an hcc program. Its output is
 * the same with and without hcc, at any thread or node count.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

int main(void)
{
    float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
    if (!x || !y)
        return 1;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 1024);
        y[i] = (float)(i % 7);
    }
    const float a = 2.0f;
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        y[i] = a * x[i] + y[i];

    /* exact: every y[i] is an integer below 2^12, the sum fits a long */
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += (long)y[i];

    /* a target region: offloaded to a node under hcc, host otherwise */
    long tail = 0;
#pragma omp target map(to : y[N - 16 : 16]) map(tofrom : tail)
    for (int i = N - 16; i < N; i++)
        tail += (long)y[i];

    printf("saxpy: n=%d sum=%ld tail=%ld\n", N, sum, tail);
    free(x);
    free(y);
    return 0;
}
