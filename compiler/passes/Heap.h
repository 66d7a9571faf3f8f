//===- Heap.h - hcc lowering pass -------------------------------*- C++ -*-===//
#ifndef HCC_PASSES_HEAP_H
#define HCC_PASSES_HEAP_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool lowerHeap(llvm::Module &M);

/// hcc-heap: user heap calls to the DSM heap (__hcrt_malloc & co.).
struct HeapPass : llvm::PassInfoMixin<HeapPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return lowerHeap(M) ? llvm::PreservedAnalyses::none()
                        : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
