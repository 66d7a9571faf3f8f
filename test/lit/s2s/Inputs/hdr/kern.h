// A user header with an hcc clause (tests: ../../headers.c, header-*.c).
// Include guard; includes a header relative to its own directory.
#ifndef KERN_H
#define KERN_H
#include "sub/deep.h"

static inline double fill(double *a, int n) {
  double s = 0;
#pragma omp parallel for schedule(hetprobe_i, 5) reduction(+ : s)
  for (int i = 0; i < n; i++) {
    a[i] = 0.5 * i;
    s += a[i];
  }
  return s;
}
#endif
