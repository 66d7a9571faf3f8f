//===- Target.cpp - hcc-target
//-----------------------------------------------===//
//
// Each `target` region clang outlines has a region id global
// (".__omp_offloading_<dev>_<file>_<fn>_l<line>.region_id") passed to
// __tgt_target_kernel and a host fallback "__omp_offloading_..._l<line>".
// The runtime runs kernels on any node by table entry, so each gets a
// descriptor with a trampoline void(void **args) that unpacks the kernel
// arguments and calls the host fallback; the call becomes
// __hcrt_target_kernel (same signature; the runtime finds the kernel by
// region id). omp.h's host variant of omp_is_initial_device becomes the
// library call, answered by the runtime on the node the kernel runs on.
//
//===----------------------------------------------------------------------===//

#include "Target.h"
#include "Common.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

class TargetLowerer {
public:
  explicit TargetLowerer(Module &M) : M(M), Ctx(M.getContext()) {
    PtrTy = PointerType::getUnqual(Ctx);
    I32 = Type::getInt32Ty(Ctx);
    I64 = Type::getInt64Ty(Ctx);
    DescTy = StructType::getTypeByName(Ctx, "struct.hcrt_kernel_desc");
    if (!DescTy)
      DescTy = StructType::create(
          Ctx, {I64, PtrTy, PtrTy, PtrTy, PtrTy, I32, I32, PtrTy},
          "struct.hcrt_kernel_desc");
    // `declare target` variables: the device copy is the node's own global
    // (the runtime's `target update` writes it there).
    if (NamedMDNode *Info = M.getNamedMetadata("omp_offload.info"))
      for (MDNode *E : Info->operands())
        if (E->getNumOperands() >= 2)
          if (auto *K = mdconst::dyn_extract<ConstantInt>(E->getOperand(0)))
            if (K->getZExtValue() == 1)
              if (auto *N = dyn_cast<MDString>(E->getOperand(1)))
                DeclareTarget.insert(N->getString());
  }
  bool run();

private:
  Function *hostFallback(CallBase &CB, GlobalValue *RegionId);
  Function *trampoline(Function *Host, const SmallBitVector &ByRef);
  SmallBitVector literalsByReference(CallBase &CB, Function *Host);
  bool describe(CallBase &CB);
  SmallVector<GlobalVariable *, 4>
  hostOnlyGlobals(Function *Host, bool &Incomplete, StringRef &LockRoutine);
  Constant *globalList(ArrayRef<GlobalVariable *> Gs, StringRef Routine);
  GlobalVariable *writableGlobal(Value *V, unsigned Depth);

  Module &M;
  LLVMContext &Ctx;
  PointerType *PtrTy;
  IntegerType *I32, *I64;
  StructType *DescTy;
  DenseMap<Value *, GlobalVariable *> Done;
  StringSet<> DeclareTarget;
};

// The fallback's name is the region id's without the dots; if a frontend
// names them differently, take the offloading function the caller calls.
Function *TargetLowerer::hostFallback(CallBase &CB, GlobalValue *RegionId) {
  StringRef N = RegionId->getName();
  if (N.consume_front(".") && N.consume_back(".region_id"))
    if (Function *F = M.getFunction(N); F && !F->isDeclaration())
      return F;
  for (Instruction &I : instructions(*CB.getFunction()))
    if (auto *Call = dyn_cast<CallBase>(&I))
      if (Function *F = directCallee(*Call))
        if (F->getName().starts_with("__omp_offloading_") &&
            !F->isDeclaration())
          return F;
  return nullptr;
}

