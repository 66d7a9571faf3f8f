// The hcc clause extensions become schedule(runtime) plus a hint call, the
// construct and its loop are wrapped in braces, and #line keeps every
// user line at its number.
// RUN: %s2s %s -o %t.c -- -x c
// RUN: FileCheck %s < %t.c
// RUN: FileCheck --check-prefix=NOHP %s < %t.c
// The output compiles cleanly as C and as C++.
// RUN: %clang -fopenmp -fsyntax-only -Wall -Wextra -Werror %t.c
// RUN: %clangxx -x c++ -fopenmp -fsyntax-only -Wall -Wextra -Werror %t.c
// NOHP-NOT: {{schedule\(hetprob[e]}}

// CHECK: #pragma clang diagnostic push
// CHECK: __attribute__((weak)) void __hcrt_sched_hint(int, int, const char *, int);
// CHECK-NEXT: #pragma clang diagnostic pop
// CHECK-NEXT: #line 1 "{{.*}}hetprobe-rewrite.c"
#define N 100
double a[N], b[N];
#define PFOR _Pragma("omp parallel for schedule(hetprobe_i, 25)")

void f(int c) {
  if (c)
#pragma omp parallel for schedule(hetprobe)
    for (int i = 0; i < N; i++)
      a[i] = i;
  // CHECK: if (c)
  // CHECK-NEXT: {if (__hcrt_sched_hint) __hcrt_sched_hint(1, 0, "{{.*}}hetprobe-rewrite.c", 22);
  // CHECK-NEXT: #line 22 "{{.*}}hetprobe-rewrite.c"
  // CHECK-NEXT: #pragma omp parallel for schedule(runtime)
  // CHECK-NEXT: for (int i = 0; i < N; i++)
  // CHECK-NEXT: a[i] = i;}

#pragma omp parallel
  {
#pragma omp for \
    schedule( hetprobe_i , \
      5 ) nowait
    for (int i = 0; i < N; i++) {
      b[i] = a[i];
    }
  }
  // CHECK: {if (__hcrt_sched_hint) __hcrt_sched_hint(2, 5, "{{.*}}hetprobe-rewrite.c", 34);
  // CHECK-NEXT: #line 34
  // CHECK-NEXT: #pragma omp for \
  // CHECK-NEXT: schedule(runtime) \
  // CHECK-NEXT: nowait
  // CHECK: b[i] = a[i];
  // CHECK-NEXT: }}

  PFOR for (int i = 0; i < N; i++) a[i] += 1;
  // CHECK: {if (__hcrt_sched_hint) __hcrt_sched_hint(2, 25, "{{.*}}", [[@LINE-1]]); PFOR for (int i = 0; i < N; i++) a[i] += 1;}
  _Pragma("omp parallel for schedule(hetprobe, 50)") for (int i = 0; i < N; i++) a[i] += 2;
  // CHECK: {if (__hcrt_sched_hint) __hcrt_sched_hint(1, 50, "{{.*}}", [[@LINE-1]]); _Pragma("omp parallel for schedule(runtime)") for

  // Standard schedules are left alone.
#pragma omp parallel for schedule(dynamic, 4)
  for (int i = 0; i < N; i++) a[i] -= 1;
  // CHECK: #pragma omp parallel for schedule(dynamic, 4)
  // CHECK-NEXT: for (int i = 0; i < N; i++) a[i] -= 1;
}
