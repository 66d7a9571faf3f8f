//===- Stack.cpp - hcc-stack
//-------------------------------------------------===//
//
// A stack slot whose address can reach a parallel region or a task must
// live in DSM memory, or other nodes would read garbage (a task may run on
// another node than its creator's, docs/tasks.md). In functions that can
// reach a fork or create a task (within the module), an alloca whose
// address escapes - into a fork, a store (e.g. a task's shareds), a call
// argument or a return - becomes __hcrt_stack_alloc storage,
// bracketed by __hcrt_stack_save/__hcrt_stack_restore. Frames without such
// slots are left untouched, so ordinary code pays nothing.
//
//===----------------------------------------------------------------------===//

#include "Stack.h"
#include "Common.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

bool harmlessIntrinsic(const CallBase &CB) {
  auto *II = dyn_cast<IntrinsicInst>(&CB);
  if (!II)
    return false;
  if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
    return true;
  switch (II->getIntrinsicID()) {
  case Intrinsic::memcpy:
  case Intrinsic::memmove:
  case Intrinsic::memset:
  case Intrinsic::memcpy_inline:
  case Intrinsic::memset_inline:
    return true;
  default:
    return false;
  }
}

bool escapes(AllocaInst &AI) {
  SmallVector<const Value *, 16> Work = {&AI};
  SmallPtrSet<const Value *, 16> Seen = {&AI};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst, PHINode,
              SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
        continue;
      }
      if (isa<LoadInst, ICmpInst>(U))
        continue;
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() == V)
          return true;
        continue;
      }
      if (auto *CB = dyn_cast<CallBase>(U)) {
        if (harmlessIntrinsic(*CB))
          continue;
        return true;
      }
      if (auto *RMW = dyn_cast<AtomicRMWInst>(U)) {
        if (RMW->getValOperand() == V)
          return true;
        continue;
      }
      return true; // ret, ptrtoint, cmpxchg value, anything unexpected
    }
  }
  return false;
}

class StackLowerer {
public:
  StackLowerer(Module &M) : M(M) {
    LLVMContext &Ctx = M.getContext();
    PtrTy = PointerType::getUnqual(Ctx);
    I64 = Type::getInt64Ty(Ctx);
    Save = M.getOrInsertFunction("__hcrt_stack_save",
                                 FunctionType::get(PtrTy, false));
    Alloc = M.getOrInsertFunction("__hcrt_stack_alloc",
                                  FunctionType::get(PtrTy, {I64, I64}, false));
    Restore = M.getOrInsertFunction(
        "__hcrt_stack_restore",
        FunctionType::get(Type::getVoidTy(Ctx), {PtrTy}, false));
  }
  bool run(Function &F);

private:
  void replaceAlloca(AllocaInst &AI);
  void pairStackSaves(Function &F);

  Module &M;
  PointerType *PtrTy;
  IntegerType *I64;
  FunctionCallee Save, Alloc, Restore;
};

void StackLowerer::replaceAlloca(AllocaInst &AI) {
  IRBuilder<> B(&AI);
  const DataLayout &DL = M.getDataLayout();
  Value *Size = B.getInt64(DL.getTypeAllocSize(AI.getAllocatedType()));
  if (AI.isArrayAllocation())
    Size = B.CreateMul(Size, B.CreateZExtOrTrunc(AI.getArraySize(), I64));
  CallInst *P = B.CreateCall(Alloc, {Size, B.getInt64(AI.getAlign().value())},
                             AI.getName() + ".dsm");
  P->setDebugLoc(AI.getDebugLoc());
  // lifetime markers only make sense on allocas.
  for (User *U : make_early_inc_range(AI.users()))
    if (auto *II = dyn_cast<IntrinsicInst>(U))
      if (II->isLifetimeStartOrEnd())
        II->eraseFromParent();
  AI.replaceAllUsesWith(P);
  AI.eraseFromParent();
}

// A VLA in a loop is released by llvm.stackrestore each iteration; give the
// DSM stack the same bracket so it does not grow with the trip count.
void StackLowerer::pairStackSaves(Function &F) {
  DenseMap<Value *, Value *> Marks;
  for (Instruction &I : make_early_inc_range(instructions(F)))
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      if (II->getIntrinsicID() == Intrinsic::stacksave) {
        IRBuilder<> B(II->getNextNode());
        Marks[II] = B.CreateCall(Save);
      } else if (II->getIntrinsicID() == Intrinsic::stackrestore) {
        if (Value *Mark = Marks.lookup(II->getArgOperand(0)))
          IRBuilder<>(II).CreateCall(Restore, {Mark});
      }
    }
}

bool StackLowerer::run(Function &F) {
  SmallVector<AllocaInst *, 8> Escaping;
  for (Instruction &I : instructions(F))
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->getAddressSpace() == 0 && escapes(*AI))
        Escaping.push_back(AI);
  if (Escaping.empty())
    return false;
  BasicBlock &Entry = F.getEntryBlock();
  Value *Mark = IRBuilder<>(&*Entry.getFirstInsertionPt())
                    .CreateCall(Save, {}, "hcrt.stack.mark");
  pairStackSaves(F);
  for (AllocaInst *AI : Escaping)
    replaceAlloca(*AI);
  for (BasicBlock &BB : F) {
    Instruction *T = BB.getTerminator();
    if (isa<ReturnInst, ResumeInst>(T))
      IRBuilder<>(T).CreateCall(Restore, {Mark});
  }
  return true;
}

} // namespace

bool lowerStack(Module &M) {
  SetVector<Function *> Fns = functionsReachingForkOrTask(M);
  if (Fns.empty())
    return false;
  StackLowerer L(M);
  bool Changed = false;
  for (Function *F : Fns)
    if (!isRuntimeFunction(*F))
      Changed |= L.run(*F);
  return Changed;
}

} // namespace hcc