// flang-19 builds a target region's host function with every captured
// variable by reference, but passes the scalars it captures by copy as
// LITERAL kernel arguments (the value itself in the pointer slot), as for a
// device kernel that copies them in; the host function then reads and
// writes through the value as an address (OpenMP_VV's Fortran loops with an
// implicitly mapped index crashed at address N+1). Returns the parameters
// whose slot address the trampoline must pass instead: a copy of the value
// the kernel may write, as a device's by-copy argument is. clang builds
// host functions that take literals by value: nothing to do there.
SmallBitVector TargetLowerer::literalsByReference(CallBase &CB,
                                                  Function *Host) {
  SmallBitVector ByRef(Host->arg_size());
  if (M.getSourceFileName() != "FIRModule") // flang's module name
    return ByRef;
  // the map types: field 4 (byte offset 32) of the __tgt_kernel_arguments
  // the call passes, stored as a constant array
  Value *KArgs = CB.getArgOperand(5)->stripPointerCasts();
  const DataLayout &DL = M.getDataLayout();
  const ConstantDataArray *Types = nullptr;
  for (Instruction &I : instructions(*CB.getFunction())) {
    auto *St = dyn_cast<StoreInst>(&I);
    if (!St)
      continue;
    APInt Off(DL.getIndexTypeSizeInBits(St->getPointerOperandType()), 0);
    const Value *Base =
        St->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off,
                                                                   true);
    auto *GV = dyn_cast<GlobalVariable>(St->getValueOperand());
    if (Base == KArgs && Off == 32 && GV && GV->hasInitializer())
      Types = dyn_cast<ConstantDataArray>(GV->getInitializer());
  }
  if (!Types || !Types->getElementType()->isIntegerTy(64))
    return ByRef;
  unsigned N = 0;
  for (unsigned I = 0; I < Types->getNumElements() && N < Host->arg_size();
       ++I) {
    uint64_t T = Types->getElementAsInteger(I);
    if (!(T & 0x20)) // OMP_MAP_TARGET_PARAM
      continue;
    if ((T & 0x100) && // OMP_MAP_LITERAL
        Host->getFunctionType()->getParamType(N)->isPointerTy())
      ByRef.set(N);
    ++N;
  }
  return ByRef;
}

Function *TargetLowerer::trampoline(Function *Host,
                                    const SmallBitVector &ByRef) {
  auto *Ty = FunctionType::get(Type::getVoidTy(Ctx), {PtrTy}, false);
  Function *T = Function::Create(Ty, GlobalValue::InternalLinkage,
                                 "__hcrt_ktramp." + Host->getName(), M);
  keepOutOfLine(*Host);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", T));
  SmallVector<Value *, 8> Args;
  for (unsigned I = 0; I < Host->arg_size(); ++I) {
    Value *Slot = B.CreateConstInBoundsGEP1_64(PtrTy, T->getArg(0), I);
    Args.push_back(
        ByRef.test(I) ? Slot
                      : narrowFromSlot(
                            B, Slot, Host->getFunctionType()->getParamType(I)));
  }
  B.CreateCall(Host->getFunctionType(), Host, Args);
  B.CreateRetVoid();
  return T;
}

static Constant *cstring(Module &M, StringRef S) {
  Constant *Init = ConstantDataArray::getString(M.getContext(), S);
  auto *GV =
      new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage,
                         Init, "__hcrt_kernel_name");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return GV;
}

// A global the region's code names by its address whose device copy is
// not that address: writable, not thread-local, not `declare target`, not
// the runtime's (a `critical`'s lock, ".gomp_critical_user_<name>.var", is
// the running node's own) or the C library's streams.
GlobalVariable *TargetLowerer::writableGlobal(Value *V, unsigned Depth) {
  if (auto *GV = dyn_cast<GlobalVariable>(V)) {
    StringRef N = GV->getName();
    if (GV->isConstant() || GV->isThreadLocal() || DeclareTarget.count(N) ||
        N.starts_with("__hcrt") || N.starts_with("__kmp") ||
        N.starts_with(".omp") || N.starts_with(".gomp_critical_user_") ||
        N.starts_with("llvm.") || N.starts_with(".offload") || N == "stdin" ||
        N == "stdout" || N == "stderr")
      return nullptr;
    return GV;
  }
  if (auto *CE = dyn_cast<ConstantExpr>(V); CE && Depth < 4)
    for (Value *Op : CE->operands())
      if (GlobalVariable *GV = writableGlobal(Op, Depth + 1))
        return GV;
  return nullptr;
}

