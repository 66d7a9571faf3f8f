// MLIR input in the omp + llvm dialects, as an MLIR-based front end would
// hand it over: hcc translates it (mlir-translate --mlir-to-llvmir) and
// compiles the IR with the pass. A parallel loop fills a global array; a
// second one sums it with a reduction, counts iterations with an atomic
// update and adds up the indices in a critical section; printf prints the
// results. The reference is the same module
// through mlir-translate and plain clang-19 -fopenmp (libomp); hcc's build
// must print the same at 1 and 2 ranks (1 and 2 threads each), and at 2
// ranks both regions must run on both nodes.
// REQUIRES: mlir
// RUN: rm -rf %t && mkdir %t
// RUN: %hcc -O2 %s -o %t/hcc
// RUN: mlir-translate --mlir-to-llvmir %s -o %t/ref.ll
// RUN: %clang -fopenmp -O2 -Wno-override-module %t/ref.ll -o %t/ref
// RUN: env OMP_NUM_THREADS=3 %t/ref > %t/ref.out
// RUN: FileCheck %s < %t/ref.out
// CHECK: sum=332833500 count=1000 indices=499500 a[999]=998001
// RUN: bash -c 'for np in 1 2; do for t in 1 2; do \
// RUN:   env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=$t %mpirun \
// RUN:     -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -np $np %t/hcc \
// RUN:     > %t/run.$np.$t 2> %t/err.$np.$t || exit 1; \
// RUN:   diff %t/ref.out %t/run.$np.$t || exit 1; done; done'
// RUN: grep -q "^cluster regions 2 on 2 nodes (2 threads)" %t/err.2.1
// RUN: grep -q "^cluster regions 2 on 2 nodes (4 threads)" %t/err.2.2
module {
  llvm.mlir.global internal @a() {addr_space = 0 : i32} : !llvm.array<1000 x i64> {
    %0 = llvm.mlir.zero : !llvm.array<1000 x i64>
    llvm.return %0 : !llvm.array<1000 x i64>
  }
  llvm.mlir.global internal @count(0 : i64) {addr_space = 0 : i32} : i64
  llvm.mlir.global internal @indices(0 : i64) {addr_space = 0 : i32} : i64
  llvm.mlir.global internal constant @fmt("sum=%ld count=%ld indices=%ld a[999]=%ld\0A\00") {addr_space = 0 : i32}
  llvm.func @printf(!llvm.ptr, ...) -> i32
  omp.critical.declare @lk

  omp.declare_reduction @add_i64 : i64 init {
  ^bb0(%arg0: i64):
    %0 = llvm.mlir.constant(0 : i64) : i64
    omp.yield(%0 : i64)
  } combiner {
  ^bb0(%arg0: i64, %arg1: i64):
    %0 = llvm.add %arg0, %arg1 : i64
    omp.yield(%0 : i64)
  }

  llvm.func @main() -> i32 {
    %c0 = llvm.mlir.constant(0 : i64) : i64
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %cn = llvm.mlir.constant(1000 : i64) : i64
    %a = llvm.mlir.addressof @a : !llvm.ptr
    %count = llvm.mlir.addressof @count : !llvm.ptr
    %indices = llvm.mlir.addressof @indices : !llvm.ptr
    %sum = llvm.alloca %c1 x i64 : (i64) -> !llvm.ptr
    llvm.store %c0, %sum : i64, !llvm.ptr
    // a[i] = i * i
    omp.parallel {
      omp.wsloop {
        omp.loop_nest (%i) : i64 = (%c0) to (%cn) step (%c1) {
          %sq = llvm.mul %i, %i : i64
          %p = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
          llvm.store %sq, %p : i64, !llvm.ptr
          omp.yield
        }
        omp.terminator
      }
      omp.terminator
    }
    // sum += a[i] (reduction), count += 1 (atomic), indices += i (critical)
    omp.parallel {
      omp.wsloop reduction(@add_i64 %sum -> %acc : !llvm.ptr) {
        omp.loop_nest (%i) : i64 = (%c0) to (%cn) step (%c1) {
          %p = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
          %v = llvm.load %p : !llvm.ptr -> i64
          %s = llvm.load %acc : !llvm.ptr -> i64
          %t = llvm.add %s, %v : i64
          llvm.store %t, %acc : i64, !llvm.ptr
          omp.atomic.update %count : !llvm.ptr {
          ^bb0(%x: i64):
            %n = llvm.add %x, %c1 : i64
            omp.yield(%n : i64)
          }
          omp.critical(@lk) {
            %x = llvm.load %indices : !llvm.ptr -> i64
            %y = llvm.add %x, %i : i64
            llvm.store %y, %indices : i64, !llvm.ptr
            omp.terminator
          }
          omp.yield
        }
        omp.terminator
      }
      omp.terminator
    }
    %fmt = llvm.mlir.addressof @fmt : !llvm.ptr
    %s = llvm.load %sum : !llvm.ptr -> i64
    %k = llvm.load %count : !llvm.ptr -> i64
    %ix = llvm.load %indices : !llvm.ptr -> i64
    %last = llvm.getelementptr %a[999] : (!llvm.ptr) -> !llvm.ptr, i64
    %l = llvm.load %last : !llvm.ptr -> i64
    %r = llvm.call @printf(%fmt, %s, %k, %ix, %l) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i64, i64, i64, i64) -> i32
    %z = llvm.mlir.constant(0 : i32) : i32
    llvm.return %z : i32
  }
}
