// Where a region's first call runs between hosts (docs/placement.md,
// policy 1): a region whose threads work on their own data (the compiler
// marks it, compiler/passes/RegionData.cpp: private and threadprivate
// stores, shared scalars read, results through a reduction and an atomic)
// starts on all nodes; one that writes a shared array the head's
// sequential code wrote starts on the head alone. Each is called once, so
// the statistics show exactly where its one call ran. Only across hosts
// (the netns tier): with every rank on one host both start on the head.
// REQUIRES: netns
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_HEAD_FIRST=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_HEAD_FIRST -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// CHECK: results ok
// CHECK: regions that started on the head alone because they read or write shared arrays {{.*}}: 1
// CHECK-DAG: region {{.*}}own_data.omp_outlined{{.*}} ran on all nodes
// CHECK-DAG: region {{.*}}shared_data.omp_outlined{{.*}} ran on the head alone
// CHECK-DAG: {{[0-9a-f]+}} own_data.omp_outlined on all nodes 1, on the head only 0
// CHECK-DAG: {{[0-9a-f]+}} shared_data.omp_outline{{d?}} on all nodes 0, on the head only 1
// CHECK-NOT: FAIL
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

static double seeds[64];
#pragma omp threadprivate(seeds)
static long hits[16];
static long samples = 20000;

/* Monte-Carlo: every thread's data is its own. */
static double own_data(void)
{
    double sum = 0;
#pragma omp parallel
    {
        for (int i = 0; i < 64; i++)
            seeds[i] = i + 1;
#pragma omp for reduction(+ : sum)
        for (long k = 0; k < samples; k++) {
            unsigned s = (unsigned)k * 2654435761u;
            double v = (double)(s % 1000) / 1000.0;
            sum += v * seeds[k % 64];
#pragma omp atomic
            hits[k % 16]++;
        }
    }
    return sum;
}

/* Rewrites an array the head initialised. */
static void shared_data(double *a)
{
#pragma omp parallel for
    for (long i = 0; i < N; i++)
        a[i] = 2 * a[i] + 1;
}

int main(void)
{
    double *a = malloc(N * sizeof(double));
    for (long i = 0; i < N; i++)
        a[i] = (double)i;
    double sum = own_data();
    shared_data(a);
    long all = 0;
    for (int i = 0; i < 16; i++)
        all += hits[i];
    int ok = all == samples && sum > 0 && a[N - 1] == 2.0 * (N - 1) + 1;
    printf("%s\n", ok ? "results ok" : "FAIL");
    free(a);
    return 0;
}
