// schedule(dynamic, c), guided and runtime over the cluster team: every
// iteration runs exactly once, chunk sizes are honoured (dynamic,c: each
// run of consecutive iterations of one thread starts at a multiple of c),
// and lastprivate takes the sequentially last iteration's value. (The
// reference is libomp, which loses lastprivate under nonmonotonic dynamic
// work stealing, PLATFORM.md: the lastprivate loops say monotonic so that
// the reference is right; hcrt treats both the same.)
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env OMP_SCHEDULE=dynamic,5 %s %t.rt
#include <omp.h>
#include <stdio.h>

#define N 5000

static int hits[N], owner[N];

static void reset(void)
{
    for (int i = 0; i < N; i++)
        hits[i] = 0, owner[i] = -1;
}

static int once(void)
{
    for (int i = 0; i < N; i++)
        if (hits[i] != 1)
            return 0;
    return 1;
}

int main(void)
{
    long last = -1;
    double dlast = 0;

    reset();
#pragma omp parallel for schedule(monotonic : dynamic, 4) lastprivate(last)
    for (int i = 0; i < N; i++) {
        hits[i]++;
        owner[i] = omp_get_thread_num();
        last = 2L * i + 1;
    }
    int chunks = 1;
    for (int i = 1; i < N; i++)
        if (owner[i] != owner[i - 1] && i % 4 != 0)
            chunks = 0;
    printf("dynamic,4 once %d chunks %d last %ld\n", once(), chunks, last);

    reset();
#pragma omp parallel for schedule(monotonic : guided, 3) lastprivate(dlast)
    for (int i = N - 1; i >= 0; i--) {
        hits[i]++;
        dlast = i * 0.5;
    }
    printf("guided once %d last %.1f\n", once(), dlast);

    reset();
    long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum) lastprivate(last)
    for (long i = 0; i < N; i++) {
        hits[i]++;
        sum += i;
        last = i;
    }
    printf("runtime once %d sum %ld last %ld\n", once(), sum, last);

    /* Two dynamic loops in one region, the first nowait. */
    reset();
    long s1 = 0, s2 = 0;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic) nowait reduction(+ : s1)
        for (int i = 0; i < N; i++)
            s1 += i;
#pragma omp for schedule(dynamic, 16) reduction(+ : s2)
        for (int i = 0; i < N; i++) {
            hits[i]++;
            s2 += 2 * i;
        }
    }
    printf("two loops once %d s1 %ld s2 %ld\n", once(), s1, s2);
    return 0;
}
