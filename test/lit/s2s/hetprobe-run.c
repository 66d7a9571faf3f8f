// End to end: schedule(hetprobe) through hcc gives the same result as the
// same program with schedule(runtime) under plain clang, on one and two
// nodes; the object calls the runtime's hint entry.
// RUN: %hcc -O1 -c -MD %s -o %t.o
// Dependencies name the user's file, not the rewritten temp file.
// RUN: FileCheck --check-prefix=DEP %s < %t.d
// DEP: hetprobe-run.c.tmp.o:
// DEP-NEXT: {{^ *}}{{[^ ]*}}s2s/hetprobe-run.c
// DEP-NOT: hcc-
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYM %s
// SYM: {{[wU]}} __hcrt_sched_hint
// RUN: %hcc -O1 %t.o -o %t.hcc
// RUN: sed -e 's/schedule(hetprobe[^)]*)/schedule(runtime)/' %s > %t.ref.c
// RUN: %clang -fopenmp -O1 %t.ref.c -o %t.ref
// RUN: %t.ref > %t.ref.out
// RUN: timeout -k 5 120 %t.hcc > %t.one.out
// RUN: diff %t.ref.out %t.one.out
// RUN: %mpirun -np 2 %t.hcc > %t.two.out
// RUN: diff %t.ref.out %t.two.out
#include <stdio.h>

#define N 20000
static double a[N];

int main(void) {
  double sum = 0;
#pragma omp parallel for schedule(hetprobe)
  for (int i = 0; i < N; i++)
    a[i] = 0.5 * i;
#pragma omp parallel for schedule(hetprobe_i, 20) reduction(+ : sum)
  for (int i = 0; i < N; i++)
    sum += a[i] * (i % 7);
  printf("sum=%.1f a[N-1]=%.1f\n", sum, a[N - 1]);
  return 0;
}
