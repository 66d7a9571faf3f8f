//===- ForkLowering.cpp - hcc-fork
//------------------------------------------===//
//
// Region kinds: a microtask whose code (closed over direct calls inside the
// module) initialises a worksharing loop (this includes `sections`, which
// clang lowers to a static loop) is a CLUSTER region: it runs on every node.
// One that has no worksharing but target constructs is a HEAD region: the
// target tasks it records are placed by the runtime. One with neither that
// creates plain tasks is a TASKS region: the runtime runs it on every node
// when other nodes' threads pay for taking its tasks (docs/tasks.md). Every
// other region (e.g. a plain `parallel` calling omp_get_num_threads) is
// CLUSTER, so that the team it sees is the cluster-wide team, as the user
// would expect; so is one whose only tasks have `depend` clauses (they
// stay on their node), which region placement then places. A CLUSTER or TASKS
// region that reads or writes a stream or file descriptor of this process (a
// FILE the program opened, stdin, a Fortran unit other than the standard output
// and error) is LOCAL_IO: the stream exists on the head only, so the runtime
// runs every call on the head alone with the whole logical team.
//
//===----------------------------------------------------------------------===//

#include "ForkLowering.h"
#include "Common.h"
#include "LocalIO.h"
#include "RegionData.h"
#include "RuntimeCalls.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

enum RegionKind {
  RegionCluster = 0,
  RegionHead = 1,
  RegionTasks = 2,
  RegionLocalIO = 3
};

enum RegionFlag { RegionOwnData = 1 };

unsigned regionFlags(const Function *Microtask) {
  return usesOwnData(*Microtask) ? RegionOwnData : 0;
}

struct RegionInfo {
  int Kind = RegionCluster;
  int NumLoops = 0;
};

bool isTargetName(StringRef N) {
  return N.starts_with("__tgt_target") || N == "__kmpc_omp_target_task_alloc";
}

// A task created with `depend` clauses: its handle goes to
// __kmpc_omp_task_with_deps. Such tasks never leave their node (the
// dependence graph is libomp's: docs/tasks.md), so a region that creates
// no other task gains nothing from spreading: KASTORS' sparselu and
// strassen with `depend` spent 1.6 times the head's time on their first
// call on every node, where no task moved.
bool dependentTask(CallBase &Alloc) {
  for (User *U : Alloc.users())
    if (auto *C = dyn_cast<CallBase>(U)) {
      StringRef N = calleeName(*C);
      if (N == "__kmpc_omp_task_with_deps" || N == "__hcrt_omp_task_with_deps")
        return true;
    }
  return false;
}

RegionInfo classify(Function *Microtask, bool LocalIO) {
  SetVector<Function *> Roots;
  Roots.insert(Microtask);
  RegionInfo RI;
  bool MakesTasks = false, Targets = false;
  for (Function *F : calleeClosure(Roots))
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(*CB);
        if (isLoopInitName(N))
          ++RI.NumLoops;
        else if (isTargetName(N))
          Targets = true;
        else if ((isTaskAllocName(N) && !dependentTask(*CB)) ||
                 N == "__kmpc_taskloop" || N == "__kmpc_taskloop_5")
          MakesTasks = true;
      }
  if (RI.NumLoops == 0 && Targets)
    RI.Kind = RegionHead;
  else if (RI.NumLoops == 0 && MakesTasks)
    RI.Kind = RegionTasks;
  if (LocalIO && RI.Kind != RegionHead)
    RI.Kind = RegionLocalIO;
  return RI;
}

class ForkLowerer {
public:
  explicit ForkLowerer(Module &M) : M(M), Ctx(M.getContext()) {
    PtrTy = PointerType::getUnqual(Ctx);
    I32 = Type::getInt32Ty(Ctx);
    I64 = Type::getInt64Ty(Ctx);
    DescTy = StructType::getTypeByName(Ctx, "struct.hcrt_region_desc");
    if (!DescTy)
      DescTy = StructType::create(
          Ctx, {I64, PtrTy, PtrTy, I32, I32, I32, I32, PtrTy, PtrTy, I32, I32},
          "struct.hcrt_region_desc");
  }
  bool run();

private:
  Function *trampoline(Function *Microtask);
  GlobalVariable *descriptor(Function *Microtask, CallBase &Site);
  bool lower(CallBase &CB);
  Constant *cstring(StringRef S, StringRef Name);

  Module &M;
  LLVMContext &Ctx;
  PointerType *PtrTy;
  IntegerType *I32, *I64;
  StructType *DescTy;
  DenseMap<Function *, GlobalVariable *> Descs;
  DenseMap<Function *, bool> LocalIO; // before any fork is lowered
};

Constant *ForkLowerer::cstring(StringRef S, StringRef Name) {
  Constant *Init = ConstantDataArray::getString(Ctx, S);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, Name);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  return GV;
}

Function *ForkLowerer::trampoline(Function *Microtask) {
  auto *Ty =
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy, PtrTy, PtrTy}, false);
  Function *T = Function::Create(Ty, GlobalValue::InternalLinkage,
                                 "__hcrt_tramp." + Microtask->getName(), M);
  T->addFnAttr(Attribute::NoUnwind);
  keepOutOfLine(*Microtask);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", T));
  SmallVector<Value *, 8> Args = {T->getArg(0), T->getArg(1)};
  for (unsigned I = 2; I < Microtask->arg_size(); ++I) {
    Value *Slot = B.CreateConstInBoundsGEP1_64(PtrTy, T->getArg(2), I - 2);
    Args.push_back(
        narrowFromSlot(B, Slot, Microtask->getFunctionType()->getParamType(I)));
  }
  B.CreateCall(Microtask->getFunctionType(), Microtask, Args);
  B.CreateRetVoid();
  return T;
}

