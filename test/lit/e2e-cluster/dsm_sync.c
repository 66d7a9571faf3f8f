// OpenMP synchronisation on shared data across ranks: critical sections,
// locks, atomics of every width and kind, reductions, and barriers between
// phases that read what other threads wrote.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh -I %S/../e2e/Inputs %s %t
#include <omp.h>
#include <stdint.h>

#include "e2e.h"

#define N 20000

long crit_count, lock_count;
int8_t a8;
int16_t a16;
int32_t a32;
int64_t a64, amax = -1000000, amin = 1000000;
float af;
double ad;
uint32_t abits;
long phase[N];

int main(void)
{
    omp_lock_t lk;
    omp_init_lock(&lk);
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
#pragma omp critical
        crit_count += 2;
        omp_set_lock(&lk);
        lock_count++;
        omp_unset_lock(&lk);
#pragma omp atomic
        a8 += 1;
#pragma omp atomic
        a16 += 3;
#pragma omp atomic
        a32 -= 5;
#pragma omp atomic
        a64 += i;
#pragma omp atomic
        af += 0.5f;
#pragma omp atomic
        ad += 0.25;
#pragma omp atomic
        abits |= 1u << (i % 32);
#pragma omp atomic compare
        if (amax < i) { amax = i; }
#pragma omp atomic compare
        if (amin > i) { amin = i; }
    }
    omp_destroy_lock(&lk);
    CHECK(crit_count == 2L * N, "critical %ld", crit_count);
    CHECK(lock_count == N, "lock %ld", lock_count);
    CHECK(a8 == (int8_t)N && a16 == (int16_t)(3 * N) && a32 == -5 * N,
          "ints %d %d %d", a8, a16, a32);
    CHECK(a64 == (int64_t)N * (N - 1) / 2, "a64 %lld", (long long)a64);
    CHECK(af == 0.5f * N && ad == 0.25 * N, "fp %g %g", af, ad);
    CHECK(abits == 0xffffffffu && amax == N - 1 && amin == 0, "bits/minmax");
    long sum = 0;
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < N; i++)
            phase[i] = i;
        /* implicit barrier: next phase reads neighbours' writes */
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < N; i++)
            sum += phase[(i + 1) % N] - phase[i];
    }
    CHECK(sum == 0, "sum %ld", sum);
    printf("crit %ld lock %ld a64 %lld sum %ld\n", crit_count, lock_count,
           (long long)a64, sum);
    return e2e_failures != 0;
}
