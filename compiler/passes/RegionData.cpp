//===- RegionData.cpp - regions that work on their own data --------------===//
//
// Between hosts, the first call of a region that reads or writes shared
// arrays pays their pages over the network when it runs on every node (the
// head's sequential code wrote them, so the head is their home), and a
// region called once or twice never pays that back. A region whose threads
// work on their own data - a Monte-Carlo kernel: stack slots, threadprivate
// variables, shared scalars read, the shared results written only through
// atomics and reduction clauses - moves no pages but its results. The
// runtime's region placement starts the first kind on the head alone and
// the second on every node (docs/placement.md, policy 1); this pass tells
// them apart.
//
// The analysis is conservative: an address is private when it is,
// provably, a stack slot of the executing thread (an alloca of a function
// of the region, or a pointer only ever stored in such a slot), a
// threadprivate or constant variable, or a parameter for which every direct
// call from the region's code passes such an address. Anything else (a
// shared argument of the microtask, a global, a loaded pointer, a call's
// result) may be shared. A store to a shared address, a load of a shared
// array element (a variable index or a loaded pointer; a shared scalar is
// a page), and a call of an external function that may write through a
// shared pointer or read a shared array through one disqualify the region.
// Atomic operations, the OpenMP runtime's own calls and the blocks that
// combine a reduction clause's partial results (between __kmpc_reduce and
// __kmpc_end_reduce) do not. What external functions do to globals without
// a pointer (a timer of another file) is not seen: the mark is a placement
// hint, never a matter of correctness.
//
//===----------------------------------------------------------------------===//

#include "RegionData.h"
#include "Common.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

class OwnData {
public:
  OwnData(Function *Microtask, const SetVector<Function *> &Code)
      : Micro(Microtask), Code(Code) {}

  /// Whether the region's code works on its threads' own data only.
  bool ownOnly();

private:
  bool privatePtr(Value *V);
  bool privateSlotContents(AllocaInst *A);
  bool privateArgument(Argument *A);
  bool touchesShared(Instruction &I);
  void reductionBlocks(Function &F);

  Function *Micro;
  const SetVector<Function *> &Code;
  DenseMap<Value *, bool> Memo;
  SmallPtrSet<Value *, 32> Visiting;
  SmallPtrSet<BasicBlock *, 16> Combine; // reduction clauses' combining code
};

bool isReduceName(StringRef N) {
  return N == "__kmpc_reduce" || N == "__kmpc_reduce_nowait";
}

bool isEndReduceName(StringRef N) {
  return N == "__kmpc_end_reduce" || N == "__kmpc_end_reduce_nowait";
}

// The OpenMP runtime's entry points: their writes are the runtime's (loop
// bounds into the caller's slots, atomics, locks), not the program's.
bool isOpenMPRuntimeName(StringRef N) {
  return N.starts_with("__kmpc_") || N.starts_with("omp_") ||
         N.starts_with("__hcrt_") || N.starts_with("_FortranA");
}

// Blocks of F that combine a reduction clause: from each successor of the
// switch on __kmpc_reduce's result (1: under the runtime's lock, 2:
// atomically) up to the block that calls __kmpc_end_reduce. ReduceAt, if
// given, gets the blocks that call __kmpc_reduce.
void combineBlocks(Function &F, SmallPtrSetImpl<BasicBlock *> &Combine,
                   SmallPtrSetImpl<BasicBlock *> *ReduceAt) {
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || !isReduceName(calleeName(*CB)))
      continue;
    if (ReduceAt)
      ReduceAt->insert(CB->getParent());
    for (User *U : CB->users()) {
      auto *SW = dyn_cast<SwitchInst>(U);
      if (!SW)
        continue;
      SmallVector<BasicBlock *, 8> Work;
      for (auto Case : SW->cases())
        Work.push_back(Case.getCaseSuccessor());
      while (!Work.empty()) {
        BasicBlock *BB = Work.pop_back_val();
        if (BB == SW->getDefaultDest() || !Combine.insert(BB).second)
          continue;
        bool Ends = false;
        for (Instruction &J : *BB)
          if (auto *C = dyn_cast<CallBase>(&J))
            Ends |= isEndReduceName(calleeName(*C));
        if (!Ends)
          for (BasicBlock *S : successors(BB))
            Work.push_back(S);
      }
    }
  }
}

void OwnData::reductionBlocks(Function &F) {
  combineBlocks(F, Combine, nullptr);
}

