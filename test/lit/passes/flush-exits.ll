; A loop that contains a flush gets one more on each of its exit edges, so
; the spin-wait idiom
;     while (flag == 0) { #pragma omp flush(flag) }  ... read the data ...
; is an acquire even when the first test succeeds and the body never runs
; (on other hosts a rank reads copies, and only an acquire drops those older
; than the flag it saw). Loops without a flush and flushes outside loops are
; left alone.
; RUN: %opt -passes=hcc-calls -S %s 2>/dev/null | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s 2>/dev/null | FileCheck %s --check-prefix=O2

%struct.ident_t = type { i32, i32, i32, i32, ptr }
@str = private unnamed_addr constant [22 x i8] c";wait.c;consume;9;1;;\00", align 1
@loc = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @str }, align 8
@flag = global i32 0, align 4
@data = global i32 0, align 4

declare void @__kmpc_flush(ptr)

; The shape clang emits at any -O level: the test in while.cond, the flush
; in while.body. The zero-trip path is while.cond -> while.end.
; CHECK-LABEL: define i32 @consume(
; CHECK: while.body:
; CHECK-NEXT: call void @__hcrt_flush(ptr @loc)
; CHECK: while.end:
; CHECK-NEXT: call void @__hcrt_flush(ptr @loc)
; CHECK-NEXT: load i32, ptr @data
; After the whole -O2 pipeline (loop rotation peels the first test into
; entry) the zero-trip edge still reaches the flush before the data.
; O2-LABEL: define {{.*}}i32 @consume(
; O2: entry:
; O2: br i1 %{{.*}}, label %while.body, label %[[END:.*]]
; O2: [[END]]:
; O2-NEXT: call void @__hcrt_flush(ptr {{.*}}@loc)
; O2-NEXT: load i32, ptr @data
define i32 @consume() {
entry:
  br label %while.cond

while.cond:
  %f = load volatile i32, ptr @flag, align 4
  %z = icmp eq i32 %f, 0
  br i1 %z, label %while.body, label %while.end

while.body:
  call void @__kmpc_flush(ptr @loc)
  br label %while.cond

while.end:
  %d = load i32, ptr @data, align 4
  ret i32 %d
}

; LU's `if (i != ist) { while (flag[i-1] == 0) flush; }`: the loop's exit
; block is also reached without the loop, so the exit edge is split and
; only the path through the loop flushes.
; CHECK-LABEL: define i32 @guarded(
; CHECK: entry:
; CHECK-NEXT: br i1 %c, label %while.cond, label %after
; CHECK: while.cond:
; CHECK: br i1 %z, label %while.body, label %[[SPLIT:.*]]
; CHECK: [[SPLIT]]:
; CHECK-NEXT: call void @__hcrt_flush(ptr @loc)
; CHECK-NEXT: br label %after
; CHECK: after:
; CHECK-NEXT: load i32, ptr @data
define i32 @guarded(i1 %c) {
entry:
  br i1 %c, label %while.cond, label %after

while.cond:
  %f = load volatile i32, ptr @flag, align 4
  %z = icmp eq i32 %f, 0
  br i1 %z, label %while.body, label %after

while.body:
  call void @__kmpc_flush(ptr @loc)
  br label %while.cond

after:
  %d = load i32, ptr @data, align 4
  ret i32 %d
}

; Two exits (a bounded wait): both get a flush.
; CHECK-LABEL: define i32 @bounded(
; CHECK: timeout:
; CHECK-NEXT: call void @__hcrt_flush(ptr @loc)
; CHECK: done:
; CHECK-NEXT: call void @__hcrt_flush(ptr @loc)
define i32 @bounded(i32 %n) {
entry:
  br label %while.cond

while.cond:
  %i = phi i32 [ 0, %entry ], [ %i1, %while.body ]
  %f = load volatile i32, ptr @flag, align 4
  %z = icmp eq i32 %f, 0
  br i1 %z, label %while.body, label %done

while.body:
  call void @__kmpc_flush(ptr @loc)
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %while.cond, label %timeout

timeout:
  ret i32 -1

done:
  %d = load i32, ptr @data, align 4
  ret i32 %d
}

; No flush in the loop, or a flush outside any loop: nothing is added.
; CHECK-LABEL: define i32 @plain(
; CHECK-NOT: call void @__hcrt_flush
; CHECK: ret i32
define i32 @plain() {
entry:
  br label %while.cond

while.cond:
  %f = load volatile i32, ptr @flag, align 4
  %z = icmp eq i32 %f, 0
  br i1 %z, label %while.cond, label %while.end

while.end:
  %d = load i32, ptr @data, align 4
  ret i32 %d
}

; CHECK-LABEL: define i32 @straight(
; CHECK: call void @__hcrt_flush(ptr @loc)
; CHECK-NOT: call void @__hcrt_flush
; CHECK: ret i32
define i32 @straight() {
entry:
  call void @__kmpc_flush(ptr @loc)
  %d = load i32, ptr @data, align 4
  ret i32 %d
}
