//===- Common.cpp - helpers shared by the hcc lowering passes -------------===//

#include "Common.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace hcc {

StringRef identPsource(const ConstantStruct *Ident) {
  if (!Ident || Ident->getNumOperands() != 5)
    return "";
  auto *SG =
      dyn_cast<GlobalVariable>(Ident->getOperand(4)->stripPointerCasts());
  if (!SG || !SG->hasInitializer())
    return "";
  auto *CDA = dyn_cast<ConstantDataArray>(SG->getInitializer());
  return CDA && CDA->isCString() ? CDA->getAsCString() : "";
}

// psource is ";file;function;line;column;;" (libomp's ident_t layout).
static bool parsePsource(const Value *Loc, SourceLoc &Out) {
  auto *GV = dyn_cast_or_null<GlobalVariable>(Loc->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return false;
  StringRef P = identPsource(dyn_cast<ConstantStruct>(GV->getInitializer()));
  if (P.empty())
    return false;
  SmallVector<StringRef, 6> Parts;
  P.split(Parts, ';');
  if (Parts.size() < 4 || Parts[1] == "unknown")
    return false;
  Out.File = Parts[1].str();
  Parts[3].getAsInteger(10, Out.Line);
  return true;
}

SourceLoc sourceLocOf(const Instruction &I) {
  SourceLoc L;
  if (const DILocation *DL = I.getDebugLoc()) {
    L.File = DL->getFilename().str();
    L.Line = DL->getLine();
    return L;
  }
  if (auto *CB = dyn_cast<CallBase>(&I))
    if (CB->arg_size() > 0 && parsePsource(CB->getArgOperand(0), L))
      return L;
  if (const DISubprogram *SP = I.getFunction()->getSubprogram()) {
    L.File = SP->getFilename().str();
    L.Line = SP->getLine();
  }
  return L;
}

static void printWarning(const SourceLoc &L, const Function &F,
                         const Twine &Msg) {
  std::string File = L.File;
  if (File.empty())
    File = F.getParent()->getSourceFileName();
  errs() << File << ":" << L.Line << ": warning: hcc: " << Msg << " (in '"
         << F.getName() << "')\n";
}

void warn(const Instruction &I, const Twine &Msg) {
  printWarning(sourceLocOf(I), *I.getFunction(), Msg);
}

void warn(const Function &F, const Twine &Msg) {
  SourceLoc L;
  if (const DISubprogram *SP = F.getSubprogram()) {
    L.File = SP->getFilename().str();
    L.Line = SP->getLine();
  }
  printWarning(L, F, Msg);
}

uint64_t fnv1a(StringRef S) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (unsigned char C : S) {
    H ^= C;
    H *= 0x100000001b3ULL;
  }
  return H;
}

Function *directCallee(const CallBase &CB) {
  return dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
}

StringRef calleeName(const CallBase &CB) {
  if (Function *F = directCallee(CB))
    return F->getName();
  return "";
}

bool isForkName(StringRef N) {
  return N == "__kmpc_fork_call" || N == "__kmpc_fork_call_if" ||
         N == "__kmpc_fork_teams" || N == "__hcrt_fork" ||
         N == "__hcrt_fork_if" || N == "__hcrt_fork_teams";
}

bool isLoopInitName(StringRef N) {
  if (!N.consume_front("__kmpc_") && !N.consume_front("__hcrt_"))
    return false;
  return N.starts_with("for_static_init_") ||
         N.starts_with("dist_for_static_init_") ||
         N.starts_with("dispatch_init_") || N.starts_with("team_static_init_");
}

bool isTaskAllocName(StringRef N) {
  return N == "__kmpc_omp_task_alloc" || N == "__kmpc_omp_target_task_alloc" ||
         N == "__hcrt_omp_task_alloc" || N == "__hcrt_omp_target_task_alloc";
}

static bool isReduceName(StringRef N) {
  return N == "__kmpc_reduce" || N == "__kmpc_reduce_nowait" ||
         N == "__hcrt_reduce" || N == "__hcrt_reduce_nowait";
}

