// Calls orphan.h's loop after a static loop; orphan-chain.c: after a
// loop without a barrier.
#include "orphan.h"

void step(double *a, double *b, int n) {
#pragma omp parallel
  {
#pragma omp for nowait
    for (int i = 0; i < n; i++)
      b[i] = a[i];
    scale(b, n);
  }
}
