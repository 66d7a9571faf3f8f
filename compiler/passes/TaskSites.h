//===- TaskSites.h - hcc lowering pass --------------------------*- C++ -*-===//
#ifndef HCC_PASSES_TASKSITES_H
#define HCC_PASSES_TASKSITES_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool describeTaskSites(llvm::Module &M);

/// hcc-tasks: one hcrt_task_site_t per task construct (its entry function),
/// with the features that keep its tasks on the creating node.
struct TaskSitesPass : llvm::PassInfoMixin<TaskSitesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return describeTaskSites(M) ? llvm::PreservedAnalyses::none()
                                : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
