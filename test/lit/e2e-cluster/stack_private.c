// Where hcc cannot make a stack address valid on every node, a worker that
// touches it stops with a message naming the address, whose it is and the
// place of the access - never computes with its own stack's bytes. Here the
// head's main keeps its ordinary stack (HCRT_STACK_HEAD=0): the issue 23
// program's array is then private to the head, and the worker's atomic
// update of it is caught in the part of its own original stack it protects.
// RUN: %hcc -fopenmp -O2 -g %s %S/Inputs/stack_norm.c -o %t
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 2 env OMP_NUM_THREADS=1 HCRT_STACK_HEAD=0 %t > %t.out
// RUN: FileCheck %s < %t.out
// RUN: test $(grep -c "dereferenced" %t.out) = 1
// CHECK: hcrt[1@{{.*}}] rank 1 dereferenced 0x7{{[0-9a-f]+}} (the head's stack) at {{.*}}stack_norm.c:{{2[12]}} (norm{{.*}}): the head's main runs on its own stack (HCRT_STACK_HEAD=0), so its local variables are private to the head; unset HCRT_STACK_HEAD or keep shared data in globals or the heap
// CHECK-NOT: 9208.0 18416.0
// CHECK: status {{[1-9][0-9]*}}
#include <stdio.h>

extern double grid[4096];
void norm(double rms[5]);

int main(void)
{
    double x[5];
    for (int i = 0; i < 4096; i++)
        grid[i] = i % 10;
    norm(x);
    printf("%.1f %.1f %.1f %.1f %.1f\n", x[0], x[1], x[2], x[3], x[4]);
    return 0;
}
