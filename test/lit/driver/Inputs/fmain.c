#include <stdio.h>
void fsum(int n, long *s);
int main(void) {
  long s = 0;
  fsum(100, &s);
  printf("fsum=%ld\n", s);
  return 0;
}