GlobalVariable *ForkLowerer::descriptor(Function *Microtask, CallBase &Site) {
  if (GlobalVariable *GV = Descs.lookup(Microtask))
    return GV;
  RegionInfo RI = classify(Microtask, LocalIO.lookup(Microtask));
  SourceLoc L = sourceLocOf(Site);
  std::string Key =
      (M.getModuleIdentifier() + ":" + Microtask->getName()).str();
  Constant *Fields[] = {ConstantInt::get(I64, fnv1a(Key)),
                        cstring(Microtask->getName(), "__hcrt_region_name"),
                        cstring(L.File, "__hcrt_region_file"),
                        ConstantInt::get(I32, L.Line),
                        ConstantInt::get(I32, RI.Kind),
                        ConstantInt::get(I32, Microtask->arg_size() - 2),
                        ConstantInt::get(I32, RI.NumLoops),
                        trampoline(Microtask),
                        Microtask,
                        ConstantInt::get(I32, regionFlags(Microtask)),
                        ConstantInt::get(I32, 0)};
  auto *GV = new GlobalVariable(M, DescTy, true, GlobalValue::PrivateLinkage,
                                ConstantStruct::get(DescTy, Fields),
                                RegionDescPrefix + Microtask->getName());
  GV->setAlignment(Align(8));
  Descs[Microtask] = GV;
  return GV;
}

bool ForkLowerer::lower(CallBase &CB) {
  StringRef Name = calleeName(CB);
  bool IsIf = Name == "__kmpc_fork_call_if";
  unsigned FirstArg = IsIf ? 4 : 3;
  auto *Microtask =
      CB.arg_size() >= 3
          ? dyn_cast<Function>(CB.getArgOperand(2)->stripPointerCasts())
          : nullptr;
  if (!Microtask || Microtask->isDeclaration() || Microtask->arg_size() < 2 ||
      Microtask->arg_size() - 2 != CB.arg_size() - FirstArg) {
    warn(CB, "cannot lower '" + Name +
                 "': unexpected microtask; the region "
                 "runs on the head node only");
    return false;
  }
  for (unsigned I = FirstArg; I < CB.arg_size(); ++I)
    if (!slotCompatible(CB.getArgOperand(I)->getType()) ||
        !slotCompatible(
            Microtask->getFunctionType()->getParamType(I - FirstArg + 2))) {
      warn(CB, "cannot lower '" + Name + "': argument " + Twine(I) +
                   " does not fit a pointer slot; the region runs on the "
                   "head node only");
      return false;
    }

  unsigned N = CB.arg_size() - FirstArg;
  Function *Caller = CB.getFunction();
  Value *Args = ConstantPointerNull::get(PtrTy);
  if (N > 0) {
    IRBuilder<> EB(&*Caller->getEntryBlock().getFirstInsertionPt());
    Args = EB.CreateAlloca(ArrayType::get(PtrTy, N), nullptr, "hcrt.args");
  }
  IRBuilder<> B(&CB);
  for (unsigned I = 0; I < N; ++I)
    B.CreateStore(widenToSlot(B, CB.getArgOperand(FirstArg + I)),
                  B.CreateConstInBoundsGEP1_64(PtrTy, Args, I));

  GlobalVariable *Desc = descriptor(Microtask, CB);
  Value *Loc = CB.getArgOperand(0);
  CallInst *New;
  if (IsIf) {
    auto *Ty =
        FunctionType::get(B.getVoidTy(), {PtrTy, PtrTy, I32, PtrTy}, false);
    New = B.CreateCall(hcrtFunction(M, "__hcrt_fork_if", Ty),
                       {Loc, Desc, CB.getArgOperand(3), Args});
  } else {
    auto *Ty = FunctionType::get(B.getVoidTy(), {PtrTy, PtrTy, PtrTy}, false);
    StringRef Target =
        Name == "__kmpc_fork_teams" ? "__hcrt_fork_teams" : "__hcrt_fork";
    New = B.CreateCall(hcrtFunction(M, Target, Ty), {Loc, Desc, Args});
  }
  New->setDebugLoc(CB.getDebugLoc());
  CB.eraseFromParent();
  return true;
}

bool ForkLowerer::run() {
  SmallVector<CallBase *, 16> Sites;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(*CB);
        if (N == "__kmpc_fork_call" || N == "__kmpc_fork_call_if" ||
            N == "__kmpc_fork_teams")
          Sites.push_back(CB);
      }
  SetVector<Function *> HeadOnly = headOnlyFunctions(M);
  for (CallBase *CB : Sites)
    if (auto *Micro =
            dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts()))
      if (!Micro->isDeclaration() && !LocalIO.count(Micro))
        LocalIO[Micro] = regionUsesNodeLocalIO(Micro);
  bool Changed = false;
  for (CallBase *CB : Sites) {
    auto *Micro = dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts());
    if (Micro && HeadOnly.contains(Micro)) {
      warn(*CB, "this parallel region uses OpenMP runtime calls hcc cannot "
                "lower; it runs in libomp on the head node only");
      continue;
    }
    if (isa<InvokeInst>(CB)) {
      warn(*CB, "cannot lower an invoked fork; the region runs on the head "
                "node only");
      continue;
    }
    Changed |= lower(*CB);
  }
  if (Function *F = M.getFunction("__kmpc_fork_call"); F && F->use_empty())
    F->eraseFromParent();
  return Changed;
}

} // namespace

bool lowerForks(Module &M) { return ForkLowerer(M).run(); }

PreservedAnalyses ForkLoweringPass::run(Module &M, ModuleAnalysisManager &) {
  return lowerForks(M) ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace hcc
