// Still in the scf, arith, memref and func dialects: hcc names them and the
// mlir-opt pipeline that lowers them to omp + llvm (test: mlir.test).
module {
  llvm.mlir.global internal constant @fmt("sum=%.1f\0A\00") {addr_space = 0 : i32}
  llvm.func @printf(!llvm.ptr, ...) -> i32
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cn = arith.constant 1000 : index
    %buf = memref.alloc() : memref<1000xf64>
    scf.parallel (%i) = (%c0) to (%cn) step (%c1) {
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f64
      memref.store %f, %buf[%i] : memref<1000xf64>
      scf.reduce
    }
    %z = arith.constant 0.0 : f64
    %s = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %z) -> (f64) {
      %v = memref.load %buf[%i] : memref<1000xf64>
      %n = arith.addf %acc, %v : f64
      scf.yield %n : f64
    }
    memref.dealloc %buf : memref<1000xf64>
    %fmt = llvm.mlir.addressof @fmt : !llvm.ptr
    %p = llvm.call @printf(%fmt, %s) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, f64) -> i32
    %r = arith.constant 0 : i32
    return %r : i32
  }
}
