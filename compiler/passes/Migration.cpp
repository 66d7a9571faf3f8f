//===- Migration.cpp - hcc-migration
//------------------------------------------===//
//
// Work can only move between nodes where a thread passes through the
// runtime. Dispatch loops do at every chunk (dispatch_next); static loops
// never do, so this pass adds a migration point
//     if (__builtin_expect(__hcrt_migrate_pending, 0))
//       __hcrt_migration_point(loc, gtid);
// at the head of the chunk loop of chunked static schedules, and right after
// the init call of unchunked ones (the thread's whole share is one chunk).
// The check is one predictable load and branch per chunk, never per
// iteration, so tight loops do not slow down.
//
//===----------------------------------------------------------------------===//

#include "Migration.h"
#include "Common.h"
#include "RuntimeCalls.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace hcc {
namespace {

// libomp's sched_type values of chunked static schedules.
constexpr int SchedStaticChunked = 33;
constexpr int SchedDistStaticChunked = 91;

bool isStaticInit(StringRef N) {
  if (!N.consume_front("__kmpc_") && !N.consume_front("__hcrt_"))
    return false;
  return N.starts_with("for_static_init_") ||
         N.starts_with("dist_for_static_init_");
}

bool isChunked(CallBase &CB) {
  auto *Sched = dyn_cast<ConstantInt>(CB.getArgOperand(2));
  return Sched && (Sched->getSExtValue() == SchedStaticChunked ||
                   Sched->getSExtValue() == SchedDistStaticChunked);
}

// The chunk loop is the outermost loop that follows the init call: not
// containing it, dominated by it, and the first such (shallowest header in
// the dominator tree) when several loops follow one another.
Loop *chunkLoop(CallBase &Init, DominatorTree &DT, LoopInfo &LI) {
  BasicBlock *InitBB = Init.getParent();
  Loop *Best = nullptr;
  unsigned BestDepth = ~0u;
  SmallVector<Loop *, 8> Work(LI.begin(), LI.end());
  while (!Work.empty()) {
    Loop *L = Work.pop_back_val();
    if (L->contains(InitBB)) {
      Work.append(L->begin(), L->end());
      continue;
    }
    BasicBlock *H = L->getHeader();
    if (!DT.dominates(InitBB, H))
      continue;
    unsigned Depth = DT.getNode(H)->getLevel();
    if (Depth < BestDepth) {
      Best = L;
      BestDepth = Depth;
    }
  }
  return Best;
}

class MigrationInserter {
public:
  explicit MigrationInserter(Module &M) : M(M) {
    LLVMContext &Ctx = M.getContext();
    Flag = M.getOrInsertGlobal("__hcrt_migrate_pending", Type::getInt32Ty(Ctx));
    Point = M.getOrInsertFunction(
        "__hcrt_migration_point",
        FunctionType::get(Type::getVoidTy(Ctx),
                          {PointerType::getUnqual(Ctx), Type::getInt32Ty(Ctx)},
                          false));
  }
  void insertBefore(Instruction *Pos, CallBase &Init);

private:
  Module &M;
  Constant *Flag;
  FunctionCallee Point;
};

void MigrationInserter::insertBefore(Instruction *Pos, CallBase &Init) {
  IRBuilder<> B(Pos);
  LoadInst *Pending =
      B.CreateLoad(B.getInt32Ty(), Flag, /*isVolatile=*/true, "hcrt.migrate");
  Pending->setAlignment(Align(4));
  Value *Cond = B.CreateICmpNE(Pending, B.getInt32(0));
  MDNode *Weights = MDBuilder(M.getContext()).createBranchWeights(1, 1 << 20);
  Instruction *Then = SplitBlockAndInsertIfThen(Cond, Pos, false, Weights);
  IRBuilder<>(Then).CreateCall(Point,
                               {Init.getArgOperand(0), Init.getArgOperand(1)});
}

} // namespace

bool insertMigrationPoints(Module &M) {
  bool Changed = false;
  std::unique_ptr<MigrationInserter> Ins;
  SetVector<Function *> HeadOnly = headOnlyFunctions(M);
  for (Function &F : M) {
    if (HeadOnly.contains(&F))
      continue;
    SmallVector<CallBase *, 4> Inits;
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (isStaticInit(calleeName(*CB)) && CB->arg_size() >= 3)
          Inits.push_back(CB);
    if (Inits.empty())
      continue;
    if (!Ins)
      Ins = std::make_unique<MigrationInserter>(M);
    // Find every position first: inserting splits blocks.
    DominatorTree DT(F);
    LoopInfo LI(DT);
    SmallVector<std::pair<Instruction *, CallBase *>, 4> Points;
    for (CallBase *Init : Inits) {
      Loop *L = isChunked(*Init) ? chunkLoop(*Init, DT, LI) : nullptr;
      Instruction *Pos =
          L ? &*L->getHeader()->getFirstInsertionPt() : Init->getNextNode();
      Points.push_back({Pos, Init});
    }
    for (auto &[Pos, Init] : Points)
      Ins->insertBefore(Pos, *Init);
    Changed = true;
  }
  return Changed;
}

} // namespace hcc
