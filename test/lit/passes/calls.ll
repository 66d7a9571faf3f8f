; Runtime entry points with an __hcrt_ twin are renamed (same signature);
; OpenMP API routines of HCRT_OMP_API_LIST become __hcrt_omp_*; anything
; else is left to libomp with a warning naming the source line.
; RUN: %opt -passes=hcc-calls -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: %opt -passes='default<O2>' -S %s 2>/dev/null | FileCheck %s --check-prefix=O2

%struct.ident_t = type { i32, i32, i32, i32, ptr }
@str = private unnamed_addr constant [21 x i8] c";calls.c;work;42;7;;\00", align 1
@loc = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @str }, align 8
@crit = common global [8 x i32] zeroinitializer, align 8

declare i32 @__kmpc_global_thread_num(ptr)
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_for_static_init_4u(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_for_static_init_8(ptr, i32, i32, ptr, ptr, ptr, ptr, i64, i64)
declare void @__kmpc_for_static_init_8u(ptr, i32, i32, ptr, ptr, ptr, ptr, i64, i64)
declare void @__kmpc_for_static_fini(ptr, i32)
declare void @__kmpc_dispatch_init_8u(ptr, i32, i32, i64, i64, i64, i64)
declare i32 @__kmpc_dispatch_next_8u(ptr, i32, ptr, ptr, ptr, ptr)
declare void @__kmpc_dispatch_deinit(ptr, i32)
declare i32 @__kmpc_reduce_nowait(ptr, i32, i32, i64, ptr, ptr, ptr)
declare void @__kmpc_end_reduce_nowait(ptr, i32, ptr)
declare void @__kmpc_barrier(ptr, i32)
declare i32 @__kmpc_single(ptr, i32)
declare void @__kmpc_end_single(ptr, i32)
declare i32 @__kmpc_masked(ptr, i32, i32)
declare void @__kmpc_critical(ptr, i32, ptr)
declare void @__kmpc_end_critical(ptr, i32, ptr)
declare i32 @__kmpc_omp_taskwait(ptr, i32)
declare void @__kmpc_doacross_init(ptr, i32, i32, ptr)
declare i32 @omp_get_thread_num()
declare double @omp_get_wtime()
declare void @omp_set_lock(ptr)
declare i32 @omp_get_device_num_not_listed()

; CHECK-LABEL: define void @work(
; CHECK: call i32 @__hcrt_global_thread_num(ptr @loc)
; CHECK: call void @__hcrt_for_static_init_4(
; CHECK: call void @__hcrt_for_static_init_4u(
; CHECK: call void @__hcrt_for_static_init_8(
; CHECK: call void @__hcrt_for_static_init_8u(
; CHECK: call void @__hcrt_for_static_fini(
; CHECK: call void @__hcrt_dispatch_init_8u(
; CHECK: call i32 @__hcrt_dispatch_next_8u(
; CHECK: call void @__hcrt_dispatch_deinit(
; CHECK: call i32 @__hcrt_reduce_nowait(
; CHECK: call void @__hcrt_end_reduce_nowait(
; CHECK: call void @__hcrt_barrier(
; CHECK: call i32 @__hcrt_single(
; CHECK: call void @__hcrt_end_single(
; CHECK: call i32 @__hcrt_masked(
; CHECK: call void @__hcrt_critical(ptr @loc, i32 %g, ptr @crit)
; CHECK: call void @__hcrt_end_critical(
; CHECK: call i32 @__hcrt_omp_taskwait(
; CHECK: call i32 @__hcrt_omp_get_thread_num()
; CHECK: call double @__hcrt_omp_get_wtime()
; CHECK: call void @__hcrt_omp_set_lock(ptr %p)
; CHECK: call i32 @omp_get_device_num_not_listed()
; CHECK: call void @__kmpc_doacross_init(
; CHECK-NOT: declare {{.*}}@__kmpc_barrier
define void @work(ptr %p) {
  %g = call i32 @__kmpc_global_thread_num(ptr @loc)
  call void @__kmpc_for_static_init_4(ptr @loc, i32 %g, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i32 1, i32 1)
  call void @__kmpc_for_static_init_4u(ptr @loc, i32 %g, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i32 1, i32 1)
  call void @__kmpc_for_static_init_8(ptr @loc, i32 %g, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i64 1, i64 1)
  call void @__kmpc_for_static_init_8u(ptr @loc, i32 %g, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i64 1, i64 1)
  call void @__kmpc_for_static_fini(ptr @loc, i32 %g)
  call void @__kmpc_dispatch_init_8u(ptr @loc, i32 %g, i32 35, i64 0, i64 9, i64 1, i64 1)
  %n = call i32 @__kmpc_dispatch_next_8u(ptr @loc, i32 %g, ptr %p, ptr %p, ptr %p, ptr %p)
  call void @__kmpc_dispatch_deinit(ptr @loc, i32 %g)
  %r = call i32 @__kmpc_reduce_nowait(ptr @loc, i32 %g, i32 1, i64 8, ptr %p, ptr null, ptr @crit)
  call void @__kmpc_end_reduce_nowait(ptr @loc, i32 %g, ptr @crit)
  call void @__kmpc_barrier(ptr @loc, i32 %g)
  %s = call i32 @__kmpc_single(ptr @loc, i32 %g)
  call void @__kmpc_end_single(ptr @loc, i32 %g)
  %m = call i32 @__kmpc_masked(ptr @loc, i32 %g, i32 0)
  call void @__kmpc_critical(ptr @loc, i32 %g, ptr @crit)
  call void @__kmpc_end_critical(ptr @loc, i32 %g, ptr @crit)
  %w = call i32 @__kmpc_omp_taskwait(ptr @loc, i32 %g)
  %t = call i32 @omp_get_thread_num()
  %wt = call double @omp_get_wtime()
  call void @omp_set_lock(ptr %p)
  %x = call i32 @omp_get_device_num_not_listed()
  call void @__kmpc_doacross_init(ptr @loc, i32 %g, i32 1, ptr %p)
  ret void
}

; WARN: calls.c:42: warning: hcc: OpenMP runtime call '__kmpc_doacross_init' is not supported across nodes; its region runs in libomp on the head node only (in 'work')
; WARN-NOT: warning

; O2-LABEL: define void @work(
; O2: call void @__hcrt_barrier(
; O2: call void @__kmpc_doacross_init(
