// Invalid code: s2s cannot parse it (exit 2) but still rewrites the
// clause, so clang reports the user's own error at the user's line and
// nothing about hetprobe.
// RUN: not %s2s %s -o %t.c -- -x c
// RUN: FileCheck --check-prefix=OUT %s < %t.c
// OUT: #line 1
// OUT: schedule(runtime)
// RUN: not %hcc -fno-hcc-pass -c %s -o %t.o 2>&1 | FileCheck %s
// CHECK-NOT: hetprobe
// CHECK: compile-error.c:[[@LINE+5]]:10: error: use of undeclared identifier 'nope'
int g(void) {
  int s = 0;
#pragma omp parallel for schedule(hetprobe, 20) reduction(+ : s)
  for (int i = 0; i < 10; i++)
    s += nope;
  return s;
}
