//===- ModuleDesc.cpp - hcc-module
//---------------------------------------------===//
//
// Gathers the region and kernel descriptors the other passes created into
// one table each, and emits the module's hcrt_module_desc_t and a
// constructor (priority 101, before user constructors) registering it and
// the module's task sites (hcc-tasks), if any.
//
//===----------------------------------------------------------------------===//

#include "ModuleDesc.h"
#include "Common.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace hcc {

constexpr unsigned AbiVersion = 3; // HCRT_ABI_VERSION of include/hcrt/abi.h

// Replaces the globals named Prefix* by the elements of one array; returns
// the array (or null) and the number of elements.
static std::pair<Constant *, unsigned> gather(Module &M, StringRef Prefix,
                                              StringRef TableName) {
  SmallVector<GlobalVariable *, 16> Descs;
  for (GlobalVariable &GV : M.globals())
    if (GV.getName().starts_with(Prefix) && GV.hasInitializer())
      Descs.push_back(&GV);
  auto *PtrTy = PointerType::getUnqual(M.getContext());
  if (Descs.empty())
    return {ConstantPointerNull::get(PtrTy), 0};
  Type *Ty = Descs.front()->getValueType();
  SmallVector<Constant *, 16> Elems;
  for (GlobalVariable *GV : Descs)
    Elems.push_back(GV->getInitializer());
  auto *ATy = ArrayType::get(Ty, Elems.size());
  auto *Table = new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                                   ConstantArray::get(ATy, Elems), TableName);
  Table->setAlignment(Align(8));
  auto *I32 = Type::getInt32Ty(M.getContext());
  for (unsigned I = 0; I < Descs.size(); ++I) {
    Constant *Idx[] = {ConstantInt::get(I32, 0), ConstantInt::get(I32, I)};
    Descs[I]->replaceAllUsesWith(
        ConstantExpr::getInBoundsGetElementPtr(ATy, Table, Idx));
    Descs[I]->eraseFromParent();
  }
  return {Table, (unsigned)Elems.size()};
}

// The linker's __start_/__stop_ symbols; weak so a program without shared
// globals links, hidden so each executable/library sees its own.
static Constant *linkerSymbol(Module &M, StringRef Name) {
  if (GlobalVariable *GV = M.getNamedGlobal(Name))
    return GV;
  auto *Ty = Type::getInt8Ty(M.getContext());
  auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::ExternalWeakLinkage,
                                nullptr, Name);
  GV->setVisibility(GlobalValue::HiddenVisibility);
  return GV;
}

static Constant *cstring(Module &M, StringRef S) {
  Constant *Init = ConstantDataArray::getString(M.getContext(), S);
  auto *GV =
      new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage,
                         Init, "__hcrt_module_name");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return GV;
}

// HCRT_MODULE_DEVICE_ADDR: a map-type table of the module's target
// constructs has RETURN_PARAM (0x40), i.e. use_device_ptr/use_device_addr.
static unsigned moduleFlags(Module &M) {
  for (GlobalVariable &GV : M.globals()) {
    if (!GV.getName().starts_with(".offload_maptypes") || !GV.hasInitializer())
      continue;
    auto *CDA = dyn_cast<ConstantDataArray>(GV.getInitializer());
    if (!CDA || !CDA->getElementType()->isIntegerTy(64))
      continue;
    for (unsigned I = 0; I < CDA->getNumElements(); ++I)
      if (CDA->getElementAsInteger(I) & 0x40)
        return 1; // HCRT_MODULE_DEVICE_ADDR of include/hcrt/abi.h
  }
  return 0;
}

bool emitModuleDescriptor(Module &M) {
  if (M.getNamedGlobal("__hcrt_module"))
    return false;
  LLVMContext &Ctx = M.getContext();
  auto *I32 = Type::getInt32Ty(Ctx);
  auto *I64 = Type::getInt64Ty(Ctx);
  auto *PtrTy = PointerType::getUnqual(Ctx);
  auto [Regions, NRegions] = gather(M, RegionDescPrefix, "__hcrt_regions");
  auto [Kernels, NKernels] = gather(M, KernelDescPrefix, "__hcrt_kernels");
  auto [Tasks, NTasks] = gather(M, TaskSiteDescPrefix, "__hcrt_tasks");

  StructType *Ty = StructType::create(Ctx,
                                      {I32, I32, PtrTy, I64, I32, I32, PtrTy,
                                       PtrTy, PtrTy, PtrTy, PtrTy, PtrTy},
                                      "struct.hcrt_module_desc");
  StringRef Id = M.getModuleIdentifier();
  Constant *Fields[] = {ConstantInt::get(I32, AbiVersion),
                        ConstantInt::get(I32, moduleFlags(M)),
                        cstring(M, Id),
                        ConstantInt::get(I64, fnv1a(Id)),
                        ConstantInt::get(I32, NRegions),
                        ConstantInt::get(I32, NKernels),
                        Regions,
                        Kernels,
                        linkerSymbol(M, "__start_hcrt_shared"),
                        linkerSymbol(M, "__stop_hcrt_shared"),
                        linkerSymbol(M, "__start_hcrt_shared_bss"),
                        linkerSymbol(M, "__stop_hcrt_shared_bss")};
  auto *Desc =
      new GlobalVariable(M, Ty, true, GlobalValue::InternalLinkage,
                         ConstantStruct::get(Ty, Fields), "__hcrt_module");
  Desc->setAlignment(Align(8));

  Function *Ctor =
      Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                       GlobalValue::InternalLinkage, "__hcrt_module_ctor", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
  B.CreateCall(
      M.getOrInsertFunction("__hcrt_register_module",
                            FunctionType::get(B.getVoidTy(), {PtrTy}, false)),
      {Desc});
  if (NTasks > 0)
    B.CreateCall(
        M.getOrInsertFunction(
            "__hcrt_register_tasks",
            FunctionType::get(B.getVoidTy(), {PtrTy, PtrTy, I32}, false)),
        {Desc, Tasks, ConstantInt::get(I32, NTasks)});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 101);
  return true;
}

} // namespace hcc
