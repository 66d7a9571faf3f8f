; __kmpc_fork_call_if (flang's `parallel if`) and __kmpc_fork_teams (host
; `teams`) are lowered like __kmpc_fork_call.
; RUN: %opt -passes=hcc-fork -S %s | FileCheck %s

declare void @__kmpc_fork_call_if(ptr, i32, ptr, i32, ptr)
declare void @__kmpc_fork_teams(ptr, i32, ptr, ...)
declare void @__kmpc_dist_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, ptr, i32, i32)

define internal void @par(ptr noalias %g, ptr noalias %b, ptr %s) {
  ret void
}
define internal void @teams(ptr noalias %g, ptr noalias %b, ptr %x, i32 %n) {
  call void @__kmpc_dist_for_static_init_4(ptr null, i32 0, i32 92, ptr %x, ptr %x, ptr %x, ptr %x, ptr %x, i32 1, i32 1)
  ret void
}

; CHECK-DAG: @__hcrt_region.teams = private constant %struct.hcrt_region_desc { i64 {{-?[0-9]+}}, ptr @{{.*}}, ptr @{{.*}}, i32 0, i32 0, i32 2, i32 1, ptr @__hcrt_tramp.teams, ptr @teams, i32 0, i32 0 }
; CHECK-LABEL: define void @f(
; CHECK-DAG: %hcrt.args{{[0-9]*}} = alloca [1 x ptr]
; CHECK-DAG: %hcrt.args{{[0-9]*}} = alloca [2 x ptr]
; CHECK: store ptr %s, ptr
; CHECK: call void @__hcrt_fork_if(ptr null, ptr @__hcrt_region.par, i32 %c, ptr %hcrt.args{{[0-9]*}})
; CHECK: [[N:%.*]] = zext i32 %n to i64
; CHECK: store i64 [[N]], ptr
; CHECK: call void @__hcrt_fork_teams(ptr null, ptr @__hcrt_region.teams, ptr %hcrt.args{{[0-9]*}})
; CHECK-LABEL: define internal void @__hcrt_tramp.teams(
; CHECK: [[W:%.*]] = load i64, ptr
; CHECK: [[T:%.*]] = trunc i64 [[W]] to i32
; CHECK: call void @teams(ptr %0, ptr %1, ptr {{%.*}}, i32 [[T]])
define void @f(ptr %s, i32 %c, i32 %n) {
  call void @__kmpc_fork_call_if(ptr null, i32 1, ptr @par, i32 %c, ptr %s)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_teams(ptr null, i32 2, ptr @teams, ptr %s, i32 %n)
  ret void
}
