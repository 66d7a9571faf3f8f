//===- FlushExits.h - a flush where a loop that flushes exits -*- C++ -*-===//
//
// Part of hcc-calls. The OpenMP spin-wait idiom
//     while (flag == 0) { #pragma omp flush(flag) }
//     ... read what the flag's writer wrote before it ...
// runs no flush at all when the first test already succeeds. On a coherent
// machine that is harmless; in hcc's DSM a rank reading pages homed on
// another host reads copies, and only an acquire (a flush) drops the ones
// older than the flag it saw. So every exit edge of a loop that contains a
// flush (__kmpc_flush) gets one more: the loop's exit is then an acquire
// whether or not its body ran. The pass runs at the start of the pipeline,
// before loop rotation, so the test that ends such a loop is still inside
// it and the zero-trip path is an exit edge too.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_PASSES_FLUSHEXITS_H
#define HCC_PASSES_FLUSHEXITS_H

#include "llvm/IR/Module.h"

namespace hcc {

/// Inserts a flush on every exit edge of the innermost loop around each
/// __kmpc_flush call; returns whether it changed the module.
bool flushLoopExits(llvm::Module &M);

} // namespace hcc

#endif
