#include <stdio.h>
#include "hello.h"
int main(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++)
    s += TWICE(i);
  printf("sum=%ld\n", s);
  fflush(stdout); /* a stream call: hcc runs hcc-s2s on this file */
  return 0;
}
