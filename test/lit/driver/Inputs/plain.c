/* No OpenMP construct s2s acts on: the driver skips hcc-s2s. */
#include <stdio.h>
int main(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++)
    s += i;
  printf("sum=%ld\n", s);
  return 0;
}
