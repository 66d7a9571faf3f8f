//===- Stack.h - hcc lowering pass ------------------------------*- C++ -*-===//
#ifndef HCC_PASSES_STACK_H
#define HCC_PASSES_STACK_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerStack(llvm::Module &M);

/// hcc-stack: escaping stack slots to DSM-resident __hcrt_stack_alloc storage.
struct StackPass : llvm::PassInfoMixin<StackPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return lowerStack(M) ? llvm::PreservedAnalyses::none()
                         : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
