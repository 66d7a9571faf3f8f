; A module that defines its own malloc keeps calling it.
; RUN: %opt -passes=hcc-heap -S %s | FileCheck %s

; CHECK-LABEL: define ptr @user(
; CHECK: call ptr @malloc(i64 8)
; CHECK-NOT: __hcrt_malloc
define ptr @malloc(i64 %n) {
  ret ptr null
}
define ptr @user() {
  %a = call ptr @malloc(i64 8)
  ret ptr %a
}
