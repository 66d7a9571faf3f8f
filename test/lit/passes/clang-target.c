// Target regions from clang-19 --offload-host-only: kernel table, one
// trampoline per kernel, __hcrt_target_kernel and the data mappers; the
// host fallback is still a separate function because the plugin runs
// before inlining, even at -O3.
// RUN: %clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --offload-host-only -fpass-plugin=%plugin -O3 -S -emit-llvm %s -o - | FileCheck %s
#include <stdio.h>

// CHECK-DAG: @__hcrt_kernels = private constant [1 x %struct.hcrt_kernel_desc] [%struct.hcrt_kernel_desc { i64 {{-?[0-9]+}}, ptr @__hcrt_kernel_name, ptr @.__omp_offloading_{{.*}}_main_l[[LINE:[0-9]+]].region_id, ptr @__hcrt_ktramp.__omp_offloading_{{.*}}_main_l[[LINE]], ptr @__omp_offloading_{{.*}}_main_l[[LINE]], i32 3, i32 [[LINE]], ptr null }]
// CHECK-DAG: call void @__hcrt_target_data_begin_mapper(
// CHECK-DAG: call void @__hcrt_target_data_end_mapper(
// CHECK-DAG: call {{.*}}@__hcrt_omp_target_task_alloc(
// CHECK-DAG: call {{.*}}@__hcrt_omp_task_with_deps(
// CHECK-DAG: call {{.*}}@__hcrt_omp_taskwait(
// CHECK-DAG: call {{.*}}i32 @__hcrt_target_kernel(
// CHECK-DAG: define internal void @__hcrt_ktramp.__omp_offloading_
// CHECK-NOT: call {{.*}}@__tgt_

int main(void) {
  int n = 100;
  double a[100], b[100];
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target data map(to : a[0 : n]) map(from : b[0 : n])
  {
#pragma omp target map(to : a[0 : n]) map(from : b[0 : n]) firstprivate(n) depend(out : b) nowait
    for (int i = 0; i < n; i++)
      b[i] = 2 * a[i];
#pragma omp taskwait
  }
  printf("%f\n", b[10]);
  return 0;
}
