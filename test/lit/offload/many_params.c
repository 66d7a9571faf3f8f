// A target region with more kernel parameters than an event header holds
// (18 mapped arrays and 6 scalars: clang passes 24+ arguments), deferred and
// undeferred, with defaultmap(tofrom: scalar) as in OpenMP_VV's
// test_target_teams_distribute_defaultmap (whose batched run once read the
// parameters past the 15th from the wrong list and crashed on a worker).
// Batched (the default) and one event per operation.
//
// RUN: %offload %s %t
// RUN: env HCRT_OFFLOAD_BATCH=0 OFFLOAD_RANKS=2 %offload %s %t.nobatch
#include <stdio.h>

#define N 1000

static long a0[N], a1[N], a2[N], a3[N], a4[N], a5[N], a6[N], a7[N], a8[N],
    a9[N], a10[N], a11[N], a12[N], a13[N], a14[N], a15[N], a16[N], a17[N];

#define ALL(X)                                                                 \
    X(a0, 0) X(a1, 1) X(a2, 2) X(a3, 3) X(a4, 4) X(a5, 5) X(a6, 6) X(a7, 7)    \
        X(a8, 8) X(a9, 9) X(a10, 10) X(a11, 11) X(a12, 12) X(a13, 13)          \
            X(a14, 14) X(a15, 15) X(a16, 16) X(a17, 17)
#define INIT(v, k) v[i] = (k) * 1000 + i;
#define ADD(v, k) v[i] += x;
#define SUM(v, k) sum += v[i] * ((k) + 1) + i;
#define MAPS                                                                   \
    map(tofrom : a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,   \
            a14, a15, a16, a17)

int main(void)
{
    for (int i = 0; i < N; i++) {
        ALL(INIT)
    }
    long s1 = 1, s2 = 2, s3 = 3, s4 = 4, s5 = 5, s6 = 6;
    for (int rep = 0; rep < 3; rep++) {
#pragma omp target teams distribute defaultmap(tofrom : scalar) MAPS nowait   \
    depend(inout : a0)
        for (int i = 0; i < N; i++) {
            long x = s1 + 2 * s2 + 3 * s3 + 4 * s4 + 5 * s5 + 6 * s6 + rep;
            ALL(ADD)
            if (i == N - 1)
                s6 = 7; /* tofrom scalar: comes back */
        }
#pragma omp taskwait
#pragma omp target teams distribute defaultmap(tofrom : scalar) MAPS
        for (int i = 0; i < N; i++) {
            long x = -(s1 + s5);
            ALL(ADD)
            if (i == 0)
                s1 = s1 + 1;
        }
    }
    long sum = 0;
    for (int i = 0; i < N; i++) {
        ALL(SUM)
    }
    int ok = s1 == 4 && s6 == 7;
    printf("many_params: sum %ld s1 %ld s6 %ld %s\n", sum, s1, s6,
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
