// How a cluster job ends when something goes wrong, never with a hang:
// a worker's signal, abort(), exit() or fatal runtime error inside a
// cluster region ends the whole job with a message naming rank and host
// (cancel_refuse.c has the refusals of cancellation);
// the head's exit() inside a region and its return from main give the job
// the head's status. Each run is bounded by a 60 s timeout (status 124).
// RUN: %hcc -fopenmp -O1 %s -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -x HCRT_CLUSTER -np 2 env HCRT_CLUSTER=1 %t segv | FileCheck --check-prefix=SEGV %s
// SEGV: segmentation fault at {{.*}} on rank 1, host
// SEGV: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_CLUSTER=1 %t abort | FileCheck --check-prefix=ABORT %s
// ABORT: rank 1 with PID {{[0-9]+}} on node {{.*}} exited on signal 6
// ABORT: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_CLUSTER=1 %t worker-exit | FileCheck --check-prefix=WEXIT %s
// WEXIT: rank 1 on host {{.*}} called exit(9) inside a parallel region; ending the whole job with status 9
// WEXIT: status 9
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 4 env HCRT_CLUSTER=1 OMP_CANCELLATION=true %t cancel | FileCheck --check-prefix=CANCEL %s
// CANCEL: sum 4950
// CANCEL: status 0
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_CLUSTER=1 %t head-exit | FileCheck --check-prefix=HEXIT %s
// HEXIT: status 5
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 4 env HCRT_CLUSTER=1 %t return | FileCheck --check-prefix=RET %s
// RET: sum 4950
// RET: status 3
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int *volatile nowhere;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long sum = 0;

#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 100; i++)
        sum += i;
    printf("sum %ld\n", sum);
    fflush(stdout);
#pragma omp parallel
    {
        /* static: every thread, the last one too, gets its iteration (a
         * loop without a schedule may run on one node: HetProbe) */
#pragma omp for schedule(static)
        for (int i = 0; i < omp_get_num_threads(); i++) {
            int last = omp_get_thread_num() == omp_get_num_threads() - 1;
            if (!strcmp(mode, "segv") && last)
                *nowhere = 1;
            if (!strcmp(mode, "abort") && last)
                abort();
            if (!strcmp(mode, "worker-exit") && last)
                exit(9);
            if (!strcmp(mode, "head-exit") && omp_get_thread_num() == 0)
                exit(5);
            if (!strcmp(mode, "cancel") && last) {
#pragma omp cancel for
            }
        }
    }
    return !strcmp(mode, "return") ? 3 : 0;
}