// Clang's host outlining passes a global the region maps to the region's
// function as a parameter (translated to the device copy), but code
// outlined inside it - a task's entry, and a parallel region that only a
// task inside it uses the global in - names the global itself, so a node
// that runs the region as a device would use its own global, not the copy
// (DataRaceBench DRB158: a task's writes never reached the host). The
// region's function and every function reachable from it (called, or
// passed to the runtime as an outlined body) are searched.
SmallVector<GlobalVariable *, 4>
TargetLowerer::hostOnlyGlobals(Function *Host, bool &Incomplete,
                               StringRef &LockRoutine) {
  SmallPtrSet<Function *, 16> Seen;
  SmallVector<Function *, 16> Work;
  SmallVector<GlobalVariable *, 4> Found;
  SmallPtrSet<GlobalVariable *, 4> Have;
  Seen.insert(Host);
  Work.push_back(Host);
  bool InitsLock = false;
  StringRef UsesLock;
  while (!Work.empty() && Seen.size() < 4096) {
    Function *F = Work.pop_back_val();
    for (Instruction &I : instructions(*F))
      for (Value *Op : I.operands()) {
        if (auto *G = dyn_cast<Function>(Op->stripPointerCasts())) {
          if (!G->isDeclaration() && Seen.insert(G).second)
            Work.push_back(G);
          StringRef N = G->getName();
          if (N == "omp_init_lock" || N == "omp_init_nest_lock" ||
              N == "omp_init_lock_with_hint" ||
              N == "omp_init_nest_lock_with_hint")
            InitsLock = true;
          else if (UsesLock.empty() &&
                   (N == "omp_set_lock" || N == "omp_unset_lock" ||
                    N == "omp_test_lock" || N == "omp_set_nest_lock" ||
                    N == "omp_unset_nest_lock" || N == "omp_test_nest_lock"))
            UsesLock = N;
          continue;
        }
        if (GlobalVariable *GV = writableGlobal(Op, 0))
          if (Have.insert(GV).second)
            Found.push_back(GV);
      }
  }
  Incomplete = !Work.empty(); // too much code to follow: not proven safe
  // A lock the region takes but does not make is the host's: its value
  // (copied in by `firstprivate` or a map) means nothing on another node
  // (DataRaceBench DRB152: a worker crashed in omp_set_lock).
  LockRoutine = !InitsLock ? UsesLock : StringRef();
  return Found;
}

// A NULL-name-terminated hcrt_kernel_global_t list: { name, address, size },
// after it a lock routine the region calls on a lock it does not make
// ({ "omp_set_lock", NULL, 0 }).
Constant *TargetLowerer::globalList(ArrayRef<GlobalVariable *> Gs,
                                    StringRef Routine) {
  auto *GTy = StructType::get(Ctx, {PtrTy, PtrTy, I64});
  SmallVector<Constant *, 4> Elems;
  const DataLayout &DL = M.getDataLayout();
  for (GlobalVariable *GV : Gs)
    Elems.push_back(ConstantStruct::get(
        GTy, {cstring(M, GV->getName()), GV,
              ConstantInt::get(I64, DL.getTypeAllocSize(GV->getValueType()))}));
  if (!Routine.empty())
    Elems.push_back(ConstantStruct::get(GTy, {cstring(M, Routine),
                                              ConstantPointerNull::get(PtrTy),
                                              ConstantInt::get(I64, 0)}));
  Elems.push_back(ConstantStruct::get(GTy, {ConstantPointerNull::get(PtrTy),
                                            ConstantPointerNull::get(PtrTy),
                                            ConstantInt::get(I64, 0)}));
  auto *ATy = ArrayType::get(GTy, Elems.size());
  auto *L = new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                               ConstantArray::get(ATy, Elems),
                               "__hcrt_kernel_globals");
  L->setAlignment(Align(8));
  return L;
}

