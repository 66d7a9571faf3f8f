//===- Plugin.cpp - HCCPasses.so entry point
//---------------------------------===//
//
// Registers every hcc pass by name for `opt -passes=...` and the combined
// hcc-lower at pipeline start, i.e. before inlining (host fallbacks of target
// regions are still separate functions then). PassBuilder invokes the
// pipeline-start callbacks for -O0 too, so one registration covers -O0..-O3.
//
//===----------------------------------------------------------------------===//

#include "Atomics.h"
#include "Common.h"
#include "ForkLowering.h"
#include "Globals.h"
#include "Heap.h"
#include "MPIProgram.h"
#include "MainWrap.h"
#include "Migration.h"
#include "ModuleDesc.h"
#include "PluginCompat.h"
#include "RegionData.h"
#include "RuntimeCalls.h"
#include "Stack.h"
#include "Target.h"
#include "TaskSites.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

namespace hcc {
namespace {

/// hcc-lower: every lowering, in dependency order. Runs once per module.
struct LowerPass : PassInfoMixin<LowerPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (M.getModuleFlag(LoweredFlag))
      return PreservedAnalyses::all();
    // Target descriptors need the __tgt_ calls and fallbacks as clang made
    // them; migration points and atomics find regions through the original
    // __kmpc_ calls; stack slots are moved before forks pack their
    // addresses; renames and warnings come after all of those; main last so
    // the user's main was lowered like any other function.
    markRegionData(M); // on clang's IR, before anything moves stores
    warnUnprivatizedReductions(M);
    lowerTargets(M);
    insertMigrationPoints(M);
    lowerAtomics(M);
    describeTaskSites(M);
    lowerStack(M);
    lowerForks(M);
    lowerRuntimeCalls(M);
    lowerHeap(M);
    lowerGlobals(M);
    markMPIProgram(M); // names the user's main as the user wrote it
    wrapMain(M);
    emitModuleDescriptor(M);
    M.addModuleFlag(Module::Max, LoweredFlag, 1);
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

template <typename PassT>
bool addIfNamed(StringRef Name, StringRef Want, ModulePassManager &MPM) {
  if (Name != Want)
    return false;
  MPM.addPass(PassT());
  return true;
}

bool parsePipeline(StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
  return addIfNamed<LowerPass>(Name, "hcc-lower", MPM) ||
         addIfNamed<TargetPass>(Name, "hcc-target", MPM) ||
         addIfNamed<MigrationPass>(Name, "hcc-migration", MPM) ||
         addIfNamed<AtomicsPass>(Name, "hcc-atomics", MPM) ||
         addIfNamed<TaskSitesPass>(Name, "hcc-tasks", MPM) ||
         addIfNamed<StackPass>(Name, "hcc-stack", MPM) ||
         addIfNamed<ForkLoweringPass>(Name, "hcc-fork", MPM) ||
         addIfNamed<RuntimeCallsPass>(Name, "hcc-calls", MPM) ||
         addIfNamed<HeapPass>(Name, "hcc-heap", MPM) ||
         addIfNamed<GlobalsPass>(Name, "hcc-globals", MPM) ||
         addIfNamed<MainWrapPass>(Name, "hcc-main", MPM) ||
         addIfNamed<MPIProgramPass>(Name, "hcc-mpi", MPM) ||
         addIfNamed<ModuleDescPass>(Name, "hcc-module", MPM);
}

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(parsePipeline);
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, HCC_OPT_LEVEL_ARG) {
        MPM.addPass(LowerPass());
      });
}

} // namespace
} // namespace hcc

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "HCCPasses", "0.1", hcc::registerCallbacks};
}
