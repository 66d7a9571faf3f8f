// Zero-initialised globals nobody touched before main: on ranks of other
// hosts they start invalid (the home's first writes tell nobody), so every
// read must still see zero before the head writes them, the head's values
// after, and a worker's own writes after that (pages.c,
// hcrt__dsm_untouched_share; the tier across hosts runs it over TCP).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh -I %S/../e2e/Inputs %s %t
#include "e2e.h"

#define N (1 << 18) /* 2 MiB of longs: 512 pages */

long zeros[N];   /* read only: zero everywhere */
long written[N]; /* written by the head, then by the loop */

int main(void)
{
    long nonzero = 0;
#pragma omp parallel for reduction(+ : nonzero)
    for (long i = 0; i < N; i++)
        nonzero += zeros[i] != 0 || written[i] != 0;
    CHECK(nonzero == 0, "%ld nonzero values before any write", nonzero);
    for (long i = 0; i < N; i += 3) /* the head's sequential writes */
        written[i] = i;
    long bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (long i = 0; i < N; i++) {
        bad += written[i] != (i % 3 ? 0 : i) || zeros[i] != 0;
        written[i] += 1;
    }
    CHECK(bad == 0, "%ld wrong values after the head's writes", bad);
    uint64_t h = E2E_HASH_INIT;
    for (long i = 0; i < N; i += 101)
        h = e2e_hash(h, (uint64_t)written[i]);
    printf("written hash %016llx\n", (unsigned long long)h);
    return e2e_failures != 0;
}