bool TargetLowerer::describe(CallBase &CB) {
  Value *HostPtr = CB.getArgOperand(4)->stripPointerCasts();
  if (Done.count(HostPtr))
    return true;
  auto *RegionId = dyn_cast<GlobalValue>(HostPtr);
  Function *Host = RegionId ? hostFallback(CB, RegionId) : nullptr;
  if (!Host) {
    warn(CB, "cannot find the host fallback of this target region; it runs "
             "through libomptarget on the head node only");
    return false;
  }
  for (Type *P : Host->getFunctionType()->params())
    if (!slotCompatible(P)) {
      warn(CB, "target region parameter does not fit a pointer slot; it runs "
               "through libomptarget on the head node only");
      return false;
    }
  StringRef Name = Host->getName();
  unsigned Line = sourceLocOf(CB).Line;
  if (size_t Pos = Name.rfind("_l"); !Line && Pos != StringRef::npos)
    Name.drop_front(Pos + 2).getAsInteger(10, Line);
  bool Incomplete = false;
  StringRef LockRoutine;
  SmallVector<GlobalVariable *, 4> Direct =
      hostOnlyGlobals(Host, Incomplete, LockRoutine);
  Constant *Fields[] = {ConstantInt::get(I64, fnv1a(Name)),
                        cstring(M, Name),
                        cast<Constant>(HostPtr),
                        trampoline(Host, literalsByReference(CB, Host)),
                        Host,
                        ConstantInt::get(I32, Host->arg_size()),
                        ConstantInt::get(I32, Line),
                        Direct.empty() && !Incomplete && LockRoutine.empty()
                            ? ConstantPointerNull::get(PtrTy)
                            : globalList(Direct, LockRoutine)};
  auto *GV = new GlobalVariable(M, DescTy, true, GlobalValue::PrivateLinkage,
                                ConstantStruct::get(DescTy, Fields),
                                KernelDescPrefix + Name);
  GV->setAlignment(Align(8));
  Done[HostPtr] = GV;
  return true;
}

bool TargetLowerer::run() {
  Function *Tgt = M.getFunction("__tgt_target_kernel");
  if (!Tgt)
    return false;
  SmallVector<CallBase *, 8> Sites;
  for (User *U : Tgt->users())
    if (auto *CB = dyn_cast<CallBase>(U))
      if (CB->getCalledOperand() == Tgt && CB->arg_size() == 6)
        Sites.push_back(CB);
  bool Changed = false;
  FunctionCallee Hcrt;
  for (CallBase *CB : Sites) {
    if (!describe(*CB))
      continue;
    if (!Hcrt)
      Hcrt = M.getOrInsertFunction(
          "__hcrt_target_kernel", Tgt->getFunctionType(), Tgt->getAttributes());
    CB->setCalledFunction(Hcrt);
    Changed = true;
  }
  return Changed;
}

// clang-19's omp.h defines omp_is_initial_device for device={kind(host)}
// as `return 1` (a declare variant the frontend emits as an internal
// "omp_is_initial_device$ompvariant...host" function, folded only later by
// inlining). With hcc the same host code runs as a kernel on a worker
// node, where the answer is 0: calls go to the library routine instead,
// which the runtime-call lowering turns into __hcrt_omp_is_initial_device
// (1 outside kernels, as before). In C++ the variant is a static function
// with an Itanium name, "_ZL44omp_is_initial_device$ompvariant...hostv".
bool useRuntimeDeviceQueries(Module &M) {
  bool Changed = false;
  for (Function &F : make_early_inc_range(M)) {
    StringRef N = F.getName();
    if (N.consume_front("_ZL") || N.consume_front("_Z"))
      N = N.ltrim("0123456789");
    if (!N.starts_with("omp_is_initial_device$ompvariant") ||
        !N.contains("host") || N.contains("nohost") ||
        F.getFunctionType()->getNumParams() != 0 ||
        !F.getReturnType()->isIntegerTy(32))
      continue;
    FunctionCallee Lib =
        M.getOrInsertFunction("omp_is_initial_device", F.getFunctionType());
    F.replaceAllUsesWith(Lib.getCallee());
    if (F.hasLocalLinkage())
      F.eraseFromParent();
    Changed = true;
  }
  return Changed;
}

} // namespace

bool lowerTargets(Module &M) {
  bool Changed = useRuntimeDeviceQueries(M);
  return TargetLowerer(M).run() || Changed;
}

} // namespace hcc
