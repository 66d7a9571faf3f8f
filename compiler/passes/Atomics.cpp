//===- Atomics.cpp - hcc-atomics
//--------------------------------------------===//
//
// Region code runs on several nodes over the DSM, where a hardware atomic is
// only atomic within one node. atomicrmw, cmpxchg and atomic loads/stores in
// code that may run in a region become __hcrt_atomic_* calls; code only the
// head's serial part runs (main, static functions only it calls) keeps its
// hardware atomics.
//
//===----------------------------------------------------------------------===//

#include "Atomics.h"
#include "Common.h"
#include "RuntimeCalls.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {
namespace {

// C11/GCC __ATOMIC_* values.
int cOrder(AtomicOrdering O) {
  switch (O) {
  case AtomicOrdering::Acquire:
    return 2;
  case AtomicOrdering::Release:
    return 3;
  case AtomicOrdering::AcquireRelease:
    return 4;
  case AtomicOrdering::SequentiallyConsistent:
    return 5;
  default:
    return 0;
  }
}

const char *rmwName(AtomicRMWInst::BinOp Op) {
  switch (Op) {
  case AtomicRMWInst::Xchg:
    return "xchg";
  case AtomicRMWInst::Add:
    return "add";
  case AtomicRMWInst::Sub:
    return "sub";
  case AtomicRMWInst::And:
    return "and";
  case AtomicRMWInst::Nand:
    return "nand";
  case AtomicRMWInst::Or:
    return "or";
  case AtomicRMWInst::Xor:
    return "xor";
  case AtomicRMWInst::Max:
    return "max";
  case AtomicRMWInst::Min:
    return "min";
  case AtomicRMWInst::UMax:
    return "umax";
  case AtomicRMWInst::UMin:
    return "umin";
  case AtomicRMWInst::FAdd:
    return "fadd";
  case AtomicRMWInst::FSub:
    return "fsub";
  case AtomicRMWInst::FMax:
    return "fmax";
  case AtomicRMWInst::FMin:
    return "fmin";
  default:
    return nullptr;
  }
}

class AtomicLowerer {
public:
  explicit AtomicLowerer(Module &M) : M(M), DL(M.getDataLayout()) {}
  bool lower(Instruction &I);

private:
  unsigned widthOf(Type *T) const;
  FunctionCallee callee(StringRef Name, Type *Ret, ArrayRef<Type *> Params);
  Value *toInt(IRBuilder<> &B, Value *V, unsigned Bytes);
  Value *fromInt(IRBuilder<> &B, Value *V, Type *T);
  bool lowerRMW(AtomicRMWInst &I);
  bool lowerCmpXchg(AtomicCmpXchgInst &I);
  bool lowerLoad(LoadInst &I);
  bool lowerStore(StoreInst &I);
  bool lowerGuardLoad(LoadInst &I);

  Module &M;
  const DataLayout &DL;
};

// 0 when T has no __hcrt_atomic_* entry (i128, x86_fp80, vectors...).
unsigned AtomicLowerer::widthOf(Type *T) const {
  if (!T->isIntegerTy() && !T->isPointerTy() && !T->isFloatTy() &&
      !T->isDoubleTy())
    return 0;
  unsigned Bytes = DL.getTypeStoreSize(T);
  return (Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8) &&
                 DL.getTypeSizeInBits(T) == Bytes * 8
             ? Bytes
             : 0;
}

FunctionCallee AtomicLowerer::callee(StringRef Name, Type *Ret,
                                     ArrayRef<Type *> Params) {
  FunctionCallee FC =
      M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
  // uint8_t/uint16_t are zero-extended in the C calling convention.
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    for (unsigned I = 0; I < Params.size(); ++I)
      if (Params[I]->isIntegerTy() && Params[I]->getIntegerBitWidth() < 32)
        F->addParamAttr(I, Attribute::ZExt);
    if (Ret->isIntegerTy() && Ret->getIntegerBitWidth() < 32)
      F->addRetAttr(Attribute::ZExt);
    F->addFnAttr(Attribute::NoUnwind);
  }
  return FC;
}