// An alloca whose address is only loaded from and stored to (never passed
// on or stored elsewhere): what it holds is what was stored into it.
bool OwnData::privateSlotContents(AllocaInst *A) {
  for (User *U : A->users()) {
    if (isa<LoadInst>(U))
      continue;
    if (auto *S = dyn_cast<StoreInst>(U)) {
      if (S->getValueOperand() == A || !privatePtr(S->getValueOperand()))
        return false;
      continue;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(U))
      if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
        continue;
    return false;
  }
  return true;
}

// A parameter of a function of the region: private when every direct call
// of it from the region's code passes a private pointer. The microtask's
// own parameters are the runtime's thread ids (0, 1) and the region's
// shared variables (the rest).
bool OwnData::privateArgument(Argument *A) {
  Function *F = A->getParent();
  if (F == Micro)
    return A->getArgNo() < 2;
  if (F->hasAddressTaken())
    return false;
  bool Called = false;
  for (User *U : F->users()) {
    auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledOperand() != F)
      return false;
    if (!Code.contains(CB->getFunction()))
      continue; // a call outside the region: not this region's execution
    Called = true;
    if (A->getArgNo() >= CB->arg_size() ||
        !privatePtr(CB->getArgOperand(A->getArgNo())))
      return false;
  }
  return Called;
}

bool OwnData::privatePtr(Value *V) {
  V = V->stripPointerCasts();
  if (auto It = Memo.find(V); It != Memo.end())
    return It->second;
  // A value that reaches itself (a pointer advanced in a loop) is private
  // when everything else it comes from is.
  if (!Visiting.insert(V).second)
    return true;
  bool P = false;
  if (isa<AllocaInst>(V)) {
    P = true;
  } else if (auto *GV = dyn_cast<GlobalVariable>(V)) {
    P = GV->isThreadLocal() || GV->isConstant();
  } else if (auto *GEP = dyn_cast<GEPOperator>(V)) {
    P = privatePtr(GEP->getPointerOperand());
  } else if (auto *A = dyn_cast<Argument>(V)) {
    P = privateArgument(A);
  } else if (auto *L = dyn_cast<LoadInst>(V)) {
    if (auto *Slot = dyn_cast<AllocaInst>(L->getPointerOperand()))
      P = privateSlotContents(Slot);
  } else if (auto *PN = dyn_cast<PHINode>(V)) {
    P = true;
    for (Value *In : PN->incoming_values())
      P = P && privatePtr(In);
  } else if (auto *S = dyn_cast<SelectInst>(V)) {
    P = privatePtr(S->getTrueValue()) && privatePtr(S->getFalseValue());
  } else if (auto *CB = dyn_cast<CallBase>(V)) {
    StringRef N = calleeName(*CB);
    if (auto *II = dyn_cast<IntrinsicInst>(CB))
      P = II->getIntrinsicID() == Intrinsic::threadlocal_address;
    else
      P = N == "__kmpc_threadprivate_cached";
  }
  Visiting.erase(V);
  // "May be shared" is final; "private" may rest on a value still being
  // looked at (assumed private above), so it is kept only for a value
  // looked at from the top.
  if (!P || Visiting.empty())
    Memo[V] = P;
  return P;
}

// Whether a shared address is an element of an array (or anything past a
// fixed offset of a variable or argument): a variable index, a pointer
// loaded from memory or advanced in a loop. A region that reads a shared
// array reads its pages; one that reads shared scalars (the loop's bounds,
// constants of the computation) reads a page or two.
bool isArrayAddress(Value *V) {
  for (int Depth = 0; Depth < 16; ++Depth) {
    V = V->stripPointerCasts();
    if (isa<GlobalVariable>(V) || isa<Argument>(V))
      return false;
    if (auto *L = dyn_cast<LoadInst>(V))
      return !isa<AllocaInst>(L->getPointerOperand()->stripPointerCasts());
    auto *GEP = dyn_cast<GEPOperator>(V);
    if (!GEP || !GEP->hasAllConstantIndices())
      return true;
    V = GEP->getPointerOperand();
  }
  return true;
}

bool OwnData::touchesShared(Instruction &I) {
  if (Combine.contains(I.getParent()))
    return false;
  if (auto *S = dyn_cast<StoreInst>(&I))
    return !S->isAtomic() && !privatePtr(S->getPointerOperand());
  if (auto *L = dyn_cast<LoadInst>(&I))
    return !L->isAtomic() && !privatePtr(L->getPointerOperand()) &&
           isArrayAddress(L->getPointerOperand());
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
    return false;
  auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  if (auto *MI = dyn_cast<AnyMemIntrinsic>(CB))
    return !privatePtr(MI->getRawDest());
  if (isa<IntrinsicInst>(CB))
    return false; // lifetime, debug info, math: no stores to memory
  Function *F = directCallee(*CB);
  if (!F)
    return true; // an indirect call may do anything
  if (!F->isDeclaration())
    return false; // its code is analysed as part of the region
  if (isOpenMPRuntimeName(F->getName()))
    return false;
  for (Value *Arg : CB->args())
    if (Arg->getType()->isPointerTy() && !privatePtr(Arg) &&
        (!CB->onlyReadsMemory() || isArrayAddress(Arg)))
      return true;
  return false;
}

