#include <stdio.h>
#include "hello.h"
int main(void) {
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++)
    s += TWICE(i);
  printf("sum=%ld\n", s);
  return 0;
}
