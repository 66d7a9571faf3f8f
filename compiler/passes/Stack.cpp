//===- Stack.cpp - hcc-stack
//-------------------------------------------------===//
//
// A stack slot whose address can reach a parallel region or a task must
// live in DSM memory, or other nodes would read garbage (a task may run on
// another node than its creator's, docs/tasks.md). In functions that can
// reach a fork or create a task (within the module), an alloca whose
// address escapes - into a fork, a store (e.g. a task's shareds), a call
// argument or a return - becomes storage of the thread's DSM stack arena
// for the frame's lifetime. Frames without such slots are left untouched,
// so ordinary code pays nothing.
//
// The common frame pays no call: its fixed-size slots are one block bumped
// inline from the arena's top (include/hcrt/abi.h, __hcrt_stack_arena),
// and each exit stores the entry's top back when it lies in the current
// chunk. A block that does not fit, a mark in an older chunk, VLAs and
// dynamic allocas take the calls (__hcrt_stack_alloc, _restore). Recursive
// task code (a task per call, BOTS's fib) made four calls a frame.
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
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

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
    // {top, end, base}: hcrt_stack_arena_t. General-dynamic as declared;
    // the backend makes it initial-exec in an executable.
    ArenaTy = ArrayType::get(PtrTy, 3);
    Arena = M.getGlobalVariable("__hcrt_stack_arena");
    if (!Arena)
      Arena = new GlobalVariable(
          M, ArenaTy, false, GlobalValue::ExternalLinkage, nullptr,
          "__hcrt_stack_arena", nullptr, GlobalValue::GeneralDynamicTLSModel);
  }
  bool run(Function &F);

private:
  void replaceAlloca(AllocaInst &AI);
  Value *allocFixed(ArrayRef<AllocaInst *> Fixed, Instruction *IP);
  void restoreAt(Instruction *T, Value *Mark);
  void pairStackSaves(Function &F);

  Module &M;
  PointerType *PtrTy;
  IntegerType *I64;
  ArrayType *ArenaTy;
  GlobalVariable *Arena;
  FunctionCallee Save, Alloc, Restore;
};

// Field i of the calling thread's arena (0 top, 1 end, 2 base).
static Value *arenaField(IRBuilder<> &B, Value *Addr, unsigned I) {
  return I ? B.CreateConstInBoundsGEP1_64(B.getPtrTy(), Addr, I) : Addr;
}