static void addFunctionOperand(SetVector<Function *> &S, const CallBase &CB,
                               unsigned Idx) {
  if (Idx >= CB.arg_size())
    return;
  if (auto *F = dyn_cast<Function>(CB.getArgOperand(Idx)->stripPointerCasts()))
    if (!F->isDeclaration())
      S.insert(F);
}

SetVector<Function *> calleeClosure(const SetVector<Function *> &Roots,
                                    bool IntoRegionsAndTasks) {
  SetVector<Function *> Out(Roots.begin(), Roots.end());
  for (size_t I = 0; I < Out.size(); ++I)
    for (Instruction &Inst : instructions(*Out[I]))
      if (auto *CB = dyn_cast<CallBase>(&Inst)) {
        StringRef N = calleeName(*CB);
        if (IntoRegionsAndTasks && N.starts_with("__kmpc_fork"))
          addFunctionOperand(Out, *CB, 2);
        else if (IntoRegionsAndTasks && isTaskAllocName(N))
          addFunctionOperand(Out, *CB, 5);
        else if (Function *F = directCallee(*CB))
          if (!F->isDeclaration())
            Out.insert(F);
      }
  return Out;
}

SetVector<Function *> regionFunctions(Module &M) {
  SetVector<Function *> Roots;
  for (Function &F : M) {
    if (F.getName().starts_with("__omp_offloading_") && !F.isDeclaration())
      Roots.insert(&F);
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      StringRef N = calleeName(*CB);
      if (N.starts_with("__kmpc_fork"))
        addFunctionOperand(Roots, *CB, 2);
      else if (isTaskAllocName(N))
        addFunctionOperand(Roots, *CB, 5);
      else if (isReduceName(N))
        addFunctionOperand(Roots, *CB, 5);
    }
  }
  return calleeClosure(Roots);
}

static SetVector<Function *> functionsReaching(Module &M,
                                               bool (*Root)(StringRef)) {
  SetVector<Function *> Out;
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || Out.contains(&F))
        continue;
      for (Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        Function *Callee = CB ? directCallee(*CB) : nullptr;
        if (Callee && (Root(Callee->getName()) || Out.contains(Callee))) {
          Out.insert(&F);
          Changed = true;
          break;
        }
      }
    }
  }
  return Out;
}

static bool isForkOrTaskName(StringRef N) {
  return isForkName(N) || isTaskAllocName(N);
}

SetVector<Function *> functionsReachingForkOrTask(Module &M) {
  return functionsReaching(M, isForkOrTaskName);
}

bool isRuntimeFunction(const Function &F) {
  return F.getName().starts_with("__hcrt_") &&
         !F.getName().starts_with("__hcrt_user_main");
}

FunctionCallee hcrtFunction(Module &M, StringRef Name, FunctionType *Ty) {
  return M.getOrInsertFunction(Name, Ty);
}

Value *widenToSlot(IRBuilder<> &B, Value *V) {
  Type *T = V->getType();
  if (T->isPointerTy())
    return V;
  if (T->isFloatingPointTy())
    V = B.CreateBitCast(V, B.getIntNTy(T->getPrimitiveSizeInBits()));
  if (V->getType()->isIntegerTy() && V->getType()->getIntegerBitWidth() < 64)
    V = B.CreateZExt(V, B.getInt64Ty());
  return V;
}

bool slotCompatible(Type *T) {
  if (T->isPointerTy())
    return true;
  if (T->isIntegerTy())
    return T->getIntegerBitWidth() <= 64;
  return T->isFloatTy() || T->isDoubleTy();
}

void keepOutOfLine(Function &F) {
  F.removeFnAttr(Attribute::AlwaysInline);
  F.addFnAttr(Attribute::NoInline);
}

Value *narrowFromSlot(IRBuilder<> &B, Value *Slot, Type *T) {
  if (T->isPointerTy())
    return B.CreateLoad(T, Slot);
  Value *V = B.CreateLoad(B.getInt64Ty(), Slot);
  unsigned Bits = T->getPrimitiveSizeInBits();
  if (Bits < 64)
    V = B.CreateTrunc(V, B.getIntNTy(Bits));
  if (T->isFloatingPointTy())
    V = B.CreateBitCast(V, T);
  return V;
}

} // namespace hcc
