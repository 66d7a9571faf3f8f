// Every rank must run the same program: a job whose ranks run different
// binaries is refused at start-up with a message naming the rank, in
// cluster mode and not. Same binary, different HCRT_CLUSTER: refused too.
// RUN: %hcc -fopenmp -O1 %s -o %t.a
// RUN: %hcc -fopenmp -O1 -DOTHER %s -o %t.b
// RUN: not %mpirun -np 1 %t.a : -np 1 %t.b > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: not env HCRT_CLUSTER=1 %mpirun -x HCRT_CLUSTER -np 1 %t.a : -np 1 %t.b > %t.out2 2>&1
// RUN: FileCheck %s < %t.out2
// RUN: not %mpirun -np 1 env HCRT_CLUSTER=1 %t.a : -np 1 env HCRT_CLUSTER=0 %t.a > %t.out3 2>&1
// RUN: FileCheck --check-prefix=SETTING %s < %t.out3
// CHECK: rank 1 runs a different program than the head
// CHECK-SAME: start every rank with the same binary
// SETTING: rank 1 has HCRT_CLUSTER=0 but the head has 1
#include <stdio.h>

#ifdef OTHER
int other_global = 3;
int other(void) { return other_global; }
#endif

int main(void)
{
    int n = 0;
#pragma omp parallel for reduction(+ : n)
    for (int i = 0; i < 10; i++)
        n += i;
    printf("%d\n", n);
    return 0;
}
