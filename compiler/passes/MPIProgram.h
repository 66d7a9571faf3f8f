//===- MPIProgram.h - hcc lowering pass -------------------------*- C++ -*-===//
#ifndef HCC_PASSES_MPIPROGRAM_H
#define HCC_PASSES_MPIPROGRAM_H

#include "llvm/IR/PassManager.h"

namespace hcc {

bool markMPIProgram(llvm::Module &M);

/// hcc-mpi: a module that starts MPI itself defines __hcrt_mpi_program.
struct MPIProgramPass : llvm::PassInfoMixin<MPIProgramPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return markMPIProgram(M) ? llvm::PreservedAnalyses::none()
                             : llvm::PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
