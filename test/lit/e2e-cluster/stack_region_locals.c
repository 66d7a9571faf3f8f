// A region thread's own local shared onward: each thread in turn publishes
// the address of its stack array through a shared pointer and every thread
// of the cluster team reads it. The publishers are the head's main thread,
// its OpenMP threads, a worker's main thread and a worker's OpenMP threads;
// all run on DSM stacks homed on their rank (HCRT_STACK_THREADS), so every
// read sees the publisher's values (before, the readers on other nodes read
// their own stack at that address: "bad" was non-zero). Again over the
// message path (the pages of a stack travel as between hosts), and with
// KMP_GTID_MODE=1, which makes libomp find threads by stack address (it
// aborted; hcrt now overrides it with a warning).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env HCRT_DSM_SHM=0 --threads 2 %s %t.msg
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env KMP_GTID_MODE=1 --threads 2 %s %t.gtid
#include <omp.h>
#include <stdio.h>

double *pub;

int main(void)
{
    long bad = 0, seen = 0;
#pragma omp parallel reduction(+ : bad, seen)
    {
        int nt = omp_get_num_threads(), me = omp_get_thread_num();
        for (int p = 0; p < nt; p++) {
            double mine[600];
            for (int i = 0; i < 600; i++)
                mine[i] = 1000.0 * me + i;
            if (me == p)
                pub = mine;
#pragma omp barrier
            for (int i = 0; i < 600; i += 7, seen++)
                bad += pub[i] != 1000.0 * p + i;
#pragma omp barrier
        }
    }
    printf("seen %ld bad %ld\n", seen, bad);
    return 0;
}
