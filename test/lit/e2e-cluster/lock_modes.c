// One lock used by the head's serial code, by calls on every node and by
// calls on the head alone (region placement moves the counting region to
// the head after its first calls). On the head while no region runs on
// other nodes the lock word takes plain atomics; inside a region on every
// node DSM atomics with acquire and release: both must agree on the word.
// RUN: %hcc -O1 %s -o %t
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s
// RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 %t | FileCheck %s
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 2 %t | FileCheck %s
// RUN: env HCRT_SCHED_PLACE_HEAD_FIRST=1 timeout -k 5 120 %hcrun -n 2 --threads 2 %t | FileCheck %s
// CHECK: held by the serial code: every thread's test failed
// CHECK: count 80000, held after 0
#include <omp.h>
#include <stdio.h>

static omp_lock_t lock;
static long count;

static void add(int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        omp_set_lock(&lock);
        long c = count; /* a lost update if the lock did not exclude */
        count = c + 1;
        omp_unset_lock(&lock);
    }
}

int main(void)
{
    int failed = 0, team = 0;

    omp_init_lock(&lock);
    omp_set_lock(&lock);
#pragma omp parallel reduction(+ : failed)
    {
        failed += !omp_test_lock(&lock);
#pragma omp single
        team = omp_get_num_threads();
    }
    omp_unset_lock(&lock);
    printf("held by the serial code: %s\n",
           failed == team ? "every thread's test failed" : "WRONG");
    for (int k = 0; k < 40; k++)
        add(2000);
    int held = !omp_test_lock(&lock);
    if (!held)
        omp_unset_lock(&lock);
    printf("count %ld, held after %d\n", count, held);
    omp_destroy_lock(&lock);
    return 0;
}
