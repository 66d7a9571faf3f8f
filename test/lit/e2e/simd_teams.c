// simd and declare simd, parallel for simd with reductions, the OpenMP 5.0
// loop construct, host teams with distribute / distribute parallel for,
// and the metadirective-free combined forms a newcomer writes.
// RUN: %e2e --O0 %s %t
#include <omp.h>

#include "e2e.h"

#define N 8192

#pragma omp declare simd
static int poly(int x) { return 3 * x * x + 2 * x + 1; }

static int a[N], b[N], c[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = i % 1000;
#pragma omp simd
    for (int i = 0; i < N; i++)
        b[i] = poly(a[i]);
    long s1 = 0;
    /* not schedule(simd: static, 5): clang 19 + libomp get that reduction
     * wrong at 2+ threads, so it cannot serve as the reference */
#pragma omp parallel for simd reduction(+ : s1) schedule(static, 5)
    for (int i = 0; i < N; i++) {
        c[i] = b[i] - a[i];
        s1 += c[i];
    }
    long s2 = 0;
#pragma omp parallel
#pragma omp loop reduction(+ : s2)
    for (int i = 0; i < N; i++)
        s2 += a[i];
    long s3 = 0;
#pragma omp parallel loop reduction(+ : s3)
    for (int i = 0; i < N; i++)
        s3 += b[i] % 7;

    /* host teams (OpenMP 5.0): distribute over teams, then threads */
    long s4 = 0, s5 = 0;
    int teams_ok = 1;
#pragma omp teams num_teams(2) reduction(+ : s4) reduction(& : teams_ok)
    {
        teams_ok &= omp_get_num_teams() >= 1 && omp_get_team_num() < 2;
#pragma omp distribute
        for (int i = 0; i < N; i++)
            s4 += a[i];
    }
#pragma omp teams distribute parallel for reduction(+ : s5) num_teams(2)
    for (int i = 0; i < N; i++)
        s5 += c[i] * (long)(i % 3);

    long w1 = 0, w2 = 0, w3 = 0, w5 = 0;
    for (int i = 0; i < N; i++) {
        w1 += poly(a[i]) - a[i];
        w2 += a[i];
        w3 += poly(a[i]) % 7;
        w5 += (long)(poly(a[i]) - a[i]) * (i % 3);
    }
    CHECK(s1 == w1 && s2 == w2 && s3 == w3 && s4 == w2 && s5 == w5 && teams_ok,
          "simd/loop/teams: %ld %ld %ld %ld %ld", s1, s2, s3, s4, s5);
    printf("simd_teams: %ld %ld %ld %ld %ld c=%016llx\n", s1, s2, s3, s4, s5,
           (unsigned long long)e2e_hash_ints(c, N));
    return e2e_finish("simd_teams");
}
