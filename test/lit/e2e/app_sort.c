// A small application: counter-based pseudo-random keys, a parallel
// histogram (atomics), an exclusive prefix sum over buckets, a stable
// parallel scatter by bucket (each thread owns whole buckets), per-bucket
// insertion sort, and a parallel check that the result is sorted.
// RUN: %e2e --O0 %s %t
#include <stdint.h>
#include <stdlib.h>

#include "e2e.h"

#define N 200003
#define NB 256

static uint64_t key(uint64_t i)
{
    /* splitmix64: the same key for index i on every thread count */
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) % 1000000007ull;
}

int main(void)
{
    uint64_t *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    long count[NB] = {0}, start[NB + 1];
#pragma omp parallel for
    for (long i = 0; i < N; i++) {
        in[i] = key(i);
        int b = (int)(in[i] * NB / 1000000007ull);
#pragma omp atomic
        count[b]++;
    }
    start[0] = 0;
    for (int b = 0; b < NB; b++)
        start[b + 1] = start[b] + count[b];
    /* each bucket filled by one thread in input order: stable */
#pragma omp parallel for schedule(dynamic, 4)
    for (int b = 0; b < NB; b++) {
        long pos = start[b];
        for (long i = 0; i < N; i++)
            if ((int)(in[i] * NB / 1000000007ull) == b)
                out[pos++] = in[i];
        for (long x = start[b] + 1; x < start[b + 1]; x++) {
            uint64_t k = out[x];
            long y = x - 1;
            while (y >= start[b] && out[y] > k) {
                out[y + 1] = out[y];
                y--;
            }
            out[y + 1] = k;
        }
    }
    long unsorted = 0;
    uint64_t xsum = 0, wsum = 0;
#pragma omp parallel for reduction(+ : unsorted) reduction(^ : xsum)
    for (long i = 0; i < N; i++) {
        unsorted += i > 0 && out[i - 1] > out[i];
        xsum ^= out[i] * 0x9e3779b97f4a7c15ull;
    }
    for (long i = 0; i < N; i++)
        wsum ^= in[i] * 0x9e3779b97f4a7c15ull;
    CHECK(unsorted == 0 && xsum == wsum, "sort: %ld out of order", unsorted);
    printf("sort: min=%llu median=%llu max=%llu buckets=%016llx\n",
           (unsigned long long)out[0], (unsigned long long)out[N / 2],
           (unsigned long long)out[N - 1],
           (unsigned long long)e2e_hash_longs(count, NB));
    free(in);
    free(out);
    return e2e_finish("app_sort");
}
