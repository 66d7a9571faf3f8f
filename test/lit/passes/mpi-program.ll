; A module that starts MPI itself defines the weak marker the runtime looks
; for (__hcrt_mpi_program, abi.h), naming where the call is; a module
; without such a call defines none. Every start-up name clang and
; flang-new-19 emit with Open MPI is recognised: C and PMPI, mpif.h / `use
; mpi` (name_), `use mpi_f08` (name_f08_).
; RUN: %opt -passes=hcc-mpi -S %s | FileCheck %s
; RUN: %opt -passes=hcc-lower -S %s | FileCheck %s
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s
; CHECK: @__hcrt_mpi_program.where = private unnamed_addr constant [{{[0-9]+}} x i8] c"init.c:7: start calls MPI_Init\00"
; CHECK: @__hcrt_mpi_program = weak constant ptr @__hcrt_mpi_program.where
; CHECK: @llvm.used = appending global [1 x ptr] [ptr @__hcrt_mpi_program]
; RUN: for n in MPI_Init_thread PMPI_Init PMPI_Init_thread mpi_init_ \
; RUN:     mpi_init_thread_ pmpi_init_ mpi_init_f08_ mpi_init_thread_f08_ \
; RUN:     pmpi_init_thread_f08_ MPI_INIT; do \
; RUN:   sed -e "s/@MPI_Init\b/@$n/g" %s | %opt -passes=hcc-mpi -S | \
; RUN:     grep -q "calls $n\\\\00" || echo "not marked: $n"; \
; RUN: done > %t.names
; RUN: not grep . %t.names
; A module that only calls MPI (MPI_Initialized, MPI_Comm_rank) is no mark.
; RUN: sed -e 's/@MPI_Init\b/@MPI_Initialized/g' %s | %opt -passes=hcc-lower -S | FileCheck %s --check-prefix=NONE
; NONE-NOT: __hcrt_mpi_program

declare i32 @MPI_Init(ptr, ptr)

define void @start(ptr %argc, ptr %argv) !dbg !5 {
  %r = call i32 @MPI_Init(ptr %argc, ptr %argv), !dbg !8
  ret void
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "init.c", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "start", scope: !1, file: !1, line: 5, type: !6, scopeLine: 6, spFlags: DISPFlagDefinition, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 7, column: 3, scope: !5)
