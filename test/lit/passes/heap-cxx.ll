; C++'s replaceable operator new/delete (every Itanium form on x86_64) go to
; the DSM heap entries __hcrt_cxx_*, calls and invokes alike; __hcrt_*
; functions keep the library's; a module that defines an operator keeps its
; own (here: the nothrow array delete).
; RUN: %opt -passes=hcc-heap -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

%"struct.std::nothrow_t" = type { i8 }
@_ZSt7nothrow = external global %"struct.std::nothrow_t"

declare ptr @_Znwm(i64)
declare ptr @_Znam(i64)
declare ptr @_ZnwmRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnamRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnwmSt11align_val_t(i64, i64)
declare ptr @_ZnamSt11align_val_t(i64, i64)
declare ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare void @_ZdlPv(ptr)
declare void @_ZdaPv(ptr)
declare void @_ZdlPvm(ptr, i64)
declare void @_ZdaPvm(ptr, i64)
declare void @_ZdlPvRKSt9nothrow_t(ptr, ptr)
declare void @_ZdlPvSt11align_val_t(ptr, i64)
declare void @_ZdaPvSt11align_val_t(ptr, i64)
declare void @_ZdlPvmSt11align_val_t(ptr, i64, i64)
declare void @_ZdaPvmSt11align_val_t(ptr, i64, i64)
declare void @_ZdlPvSt11align_val_tRKSt9nothrow_t(ptr, i64, ptr)
declare void @_ZdaPvSt11align_val_tRKSt9nothrow_t(ptr, i64, ptr)
declare void @keep(ptr)
declare i32 @__gxx_personality_v0(...)

define void @_ZdaPvRKSt9nothrow_t(ptr %p, ptr %nt) {
  ret void
}

; CHECK-LABEL: define void @user(
; CHECK: call ptr @__hcrt_cxx_new(i64 16)
; CHECK: call ptr @__hcrt_cxx_new_array(i64 32)
; CHECK: call ptr @__hcrt_cxx_new_nothrow(i64 8, ptr @_ZSt7nothrow)
; CHECK: call ptr @__hcrt_cxx_new_array_nothrow(i64 8, ptr @_ZSt7nothrow)
; CHECK: call ptr @__hcrt_cxx_new_aligned(i64 64, i64 64)
; CHECK: call ptr @__hcrt_cxx_new_array_aligned(i64 128, i64 64)
; CHECK: call ptr @__hcrt_cxx_new_aligned_nothrow(i64 64, i64 64, ptr @_ZSt7nothrow)
; CHECK: call ptr @__hcrt_cxx_new_array_aligned_nothrow(i64 64, i64 64, ptr @_ZSt7nothrow)
; CHECK: call void @__hcrt_cxx_delete(ptr %a)
; CHECK: call void @__hcrt_cxx_delete_array(ptr %b)
; CHECK: call void @__hcrt_cxx_delete_sized(ptr %a, i64 16)
; CHECK: call void @__hcrt_cxx_delete_array_sized(ptr %b, i64 32)
; CHECK: call void @__hcrt_cxx_delete_nothrow(ptr %c, ptr @_ZSt7nothrow)
; CHECK: call void @_ZdaPvRKSt9nothrow_t(ptr %d, ptr @_ZSt7nothrow)
; CHECK: call void @__hcrt_cxx_delete_aligned(ptr %e, i64 64)
; CHECK: call void @__hcrt_cxx_delete_array_aligned(ptr %f, i64 64)
; CHECK: call void @__hcrt_cxx_delete_sized_aligned(ptr %e, i64 64, i64 64)
; CHECK: call void @__hcrt_cxx_delete_array_sized_aligned(ptr %f, i64 128, i64 64)
; CHECK: call void @__hcrt_cxx_delete_aligned_nothrow(ptr %g, i64 64, ptr @_ZSt7nothrow)
; CHECK: call void @__hcrt_cxx_delete_array_aligned_nothrow(ptr %h, i64 64, ptr @_ZSt7nothrow)
; CHECK: call void @keep(ptr @__hcrt_cxx_delete)
define void @user() {
  %a = call ptr @_Znwm(i64 16)
  %b = call ptr @_Znam(i64 32)
  %c = call ptr @_ZnwmRKSt9nothrow_t(i64 8, ptr @_ZSt7nothrow)
  %d = call ptr @_ZnamRKSt9nothrow_t(i64 8, ptr @_ZSt7nothrow)
  %e = call ptr @_ZnwmSt11align_val_t(i64 64, i64 64)
  %f = call ptr @_ZnamSt11align_val_t(i64 128, i64 64)
  %g = call ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64 64, i64 64, ptr @_ZSt7nothrow)
  %h = call ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64 64, i64 64, ptr @_ZSt7nothrow)
  call void @_ZdlPv(ptr %a)
  call void @_ZdaPv(ptr %b)
  call void @_ZdlPvm(ptr %a, i64 16)
  call void @_ZdaPvm(ptr %b, i64 32)
  call void @_ZdlPvRKSt9nothrow_t(ptr %c, ptr @_ZSt7nothrow)
  call void @_ZdaPvRKSt9nothrow_t(ptr %d, ptr @_ZSt7nothrow)
  call void @_ZdlPvSt11align_val_t(ptr %e, i64 64)
  call void @_ZdaPvSt11align_val_t(ptr %f, i64 64)
  call void @_ZdlPvmSt11align_val_t(ptr %e, i64 64, i64 64)
  call void @_ZdaPvmSt11align_val_t(ptr %f, i64 128, i64 64)
  call void @_ZdlPvSt11align_val_tRKSt9nothrow_t(ptr %g, i64 64, ptr @_ZSt7nothrow)
  call void @_ZdaPvSt11align_val_tRKSt9nothrow_t(ptr %h, i64 64, ptr @_ZSt7nothrow)
  call void @keep(ptr @_ZdlPv)
  ret void
}

; An operator new that may throw is an invoke: renamed too.
; CHECK-LABEL: define void @throws(
; CHECK: invoke ptr @__hcrt_cxx_new(i64 24)
define void @throws() personality ptr @__gxx_personality_v0 {
  %p = invoke ptr @_Znwm(i64 24) to label %ok unwind label %lp
ok:
  call void @keep(ptr %p)
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

; CHECK-LABEL: define ptr @__hcrt_runtime_helper(
; CHECK: call ptr @_Znwm(i64 8)
define ptr @__hcrt_runtime_helper() {
  %p = call ptr @_Znwm(i64 8)
  ret ptr %p
}

; O2-LABEL: define void @throws(
; O2: call ptr @__hcrt_cxx_new(i64 24)
