//===- MainWrap.h - hcc lowering pass ---------------------------*- C++ -*-===//
#ifndef HCC_PASSES_MAINWRAP_H
#define HCC_PASSES_MAINWRAP_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool wrapMain(llvm::Module &M);

/// hcc-main: rename main to __hcrt_user_main and call __hcrt_main.
struct MainWrapPass : llvm::PassInfoMixin<MainWrapPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return wrapMain(M) ? llvm::PreservedAnalyses::none()
                       : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
