// Loop variables of every integer type: int, long, unsigned, unsigned long,
// long long; negative and non-unit steps; 64-bit bounds beyond 2^32; bounds
// near UINT_MAX; loops with zero trips; ordered; linear.
// RUN: %e2e --O0 %s %t
#include <limits.h>

#include "e2e.h"

/* Sequential expectation, computed with the same types. */
#define SEQ(T, lo, cmp, hi, step, acc)                                        \
    do {                                                                      \
        acc = 0;                                                              \
        for (T v = lo; v cmp hi; v += step)                                   \
            acc += (unsigned long)v * 3 + 1;                                  \
    } while (0)

#define PAR(T, sched, lo, cmp, hi, step, acc)                                 \
    do {                                                                      \
        unsigned long a_ = 0;                                                 \
        _Pragma(sched) for (T v = lo; v cmp hi; v += step) a_ +=              \
            (unsigned long)v * 3 + 1;                                         \
        acc = a_;                                                             \
    } while (0)

#define CASE(name, T, lo, cmp, hi, step)                                      \
    do {                                                                      \
        unsigned long want, got1, got2, got3;                                 \
        SEQ(T, lo, cmp, hi, step, want);                                      \
        PAR(T, "omp parallel for schedule(static) reduction(+:a_)", lo, cmp,  \
            hi, step, got1);                                                  \
        PAR(T, "omp parallel for schedule(monotonic:dynamic,4) reduction(+:a_)", \
            lo, cmp, hi, step, got2);                                         \
        PAR(T, "omp parallel for schedule(guided,2) reduction(+:a_)", lo, cmp, \
            hi, step, got3);                                                  \
        CHECK(got1 == want && got2 == want && got3 == want,                   \
              "%s: %lu %lu %lu, want %lu", name, got1, got2, got3, want);     \
        printf("%-28s %lu\n", name, got1);                                    \
    } while (0)

int main(void)
{
    CASE("int up", int, -500, <, 1500, 1);
    CASE("int up step 7", int, -3, <=, 2000, 7);
    CASE("int down", int, 1000, >, -1000, -1);
    CASE("int down step -9", int, 999, >=, -99, -9);
    CASE("int empty", int, 10, <, 10, 1);
    CASE("int near INT_MAX", int, INT_MAX - 1000, <, INT_MAX, 1);
    CASE("long up", long, -100000L, <, 100000L, 3);
    CASE("long beyond 2^32", long, (1L << 33) - 1000, <, (1L << 33) + 3000, 1);
    CASE("long down beyond 2^32", long, (1L << 34), >, (1L << 34) - 5000, -5);
    CASE("long long up", long long, -(1LL << 40), <, -(1LL << 40) + 4000, 2);
    CASE("unsigned up", unsigned, 0u, <, 3000u, 1);
    CASE("unsigned near UINT_MAX", unsigned, UINT_MAX - 3000u, <, UINT_MAX, 1);
    CASE("unsigned down", unsigned, 3000u, >, 5u, -1);
    CASE("unsigned step 5", unsigned, 2u, <, 4000u, 5);
    CASE("unsigned long up", unsigned long, 0ul, <, 5000ul, 1);
    CASE("unsigned long beyond 2^32", unsigned long, (1ul << 32) - 10, <,
         (1ul << 32) + 4000, 1);
    CASE("unsigned long near max", unsigned long, ULONG_MAX - 2000, <,
         ULONG_MAX, 4);
    CASE("unsigned long down", unsigned long, 6000ul, >=, 1ul, -2);

    /* ordered: the body's ordered part runs in iteration order. */
    long seq[600], n = 0;
#pragma omp parallel for ordered schedule(dynamic, 3)
    for (long i = 0; i < 600; i++) {
        long v = i * i % 601;
#pragma omp ordered
        seq[n++] = v;
    }
    int in_order = n == 600;
    for (long i = 0; i < n; i++)
        in_order &= seq[i] == i * i % 601;
    CHECK(in_order, "ordered: wrong order or count %ld", n);
    printf("ordered hash=%016llx\n", (unsigned long long)e2e_hash_longs(seq, n));

    /* ordered with a negative-step unsigned loop and static chunks */
    n = 0;
#pragma omp parallel for ordered schedule(static, 2)
    for (unsigned u = 599; u > 0; u -= 3) {
#pragma omp ordered
        seq[n++] = u;
    }
    CHECK(n == 200 && seq[0] == 599 && seq[199] == 2, "ordered unsigned down");
    printf("ordered down hash=%016llx\n",
           (unsigned long long)e2e_hash_longs(seq, n));

    /* linear: j advances by 3 per iteration, visible after the loop. */
    long j = 10;
    long lin[1000];
#pragma omp parallel for linear(j : 3) schedule(static)
    for (int i = 0; i < 1000; i++) {
        lin[i] = j;
        j += 3;
    }
    int lin_ok = j == 10 + 3000;
    for (int i = 0; i < 1000; i++)
        lin_ok &= lin[i] == 10 + 3 * i;
    CHECK(lin_ok, "linear: j=%ld", j);
    printf("linear j=%ld\n", j);
    return e2e_finish("loop_types");
}
