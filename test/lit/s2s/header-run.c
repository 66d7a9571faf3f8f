// End to end: hetprobe loops in a header (Inputs/hdr/kern.h and the
// sub/deep.h it includes) used by two files, built in one hcc command and
// file by file, give what plain clang gives for the same program with
// schedule(runtime), on one node and on two.
// RUN: rm -rf %t && mkdir -p %t/ref
// RUN: %hcc -O1 -I%S/Inputs/hdr %s %S/Inputs/hdr/other.c -o %t/one
// RUN: %hcc -O1 -I%S/Inputs/hdr -c %s -o %t/main.o
// RUN: %hcc -O1 -I%S/Inputs/hdr -c %S/Inputs/hdr/other.c -o %t/other.o
// Both objects carry the header's hint calls.
// RUN: llvm-nm %t/main.o | FileCheck --check-prefix=SYM %s
// RUN: llvm-nm %t/other.o | FileCheck --check-prefix=SYM %s
// SYM: {{[wU]}} __hcrt_sched_hint
// RUN: %hcc -O1 %t/main.o %t/other.o -o %t/sep
// The reference: the same sources with the standard schedule.
// RUN: cp -r %S/Inputs/hdr/. %t/ref/ && cp %s %t/ref/main.c
// RUN: sed -i -e 's/schedule(hetprobe[^)]*)/schedule(runtime)/' %t/ref/*.h %t/ref/sub/*.h
// RUN: %clang -fopenmp -O1 -I%t/ref %t/ref/main.c %t/ref/other.c -o %t/ref/ref
// RUN: %t/ref/ref > %t/ref.out
// RUN: timeout -k 5 120 %t/one > %t/one.1
// RUN: diff %t/ref.out %t/one.1
// RUN: %mpirun -np 2 %t/one > %t/one.2
// RUN: diff %t/ref.out %t/one.2
// RUN: %mpirun -np 2 %t/sep > %t/sep.2
// RUN: diff %t/ref.out %t/sep.2
#include <stdio.h>

#include "kern.h"

#define N 20000
static double a[N], b[N];
double other(double *b, int n);

int main(void) {
  double s = fill(a, N);
  double t = twice(a, N);
  double u = other(b, N);
  printf("fill=%.1f twice=%.1f other=%.1f b[N-1]=%.1f\n", s, t, u, b[N - 1]);
  return 0;
}
