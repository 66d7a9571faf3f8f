// omp_get_num_procs() in a cluster job answers for the cluster: as many
// processors as its default team (np x threads), so the common
// `omp_set_num_threads(omp_get_num_procs())` (XSBench, RSBench) keeps the
// whole team. It answered one node's count, a team smaller than the
// nodes, and every region ran on the head alone.
// RUN: %hcc -O1 %s -o %t
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s --check-prefix=N2
// RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 %t | FileCheck %s --check-prefix=N4
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 2 %t | FileCheck %s --check-prefix=N4
// N2: procs 2, team 2
// N4: procs 4, team 4
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int procs = omp_get_num_procs(), team = 0;

    omp_set_num_threads(procs);
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    printf("procs %d, team %d\n", procs, team);
    return 0;
}
