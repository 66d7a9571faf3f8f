//===- MPIProgram.cpp - hcc-mpi ----------------------------------------===//
//
// A hybrid MPI+OpenMP program owns MPI: it calls MPI_Init itself, and every
// rank runs its own main. The runtime must know before main, whichever
// translation unit holds the call, so a module that uses an MPI start-up
// routine (C, the PMPI profiling names, the Fortran bindings of mpif.h /
// `use mpi` and `use mpi_f08`) defines the weak constant
// __hcrt_mpi_program, pointing at "file:line: function calls NAME". libhcrt
// refers to it weakly: an executable exports a symbol that a shared library
// on its link line refers to, and a static link resolves it directly.
//
//===----------------------------------------------------------------------===//

#include "MPIProgram.h"
#include "Common.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace hcc {

// What clang and flang-new-19 emit for the MPI start-up calls with Open MPI
// (C; mpif.h and `use mpi`: name_; `use mpi_f08`: name_f08_), and the other
// Fortran manglings Open MPI's libmpi_mpifh exports.
static const char *const InitNames[] = {
    "MPI_Init",       "MPI_Init_thread",
    "PMPI_Init",      "PMPI_Init_thread",
    "mpi_init_",      "mpi_init_thread_",
    "pmpi_init_",     "pmpi_init_thread_",
    "mpi_init",       "mpi_init_thread",
    "mpi_init__",     "mpi_init_thread__",
    "MPI_INIT",       "MPI_INIT_THREAD",
    "mpi_init_f08_",  "mpi_init_thread_f08_",
    "pmpi_init_f08_", "pmpi_init_thread_f08_",
    "mpi_init_f08",   "mpi_init_thread_f08",
    "ompi_init_f",    "ompi_init_thread_f"};

// The first instruction of the module that uses an MPI start-up routine.
static const Instruction *firstInitUse(Module &M, StringRef &Name) {
  for (const char *N : InitNames) {
    Function *F = M.getFunction(N);
    if (!F || !F->isDeclaration())
      continue;
    for (const User *U : F->users())
      if (const auto *I = dyn_cast<Instruction>(U)) {
        Name = N;
        return I;
      }
  }
  return nullptr;
}

// "file:line: function" for the message; flang names its modules
// "FIRModule" and mangles a main program _QQmain, a procedure _QP<name>.
static std::string describe(const Module &M, const Instruction &I) {
  SourceLoc L = sourceLocOf(I);
  std::string File = L.File.empty() ? M.getSourceFileName() : L.File;
  StringRef Fn = I.getFunction()->getName();
  std::string Name = Fn == "_QQmain"         ? "the main program"
                     : Fn.starts_with("_QP") ? Fn.drop_front(3).str()
                                             : Fn.str();
  if (File.empty() || File == "FIRModule")
    return Name;
  return File + (L.Line ? ":" + std::to_string(L.Line) : "") + ": " + Name;
}

bool markMPIProgram(Module &M) {
  StringRef Name;
  const Instruction *I = firstInitUse(M, Name);
  if (!I || M.getNamedGlobal("__hcrt_mpi_program"))
    return false;
  std::string Where = describe(M, *I) + " calls " + Name.str();
  LLVMContext &Ctx = M.getContext();
  Constant *Str = ConstantDataArray::getString(Ctx, Where);
  auto *StrGV =
      new GlobalVariable(M, Str->getType(), true, GlobalValue::PrivateLinkage,
                         Str, "__hcrt_mpi_program.where");
  StrGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  auto *PtrTy = PointerType::getUnqual(Ctx);
  auto *GV = new GlobalVariable(M, PtrTy, true, GlobalValue::WeakAnyLinkage,
                                StrGV, "__hcrt_mpi_program");
  GV->setVisibility(GlobalValue::DefaultVisibility);
  appendToUsed(M, {GV});
  return true;
}

} // namespace hcc
