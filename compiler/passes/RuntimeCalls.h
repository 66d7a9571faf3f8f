//===- RuntimeCalls.h - hcc-calls: OpenMP runtime calls to __hcrt_ -*- C++ -*-//
//
// Puts a flush at the exits of every loop that flushes (FlushExits.h), then
// renames every __kmpc_/__tgt_ entry point and every OpenMP API routine that
// has an __hcrt_ twin of the same signature in include/hcrt/abi.h, then warns
// (with the source line) about the runtime calls that are left: they keep
// calling libomp and run on the head node only.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_PASSES_RUNTIMECALLS_H
#define HCC_PASSES_RUNTIMECALLS_H

#include "llvm/ADT/SetVector.h"
#include "llvm/IR/PassManager.h"
#include <string>

namespace hcc {

bool lowerRuntimeCalls(llvm::Module &M);

/// The __hcrt_ twin of a runtime or OpenMP API function, or "".
std::string hcrtTwin(llvm::StringRef Name);

/// __cxa_guard_acquire/release/abort: C++ function-local statics, renamed
/// to the runtime's cluster-wide guards.
bool isGuardName(llvm::StringRef Name);

/// A __kmpc_/__tgt_ entry point with no cluster lowering.
bool isUnsupportedCall(llvm::StringRef Name);

/// Functions of regions (microtask closures) that use an unsupported
/// runtime call: the whole region is left to libomp on the head node, so
/// its loops, synchronisation and atomics stay consistent with each other.
llvm::SetVector<llvm::Function *> headOnlyFunctions(llvm::Module &M);

struct RuntimeCallsPass : llvm::PassInfoMixin<RuntimeCallsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace hcc

#endif
