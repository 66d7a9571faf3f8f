/*
 * reduction.c - many parallel reductions: 50,000 `parallel for
 * reduction(+,max)` over 10,000 elements each. Prints the kernel time and
 * the (exact, integer-valued) results.
 */
#include <omp.h>
#include <stdio.h>

#define N 10000
#define REPS 250000

static double a[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (i * 37) % 101;
    double t0 = omp_get_wtime(), total = 0, top = 0;
    for (int r = 0; r < REPS; r++) {
        double s = 0, m = 0;
#pragma omp parallel for reduction(+ : s) reduction(max : m)
        for (int i = 0; i < N; i++) {
            double v = a[i] + (double)(r % 3);
            s += v;
            m = v > m ? v : m;
        }
        total += s;
        top = m > top ? m : top;
    }
    double t = omp_get_wtime() - t0;
    printf("reduction: total %.1f max %.1f\n", total, top);
    printf("kernel_seconds %.6f\n", t);
    return 0;
}
