// `declare target link` variables: mapped from their reference pointer,
// named directly by the code of the region. A kernel using one sees the
// value the map gave it, writes through it reach the host at the end of the
// mapping, and enter/exit data of it keep the host's value (before, the
// kernel ran on a worker with that node's own global: the mapped value never
// arrived). Kernels using them run on the head.
// RUN: %offload %s %t
#include <omp.h>
#include <stdio.h>

#define N 1000
int aint = 10;
double table[N];
#pragma omp declare target link(aint, table)

static void compute(int *x, const int *y)
{
    for (int i = 0; i < N; i++)
        x[i] = y[i] * 2 + aint * i + (int)table[i];
}

int main(void)
{
    int x[N], y[N], bad = 0;
    for (int i = 0; i < N; i++)
        y[i] = i, table[i] = 1.0;
    aint = 12;
#pragma omp target map(from : x) map(to : y, aint, table)
    compute(x, y);
    for (int i = 0; i < N; i++)
        bad += x[i] != 2 * i + 12 * i + 1;
    printf("link variables mapped to a kernel: %d wrong\n", bad);

#pragma omp target map(tofrom : aint, table)
    {
        aint += 30;
        for (int i = 0; i < N; i++)
            table[i] += i;
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += table[i];
    printf("written by a kernel: aint %d, table sum %.0f\n", aint, s);

#pragma omp target enter data map(to : aint)
#pragma omp target map(from : bad)
    {
        bad = aint != 42;
        aint = 7;
    }
#pragma omp target exit data map(from : aint)
    printf("enter/exit data: kernel saw the value %d, host has %d\n", !bad,
           aint);
    return 0;
}
