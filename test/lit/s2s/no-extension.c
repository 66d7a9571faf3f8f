// A file without hcc extensions comes out unchanged after the #line.
// RUN: %s2s %s -o %t.c -- -x c
// RUN: head -n 1 %t.c | FileCheck %s
// CHECK: #line 1 "{{.*}}no-extension.c"
// RUN: tail -n +2 %t.c | diff - %s
// And compiles to the same assembly, debug info included, with and
// without s2s (with and without the pass).
// RUN: %hcc -O1 -g -S %s -o %t.a.s
// RUN: %hcc -O1 -g -fno-hcc-s2s -S %s -o %t.b.s
// RUN: diff %t.a.s %t.b.s
// RUN: %hcc -fno-hcc-pass -S %s -o %t.c.s
// RUN: %hcc -fno-hcc-pass -fno-hcc-s2s -S %s -o %t.d.s
// RUN: diff %t.c.s %t.d.s
#include <stdio.h>
#include "Inputs/local.h"
int main(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
  for (int i = 0; i < 1000; i++)
    s += LOCAL_TWICE(i);
  printf("%ld\n", s);
  return 0;
}