Value *AtomicLowerer::toInt(IRBuilder<> &B, Value *V, unsigned Bytes) {
  Type *IT = B.getIntNTy(Bytes * 8);
  if (V->getType()->isPointerTy())
    return B.CreatePtrToInt(V, IT);
  return B.CreateBitCast(V, IT);
}

Value *AtomicLowerer::fromInt(IRBuilder<> &B, Value *V, Type *T) {
  if (T->isPointerTy())
    return B.CreateIntToPtr(V, T);
  return B.CreateBitCast(V, T);
}

// Calls keep the __hcrt_ argument types: the result is rebuilt in the type
// of the original instruction, then the original is replaced.
static void replace(Instruction &I, Value *V) {
  I.replaceAllUsesWith(V);
  I.eraseFromParent();
}

bool AtomicLowerer::lowerRMW(AtomicRMWInst &I) {
  Type *T = I.getValOperand()->getType();
  unsigned N = widthOf(T);
  const char *Op = rmwName(I.getOperation());
  if (!N || !Op || I.getPointerAddressSpace() != 0) {
    warn(I, "atomicrmw of this type or operation has no cluster-wide "
            "implementation; it is atomic within one node only");
    return false;
  }
  IRBuilder<> B(&I);
  Value *Order = B.getInt32(cOrder(I.getOrdering()));
  Value *R;
  if (I.isFloatingPointOperation()) {
    std::string Name =
        (Twine("__hcrt_atomic_") + Op + "_" + (T->isFloatTy() ? "f32" : "f64"))
            .str();
    R = B.CreateCall(callee(Name, T, {B.getPtrTy(), T, B.getInt32Ty()}),
                     {I.getPointerOperand(), I.getValOperand(), Order});
  } else {
    Type *IT = B.getIntNTy(N * 8);
    std::string Name = (Twine("__hcrt_atomic_") + Op + "_" + Twine(N)).str();
    R = B.CreateCall(
        callee(Name, IT, {B.getPtrTy(), IT, B.getInt32Ty()}),
        {I.getPointerOperand(), toInt(B, I.getValOperand(), N), Order});
    R = fromInt(B, R, T);
  }
  replace(I, R);
  return true;
}

bool AtomicLowerer::lowerCmpXchg(AtomicCmpXchgInst &I) {
  Type *T = I.getCompareOperand()->getType();
  unsigned N = widthOf(T);
  if (!N || I.getPointerAddressSpace() != 0) {
    warn(I, "cmpxchg of this type has no cluster-wide implementation; it is "
            "atomic within one node only");
    return false;
  }
  IRBuilder<> B(&I);
  Type *IT = B.getIntNTy(N * 8);
  Value *Exp = toInt(B, I.getCompareOperand(), N);
  Value *Old = B.CreateCall(
      callee("__hcrt_atomic_cas_" + std::to_string(N), IT,
             {B.getPtrTy(), IT, IT, B.getInt32Ty(), B.getInt32Ty()}),
      {I.getPointerOperand(), Exp, toInt(B, I.getNewValOperand(), N),
       B.getInt32(cOrder(I.getSuccessOrdering())),
       B.getInt32(cOrder(I.getFailureOrdering()))});
  Value *Ok = B.CreateICmpEQ(Old, Exp);
  Value *Res = UndefValue::get(I.getType());
  Res = B.CreateInsertValue(Res, fromInt(B, Old, T), 0);
  Res = B.CreateInsertValue(Res, Ok, 1);
  replace(I, Res);
  return true;
}