// The frame's mark (the arena's top on entry) at IP, then its fixed-size
// slots as one block: bumped inline when it fits in the current chunk,
// else from __hcrt_stack_alloc. IP must follow every static alloca of the
// entry block (the split leaves them there). Returns the mark.
Value *StackLowerer::allocFixed(ArrayRef<AllocaInst *> Fixed, Instruction *IP) {
  const DataLayout &DL = M.getDataLayout();
  IRBuilder<> B(IP);
  Value *A = B.CreateThreadLocalAddress(Arena);
  Value *Top = B.CreateLoad(PtrTy, A, "hcrt.stack.mark");
  if (Fixed.empty())
    return Top;
  uint64_t Off = 0, MaxAl = 16; // the runtime's least alignment
  SmallVector<uint64_t, 8> Offs;
  for (AllocaInst *AI : Fixed) {
    uint64_t Al = std::max<uint64_t>(AI->getAlign().value(), 16);
    MaxAl = std::max(MaxAl, Al);
    Off = alignTo(Off, Al);
    Offs.push_back(Off);
    uint64_t Size = DL.getTypeAllocSize(AI->getAllocatedType()) *
                    cast<ConstantInt>(AI->getArraySize())->getZExtValue();
    Off += std::max<uint64_t>(Size, 1); // distinct addresses
  }
  Value *TopI = B.CreatePtrToInt(Top, I64);
  Value *P = B.CreateAnd(B.CreateAdd(TopI, B.getInt64(MaxAl - 1)),
                         B.getInt64(~(MaxAl - 1)));
  Value *New = B.CreateAdd(P, B.getInt64(Off));
  Value *End = B.CreatePtrToInt(B.CreateLoad(PtrTy, arenaField(B, A, 1)), I64);
  Value *Fits = B.CreateAnd(B.CreateICmpNE(TopI, B.getInt64(0)),
                            B.CreateICmpULE(New, End), "hcrt.stack.fits");
  Instruction *ThenT, *ElseT;
  SplitBlockAndInsertIfThenElse(
      Fits, IP, &ThenT, &ElseT,
      MDBuilder(M.getContext()).createLikelyBranchWeights());
  IRBuilder<> TB(ThenT); // from Top by offsets: the pointers keep its origin
  Value *Fast = TB.CreateGEP(TB.getInt8Ty(), Top, TB.CreateSub(P, TopI));
  TB.CreateStore(TB.CreateConstInBoundsGEP1_64(TB.getInt8Ty(), Fast, Off), A);
  IRBuilder<> EB(ElseT);
  Value *Slow = EB.CreateCall(Alloc, {B.getInt64(Off), B.getInt64(MaxAl)});
  IRBuilder<> JB(IP);
  PHINode *Base = JB.CreatePHI(PtrTy, 2, "hcrt.stack.frame");
  Base->addIncoming(Fast, ThenT->getParent());
  Base->addIncoming(Slow, ElseT->getParent());
  SmallVector<Value *, 8> Slots; // all first: IP may be a lifetime marker
  for (size_t I = 0; I < Fixed.size(); I++)
    Slots.push_back(JB.CreateConstInBoundsGEP1_64(
        JB.getInt8Ty(), Base, Offs[I], Fixed[I]->getName() + ".dsm"));
  for (size_t I = 0; I < Fixed.size(); I++) {
    AllocaInst *AI = Fixed[I];
    Value *Slot = Slots[I];
    for (User *U : make_early_inc_range(AI->users()))
      if (auto *II = dyn_cast<IntrinsicInst>(U))
        if (II->isLifetimeStartOrEnd())
          II->eraseFromParent();
    AI->replaceAllUsesWith(Slot);
    AI->eraseFromParent();
  }
  return Top;
}

// Before exit T: top = Mark when Mark lies in the current chunk, else the
// runtime pops the chunks allocated since.
void StackLowerer::restoreAt(Instruction *T, Value *Mark) {
  IRBuilder<> B(T);
  Value *A = B.CreateThreadLocalAddress(Arena);
  Value *MI = B.CreatePtrToInt(Mark, I64);
  Value *Base = B.CreatePtrToInt(B.CreateLoad(PtrTy, arenaField(B, A, 2)), I64);
  Value *End = B.CreatePtrToInt(B.CreateLoad(PtrTy, arenaField(B, A, 1)), I64);
  Value *In = B.CreateAnd(B.CreateICmpUGE(MI, Base), B.CreateICmpULE(MI, End),
                          "hcrt.stack.here");
  Instruction *ThenT, *ElseT;
  SplitBlockAndInsertIfThenElse(
      In, T, &ThenT, &ElseT,
      MDBuilder(M.getContext()).createLikelyBranchWeights());
  IRBuilder<>(ThenT).CreateStore(Mark, A);
  IRBuilder<>(ElseT).CreateCall(Restore, {Mark});
}

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
  // The entry block's static allocas go first, so that the block can be
  // split after them (an alloca left below the split would turn dynamic).
  BasicBlock &Entry = F.getEntryBlock();
  SmallPtrSet<Instruction *, 16> Static;
  for (Instruction &I : Entry)
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
      Static.insert(AI);
  Instruction *IP = nullptr;
  for (Instruction &I : make_early_inc_range(Entry)) {
    if (!Static.count(&I)) {
      if (!IP)
        IP = &I;
    } else if (IP) {
      I.moveBefore(IP);
    }
  }
  SmallVector<AllocaInst *, 8> Fixed, Dynamic;
  for (AllocaInst *AI : Escaping)
    (AI->isStaticAlloca() ? Fixed : Dynamic).push_back(AI);
  pairStackSaves(F);
  for (AllocaInst *AI : Dynamic)
    replaceAlloca(*AI);
  Value *Mark = allocFixed(Fixed, IP);
  SmallVector<Instruction *, 4> Exits;
  for (BasicBlock &BB : F)
    if (isa<ReturnInst, ResumeInst>(BB.getTerminator()))
      Exits.push_back(BB.getTerminator());
  for (Instruction *T : Exits)
    restoreAt(T, Mark);
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
