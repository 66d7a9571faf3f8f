; main(argc, argv, envp) already has hcrt_main_fn_t's type: no adapter.
; RUN: %opt -passes=hcc-main -S %s | FileCheck %s
; CHECK: define internal i32 @__hcrt_user_main(i32 %argc, ptr %argv, ptr %envp)
; CHECK-NOT: adapter
; CHECK: call i32 @__hcrt_main(i32 %0, ptr %1, ptr %2, ptr @__hcrt_user_main)
define i32 @main(i32 %argc, ptr %argv, ptr %envp) {
  ret i32 0
}
