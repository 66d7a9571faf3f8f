// Cancellation that cannot work across nodes stops the job with a message
// naming the place and the fix, never a hang (each run under a 60 s
// timeout, status 124):
// - ranks with different OMP_CANCELLATION (a worker that never looks would
//   leave the team's barriers unmatched);
// - a reduction on a cancelled loop: clang's cancelling thread skips the
//   reduction, so the other threads would wait for it (clang-19 -fopenmp
//   with libomp hangs there); at 1 thread per rank the canceller is alone
//   on its node and the others wait for it in the cross-node tree.
// RUN: %hcc -fopenmp -O1 -g %s -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 bash -c '[ "$OMPI_COMM_WORLD_RANK" = 0 ] && export OMP_CANCELLATION=true; exec %t search' | FileCheck --check-prefix=MISMATCH %s
// MISMATCH: core: fatal: rank 1 has OMP_CANCELLATION=false but the head has true: set it the same for every rank
// MISMATCH: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 -x OMP_CANCELLATION=true -x OMP_NUM_THREADS=1 %t reduce | FileCheck --check-prefix=REDUCE %s
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 -x OMP_CANCELLATION=true -x OMP_NUM_THREADS=2 %t reduce | FileCheck --check-prefix=REDUCE %s
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 4 -x OMP_CANCELLATION=true -x OMP_NUM_THREADS=2 %t reduce | FileCheck --check-prefix=REDUCE %s
// REDUCE: core: fatal: a reduction on a cancelled worksharing loop at {{.*}}cancel_refuse.c:{{[0-9]+}} (main) is not supported across nodes {{.*}}; the cancelling thread leaves the loop without taking part in the reduction
// REDUCE: status {{[1-9][0-9]*}}
// The same program without the faults runs (and with cancellation off).
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 -x OMP_CANCELLATION=true %t search | FileCheck --check-prefix=OK %s
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 %t reduce | FileCheck --check-prefix=OFF %s
// OK: found 777
// OK: status 0
// OFF: sum 49995000
// OFF: status 0
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long sum = 0, found = -1;

    if (!strcmp(mode, "search")) {
#pragma omp parallel for schedule(static) shared(found)
        for (int i = 0; i < 10000; i++)
            if (i == 777) {
#pragma omp atomic write
                found = i;
#pragma omp cancel for
            }
        printf("found %ld\n", found);
    }
    if (!strcmp(mode, "reduce")) {
#pragma omp parallel
        {
#pragma omp for schedule(static) reduction(+ : sum)
            for (int i = 0; i < 10000; i++) {
                sum += i;
                if (i == 0) {
#pragma omp cancel for
                }
            }
        }
        printf("sum %ld\n", sum);
    }
    return 0;
}
