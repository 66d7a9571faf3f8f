// Shared data of every kind the DSM manages: a writable global array, heap
// arrays allocated in sequential code and inside loop bodies (freed on
// another iteration's thread), a realloc'ed buffer, and a stack array whose
// address reaches the parallel region. Each rank writes bytes of pages other
// ranks also write (false sharing), and every result is checked after the
// implicit barrier.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh -I %S/../e2e/Inputs %s %t
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define N 100000
#define M 512

long global_sq[N];
char global_bytes[M * 64];

int main(void)
{
    long *heap = malloc(N * sizeof *heap);
    long stack_arr[M];
    long **rows = calloc(M, sizeof *rows);
#pragma omp parallel for schedule(static, 7)
    for (long i = 0; i < N; i++) {
        global_sq[i] = i * i;
        heap[i] = 3 * i;
    }
#pragma omp parallel for
    for (int i = 0; i < M; i++) {
        stack_arr[i] = i;
        rows[i] = malloc((size_t)(i + 1) * sizeof(long)); /* in loop bodies */
        for (int k = 0; k <= i; k++)
            rows[i][k] = i + k;
        memset(global_bytes + i * 64, i & 0x7f, 64); /* 64 rows per page */
    }
    long bad = 0;
    for (long i = 0; i < N; i++)
        bad += global_sq[i] != i * i || heap[i] != 3 * i;
    for (int i = 0; i < M; i++) {
        bad += stack_arr[i] != i || global_bytes[i * 64 + 63] != (i & 0x7f);
        for (int k = 0; k <= i; k++)
            bad += rows[i][k] != i + k;
    }
    CHECK(bad == 0, "%ld wrong values", bad);
#pragma omp parallel for
    for (int i = 0; i < M; i++)
        free(rows[M - 1 - i]); /* freed by whichever thread/rank runs it */
    heap = realloc(heap, 2 * N * sizeof *heap);
#pragma omp parallel for
    for (long i = N; i < 2 * N; i++)
        heap[i] = heap[i - N] + 1;
    uint64_t h = E2E_HASH_INIT;
    for (long i = 0; i < 2 * N; i += 97)
        h = e2e_hash(h, (uint64_t)heap[i]);
    printf("heap hash %016llx\n", (unsigned long long)h);
    free(heap);
    free(rows);
    return e2e_failures != 0;
}
