; Migration points: at the head of the chunk loop of a chunked static
; schedule (once per chunk, outside the iteration loop), right after the
; init of an unchunked one, nowhere in dispatch loops.
; RUN: %opt -passes=hcc-migration -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

%struct.ident_t = type { i32, i32, i32, i32, ptr }
@loc = private constant %struct.ident_t zeroinitializer
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_for_static_init_8u(ptr, i32, i32, ptr, ptr, ptr, ptr, i64, i64)
declare void @__kmpc_for_static_fini(ptr, i32)
declare void @__kmpc_dispatch_init_4(ptr, i32, i32, i32, i32, i32, i32)
declare void @body(i32)

; CHECK-LABEL: define void @chunked(
; CHECK: call void @__kmpc_for_static_init_4(ptr @loc, i32 %gtid, i32 33,
; CHECK-NEXT: br label %chunk
; CHECK: chunk:
; CHECK-NEXT: %hcrt.migrate = load volatile i32, ptr @__hcrt_migrate_pending, align 4
; CHECK-NEXT: [[C:%.*]] = icmp ne i32 %hcrt.migrate, 0
; CHECK-NEXT: br i1 [[C]], label %[[MIG:.*]], label %{{.*}}, !prof ![[W:[0-9]+]]
; CHECK: [[MIG]]:
; CHECK-NEXT: call void @__hcrt_migration_point(ptr @loc, i32 %gtid)
; CHECK: %lb = load i32, ptr %plb
; CHECK: iter:
; CHECK-NOT: __hcrt_migrate_pending
; CHECK: exit:
define void @chunked(i32 %gtid, ptr %plb, ptr %pub, ptr %pst, ptr %last) {
entry:
  call void @__kmpc_for_static_init_4(ptr @loc, i32 %gtid, i32 33, ptr %last, ptr %plb, ptr %pub, ptr %pst, i32 1, i32 4)
  br label %chunk
chunk:
  %lb = load i32, ptr %plb
  %ub = load i32, ptr %pub
  %more = icmp sle i32 %lb, 100
  br i1 %more, label %iter, label %exit
iter:
  %i = phi i32 [ %lb, %chunk ], [ %i1, %iter ]
  call void @body(i32 %i)
  %i1 = add i32 %i, 1
  %c = icmp sle i32 %i1, %ub
  br i1 %c, label %iter, label %next
next:
  %st = load i32, ptr %pst
  %nlb = add i32 %lb, %st
  store i32 %nlb, ptr %plb
  br label %chunk
exit:
  call void @__kmpc_for_static_fini(ptr @loc, i32 %gtid)
  ret void
}

; CHECK-LABEL: define void @unchunked(
; CHECK: call void @__kmpc_for_static_init_8u(ptr @loc, i32 %gtid, i32 34,
; CHECK-NEXT: %hcrt.migrate = load volatile i32, ptr @__hcrt_migrate_pending
; CHECK: call void @__hcrt_migration_point(ptr @loc, i32 %gtid)
; CHECK: loop:
; CHECK-NOT: __hcrt_migrate_pending
; CHECK: ret void
define void @unchunked(i32 %gtid, ptr %plb, ptr %pub, ptr %pst, ptr %last) {
entry:
  call void @__kmpc_for_static_init_8u(ptr @loc, i32 %gtid, i32 34, ptr %last, ptr %plb, ptr %pub, ptr %pst, i64 1, i64 1)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  call void @body(i32 %i)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, 100
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; CHECK-LABEL: define void @dispatch(
; CHECK-NOT: __hcrt_migrate_pending
; CHECK: ret void
define void @dispatch(i32 %gtid) {
  call void @__kmpc_dispatch_init_4(ptr @loc, i32 %gtid, i32 35, i32 0, i32 9, i32 1, i32 1)
  ret void
}

; CHECK: ![[W]] = !{!"branch_weights", i32 1, i32 1048576}

; O2-LABEL: define void @chunked(
; O2: load volatile i32, ptr @__hcrt_migrate_pending
; O2: call void @__hcrt_migration_point(
