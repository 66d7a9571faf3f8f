; User heap calls go to the DSM heap; __hcrt_* functions keep libc's.
; RUN: %opt -passes=hcc-heap -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)
declare ptr @aligned_alloc(i64, i64)
declare i32 @posix_memalign(ptr, i64, i64)
declare ptr @memalign(i64, i64)
declare void @keep(ptr)

; CHECK-LABEL: define void @user(
; CHECK: call ptr @__hcrt_malloc(i64 16)
; CHECK: call ptr @__hcrt_calloc(i64 4, i64 8)
; CHECK: call ptr @__hcrt_realloc(ptr %a, i64 64)
; CHECK: call ptr @__hcrt_aligned_alloc(i64 64, i64 128)
; CHECK: call i32 @__hcrt_posix_memalign(ptr %out, i64 64, i64 8)
; CHECK: call ptr @__hcrt_memalign(i64 64, i64 8)
; CHECK: call void @__hcrt_free(ptr %c)
; CHECK: call void @keep(ptr @__hcrt_free)
define void @user(ptr %out) {
  %a = call ptr @malloc(i64 16)
  %b = call ptr @calloc(i64 4, i64 8)
  %c = call ptr @realloc(ptr %a, i64 64)
  %d = call ptr @aligned_alloc(i64 64, i64 128)
  %e = call i32 @posix_memalign(ptr %out, i64 64, i64 8)
  %f = call ptr @memalign(i64 64, i64 8)
  call void @free(ptr %c)
  call void @keep(ptr @free)
  call void @keep(ptr %b)
  call void @keep(ptr %d)
  call void @keep(ptr %f)
  ret void
}

; CHECK-LABEL: define void @__hcrt_internal(
; CHECK: call ptr @malloc(i64 8)
define void @__hcrt_internal() {
  %a = call ptr @malloc(i64 8)
  call void @keep(ptr %a)
  ret void
}

; O2-LABEL: define void @user(
; O2: call {{.*}}@__hcrt_malloc(
