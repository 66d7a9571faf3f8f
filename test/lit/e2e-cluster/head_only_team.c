// A region hcc leaves to libomp (doacross `ordered depend` is not lowered)
// runs on the head with the team omp_get_max_threads() announced, np x
// threads, not libomp's one node's: the program sizes per-thread slots by
// omp_get_max_threads() and sums them all, and a slot no thread wrote
// (here pre-set to 1000000, as memory that is not zeroed would hold) made
// the total wrong at 2 ranks.
// RUN: %hcc -O1 %s -o %t 2>/dev/null
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s
// RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 %t | FileCheck %s
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 2 %t | FileCheck %s
// CHECK: team = max threads: yes, total 4950
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int max = omp_get_max_threads(), team = 0;
    long *part = malloc(max * sizeof *part), a[100];

    for (int i = 0; i < max; i++)
        part[i] = 1000000;
#pragma omp parallel
    {
        long s = 0;
#pragma omp for ordered(1)
        for (int i = 1; i < 100; i++) {
#pragma omp ordered depend(sink : i - 1)
            a[i] = i;
            s += a[i];
#pragma omp ordered depend(source)
        }
        part[omp_get_thread_num()] = s;
#pragma omp single
        team = omp_get_num_threads();
    }
    long t = 0;
    for (int i = 0; i < max; i++)
        t += part[i];
    printf("team = max threads: %s, total %ld\n", team == max ? "yes" : "no",
           t);
    free(part);
    return 0;
}
