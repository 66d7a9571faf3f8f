//===- Atomics.h - hcc lowering pass ----------------------------*- C++ -*-===//
#ifndef HCC_PASSES_ATOMICS_H
#define HCC_PASSES_ATOMICS_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerAtomics(llvm::Module &M);

/// hcc-atomics: atomicrmw, cmpxchg and atomic load/store in region code to
/// __hcrt_atomic_*.
struct AtomicsPass : llvm::PassInfoMixin<AtomicsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return lowerAtomics(M) ? llvm::PreservedAnalyses::none()
                           : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
