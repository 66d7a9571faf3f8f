/* nqueens.c - count the N-queens solutions; one task per placement of the
 * first DEPTH rows (BOTS style). Usage: nqueens N DEPTH. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int ok(const char *a, int n, int col)
{
    for (int i = 0; i < n; i++) {
        int d = a[i] - col;
        if (d == 0 || d == n - i || d == i - n)
            return 0;
    }
    return 1;
}

static long solve_seq(char *a, int row, int n)
{
    long count = 0;

    if (row == n)
        return 1;
    for (int c = 0; c < n; c++)
        if (ok(a, row, c)) {
            a[row] = (char)c;
            count += solve_seq(a, row + 1, n);
        }
    return count;
}

static long solve(const char *prefix, int row, int n, int depth)
{
    long counts[32] = {0};

    if (row >= depth) {
        char a[32];
        for (int i = 0; i < row; i++)
            a[i] = prefix[i];
        return solve_seq(a, row, n);
    }
    for (int c = 0; c < n; c++) {
        if (!ok(prefix, row, c))
            continue;
#pragma omp task firstprivate(c, row, n, depth) shared(counts)
        {
            char a[32];
            for (int i = 0; i < row; i++)
                a[i] = prefix[i];
            a[row] = (char)c;
            counts[c] = solve(a, row + 1, n, depth);
        }
    }
#pragma omp taskwait
    long sum = 0;
    for (int c = 0; c < n; c++)
        sum += counts[c];
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 13;
    int depth = argc > 2 ? atoi(argv[2]) : 2;
    long r = 0;
    char empty[32] = {0};
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    r = solve(empty, 0, n, depth);
    double t = omp_get_wtime() - t0;
    printf("nqueens(%d)=%ld time_s=%.4f\n", n, r, t);
    return 0;
}
