//===- Globals.h - hcc lowering pass ----------------------------*- C++ -*-===//
#ifndef HCC_PASSES_GLOBALS_H
#define HCC_PASSES_GLOBALS_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerGlobals(llvm::Module &M);

/// hcc-globals: writable globals into the page-aligned shared sections.
struct GlobalsPass : llvm::PassInfoMixin<GlobalsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return lowerGlobals(M) ? llvm::PreservedAnalyses::none()
                           : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
