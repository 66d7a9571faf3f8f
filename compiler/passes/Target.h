//===- Target.h - hcc lowering pass -----------------------------*- C++ -*-===//
#ifndef HCC_PASSES_TARGET_H
#define HCC_PASSES_TARGET_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerTargets(llvm::Module &M);

/// hcc-target: target regions: kernel table, trampolines, __hcrt_target_kernel.
struct TargetPass : llvm::PassInfoMixin<TargetPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return lowerTargets(M) ? llvm::PreservedAnalyses::none()
                           : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
