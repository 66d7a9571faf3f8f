//===- LocalIO.h - regions that use streams only this process -*- C++ -*-===//
#ifndef HCC_PASSES_LOCALIO_H
#define HCC_PASSES_LOCALIO_H

namespace llvm {
class Function;
} // namespace llvm

namespace hcc {

/// Whether the region of this microtask (its code, the functions it calls
/// directly, the regions and tasks it creates) reads or writes a stream,
/// descriptor or Fortran unit only this process has.
bool regionUsesNodeLocalIO(llvm::Function *Microtask);

} // namespace hcc

#endif
