; Parallel regions: __kmpc_fork_call becomes __hcrt_fork with a static
; region descriptor and a trampoline that unpacks the argument slots. Kinds:
; a worksharing loop makes a CLUSTER region (0), target tasks without one a
; HEAD region (1), plain tasks without either a TASKS region (2), anything
; else CLUSTER - also a region whose only tasks have `depend` clauses
; (omp_task_with_deps): they stay on their node.
; RUN: %opt -passes=hcc-fork -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2
; RUN: %opt -passes='default<O0>' -S %s | FileCheck %s --check-prefix=O0

%struct.ident_t = type { i32, i32, i32, i32, ptr }
@0 = private unnamed_addr constant [20 x i8] c";fork.c;main;12;3;;\00", align 1
@loc = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8

; CHECK: %struct.hcrt_region_desc = type { i64, ptr, ptr, i32, i32, i32, i32, ptr, ptr, i32, i32 }
; CHECK-DAG: @__hcrt_region.loop.outlined = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @__hcrt_region_name{{[.0-9]*}}, ptr @__hcrt_region_file{{[.0-9]*}}, i32 12, i32 0, i32 3, i32 1, ptr @__hcrt_tramp.loop.outlined, ptr @loop.outlined, i32 0, i32 0 }
; CHECK-DAG: @__hcrt_region.tasks.outlined = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @{{.*}}, ptr @{{.*}}, i32 12, i32 2, i32 0, i32 0,
; CHECK-DAG: @__hcrt_region.target.outlined = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @{{.*}}, ptr @{{.*}}, i32 12, i32 1, i32 0, i32 0,
; CHECK-DAG: @__hcrt_region.deps.outlined = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @{{.*}}, ptr @{{.*}}, i32 12, i32 0, i32 0, i32 0,
; CHECK-DAG: @__hcrt_region.plain.outlined = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @{{.*}}, ptr @{{.*}}, i32 12, i32 0, i32 0, i32 0,
; CHECK-DAG: c"fork.c\00"

declare void @__kmpc_fork_call(ptr, i32, ptr, ...)
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare ptr @__kmpc_omp_task_alloc(ptr, i32, i32, i64, i64, ptr)
declare ptr @__kmpc_omp_target_task_alloc(ptr, i32, i32, i64, i64, ptr, i64)
declare i32 @__kmpc_omp_task_with_deps(ptr, i32, ptr, i32, ptr, i32, ptr)
declare void @use(double)

define internal void @loop.outlined(ptr noalias %gtid, ptr noalias %btid, ptr %a, i64 %n, double %x) {
  %l = alloca i32
  call void @__kmpc_for_static_init_4(ptr @loc, i32 0, i32 34, ptr %l, ptr %l, ptr %l, ptr %l, i32 1, i32 1)
  call void @use(double %x)
  store i64 %n, ptr %a
  ret void
}

define internal i32 @task.entry(i32 %g, ptr %t) {
  ret i32 0
}

define internal void @tasks.outlined(ptr noalias %gtid, ptr noalias %btid) {
  %t = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 0, ptr @task.entry)
  ret void
}

define internal void @target.outlined(ptr noalias %gtid, ptr noalias %btid) {
  %t = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 0, ptr @task.entry)
  %u = call ptr @__kmpc_omp_target_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 0, ptr @task.entry, i64 -1)
  ret void
}

define internal void @deps.outlined(ptr noalias %gtid, ptr noalias %btid) {
  %t = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 0, ptr @task.entry)
  %r = call i32 @__kmpc_omp_task_with_deps(ptr @loc, i32 0, ptr %t, i32 0, ptr null, i32 0, ptr null)
  ret void
}

define internal void @plain.outlined(ptr noalias %gtid, ptr noalias %btid) {
  ret void
}

; CHECK-LABEL: define void @f(
; CHECK: %hcrt.args = alloca [3 x ptr]
; CHECK: store ptr %a, ptr
; CHECK: store i64 %n, ptr
; CHECK: [[X:%.*]] = bitcast double %x to i64
; CHECK: store i64 [[X]], ptr
; CHECK: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_region.loop.outlined, ptr %hcrt.args)
; CHECK: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_region.tasks.outlined, ptr null)
; CHECK: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_region.target.outlined, ptr null)
; CHECK: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_region.deps.outlined, ptr null)
; CHECK: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_region.plain.outlined, ptr null)
; CHECK-NOT: __kmpc_fork_call(
define void @f(ptr %a, i64 %n, double %x) {
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @loc, i32 3, ptr @loop.outlined, ptr %a, i64 %n, double %x)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @loc, i32 0, ptr @tasks.outlined)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @loc, i32 0, ptr @target.outlined)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @loc, i32 0, ptr @deps.outlined)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @loc, i32 0, ptr @plain.outlined)
  ret void
}

; CHECK-LABEL: define internal void @__hcrt_tramp.loop.outlined(ptr %0, ptr %1, ptr %2)
; CHECK: [[A:%.*]] = load ptr, ptr
; CHECK: [[N:%.*]] = load i64, ptr
; CHECK: [[XI:%.*]] = load i64, ptr
; CHECK: [[XD:%.*]] = bitcast i64 [[XI]] to double
; CHECK: call void @loop.outlined(ptr %0, ptr %1, ptr [[A]], i64 [[N]], double [[XD]])

; Inside the O2 pipeline (registered at pipeline start) the tables exist
; and no fork reaches libomp.
; O2: @__hcrt_regions = private constant [5 x %struct.hcrt_region_desc]
; O2: @llvm.global_ctors = {{.*}} i32 101, ptr @__hcrt_module_ctor
; O2-LABEL: define void @f(
; O2: call void @__hcrt_fork(ptr nonnull @loc, ptr nonnull @__hcrt_regions,
; O2-NOT: @__kmpc_fork_call(

; The pipeline-start callback fires for -O0 too.
; O0-LABEL: define void @f(
; O0: call void @__hcrt_fork(ptr @loc, ptr @__hcrt_regions, ptr %hcrt.args)
