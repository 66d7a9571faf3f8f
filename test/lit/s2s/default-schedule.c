// Worksharing loops without a schedule clause get the implementation's
// schedule: `schedule(dynamic, <HCRT_SCHED_DEFAULT_CHUNK>)`,
// written after the directive name on the directive's own line. Loops
// whose meaning depends on the static schedule are left alone: ordered,
// order(...), scan reductions, and orphaned `for` loops in a file that says
// nowait anywhere (here: the second file). Other constructs too.
// RUN: %s2s %s -o %t.c -- -x c
// RUN: FileCheck %s < %t.c
// RUN: %clang -fopenmp -fsyntax-only -Wall -Wextra -Werror %t.c
// The driver does the same without starting hcc-s2s where s2s has nothing
// else to do (this file names "fopen" in its RUN lines: s2s would run), and
// not at all with -fno-hcc-pass (plain libomp).
// RUN: %hcc -O0 -c %S/Inputs/default-schedule-nowait.c -o %t.o -### 2>&1 | FileCheck --check-prefix=DRV %s
// DRV-NOT: hcc-s2s
// DRV: ivfsoverlay
// RUN: %hcc -fno-hcc-pass -O0 -c %S/Inputs/default-schedule-nowait.c -o %t.o -### 2>&1 | FileCheck --check-prefix=NOPASS %s
// NOPASS-NOT: ivfsoverlay
// RUN: %s2s --no-default-schedule %s -o %t.n.c -- -x c
// RUN: not grep -q '^#pragma.*schedule(dynamic, 2147483629)' %t.n.c
// RUN: %s2s %S/Inputs/default-schedule-nowait.c -o %t.w.c -- -x c
// RUN: FileCheck --check-prefix=NOWAIT %s < %t.w.c
// NOWAIT: #pragma omp parallel for schedule(dynamic, 2147483629)
// NOWAIT: #pragma omp for nowait
// NOWAIT: #pragma omp for{{$}}
#define N 100
double a[N];
#define PFOR _Pragma("omp parallel for")

void f(void) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) // a comment
  for (int i = 0; i < N; i++)
    s += a[i];
  // CHECK: #pragma omp parallel for schedule(dynamic, 2147483629) reduction(+ : s) // a comment
#pragma omp parallel
  {
#pragma omp for simd
    for (int i = 0; i < N; i++)
      a[i] += 1;
    // CHECK: #pragma omp for simd schedule(dynamic, 2147483629)
#pragma omp for ordered
    for (int i = 0; i < N; i++) {
#pragma omp ordered
      a[i] += 1;
    }
    // CHECK: #pragma omp for ordered{{$}}
#pragma omp for order(concurrent)
    for (int i = 0; i < N; i++)
      a[i] += 1;
    // CHECK: #pragma omp for order(concurrent){{$}}
  }
#pragma omp parallel \
    for \
    simd
  for (int i = 0; i < N; i++)
    a[i] *= 2;
  // CHECK: #pragma omp parallel \
  // CHECK-NEXT: for \
  // CHECK-NEXT: simd schedule(dynamic, 2147483629)
  PFOR for (int i = 0; i < N; i++) a[i] -= 1;
  // CHECK: _Pragma("omp parallel for schedule(dynamic, 2147483629)")
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; i++)
    a[i] -= 1;
  // CHECK: #pragma omp parallel for schedule(static){{$}}
#pragma omp target teams distribute parallel for map(tofrom : a)
  for (int i = 0; i < N; i++)
    a[i] -= 1;
  // CHECK: #pragma omp target teams distribute parallel for map(tofrom : a){{$}}
#pragma omp taskloop
  for (int i = 0; i < N; i++)
    a[i] -= 1;
  // CHECK: #pragma omp taskloop{{$}}
}
