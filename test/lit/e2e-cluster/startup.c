// Start-up refusals of a cluster job: an MPI without MPI_THREAD_MULTIPLE
// (simulated with the test hook HCRT_TEST_THREAD_LEVEL, docs/settings.md)
// and a bad setting stop every rank with a message naming the problem, as
// does a rank that cannot form its share of a team,
// never a hang; the same program starts normally otherwise, and `./prog`
// without a launcher is a one-node run. (Binary mismatch: binary_mismatch.c.)
// RUN: %hcc -fopenmp -O1 %s -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_TEST_THREAD_LEVEL=2 %t | FileCheck --check-prefix=LEVEL %s
// LEVEL: MPI grants thread level 2, hcrt needs MPI_THREAD_MULTIPLE (3); use an MPI library built with thread support
// LEVEL: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_CLUSTER=perhaps %t > %t.bad
// RUN: FileCheck --check-prefix=BAD %s < %t.bad
// BAD: HCRT_CLUSTER='perhaps' is not valid: expected one of 0/1
// BAD: status {{[1-9][0-9]*}}
// Reported once by a rank (mpirun may end the other one first), naming it:
// RUN: not grep -F 'hcrt[?]' %t.bad
// RUN: grep "HCRT_CLUSTER='perhaps' is not valid" %t.bad | cut -d' ' -f1 | sort | uniq -d | FileCheck --allow-empty --check-prefix=ONCE %s
// ONCE-NOT: hcrt
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env HCRT_STATS=1 %t | FileCheck --check-prefix=OK %s
// (stdout and the statistics on stderr reach mpirun by different pipes:
// their order is not fixed)
// OK-DAG: nodes 2 sum 4950
// OK-DAG: cluster regions 1 on 2 nodes
// OK: status 0
// A rank whose libomp cannot form its share of the cluster team (a lower
// thread limit there) stops the job naming it, instead of a team with
// missing threads (lost iterations, a barrier waiting forever).
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 1 env OMP_NUM_THREADS=2 %t : -np 1 env OMP_NUM_THREADS=2 OMP_THREAD_LIMIT=1 %t | FileCheck --check-prefix=SHARE %s
// SHARE: rank 1 got 1 of its 2 threads of the cluster team (set OMP_THREAD_LIMIT and KMP_DEVICE_THREAD_LIMIT to at least OMP_NUM_THREADS on every rank)
// SHARE: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 env HCRT_STATS=1 %t | FileCheck --check-prefix=ALONE %s
// ALONE: nodes 1 sum 4950
// ALONE-NOT: cluster regions
// ALONE: status 0
#include <hcrt/hcrt.h>
#include <stdio.h>

int main(void)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 100; i++)
        sum += i;
    printf("nodes %d sum %ld\n", hcrt_num_nodes(), sum);
    return 0;
}
