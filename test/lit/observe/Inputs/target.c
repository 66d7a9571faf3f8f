/* Six target regions, two of them `nowait` with dependences: launched on a
 * worker node when there is one, on the head otherwise. */
#include <stdio.h>

#define N 4096

static void step(double *a, int n, double f)
{
#pragma omp target map(tofrom : a[0 : n])
    for (int i = 0; i < n; i++)
        a[i] = a[i] * f + 1.0;
}

int main(void)
{
    static double a[N], b[N];
    for (int r = 0; r < 4; r++)
        step(a, N, 0.5);
#pragma omp target map(tofrom : b[0 : N]) depend(out : b) nowait
    for (int i = 0; i < N; i++)
        b[i] = i;
#pragma omp target map(tofrom : b[0 : N]) depend(inout : b) nowait
    for (int i = 0; i < N; i++)
        b[i] += a[i];
#pragma omp taskwait
    double s = 0;
    for (int i = 0; i < N; i++)
        s += b[i];
    printf("s=%.3f\n", s);
    return 0;
}
