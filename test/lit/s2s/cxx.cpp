// C++ input: the prototype is extern "C" and the AST pass works on C++.
// RUN: %s2s %s -o %t.cpp -- -x c++ -std=c++17 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: FileCheck %s < %t.cpp
// RUN: %clangxx -fopenmp -fsyntax-only -Wall -Werror %t.cpp
// CHECK: extern "C"
// CHECK: __hcrt_sched_hint(1, 10, "{{.*}}cxx.cpp", [[@LINE+8]]);
#include <cstring>
#include <vector>
template <typename T> T total(const std::vector<T> &v) {
  T s = 0;
  return s;
}
int run(std::vector<int> &v, const char *src) {
#pragma omp parallel for schedule(hetprobe, 10)
  for (size_t i = 0; i < v.size(); i++)
    v[i] = (int)i;
  char *copy = strdup(src);
#pragma omp parallel for
  for (size_t i = 0; i < v.size(); i++)
    v[i] += copy[0]; // WARN: cxx.cpp:[[@LINE]]:13: warning: hcc: 'copy' points to memory from 'strdup'
  return total(v);
}
