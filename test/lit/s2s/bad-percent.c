// A percentage outside 1..100 is an error with a location, and hcc stops.
// RUN: not %s2s %s -o %t.c -- -x c 2>&1 | FileCheck %s
// RUN: not %hcc -fno-hcc-pass -c %s -o %t.o 2>&1 | FileCheck %s
// CHECK: bad-percent.c:[[@LINE+5]]:45: error: hcc: invalid percentage '0' in schedule(hetprobe, ...): it must be an integer from 1 to 100
// CHECK: bad-percent.c:[[@LINE+7]]:47: error: hcc: invalid percentage '101' in schedule(hetprobe_i, ...)
// CHECK: bad-percent.c:[[@LINE+9]]:45: error: hcc: invalid percentage 'x' in schedule(hetprobe, ...)
// CHECK: bad-percent.c:[[@LINE+11]]:46: error: hcc: expected ')' in schedule(hetprobe[, percent])
void g(double *a) {
#pragma omp parallel for schedule(hetprobe, 0)
  for (int i = 0; i < 10; i++)
    a[i] = 0;
#pragma omp parallel for schedule(hetprobe_i, 101)
  for (int i = 0; i < 10; i++)
    a[i] = 0;
#pragma omp parallel for schedule(hetprobe, x)
  for (int i = 0; i < 10; i++)
    a[i] = 0;
#pragma omp parallel for schedule(hetprobe, 5, 6)
  for (int i = 0; i < 10; i++)
    a[i] = 0;
}
