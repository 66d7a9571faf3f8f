//===- MainWrap.cpp - hcc-main
//------------------------------------------------===//
//
// Every rank runs the same executable, but only the head runs the user's
// program: the user's `main` becomes __hcrt_user_main and a new `main`
// hands it to __hcrt_main, which initialises the runtime (MPI, DSM, roles).
// Works for C's main(), main(argc, argv), main(argc, argv, envp) and for
// flang-new's `main` (which calls _QQmain).
//
//===----------------------------------------------------------------------===//

#include "MainWrap.h"
#include "Common.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {

// An adapter with hcrt_main_fn_t's type around a main of another shape.
static Function *adapter(Module &M, Function *User, FunctionType *MainTy) {
  if (User->getFunctionType() == MainTy)
    return User;
  Function *A = Function::Create(MainTy, GlobalValue::InternalLinkage,
                                 "__hcrt_user_main.adapter", M);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", A));
  SmallVector<Value *, 3> Args;
  FunctionType *UT = User->getFunctionType();
  for (unsigned I = 0; I < UT->getNumParams() && I < 3; ++I)
    Args.push_back(B.CreateZExtOrBitCast(A->getArg(I), UT->getParamType(I)));
  Value *R = B.CreateCall(UT, User, Args);
  if (UT->getReturnType()->isIntegerTy())
    B.CreateRet(B.CreateSExtOrTrunc(R, B.getInt32Ty()));
  else
    B.CreateRet(B.getInt32(0));
  return A;
}

bool wrapMain(Module &M) {
  Function *User = M.getFunction("main");
  if (!User || User->isDeclaration())
    return false;
  FunctionType *UT = User->getFunctionType();
  if (UT->getNumParams() > 3 || UT->isVarArg()) {
    warn(*User, "unexpected signature of 'main'; the runtime will start "
                "lazily and the program runs on the head node only");
    return false;
  }
  LLVMContext &Ctx = M.getContext();
  auto *I32 = Type::getInt32Ty(Ctx);
  auto *PtrTy = PointerType::getUnqual(Ctx);
  auto *MainTy = FunctionType::get(I32, {I32, PtrTy, PtrTy}, false);
  User->setName("__hcrt_user_main");
  User->setLinkage(GlobalValue::InternalLinkage);
  Function *Fn = adapter(M, User, MainTy);

  Function *Main =
      Function::Create(MainTy, GlobalValue::ExternalLinkage, "main", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Main));
  FunctionCallee HM = M.getOrInsertFunction(
      "__hcrt_main", FunctionType::get(I32, {I32, PtrTy, PtrTy, PtrTy}, false));
  B.CreateRet(B.CreateCall(
      HM, {Main->getArg(0), Main->getArg(1), Main->getArg(2), Fn}));
  return true;
}

} // namespace hcc
