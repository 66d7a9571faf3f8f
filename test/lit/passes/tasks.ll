; Task sites: one hcrt_task_site_t per task entry function, flagged with
; what keeps its tasks on the creating node; hcc-module gathers them and the
; module constructor registers them. Functions that create tasks move their
; escaping stack slots (a task's shareds) to DSM stack storage.
; RUN: %opt -passes=hcc-tasks -S %s | FileCheck %s
; RUN: %opt -passes=hcc-stack -S %s | FileCheck %s --check-prefix=STACK
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

%struct.ident_t = type { i32, i32, i32, i32, ptr }
@0 = private unnamed_addr constant [17 x i8] c";tasks.c;f;7;3;;\00", align 1
@loc = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8

declare ptr @__kmpc_omp_task_alloc(ptr, i32, i32, i64, i64, ptr)
declare i32 @__kmpc_omp_task(ptr, i32, ptr)
declare ptr @__kmpc_task_reduction_get_th_data(i32, ptr, ptr)
declare void @__kmpc_taskloop(ptr, i32, ptr, i32, ptr, ptr, i64, i32, i32, i64, ptr)
declare void @__kmpc_doacross_init(ptr, i32, i32, ptr)
declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)

; CHECK: %struct.hcrt_task_site = type { i64, ptr, ptr, i32, i32, ptr }
; CHECK-DAG: @__hcrt_task.plain.entry = private constant %struct.hcrt_task_site { i64 {{-?[0-9]+}}, ptr @__hcrt_task_name{{[.0-9]*}}, ptr @__hcrt_task_file{{[.0-9]*}}, i32 7, i32 0, ptr @plain.entry }
; CHECK-DAG: @__hcrt_task.red.entry = private constant %struct.hcrt_task_site { {{.*}}, i32 7, i32 1, ptr @red.entry }
; CHECK-DAG: @__hcrt_task.tgt.entry = private constant %struct.hcrt_task_site { {{.*}}, i32 7, i32 2, ptr @tgt.entry }
; CHECK-DAG: @__hcrt_task.odd.entry = private constant %struct.hcrt_task_site { {{.*}}, i32 7, i32 4, ptr @odd.entry }
; CHECK-DAG: @__hcrt_task.loop.entry = private constant %struct.hcrt_task_site { {{.*}}, i32 7, i32 8, ptr @loop.entry }
; CHECK-DAG: c"tasks.c\00"
; CHECK-DAG: c"plain.entry\00"

define internal i32 @plain.entry(i32 %g, ptr %t) {
  ret i32 0
}

define internal void @helper(i32 %g) {
  %d = call ptr @__kmpc_task_reduction_get_th_data(i32 %g, ptr null, ptr null)
  ret void
}

; in_reduction, through a function the entry calls
define internal i32 @red.entry(i32 %g, ptr %t) {
  call void @helper(i32 %g)
  ret i32 0
}

define internal i32 @tgt.entry(i32 %g, ptr %t) {
  %r = call i32 @__tgt_target_kernel(ptr null, i64 -1, i32 1, i32 1, ptr null, ptr null)
  ret i32 0
}

define internal i32 @odd.entry(i32 %g, ptr %t) {
  call void @__kmpc_doacross_init(ptr null, i32 %g, i32 1, ptr null)
  ret i32 0
}

define internal i32 @loop.entry(i32 %g, ptr %t) {
  ret i32 0
}

; STACK-LABEL: define void @f(
; STACK: %hcrt.stack.mark = load ptr
; STACK: call ptr @__hcrt_stack_alloc(i64 8, i64 16)
; STACK: %x.dsm = getelementptr inbounds i8, ptr %hcrt.stack.frame, i64 0
; STACK: call void @__hcrt_stack_restore(ptr %hcrt.stack.mark)
define void @f() {
  %x = alloca i64, align 8
  %t = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 8, ptr @plain.entry)
  %sh = load ptr, ptr %t
  store ptr %x, ptr %sh
  %r = call i32 @__kmpc_omp_task(ptr @loc, i32 0, ptr %t)
  %t2 = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 8, ptr @red.entry)
  %t3 = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 8, ptr @tgt.entry)
  %t4 = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 8, ptr @odd.entry)
  %t5 = call ptr @__kmpc_omp_task_alloc(ptr @loc, i32 0, i32 1, i64 40, i64 8, ptr @loop.entry)
  call void @__kmpc_taskloop(ptr @loc, i32 0, ptr %t5, i32 1, ptr null, ptr null, i64 1, i32 0, i32 0, i64 0, ptr null)
  ret void
}

; A function that creates no task and reaches no fork keeps its stack.
; STACK-LABEL: define void @g(
; STACK-NOT: __hcrt_stack
; STACK: ret void
declare void @ext(ptr)
define void @g() {
  %y = alloca i64, align 8
  call void @ext(ptr %y)
  ret void
}

; In the pipeline: the table, and its registration after the module's.
; O2: @__hcrt_tasks = private constant [5 x %struct.hcrt_task_site]
; O2-LABEL: define internal void @__hcrt_module_ctor(
; O2: call void @__hcrt_register_module(ptr nonnull @__hcrt_module)
; O2-NEXT: call void @__hcrt_register_tasks(ptr nonnull @__hcrt_module, ptr nonnull @__hcrt_tasks, i32 5)
