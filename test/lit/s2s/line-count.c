// The rewrite never moves a user line: after the #line directives are
// removed, the output has the input's lines at the input's numbers.
// RUN: %s2s %s -o %t.c -- -x c
// RUN: grep -c '' %s > %t.in.n
// RUN: grep -v -e '^#line ' -e '^{if (__hcrt_sched_hint)' -e '^#ifdef __cplusplus$' \
// RUN:   -e '^#pragma clang diagnostic' -e '^__attribute__((weak))' %t.c | grep -c '' > %t.out.n
// RUN: diff %t.in.n %t.out.n
// A clang warning in the rewritten file names the user's file and line.
// RUN: %hcc -fsyntax-only -Wall %s 2>&1 | FileCheck %s
int g(void) {
  int s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
  for (int i = 0; i < 10; i++)
    s += i;
  int unused_here; // CHECK: line-count.c:[[@LINE]]:7: warning: unused variable 'unused_here'
  return s;
}
