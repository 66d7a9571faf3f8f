// A runtime call with no cluster lowering is a warning naming the source
// line; its whole region is left to libomp on the head node (fork, loop
// and doacross calls stay __kmpc_), so it still runs correctly.
// RUN: %clang -fopenmp -g -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: FileCheck %s < %t.ll
// WARN-DAG: clang-warning.c:[[@LINE+11]]: warning: hcc: this parallel region uses OpenMP runtime calls hcc cannot lower; it runs in libomp on the head node only (in 'f')
// WARN-DAG: clang-warning.c:[[@LINE+12]]: warning: hcc: OpenMP runtime call '__kmpc_doacross_init' is not supported across nodes; its region runs in libomp on the head node only
// WARN-DAG: clang-warning.c:[[@LINE+13]]: warning: hcc: OpenMP runtime call '__kmpc_doacross_wait' is not supported
// CHECK-LABEL: define {{.*}}void @f(
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(
// CHECK: call void @__kmpc_doacross_init(
// CHECK: call void @__kmpc_for_static_init_4(
// CHECK-NOT: call void @__hcrt_fork(
// CHECK-NOT: call {{.*}}@__hcrt_for_static_init_4(

void f(int n, double *a) {
#pragma omp parallel
  {
#pragma omp for ordered(1)
    for (int i = 1; i < n; i++) {
#pragma omp ordered depend(sink : i - 1)
      a[i] += a[i - 1];
#pragma omp ordered depend(source)
    }
  }
}
