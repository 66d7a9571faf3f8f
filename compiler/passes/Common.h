//===- Common.h - helpers shared by the hcc lowering passes ----*- C++ -*-===//
//
// Source locations for diagnostics, stable ids, the names of the OpenMP
// runtime entry points the passes look for, and the call-graph walks that
// decide which functions are "region code".
//
//===----------------------------------------------------------------------===//
#ifndef HCC_PASSES_COMMON_H
#define HCC_PASSES_COMMON_H

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include <string>

namespace llvm {
class CallBase;
class ConstantStruct;
class Instruction;
class Function;
} // namespace llvm

namespace hcc {

/// Where an instruction comes from in the user's source: its !dbg location,
/// else the psource string of the ident_t passed to the runtime call.
struct SourceLoc {
  std::string File;
  unsigned Line = 0;
};
SourceLoc sourceLocOf(const llvm::Instruction &I);

/// The psource string of a constant ident_t initializer, or "".
llvm::StringRef identPsource(const llvm::ConstantStruct *Ident);

/// Prints "file:line: warning: hcc: <Msg>" (clang's format) on stderr.
void warn(const llvm::Instruction &I, const llvm::Twine &Msg);
void warn(const llvm::Function &F, const llvm::Twine &Msg);

uint64_t fnv1a(llvm::StringRef S);

/// The function a call invokes directly (through pointer casts), or null.
llvm::Function *directCallee(const llvm::CallBase &CB);
llvm::StringRef calleeName(const llvm::CallBase &CB);

bool isForkName(llvm::StringRef N);     // __kmpc_fork_* and __hcrt_fork*
bool isLoopInitName(llvm::StringRef N); // static/dispatch/dist inits
bool isTaskAllocName(llvm::StringRef N);

/// Roots of region code: outlined microtasks, task entries, host fallbacks of
/// target regions and reduction combiners, closed over direct calls to
/// functions defined in the module.
llvm::SetVector<llvm::Function *> regionFunctions(llvm::Module &M);

/// Functions defined in M that contain a fork or a task creation, or call
/// (directly) one that can reach one: a task may run on another node, so
/// what its shareds point to must be DSM memory as for a fork.
llvm::SetVector<llvm::Function *> functionsReachingForkOrTask(llvm::Module &M);

/// Closes Roots over direct calls to functions defined in the module; with
/// IntoRegionsAndTasks also over the microtasks of the regions and the
/// entries of the tasks they create (code that runs where its creator runs).
llvm::SetVector<llvm::Function *>
calleeClosure(const llvm::SetVector<llvm::Function *> &Roots,
              bool IntoRegionsAndTasks = false);

/// Functions the passes generated or the runtime's own (named __hcrt_*),
/// except the user's renamed main.
bool isRuntimeFunction(const llvm::Function &F);

/// Returns the __hcrt_ function Name with type Ty, declaring it if needed.
llvm::FunctionCallee hcrtFunction(llvm::Module &M, llvm::StringRef Name,
                                  llvm::FunctionType *Ty);

/// Argument slots (void *args[]) hold each value widened to 64 bits:
/// pointers as is, integers zero-extended, floating point by bit pattern.
bool slotCompatible(llvm::Type *T);
llvm::Value *widenToSlot(llvm::IRBuilder<> &B, llvm::Value *V);
llvm::Value *narrowFromSlot(llvm::IRBuilder<> &B, llvm::Value *Slot,
                            llvm::Type *T);

/// Marks an outlined function that a generated trampoline calls as noinline.
/// The descriptor tables keep its address, so inlining it into the trampoline
/// would only duplicate its body (and double -O2 compile time); libomp calls
/// it through a pointer in the plain build, so nothing is lost at run time.
void keepOutOfLine(llvm::Function &F);

/// Module flag recording that hcc-lower already ran on this module.
constexpr const char *LoweredFlag = "hcc.lowered";

/// Prefixes of the descriptor globals the passes create; hcc-module gathers
/// them into the module's tables.
constexpr const char *RegionDescPrefix = "__hcrt_region.";
constexpr const char *KernelDescPrefix = "__hcrt_kernel.";
constexpr const char *TaskSiteDescPrefix = "__hcrt_task.";

} // namespace hcc

#endif // HCC_PASSES_COMMON_H
