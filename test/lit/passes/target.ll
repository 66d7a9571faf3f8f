; Target regions: one kernel descriptor and one trampoline void(void **)
; per kernel, calling the host fallback; __tgt_target_kernel is renamed.
; RUN: %opt -passes=hcc-target -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

%struct.ident_t = type { i32, i32, i32, i32, ptr }
%struct.__tgt_offload_entry = type { ptr, ptr, i64, i32, i32 }
@loc = private constant %struct.ident_t zeroinitializer
@.__omp_offloading_fe00_1_main_l7.region_id = weak constant i8 0
@.offloading.entry_name = internal unnamed_addr constant [32 x i8] c"__omp_offloading_fe00_1_main_l7\00"
@.offloading.entry.__omp_offloading_fe00_1_main_l7 = weak constant %struct.__tgt_offload_entry { ptr @.__omp_offloading_fe00_1_main_l7.region_id, ptr @.offloading.entry_name, i64 0, i32 0, i32 0 }, section "omp_offloading_entries", align 1

declare i32 @__tgt_target_kernel(ptr, i64, i32, i32, ptr, ptr)

define internal void @__omp_offloading_fe00_1_main_l7(i64 %n, ptr %a, ptr %b) {
  ret void
}

; CHECK: %struct.hcrt_kernel_desc = type { i64, ptr, ptr, ptr, ptr, i32, i32, ptr }
; CHECK: @__hcrt_kernel.__omp_offloading_fe00_1_main_l7 = private constant %struct.hcrt_kernel_desc { i64 {{-?[0-9]+}}, ptr @__hcrt_kernel_name, ptr @.__omp_offloading_fe00_1_main_l7.region_id, ptr @__hcrt_ktramp.__omp_offloading_fe00_1_main_l7, ptr @__omp_offloading_fe00_1_main_l7, i32 3, i32 7, ptr null }

; CHECK-LABEL: define i32 @run(
; CHECK: %r = call i32 @__hcrt_target_kernel(ptr @loc, i64 -1, i32 -1, i32 0, ptr @.__omp_offloading_fe00_1_main_l7.region_id, ptr %args)
; CHECK: call void @__omp_offloading_fe00_1_main_l7(i64 %n, ptr %a, ptr %b)
define i32 @run(ptr %args, i64 %n, ptr %a, ptr %b) {
entry:
  %r = call i32 @__tgt_target_kernel(ptr @loc, i64 -1, i32 -1, i32 0, ptr @.__omp_offloading_fe00_1_main_l7.region_id, ptr %args)
  %f = icmp ne i32 %r, 0
  br i1 %f, label %failed, label %done
failed:
  call void @__omp_offloading_fe00_1_main_l7(i64 %n, ptr %a, ptr %b)
  br label %done
done:
  ret i32 0
}

; CHECK-LABEL: define internal void @__hcrt_ktramp.__omp_offloading_fe00_1_main_l7(ptr %0)
; CHECK: [[N:%.*]] = load i64, ptr
; CHECK: [[A:%.*]] = load ptr, ptr
; CHECK: [[B:%.*]] = load ptr, ptr
; CHECK: call void @__omp_offloading_fe00_1_main_l7(i64 [[N]], ptr [[A]], ptr [[B]])
; CHECK-NOT: @__tgt_target_kernel(

; O2: @__hcrt_kernels = private constant [1 x %struct.hcrt_kernel_desc]
; O2-LABEL: define {{.*}}i32 @run(
; O2: call i32 @__hcrt_target_kernel(
