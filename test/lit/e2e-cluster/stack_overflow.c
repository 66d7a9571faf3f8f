// A stack overflow on a DSM stack is reported as one, once, naming the
// thread, the place and what to raise; never silent corruption of the DSM
// memory below the stack (a guard lies there). The head's main thread
// (HCRT_STACK_SIZE=1m) and an OpenMP thread of the head (OMP_STACKSIZE=1m).
// RUN: %hcc -fopenmp -O1 -g %s -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=1 HCRT_STACK_SIZE=1m %t main > %t.main
// RUN: FileCheck --check-prefix=MAIN %s < %t.main
// RUN: test $(grep -c "stack overflow" %t.main) = 1
// MAIN: hcrt[0@{{.*}}] stack overflow on rank 0, host {{.*}}: the main thread ran past the end of its 1024 KiB stack at 0x{{[0-9a-f]+}} (fault at 0x{{[0-9a-f]+}} in the guard below it) at {{.*}}stack_overflow.c:{{[0-9]+}} (deep); raise HCRT_STACK_SIZE
// MAIN: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=2 OMP_STACKSIZE=1m %t thread > %t.thread
// RUN: FileCheck --check-prefix=THREAD %s < %t.thread
// RUN: test $(grep -c "stack overflow" %t.thread) = 1
// THREAD: hcrt[0@{{.*}}] stack overflow on rank 0, host {{.*}}: an OpenMP thread ran past the end of its {{[0-9]+}} KiB stack at 0x{{[0-9a-f]+}} {{.*}} at {{.*}}stack_overflow.c:{{[0-9]+}} (deep); raise OMP_STACKSIZE
// THREAD: status {{[1-9][0-9]*}}
// Stacks that do not fit the DSM stop the job at start-up or at the
// thread's creation with what to change, rather than running a thread on
// an ordinary stack whose locals other nodes cannot see.
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=1 HCRT_DSM_SIZE=1g HCRT_STACK_SIZE=512m %t main | FileCheck --check-prefix=MAINFIT %s
// MAINFIT: dsm: error: the stacks in DSM memory need 513 MiB per rank but a rank's slice of the DSM range is 512 MiB (HCRT_DSM_SIZE / ranks) and they may take half of it: raise HCRT_DSM_SIZE or lower HCRT_STACK_SIZE
// MAINFIT: status {{[1-9][0-9]*}}
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=2 OMP_STACKSIZE=64m HCRT_DSM_SIZE=256m HCRT_STACK_SIZE=8m %t thread | FileCheck --check-prefix=THREADFIT %s
// THREADFIT: core: fatal: no room for another {{6[0-9]}} MiB OpenMP thread stack in the {{[0-9]+}} MiB of DSM memory this rank keeps for stacks: lower OMP_STACKSIZE or the number of threads, raise HCRT_DSM_SIZE, or set HCRT_STACK_THREADS=0
// THREADFIT: status {{[1-9][0-9]*}}
#include <omp.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static long deep(long n)
{
    volatile char pad[4096];
    pad[n % 4096] = (char)n;
    return n == 0 ? 0 : deep(n - 1) + pad[n % 4096];
}

int main(int argc, char **argv)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 100; i++)
        sum += i;
    if (argc > 1 && !strcmp(argv[1], "thread")) {
#pragma omp parallel reduction(+ : sum)
        if (omp_get_thread_num() == 1)
            sum += deep(100000);
    } else {
        sum += deep(100000);
    }
    printf("sum %ld\n", sum);
    return 0;
}
