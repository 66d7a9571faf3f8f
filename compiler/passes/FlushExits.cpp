//===- FlushExits.cpp - a flush where a loop that flushes exits ----------===//
//
// See FlushExits.h.
//
//===----------------------------------------------------------------------===//

#include "FlushExits.h"
#include "Common.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace hcc {
namespace {

bool isFlush(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && calleeName(*CB) == "__kmpc_flush";
}

// A copy of the flush `Proto` at the start of `BB` (its ident if that is a
// constant, else a null one: libomp and libhcrt only print it).
void flushAt(BasicBlock &BB, CallBase &Proto) {
  Value *Loc = Proto.getArgOperand(0);
  if (!isa<Constant>(Loc))
    Loc = Constant::getNullValue(Loc->getType());
  auto *C = CallInst::Create(Proto.getFunctionType(), Proto.getCalledOperand(),
                             {Loc}, "", BB.getFirstInsertionPt());
  C->setDebugLoc(Proto.getDebugLoc());
}

// Flushes on the exit edges of loop L (split where the exit block has
// other predecessors); edges into EH pads or that cannot be split are
// left alone (unwinding out of a wait loop reads nothing after it).
bool flushExits(Loop &L, CallBase &Proto, DominatorTree &DT, LoopInfo &LI) {
  SmallVector<Loop::Edge, 4> Edges;
  L.getExitEdges(Edges);
  bool Changed = false;
  for (auto [From, To] : Edges) {
    BasicBlock *Exit = const_cast<BasicBlock *>(To);
    BasicBlock *In = const_cast<BasicBlock *>(From);
    if (Exit->isEHPad())
      continue;
    BasicBlock *At = Exit->getSinglePredecessor() == In
                         ? Exit
                         : SplitEdge(In, Exit, &DT, &LI);
    if (!At || (At->getFirstInsertionPt() != At->end() &&
                isFlush(*At->getFirstInsertionPt())))
      continue;
    flushAt(*At, Proto);
    Changed = true;
  }
  return Changed;
}

bool flushFunction(Function &F) {
  SmallVector<CallBase *, 4> Flushes;
  for (Instruction &I : instructions(F))
    if (isFlush(I))
      Flushes.push_back(cast<CallBase>(&I));
  if (Flushes.empty())
    return false;
  DominatorTree DT(F);
  LoopInfo LI(DT);
  SmallSetVector<Loop *, 4> Loops;
  SmallVector<CallBase *, 4> Protos;
  for (CallBase *CB : Flushes)
    if (Loop *L = LI.getLoopFor(CB->getParent()); L && Loops.insert(L))
      Protos.push_back(CB);
  bool Changed = false;
  for (size_t I = 0; I < Loops.size(); ++I)
    Changed |= flushExits(*Loops[I], *Protos[I], DT, LI);
  return Changed;
}

} // namespace

bool flushLoopExits(Module &M) {
  bool Changed = false;
  for (Function &F : M)
    if (!F.isDeclaration())
      Changed |= flushFunction(F);
  return Changed;
}

} // namespace hcc