bool OwnData::ownOnly() {
  for (Function *F : Code)
    reductionBlocks(*F);
  for (Function *F : Code)
    for (Instruction &I : instructions(*F))
      if (touchesShared(I))
        return false;
  return true;
}

} // namespace

void markRegionData(Module &M) {
  SetVector<Function *> Micros; // a microtask forked from several sites once
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        StringRef N = calleeName(*CB);
        if (N == "__kmpc_fork_call" || N == "__kmpc_fork_call_if")
          if (auto *Micro =
                  dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts()))
            if (!Micro->isDeclaration())
              Micros.insert(Micro);
      }
  for (Function *Micro : Micros) {
    SetVector<Function *> Roots;
    Roots.insert(Micro);
    SetVector<Function *> Code =
        calleeClosure(Roots, /*IntoRegionsAndTasks=*/true);
    if (OwnData(Micro, Code).ownOnly())
      Micro->addFnAttr(OwnDataAttr);
  }
}

// clang 19 privatizes an array section of a global named in a reduction
// clause (the private copy is combined into the global at the end) but
// leaves the region's own references to the global as they are: the
// threads update the shared global directly, racing, and their private
// copies add nothing (`reduction(+ : hist[0:16])` on a global `hist` loses
// updates from 4 threads on one node with clang-19 itself, at 2 nodes with
// hcc; gcc privatizes them). Such a region stores to a global that its
// reduction's combining step also writes, before that step.
static void storedGlobals(Value *P, SmallPtrSetImpl<GlobalVariable *> &Out) {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(P, Objs); // through the combine loop's phis
  for (const Value *O : Objs)
    if (auto *GV = dyn_cast<GlobalVariable>(O))
      Out.insert(const_cast<GlobalVariable *>(GV));
}

void warnUnprivatizedReductions(Module &M) {
  SmallPtrSet<GlobalVariable *, 4> Warned; // once per variable and module
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    SmallPtrSet<BasicBlock *, 16> Combine;
    SmallPtrSet<BasicBlock *, 4> ReduceAt;
    combineBlocks(F, Combine, &ReduceAt);
    if (Combine.empty())
      continue;
    SmallPtrSet<GlobalVariable *, 4> Items; // globals the combine writes
    for (BasicBlock *BB : Combine)
      for (Instruction &I : *BB) {
        Value *P = nullptr;
        if (auto *S = dyn_cast<StoreInst>(&I))
          P = S->getPointerOperand();
        else if (auto *A = dyn_cast<AtomicRMWInst>(&I))
          P = A->getPointerOperand();
        else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
          P = X->getPointerOperand();
        if (P)
          storedGlobals(P, Items);
      }
    if (Items.empty())
      continue;
    // Blocks before the reduction: those that reach a block calling it.
    SmallPtrSet<BasicBlock *, 32> Before;
    SmallVector<BasicBlock *, 16> Work(ReduceAt.begin(), ReduceAt.end());
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (Before.insert(BB).second)
        for (BasicBlock *P : predecessors(BB))
          Work.push_back(P);
    }
    for (BasicBlock *BB : Before) {
      if (Combine.count(BB))
        continue;
      for (Instruction &I : *BB) {
        auto *S = dyn_cast<StoreInst>(&I);
        if (!S)
          continue;
        SmallPtrSet<GlobalVariable *, 2> To;
        storedGlobals(S->getPointerOperand(), To);
        GlobalVariable *GV = nullptr;
        for (GlobalVariable *G : To)
          if (Items.count(G) && !Warned.count(G))
            GV = G;
        if (!GV)
          continue;
        Warned.insert(GV);
        warn(I, "the region updates the reduction variable '" + GV->getName() +
                    "' itself, not its private copy: clang 19 does not "
                    "privatize a global's array section in a reduction "
                    "clause, so threads and nodes race on it and the result "
                    "is wrong (with clang-19 too, from 4 threads); reduce "
                    "the whole array (reduction(+ : " +
                    GV->getName() + ")) or a section through a pointer to it");
      }
    }
  }
}

bool usesOwnData(const Function &Microtask) {
  return Microtask.hasFnAttribute(OwnDataAttr);
}

} // namespace hcc
