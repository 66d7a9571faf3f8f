//===- TaskSites.cpp - hcc-tasks ------------------------------------------===//
//
// A task may run on another node than the one that creates it (docs/
// tasks.md). Its code is then named by a site id, never by a pointer
// (DESIGN.md section 3): every entry function passed to
// __kmpc_omp_task_alloc gets one constant hcrt_task_site_t (id, name,
// source line, flags, entry); hcc-module gathers them into the module's
// task table. The flags record, over the entry and the functions it calls
// directly within the module, what cannot leave the creating node: task
// reductions (the per-thread copies belong to the creator's taskgroup),
// target constructs (offloaded from the head) and runtime calls hcc does
// not lower. A taskloop's pattern task is marked too: libomp copies it into
// the loop's tasks itself.
//
//===----------------------------------------------------------------------===//

#include "TaskSites.h"
#include "Common.h"
#include "RuntimeCalls.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

// HCRT_TASK_SITE_* of include/hcrt/abi.h.
enum : unsigned {
  SiteReduction = 0x1,
  SiteTarget = 0x2,
  SiteUnsupported = 0x4,
  SiteTaskloop = 0x8
};

bool isPlainTaskAlloc(StringRef N) {
  return N == "__kmpc_omp_task_alloc" || N == "__hcrt_omp_task_alloc";
}

bool isTaskloopName(StringRef N) {
  return N == "__kmpc_taskloop" || N == "__kmpc_taskloop_5" ||
         N == "__hcrt_taskloop" || N == "__hcrt_taskloop_5";
}

unsigned callFlags(StringRef N) {
  if (N == "__kmpc_task_reduction_get_th_data" ||
      N == "__hcrt_task_reduction_get_th_data")
    return SiteReduction;
  if (N.starts_with("__tgt_") || N == "__kmpc_omp_target_task_alloc" ||
      N == "__hcrt_omp_target_task_alloc" || N.starts_with("__hcrt_target"))
    return SiteTarget;
  if (isUnsupportedCall(N))
    return SiteUnsupported;
  return 0;
}

unsigned entryFlags(Function &Entry) {
  SetVector<Function *> Root;
  Root.insert(&Entry);
  unsigned Flags = 0;
  for (Function *F : calleeClosure(Root))
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        Flags |= callFlags(calleeName(*CB));
  return Flags;
}

bool feedsTaskloop(const CallBase &Alloc) {
  for (const User *U : Alloc.users())
    if (auto *CB = dyn_cast<CallBase>(U))
      if (isTaskloopName(calleeName(*CB)))
        return true;
  return false;
}

class SiteBuilder {
public:
  explicit SiteBuilder(Module &M) : M(M), Ctx(M.getContext()) {
    PtrTy = PointerType::getUnqual(Ctx);
    I32 = Type::getInt32Ty(Ctx);
    I64 = Type::getInt64Ty(Ctx);
    Ty = StructType::getTypeByName(Ctx, "struct.hcrt_task_site");
    if (!Ty)
      Ty = StructType::create(Ctx, {I64, PtrTy, PtrTy, I32, I32, PtrTy},
                              "struct.hcrt_task_site");
  }
  void add(CallBase &Alloc, Function &Entry);
  bool finish();

private:
  Constant *cstring(StringRef S, StringRef Name);

  Module &M;
  LLVMContext &Ctx;
  PointerType *PtrTy;
  IntegerType *I32, *I64;
  StructType *Ty;
  struct Site {
    SourceLoc Loc;
    unsigned Flags = 0;
  };
  MapVector<Function *, Site> Sites;
};

Constant *SiteBuilder::cstring(StringRef S, StringRef Name) {
  Constant *Init = ConstantDataArray::getString(Ctx, S);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, Name);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  return GV;
}

void SiteBuilder::add(CallBase &Alloc, Function &Entry) {
  auto [It, New] = Sites.insert({&Entry, Site()});
  if (New) {
    It->second.Loc = sourceLocOf(Alloc);
    It->second.Flags = entryFlags(Entry);
  }
  if (feedsTaskloop(Alloc))
    It->second.Flags |= SiteTaskloop;
}

bool SiteBuilder::finish() {
  for (auto &[Entry, S] : Sites) {
    std::string Key = (M.getModuleIdentifier() + ":" + Entry->getName()).str();
    Constant *Fields[] = {ConstantInt::get(I64, fnv1a(Key)),
                          cstring(Entry->getName(), "__hcrt_task_name"),
                          cstring(S.Loc.File, "__hcrt_task_file"),
                          ConstantInt::get(I32, S.Loc.Line),
                          ConstantInt::get(I32, S.Flags),
                          Entry};
    auto *GV = new GlobalVariable(M, Ty, true, GlobalValue::PrivateLinkage,
                                  ConstantStruct::get(Ty, Fields),
                                  TaskSiteDescPrefix + Entry->getName());
    GV->setAlignment(Align(8));
  }
  return !Sites.empty();
}

} // namespace

bool describeTaskSites(Module &M) {
  SiteBuilder B(M);
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || !isPlainTaskAlloc(calleeName(*CB)) || CB->arg_size() < 6)
        continue;
      auto *Entry =
          dyn_cast<Function>(CB->getArgOperand(5)->stripPointerCasts());
      if (Entry && !Entry->isDeclaration())
        B.add(*CB, *Entry);
    }
  return B.finish();
}

} // namespace hcc
