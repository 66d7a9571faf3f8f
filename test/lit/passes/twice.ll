; hcc-lower runs once per module even when scheduled twice (e.g. the
; plugin loaded by both -fpass-plugin and an explicit -passes).
; RUN: %opt -passes='hcc-lower,hcc-lower' -S %s > %t.ll
; RUN: grep -c 'define internal void @__hcrt_module_ctor' %t.ll | FileCheck %s
; RUN: grep -c '^define i32 @main(' %t.ll | FileCheck %s
; RUN: grep -c 'call i32 @__hcrt_main' %t.ll | FileCheck %s
; CHECK: {{^1$}}
define i32 @main() {
  ret i32 0
}
