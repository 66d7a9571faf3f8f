//===- ModuleDesc.h - hcc lowering pass -------------------------*- C++ -*-===//
#ifndef HCC_PASSES_MODULEDESC_H
#define HCC_PASSES_MODULEDESC_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool emitModuleDescriptor(llvm::Module &M);

/// hcc-module: the module descriptor, its tables and registering constructor.
struct ModuleDescPass : llvm::PassInfoMixin<ModuleDescPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return emitModuleDescriptor(M) ? llvm::PreservedAnalyses::none()
                                   : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
