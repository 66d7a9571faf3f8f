; A C++ function-local static: its guard calls go to the runtime's
; cluster-wide guards (also in head-only code), and the inline fast path's
; acquire load of the guard asks __hcrt_cxa_guard_done. Other atomic loads
; of a function that may run in a region are lowered as usual.
; RUN: %opt -passes=hcc-calls,hcc-atomics -S %s | FileCheck %s

@_ZZ6staticvE5value = internal global i64 0, align 8
@_ZGVZ6staticvE5value = internal global i64 0, align 8
@other = internal global i8 0, align 8

declare i32 @__cxa_guard_acquire(ptr)
declare void @__cxa_guard_release(ptr)
declare void @__cxa_guard_abort(ptr)
declare i64 @make()

; CHECK-LABEL: define i64 @_Z6staticv(
; CHECK: [[D:%.*]] = call i8 @__hcrt_cxa_guard_done(ptr @_ZGVZ6staticvE5value)
; CHECK: icmp eq i8 [[D]], 0
; CHECK: call i32 @__hcrt_cxa_guard_acquire(ptr @_ZGVZ6staticvE5value)
; CHECK: call void @__hcrt_cxa_guard_release(ptr @_ZGVZ6staticvE5value)
; CHECK: call i8 @__hcrt_atomic_load_1(ptr @other, i32 2)
; CHECK-NOT: @__cxa_guard_
define i64 @_Z6staticv() {
entry:
  %g = load atomic i8, ptr @_ZGVZ6staticvE5value acquire, align 8
  %done = icmp eq i8 %g, 0
  br i1 %done, label %init, label %use
init:
  %a = call i32 @__cxa_guard_acquire(ptr @_ZGVZ6staticvE5value)
  %go = icmp ne i32 %a, 0
  br i1 %go, label %make, label %use
make:
  %v = call i64 @make()
  store i64 %v, ptr @_ZZ6staticvE5value, align 8
  call void @__cxa_guard_release(ptr @_ZGVZ6staticvE5value)
  br label %use
use:
  %o = load atomic i8, ptr @other acquire, align 8
  %r = load i64, ptr @_ZZ6staticvE5value, align 8
  ret i64 %r
}

; CHECK-LABEL: define void @unwind(
; CHECK: call void @__hcrt_cxa_guard_abort(ptr @_ZGVZ6staticvE5value)
define void @unwind() {
  call void @__cxa_guard_abort(ptr @_ZGVZ6staticvE5value)
  ret void
}
