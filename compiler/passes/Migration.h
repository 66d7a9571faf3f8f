//===- Migration.h - hcc lowering pass --------------------------*- C++ -*-===//
#ifndef HCC_PASSES_MIGRATION_H
#define HCC_PASSES_MIGRATION_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool insertMigrationPoints(llvm::Module &M);

/// hcc-migration: migration points at chunk boundaries of static cluster loops.
struct MigrationPass : llvm::PassInfoMixin<MigrationPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return insertMigrationPoints(M) ? llvm::PreservedAnalyses::none()
                                    : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
