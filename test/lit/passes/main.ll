; The user's main becomes __hcrt_user_main, called through __hcrt_main.
; RUN: %opt -passes=hcc-main -S %s | FileCheck %s
; RUN: sed -e 's/@main(i32 %argc, ptr %argv)/@main()/' %s | %opt -passes=hcc-main -S | FileCheck %s --check-prefix=NOARGS
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

; CHECK-LABEL: define internal i32 @__hcrt_user_main(i32 %argc, ptr %argv)
define i32 @main(i32 %argc, ptr %argv) {
  ret i32 0
}

; CHECK-LABEL: define internal i32 @__hcrt_user_main.adapter(i32 %0, ptr %1, ptr %2)
; CHECK-NEXT: entry:
; CHECK-NEXT: %3 = call i32 @__hcrt_user_main(i32 %0, ptr %1)
; CHECK-NEXT: ret i32 %3
; CHECK-LABEL: define i32 @main(i32 %0, ptr %1, ptr %2)
; CHECK-NEXT: entry:
; CHECK-NEXT: %3 = call i32 @__hcrt_main(i32 %0, ptr %1, ptr %2, ptr @__hcrt_user_main.adapter)
; CHECK-NEXT: ret i32 %3

; NOARGS-LABEL: define internal i32 @__hcrt_user_main.adapter(i32 %0, ptr %1, ptr %2)
; NOARGS-NEXT: entry:
; NOARGS-NEXT: call i32 @__hcrt_user_main()

; O2-LABEL: define i32 @main(
; O2: call i32 @__hcrt_main(i32 %0, ptr %1, ptr %2, ptr nonnull @__hcrt_user_main.adapter)
