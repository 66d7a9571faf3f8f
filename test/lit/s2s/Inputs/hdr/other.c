// The second translation unit of header-run.c: includes kern.h too.
#include "kern.h"

double other(double *b, int n) {
  double s = fill(b, n);
  HDR_PFOR for (int i = 0; i < n; i++) b[i] += 1;
  return s + twice(b, n);
}
