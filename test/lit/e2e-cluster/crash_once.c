// A worker's crash is reported once, cleanly, even when its stack cannot be
// unwound: both threads of rank 1 fault after setting the frame pointer to
// garbage, so the unwinder of every backtrace (hcrt's, Open MPI's) faults
// in turn (schedule(static): the second half of the iterations is rank 1's
// even where HetProbe would run the loop on one node). Before, each nested
// fault printed the report again (dozens of
// times); now the first fault's report names the place (the faulting
// instruction needs no unwinding), a fault inside a handler ends the
// process by the signal, and the other thread waits for that.
// RUN: %hcc -fopenmp -O1 -g -fno-omit-frame-pointer %s -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=2 %t > %t.out
// RUN: FileCheck %s < %t.out
// RUN: test $(grep -c "segmentation fault at" %t.out) = 1
// RUN: test $(grep -c "Process received signal" %t.out) -le 1
// CHECK: hcrt[1@{{.*}}] segmentation fault at address 0x0 (not DSM memory) on rank 1, host {{.*}}, pid {{[0-9]+}} at {{.*}}crash_once.c:[[@LINE+7]] (crash_with_bad_frame)
// CHECK: status {{[1-9][0-9]*}}
#include <omp.h>
#include <stdio.h>

__attribute__((noinline)) static void crash_with_bad_frame(void)
{
    __asm__ volatile("movabs $0x4141414141414141, %%rbp\n\tmovl $1, 0\n\t" ::
                         : "memory");
}

int main(void)
{
    long sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < 100; i++) {
        sum += i;
        if (i >= 50 && omp_get_thread_num() >= omp_get_num_threads() / 2)
            crash_with_bad_frame();
    }
    printf("sum %ld\n", sum);
    return 0;
}