bool AtomicLowerer::lowerLoad(LoadInst &I) {
  unsigned N = widthOf(I.getType());
  if (!N || I.getPointerAddressSpace() != 0) {
    warn(I, "atomic load of this type has no cluster-wide implementation");
    return false;
  }
  IRBuilder<> B(&I);
  Type *IT = B.getIntNTy(N * 8);
  Value *V = B.CreateCall(
      callee("__hcrt_atomic_load_" + std::to_string(N), IT,
             {B.getPtrTy(), B.getInt32Ty()}),
      {I.getPointerOperand(), B.getInt32(cOrder(I.getOrdering()))});
  replace(I, fromInt(B, V, I.getType()));
  return true;
}

bool AtomicLowerer::lowerStore(StoreInst &I) {
  Type *T = I.getValueOperand()->getType();
  unsigned N = widthOf(T);
  if (!N || I.getPointerAddressSpace() != 0) {
    warn(I, "atomic store of this type has no cluster-wide implementation");
    return false;
  }
  IRBuilder<> B(&I);
  Type *IT = B.getIntNTy(N * 8);
  B.CreateCall(callee("__hcrt_atomic_store_" + std::to_string(N), B.getVoidTy(),
                      {B.getPtrTy(), IT, B.getInt32Ty()}),
               {I.getPointerOperand(), toInt(B, I.getValueOperand(), N),
                B.getInt32(cOrder(I.getOrdering()))});
  I.eraseFromParent();
  return true;
}

// The guard variable of a C++ function-local static (_ZGV...).
bool isGuardVariable(Value *P) {
  auto *GV = dyn_cast<GlobalVariable>(P->stripPointerCasts());
  return GV && GV->getName().starts_with("_ZGV");
}

// The inline fast path of a function-local static, `load atomic i8 acquire`
// of its guard, asks __hcrt_cxa_guard_done instead: "initialised" must come
// with the initialiser's writes, so on a node it is true only once that
// node acquired after the initialisation (libhcrt/guard.c).
bool AtomicLowerer::lowerGuardLoad(LoadInst &I) {
  IRBuilder<> B(&I);
  Value *V = B.CreateCall(
      callee("__hcrt_cxa_guard_done", B.getInt8Ty(), {B.getPtrTy()}),
      {I.getPointerOperand()});
  replace(I, V);
  return true;
}

bool AtomicLowerer::lower(Instruction &I) {
  if (auto *LI = dyn_cast<LoadInst>(&I);
      LI && LI->isAtomic() && isGuardVariable(LI->getPointerOperand()))
    return LI->getType()->isIntegerTy(8) && lowerGuardLoad(*LI);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return lowerRMW(*RMW);
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return lowerCmpXchg(*CX);
  if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->isAtomic())
    return lowerLoad(*LI);
  if (auto *SI = dyn_cast<StoreInst>(&I); SI && SI->isAtomic())
    return lowerStore(*SI);
  return false;
}

// Functions that may run inside a parallel region: the module's own region
// code, and every function another module can call (external linkage) or
// reach through a pointer (address taken: callbacks, std::function
// invokers, virtual calls), with what they call. A region in another file
// calling one of them runs it on every node; per-module analysis cannot
// rule that out. The program's main is only called by the runtime.
SetVector<Function *> maybeRegionFunctions(Module &M) {
  SetVector<Function *> Roots = regionFunctions(M);
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName() == "main" ||
        F.getName() == "__hcrt_user_main")
      continue;
    if (!F.hasLocalLinkage() || F.hasAddressTaken())
      Roots.insert(&F);
  }
  return calleeClosure(Roots);
}

} // namespace

bool lowerAtomics(Module &M) {
  AtomicLowerer L(M);
  bool Changed = false;
  SetVector<Function *> HeadOnly = headOnlyFunctions(M);
  for (Function *F : maybeRegionFunctions(M)) {
    if (HeadOnly.contains(F))
      continue; // runs in libomp on one node: hardware atomics are right
    SmallVector<Instruction *, 16> Work;
    for (Instruction &I : instructions(*F))
      if (I.isAtomic() && !isa<FenceInst>(I))
        Work.push_back(&I);
    for (Instruction *I : Work)
      Changed |= L.lower(*I);
  }
  return Changed;
}

} // namespace hcc
