; OpenMP's allocator API and clang's calls for the allocate directive and
; clause go to the runtime (DSM memory in cluster mode): omp_<x> becomes
; __hcrt_omp_<x>, __kmpc_<x> becomes __hcrt_kmpc_<x> (never __hcrt_<x>,
; which names the user's malloc family), without the warning of a call
; that keeps its region on the head.
; RUN: %opt -passes=hcc-calls -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --check-prefix=WARN --allow-empty < %t.err

declare i64 @omp_init_allocator(i64, i32, ptr)
declare void @omp_destroy_allocator(i64)
declare ptr @omp_alloc(i64, i64)
declare ptr @omp_aligned_alloc(i64, i64, i64)
declare ptr @omp_calloc(i64, i64, i64)
declare ptr @omp_aligned_calloc(i64, i64, i64, i64)
declare ptr @omp_realloc(ptr, i64, i64, i64)
declare void @omp_free(ptr, i64)
declare ptr @__kmpc_alloc(i32, i64, ptr)
declare ptr @__kmpc_aligned_alloc(i32, i64, i64, ptr)
declare ptr @__kmpc_calloc(i32, i64, i64, ptr)
declare ptr @__kmpc_realloc(i32, ptr, i64, ptr, ptr)
declare void @__kmpc_free(i32, ptr, ptr)

; CHECK-LABEL: define void @work(
; CHECK: call i64 @__hcrt_omp_init_allocator(i64 0, i32 1, ptr %t)
; CHECK: call ptr @__hcrt_omp_alloc(i64 64, i64 %a)
; CHECK: call ptr @__hcrt_omp_aligned_alloc(i64 64, i64 64, i64 %a)
; CHECK: call ptr @__hcrt_omp_calloc(i64 8, i64 8, i64 1)
; CHECK: call ptr @__hcrt_omp_aligned_calloc(i64 64, i64 8, i64 8, i64 1)
; CHECK: call ptr @__hcrt_omp_realloc(ptr %p, i64 128, i64 %a, i64 %a)
; CHECK: call void @__hcrt_omp_free(ptr %r, i64 0)
; CHECK: call void @__hcrt_omp_destroy_allocator(i64 %a)
; CHECK: call ptr @__hcrt_kmpc_alloc(i32 0, i64 400, ptr inttoptr (i64 2 to ptr))
; CHECK: call ptr @__hcrt_kmpc_aligned_alloc(i32 0, i64 64, i64 400, ptr null)
; CHECK: call ptr @__hcrt_kmpc_calloc(i32 0, i64 4, i64 100, ptr null)
; CHECK: call ptr @__hcrt_kmpc_realloc(i32 0, ptr %k, i64 800, ptr null, ptr null)
; CHECK: call void @__hcrt_kmpc_free(i32 0, ptr %k2, ptr null)
; WARN-NOT: warning
define void @work(ptr %t) {
  %a = call i64 @omp_init_allocator(i64 0, i32 1, ptr %t)
  %p = call ptr @omp_alloc(i64 64, i64 %a)
  %q = call ptr @omp_aligned_alloc(i64 64, i64 64, i64 %a)
  %c = call ptr @omp_calloc(i64 8, i64 8, i64 1)
  %d = call ptr @omp_aligned_calloc(i64 64, i64 8, i64 8, i64 1)
  %r = call ptr @omp_realloc(ptr %p, i64 128, i64 %a, i64 %a)
  call void @omp_free(ptr %r, i64 0)
  call void @omp_destroy_allocator(i64 %a)
  %k = call ptr @__kmpc_alloc(i32 0, i64 400, ptr inttoptr (i64 2 to ptr))
  %k1 = call ptr @__kmpc_aligned_alloc(i32 0, i64 64, i64 400, ptr null)
  %k0 = call ptr @__kmpc_calloc(i32 0, i64 4, i64 100, ptr null)
  %k2 = call ptr @__kmpc_realloc(i32 0, ptr %k, i64 800, ptr null, ptr null)
  call void @__kmpc_free(i32 0, ptr %k2, ptr null)
  ret void
}
