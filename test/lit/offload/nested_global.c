// Code nested in a target region that names a mapped global itself: a task
// inside the region, a task inside a parallel region inside it, and a
// helper function it calls (DataRaceBench DRB158). Clang's host outlining
// passes the global to the region's own function as a parameter (the
// device copy) but not to a task's entry, which names the global: run on
// a worker as a device, the task wrote the worker's own global and the
// host got the unchanged copy back. The pass marks such regions
// (hcrt_kernel_desc_t.host_only) and the runtime runs them on the head on
// the host's data, also inside a `target data` region whose copies a
// region before it on a device changed. Plain regions still go to devices.
// RUN: %offload %s %t
// RUN: %hcc -fopenmp -O2 %s -o %t.bin && env HCRT_LOG=target:2 %hcrun -n 2 %t.bin 2>&1 | FileCheck %s --check-prefix=NOTE
// NOTE: target region {{.*}} runs on the head, on the host's data: {{.*}} names the global(s) 'x', 'y' itself
// NOTE-NOT: runs on the head
// NOTE: target region {{.*}} runs on the head, {{.*}} names the global(s) 'x', 'hits' itself
// NOTE-NOT: runs on the head
#include <stdio.h>

#define C 64

float x[C], y[C];
long hits[C];

static void bump(int i)
{
    hits[i] += i; /* a global named by a function the region calls */
}

int main(void)
{
    for (int i = 0; i < C; i++)
        x[i] = 0, y[i] = 3, hits[i] = 0;

    /* tasks in the region itself, ordered by depend */
#pragma omp target map(to : y[0 : C]) map(tofrom : x[0 : C])
    for (int i = 0; i < C; i++) {
#pragma omp task depend(inout : x[i])
        x[i] = 5 * x[i] + 1;
#pragma omp task depend(inout : x[i])
        x[i] = x[i] + y[i];
    }

    /* a plain region (the global passed as a parameter): on a device */
#pragma omp target map(tofrom : x[0 : C])
#pragma omp parallel for
    for (int i = 0; i < C; i++)
        x[i] = x[i] * 2;

    /* in a data region: a device region changes the device copy, then a
     * region with a nested task must see it and its writes must survive
     * the data region's end */
#pragma omp target data map(tofrom : x[0 : C], hits[0 : C])
    {
#pragma omp target
        for (int i = 0; i < C; i++)
            x[i] += 100;
#pragma omp target
#pragma omp parallel
#pragma omp single
        for (int i = 0; i < C; i++) {
#pragma omp task firstprivate(i)
            {
                x[i] += 1000;
                bump(i);
            }
        }
    }

    long sum = 0;
    int bad = 0;
    for (int i = 0; i < C; i++) {
        sum += (long)x[i] + hits[i];
        bad += x[i] != (1 + 3) * 2 + 100 + 1000 || hits[i] != i;
    }
    printf("sum %ld, %s\n", sum, bad ? "WRONG" : "right");
    return 0;
}
