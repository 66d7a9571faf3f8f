; Atomics in code that may run in a region (microtasks and what they call,
; functions other modules can call, functions whose address is taken)
; become __hcrt_atomic_* calls; atomics only the head's serial code runs
; (main, internal functions only it calls) stay hardware atomics.
; RUN: %opt -passes=hcc-atomics -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN < %t.err
; RUN: %opt -passes='default<O2>' -S %s 2>/dev/null | FileCheck %s --check-prefix=O2

declare void @__kmpc_fork_call(ptr, i32, ptr, ...)

define internal void @outlined(ptr noalias %gtid, ptr noalias %btid, ptr %p) {
  call void @helper(ptr %p)
  ret void
}

; CHECK-LABEL: define internal void @helper(
; CHECK: call i32 @__hcrt_atomic_add_4(ptr %p, i32 1, i32 0)
; CHECK: call i8 @__hcrt_atomic_umax_1(ptr %p, i8 7, i32 5)
; CHECK: call double @__hcrt_atomic_fadd_f64(ptr %p, double 1.000000e+00, i32 0)
; CHECK: call float @__hcrt_atomic_fmax_f32(ptr %p, float 2.000000e+00, i32 5)
; CHECK: [[Q:%.*]] = ptrtoint ptr %q to i64
; CHECK: [[X:%.*]] = call i64 @__hcrt_atomic_xchg_8(ptr %p, i64 [[Q]], i32 5)
; CHECK: inttoptr i64 [[X]] to ptr
; CHECK: [[OLD:%.*]] = call i64 @__hcrt_atomic_cas_8(ptr %p, i64 3, i64 4, i32 4, i32 2)
; CHECK: [[OK:%.*]] = icmp eq i64 [[OLD]], 3
; CHECK: [[R0:%.*]] = insertvalue { i64, i1 } undef, i64 [[OLD]], 0
; CHECK: insertvalue { i64, i1 } [[R0]], i1 [[OK]], 1
; CHECK: [[L:%.*]] = call i32 @__hcrt_atomic_load_4(ptr %p, i32 2)
; CHECK: bitcast i32 [[L]] to float
; CHECK: call void @__hcrt_atomic_store_8(ptr %p, i64 4617315517961601024, i32 3)
; CHECK: atomicrmw add ptr %p, i128 1 monotonic
; CHECK: load i32, ptr %p
define internal void @helper(ptr %p) {
  %a = atomicrmw add ptr %p, i32 1 monotonic
  %b = atomicrmw umax ptr %p, i8 7 seq_cst
  %c = atomicrmw fadd ptr %p, double 1.0 monotonic
  %d = atomicrmw fmax ptr %p, float 2.0 seq_cst
  %q = load ptr, ptr %p
  %e = atomicrmw xchg ptr %p, ptr %q seq_cst
  %f = cmpxchg ptr %p, i64 3, i64 4 acq_rel acquire
  %fv = extractvalue { i64, i1 } %f, 1
  %g = load atomic float, ptr %p acquire, align 4
  store atomic double 5.0, ptr %p release, align 8
  %h = atomicrmw add ptr %p, i128 1 monotonic
  %i = load i32, ptr %p
  ret void
}

; CHECK-LABEL: define internal void @serial(
; CHECK: atomicrmw add ptr %p, i32 1 monotonic
define internal void @serial(ptr %p) {
  %a = atomicrmw add ptr %p, i32 1 monotonic
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @outlined, ptr %p)
  ret void
}

; CHECK-LABEL: define i32 @main(
; CHECK: atomicrmw add ptr %p, i32 1 monotonic
define i32 @main(ptr %p) {
  %a = atomicrmw add ptr %p, i32 1 monotonic
  call void @serial(ptr %p)
  call void @register(ptr @callback)
  ret i32 0
}

; A function of another file's region may call (external linkage), and one
; reached through a pointer (a callback), run in regions too.
; CHECK-LABEL: define void @library(
; CHECK: call i32 @__hcrt_atomic_add_4(ptr %p, i32 1, i32 0)
define void @library(ptr %p) {
  %a = atomicrmw add ptr %p, i32 1 monotonic
  ret void
}

; CHECK-LABEL: define internal void @callback(
; CHECK: call i32 @__hcrt_atomic_add_4(ptr %p, i32 2, i32 0)
define internal void @callback(ptr %p) {
  %a = atomicrmw add ptr %p, i32 2 monotonic
  ret void
}

declare void @register(ptr)

; WARN: warning: hcc: atomicrmw of this type or operation has no cluster-wide implementation; it is atomic within one node only (in 'helper')

; O2: declare i32 @__hcrt_atomic_add_4(ptr, i32, i32)
; O2-LABEL: define internal {{.*}}@__hcrt_user_main.adapter(
; O2: atomicrmw add ptr {{.*}}, i32 1 monotonic
