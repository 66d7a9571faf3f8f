; A region with an unsupported runtime call stays entirely in libomp: its
; fork, its loop and its atomics are untouched, and so is the num_threads
; push that belongs to its fork. Other regions are still lowered.
; RUN: %opt -passes=hcc-lower -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < %t.err

declare void @__kmpc_fork_call(ptr, i32, ptr, ...)
declare void @__kmpc_push_num_threads(ptr, i32, i32)
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_doacross_init(ptr, i32, i32, ptr)

define internal void @headonly(ptr noalias %g, ptr noalias %b, ptr %p) {
  call void @__kmpc_for_static_init_4(ptr null, i32 0, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i32 1, i32 1)
  call void @__kmpc_doacross_init(ptr null, i32 0, i32 1, ptr %p)
  %x = atomicrmw add ptr %p, i32 1 monotonic
  ret void
}

define internal void @cluster(ptr noalias %g, ptr noalias %b, ptr %p) {
  call void @__kmpc_for_static_init_4(ptr null, i32 0, i32 34, ptr %p, ptr %p, ptr %p, ptr %p, i32 1, i32 1)
  %x = atomicrmw add ptr %p, i32 1 monotonic
  ret void
}

; CHECK-LABEL: define internal void @headonly(
; CHECK-NEXT: call void @__kmpc_for_static_init_4(
; CHECK-NEXT: call void @__kmpc_doacross_init(
; CHECK-NEXT: atomicrmw add
; CHECK-LABEL: define internal void @cluster(
; CHECK: call void @__hcrt_for_static_init_4(
; CHECK: call i32 @__hcrt_atomic_add_4(
; CHECK-LABEL: define void @f(
; CHECK: call void @__kmpc_push_num_threads(ptr null, i32 0, i32 2)
; CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @headonly
; CHECK: call void @__hcrt_push_num_threads(ptr null, i32 0, i32 3)
; CHECK: call void @__hcrt_fork(ptr null, ptr @__hcrt_regions
define void @f(ptr %p) {
  call void @__kmpc_push_num_threads(ptr null, i32 0, i32 2)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @headonly, ptr %p)
  call void @__kmpc_push_num_threads(ptr null, i32 0, i32 3)
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @cluster, ptr %p)
  ret void
}

; WARN-DAG: warning: hcc: this parallel region uses OpenMP runtime calls hcc cannot lower; it runs in libomp on the head node only (in 'f')
; WARN-DAG: warning: hcc: OpenMP runtime call '__kmpc_doacross_init' is not supported across nodes; its region runs in libomp on the head node only (in 'headonly')
