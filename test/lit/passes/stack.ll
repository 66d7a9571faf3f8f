; In functions that can reach a fork, stack slots whose address escapes
; move to DSM stack storage for the frame's lifetime; other slots and other
; functions are untouched.
; RUN: %opt -passes=hcc-stack -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

declare void @__kmpc_fork_call(ptr, i32, ptr, ...)
declare void @ext(ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

define internal void @outlined(ptr noalias %g, ptr noalias %b, ptr %x) {
  store i32 1, ptr %x
  ret void
}

; The frame's mark is the arena's top; its fixed-size slots are one block
; (16-byte aligned each), bumped inline when it fits, else from the runtime;
; each exit stores the mark back when it lies in the current chunk, else
; calls the runtime.
; CHECK-LABEL: define i32 @main(
; CHECK-NEXT: %private = alloca i32
; CHECK-NEXT: [[A:%.*]] = call ptr @llvm.threadlocal.address.p0(ptr @__hcrt_stack_arena)
; CHECK-NEXT: %hcrt.stack.mark = load ptr, ptr [[A]]
; CHECK: %hcrt.stack.fits = and i1
; CHECK-NEXT: br i1 %hcrt.stack.fits
; CHECK: [[FAST:%.*]] = getelementptr i8, ptr %hcrt.stack.mark, i64
; CHECK-NEXT: [[NEW:%.*]] = getelementptr inbounds i8, ptr [[FAST]], i64 96
; CHECK-NEXT: store ptr [[NEW]], ptr [[A]]
; CHECK: [[SLOW:%.*]] = call ptr @__hcrt_stack_alloc(i64 96, i64 16)
; CHECK: %hcrt.stack.frame = phi ptr [ [[FAST]], {{.*}} ], [ [[SLOW]], {{.*}} ]
; CHECK-NEXT: %shared.dsm = getelementptr inbounds i8, ptr %hcrt.stack.frame, i64 0
; CHECK-NEXT: %escaped.dsm = getelementptr inbounds i8, ptr %hcrt.stack.frame, i64 16
; CHECK-NOT: lifetime.start.p0(i64 4, ptr %shared
; CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @outlined, ptr %shared.dsm)
; CHECK: [[A2:%.*]] = call ptr @llvm.threadlocal.address.p0(ptr @__hcrt_stack_arena)
; CHECK: %hcrt.stack.here = and i1
; CHECK-NEXT: br i1 %hcrt.stack.here
; CHECK: store ptr %hcrt.stack.mark, ptr [[A2]]
; CHECK: call void @__hcrt_stack_restore(ptr %hcrt.stack.mark)
; CHECK: ret i32
define i32 @main() {
  %shared = alloca i32, align 4
  %private = alloca i32, align 4
  %escaped = alloca [10 x double], align 16
  call void @llvm.lifetime.start.p0(i64 4, ptr %shared)
  store i32 0, ptr %shared
  store i32 0, ptr %private
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @outlined, ptr %shared)
  %e = getelementptr [10 x double], ptr %escaped, i64 0, i64 3
  call void @ext(ptr %e)
  call void @llvm.lifetime.end.p0(i64 4, ptr %shared)
  %r = load i32, ptr %private
  ret i32 %r
}

; A VLA in a loop: the DSM stack follows llvm.stacksave/stackrestore.
; CHECK-LABEL: define void @vla(
; CHECK: %hcrt.stack.mark = load ptr
; CHECK-NOT: hcrt.stack.fits
; CHECK: %sp = call ptr @llvm.stacksave.p0()
; CHECK-NEXT: [[M:%.*]] = call ptr @__hcrt_stack_save()
; CHECK: [[SZ:%.*]] = mul i64 8, %n
; CHECK: %buf.dsm = call ptr @__hcrt_stack_alloc(i64 [[SZ]], i64 8)
; CHECK: call void @__hcrt_stack_restore(ptr [[M]])
; CHECK-NEXT: call void @llvm.stackrestore.p0(ptr %sp)
define void @vla(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %sp = call ptr @llvm.stacksave.p0()
  %buf = alloca double, i64 %n, align 8
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr null, i32 1, ptr @outlined, ptr %buf)
  call void @llvm.stackrestore.p0(ptr %sp)
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, 4
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; A caller of a function that forks is lowered too; one that cannot reach
; a fork keeps its allocas.
; CHECK-LABEL: define void @caller(
; CHECK: __hcrt_stack_alloc
define void @caller() {
  %v = alloca i32
  call void @ext(ptr %v)
  %r = call i32 @main()
  ret void
}

; CHECK-LABEL: define void @leaf(
; CHECK-NEXT: %v = alloca i32
; CHECK-NOT: __hcrt_stack
; CHECK: ret void
define void @leaf() {
  %v = alloca i32
  call void @ext(ptr %v)
  ret void
}

; O2-LABEL: define void @caller(
; O2: call ptr @__hcrt_stack_alloc(i64 4, i64 16)
