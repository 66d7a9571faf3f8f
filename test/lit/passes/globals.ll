; Writable globals move to the DSM sections; zero-initialised ones keep
; SHT_NOBITS through the "bss-section" attribute so a huge array costs no
; file space. Common symbols (Fortran COMMON) become weak definitions.
; Constants, TLS, globals already in a section and libomp's critical-section
; locks stay where they are.
; RUN: %opt -passes=hcc-globals -S %s | FileCheck %s
; RUN: %opt -passes=hcc-lower -S %s | llc -O0 -filetype=obj -o %t.o
; RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=ELF
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s --check-prefix=O2

; CHECK: @init = global i32 5, section "hcrt_shared", align 4
; CHECK: @zero = global [100 x double] zeroinitializer, align 16 #[[BSS:[0-9]+]]
; CHECK: @huge = internal global [134217728 x double] zeroinitializer, align 16 #[[BSS]]
; CHECK: @ro = constant i32 7
; CHECK: @tls = thread_local global i32 0
; CHECK: @mine = global i32 1, section "mysec"
; CHECK: @.gomp_critical_user_.var = common global [8 x i32] zeroinitializer
; CHECK: @blk_ = weak global [16 x i8] zeroinitializer, align 8 #[[BSS]]
; CHECK: @__hcrt_shared_anchor = internal global [4096 x i8] zeroinitializer, section "hcrt_shared", align 4096
; CHECK: @__hcrt_shared_bss_anchor = internal global [4096 x i8] zeroinitializer, align 4096 #[[BSS]]
; CHECK: @llvm.compiler.used = {{.*}}@__hcrt_shared_anchor, ptr @__hcrt_shared_bss_anchor
; CHECK: attributes #[[BSS]] = { "bss-section"="hcrt_shared_bss" }

; The 1 GiB array is in a NOBITS section: no file bloat. Both sections are
; page aligned and, thanks to the trailing anchor, a whole number of pages.
; ELF-DAG: hcrt_shared_bss NOBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 40002000 {{.*}} 4096
; ELF-DAG: hcrt_shared PROGBITS {{[0-9a-f]+}} {{[0-9a-f]+}} 002000 {{.*}} 4096

; O2: @init = {{.*}}global i32 5, section "hcrt_shared"

@init = global i32 5, align 4
@zero = global [100 x double] zeroinitializer, align 16
@huge = internal global [134217728 x double] zeroinitializer, align 16
@ro = constant i32 7
@tls = thread_local global i32 0
@mine = global i32 1, section "mysec"
@.gomp_critical_user_.var = common global [8 x i32] zeroinitializer
@blk_ = common global [16 x i8] zeroinitializer, align 8

define ptr @use(i64 %i) {
  %p = getelementptr [134217728 x double], ptr @huge, i64 0, i64 %i
  store double 1.0, ptr %p
  store i32 1, ptr @init
  store i32 1, ptr @tls
  ret ptr @zero
}
