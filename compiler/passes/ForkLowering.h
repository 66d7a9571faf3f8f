//===- ForkLowering.h - hcc-fork: parallel regions to __hcrt_fork -*- C++ -*-//
//
// Replaces __kmpc_fork_call / __kmpc_fork_call_if / __kmpc_fork_teams with
// __hcrt_fork{,_if,_teams}(loc, &region_desc, args): a static descriptor per
// outlined microtask (stable id, source location, kind, argument count, loop
// count, trampoline) and the variadic arguments packed in a pointer array.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_PASSES_FORKLOWERING_H
#define HCC_PASSES_FORKLOWERING_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerForks(llvm::Module &M);

struct ForkLoweringPass : llvm::PassInfoMixin<ForkLoweringPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
