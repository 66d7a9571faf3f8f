// Included by kern.h as "sub/deep.h"; #pragma once.
#pragma once
#define HDR_PFOR _Pragma("omp parallel for schedule(hetprobe, 30)")

static inline double twice(const double *a, int n) {
  double s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += 2 * a[i];
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += a[i] * (i % 3);
  return s;
}
