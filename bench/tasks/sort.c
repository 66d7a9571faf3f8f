/* sort.c - task-parallel mergesort of N pseudo-random longs on the heap;
 * subarrays below CUTOFF are sorted sequentially. Usage: sort N CUTOFF.
 * Prints a checksum of the sorted array and whether it is sorted. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void merge(long *a, long *tmp, long n, long mid)
{
    long i = 0, j = mid, k = 0;
    while (i < mid && j < n)
        tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof *a);
}

static void msort(long *a, long *tmp, long n, long cutoff)
{
    if (n <= cutoff) {
        qsort(a, (size_t)n, sizeof *a, cmp);
        return;
    }
    long mid = n / 2;
#pragma omp task firstprivate(a, tmp, mid, cutoff)
    msort(a, tmp, mid, cutoff);
#pragma omp task firstprivate(a, tmp, n, mid, cutoff)
    msort(a + mid, tmp + mid, n - mid, cutoff);
#pragma omp taskwait
    merge(a, tmp, n, mid);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4000000;
    long cutoff = argc > 2 ? atol(argv[2]) : n / 8;
    long *a = malloc((size_t)n * sizeof *a), *tmp = malloc((size_t)n * sizeof *a);
    unsigned long x = 88172645463325252UL;

    if (!a || !tmp)
        return 1;
    for (long i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = (long)(x % 1000000007UL);
    }
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    msort(a, tmp, n, cutoff);
    double t = omp_get_wtime() - t0;
    long sorted = 1, sum = 0;
    for (long i = 0; i < n; i++) {
        sorted &= i == 0 || a[i - 1] <= a[i];
        sum = (sum * 31 + a[i]) % 1000000007L;
    }
    printf("sort(%ld)=%ld sorted=%ld time_s=%.4f\n", n, sum, sorted, t);
    return 0;
}
