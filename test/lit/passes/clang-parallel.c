// Real clang-19 output, lowered by the plugin at pipeline start at -O0 and
// -O3: forks, loops, reductions, atomics, heap, globals, main.
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O3 -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

double table[1 << 20];
int counter = 1;

// CHECK-DAG: @table = {{.*}}global [1048576 x double] zeroinitializer, align 16 #[[BSS:[0-9]+]]
// CHECK-DAG: @counter = {{.*}}global i32 1, section "hcrt_shared"
// CHECK-DAG: @__hcrt_regions = private constant [2 x %struct.hcrt_region_desc]
// CHECK-DAG: attributes #[[BSS]] = { "bss-section"="hcrt_shared_bss" }
// CHECK-DAG: @llvm.global_ctors = {{.*}}i32 101, ptr @__hcrt_module_ctor

// CHECK-DAG: call {{.*}}@__hcrt_malloc(
// CHECK-DAG: call void @__hcrt_fork(
// CHECK-DAG: call void @__hcrt_for_static_init_4(
// CHECK-DAG: load volatile i32, ptr @__hcrt_migrate_pending
// CHECK-DAG: call void @__hcrt_migration_point(
// CHECK-DAG: call i32 @__hcrt_reduce_nowait(
// CHECK-DAG: call {{.*}}i32 @__hcrt_atomic_add_4(ptr {{.*}}@counter, i32 1, i32 0)
// CHECK-DAG: call i32 @__hcrt_omp_get_thread_num()
// CHECK-DAG: call void @__hcrt_free(
// CHECK-DAG: call i32 @__hcrt_main(i32 %{{.*}}, ptr %{{.*}}, ptr %{{.*}}, ptr {{.*}}@__hcrt_user_main
// O0-DAG: call void @__hcrt_critical(
// O0-DAG: call ptr @__hcrt_stack_alloc(
// CHECK-NOT: call {{.*}}@__kmpc_
// CHECK-NOT: call {{.*}}@malloc(

int main(int argc, char **argv) {
  int n = argc > 5 ? 10 : 1000;
  double s = 0;
  double *a = malloc(n * sizeof(double));
#pragma omp parallel for reduction(+ : s) schedule(static, 8)
  for (int i = 0; i < n; i++) {
    a[i] = i;
    table[i] = a[i];
    s += a[i];
  }
#pragma omp parallel
  {
#pragma omp atomic
    counter++;
#pragma omp critical
    table[omp_get_thread_num()] += 1;
  }
  printf("%g %d\n", s, counter > 1);
  free(a);
  return 0;
}
