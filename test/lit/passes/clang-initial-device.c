// omp.h (clang-19) defines omp_is_initial_device for the host as a declare
// variant returning 1, which inlining would fold to a constant even in a
// target region's host fallback, the function hcc runs as the kernel on a
// worker node. hcc-target turns every call of that variant into the
// library routine, answered by the runtime (0 in a kernel on a worker).
// RUN: %clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s 
// C++ (the variant is a static function with a mangled name):
// RUN: %clangxx -x c++ -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clangxx -x c++ -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAINXX
// Without the pass the variant is there and folds:
// RUN: %clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAIN
#include <omp.h>
#include <stdio.h>

// CHECK-LABEL: define internal void @__omp_offloading_{{.*}}_main_l{{[0-9]+}}(
// CHECK: call {{.*}}i32 @__hcrt_omp_is_initial_device()
// CHECK-NOT: ompvariant
// PLAIN: call i32 @"omp_is_initial_device$ompvariant{{.*}}host"()
// PLAINXX: call {{.*}}i32 @"_ZL{{[0-9]+}}omp_is_initial_device$ompvariant{{.*}}hostv"()

int main(void) {
  int r = -1;
#pragma omp target map(from : r)
  r = omp_is_initial_device();
  printf("%d %d\n", r, omp_is_initial_device());
  return 0;
}
