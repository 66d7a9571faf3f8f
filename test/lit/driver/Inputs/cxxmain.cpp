#include <cstdio>
#include <vector>
extern "C" int util_twice(int x);
int main() {
  std::vector<long> v(1000);
  long s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 1000; i++) {
    v[i] = util_twice(i);
    s += v[i];
  }
  std::printf("sum=%ld\n", s);
  return 0;
}
