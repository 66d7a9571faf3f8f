; A module without OpenMP, heap calls, writable globals, atomics or main
; only gains the module descriptor and its constructor; its functions are
; untouched. (Atomics in a function another module can call are lowered:
; a region there may call it, atomics.ll.)
; RUN: %opt -passes=hcc-lower -S %s > %t.ll
; RUN: FileCheck %s < %t.ll
; RUN: sed -e '/^define internal void @__hcrt_module_ctor/,/^}/d' -e '/hcrt/d' -e '/llvm.global_ctors/d' -e '/hcc.lowered/d' -e '/^!/d' -e '/^$/d' %t.ll > %t.strip
; RUN: %opt -S %s | sed -e '/^$/d' > %t.ref
; RUN: diff %t.ref %t.strip

@table = constant [3 x i32] [i32 1, i32 2, i32 3]

define i32 @sum(ptr %p, i32 %n) {
entry:
  %x = alloca i32
  store i32 0, ptr %x
  %v = load i32, ptr %p
  %o = load i32, ptr %x
  %r = add i32 %o, %v
  store i32 %r, ptr %x
  ret i32 %r
}

; CHECK-DAG: @__hcrt_module = internal constant %struct.hcrt_module_desc { i32 3, i32 0, ptr @__hcrt_module_name, i64 {{-?[0-9]+}}, i32 0, i32 0, ptr null, ptr null, ptr @__start_hcrt_shared, ptr @__stop_hcrt_shared, ptr @__start_hcrt_shared_bss, ptr @__stop_hcrt_shared_bss }
; CHECK-DAG: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @__hcrt_module_ctor, ptr null }]
; CHECK-DAG: @__start_hcrt_shared = extern_weak hidden global i8
; CHECK-LABEL: define i32 @sum(
; CHECK: %r = add i32 %o, %v
; CHECK-LABEL: define internal void @__hcrt_module_ctor()
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @__hcrt_register_module(ptr @__hcrt_module)
; CHECK: !{i32 7, !"hcc.lowered", i32 1}
