//===- Globals.cpp - hcc-globals
//---------------------------------------------===//
//
// Writable globals are shared memory in an OpenMP program, so they move into
// the DSM-managed sections: "hcrt_shared" (initialised, PROGBITS) and
// "hcrt_shared_bss" (zero-initialised, NOBITS). An explicit section would
// make LLVM 19 emit even zero-initialised data as PROGBITS (a 1 GiB array
// would be 1 GiB of file), so zero-initialised globals get the "bss-section"
// attribute instead (what `#pragma clang section bss=` uses), which keeps
// them SHT_NOBITS. Each module ends both sections with a page-aligned,
// page-sized anchor: the output sections then start on a page (alignment)
// and end on one (the last object's anchor is last), so the DSM can protect
// them without touching neighbouring data such as libc's .bss.
//
//===----------------------------------------------------------------------===//

#include "Globals.h"
#include "Common.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace hcc {

static bool movable(const GlobalVariable &GV) {
  if (GV.isDeclaration() || GV.isConstant() || GV.isThreadLocal() ||
      GV.hasSection() || GV.hasImplicitSection() || !GV.hasInitializer())
    return false;
  StringRef N = GV.getName();
  if (N.starts_with("llvm.") || N.starts_with("__hcrt_") ||
      N.starts_with(".gomp_critical_user_") || N.starts_with(".omp") ||
      N.starts_with("__omp") || N.starts_with(".offload") ||
      N.starts_with(".__omp"))
    return false;
  return GV.getAddressSpace() == 0;
}

constexpr unsigned PageSize = 4096;

static void place(GlobalVariable &GV, bool Zero) {
  if (Zero)
    GV.addAttribute("bss-section", "hcrt_shared_bss");
  else
    GV.setSection("hcrt_shared");
}

static void addAnchor(Module &M, bool Zero, StringRef Name) {
  if (M.getNamedGlobal(Name))
    return;
  auto *Ty = ArrayType::get(Type::getInt8Ty(M.getContext()), PageSize);
  auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage,
                                Constant::getNullValue(Ty), Name);
  place(*GV, Zero);
  GV->setAlignment(Align(PageSize));
  appendToCompilerUsed(M, {GV});
}

bool lowerGlobals(Module &M) {
  bool Changed = false;
  for (GlobalVariable &GV : M.globals()) {
    if (!movable(GV))
      continue;
    // Common symbols (Fortran COMMON blocks, C with -fcommon) cannot carry
    // a section; a weak definition merges across objects the same way
    // (except that differently sized copies take the first one's size).
    if (GV.hasCommonLinkage())
      GV.setLinkage(GlobalValue::WeakAnyLinkage);
    place(GV, GV.getInitializer()->isNullValue());
    Changed = true;
  }
  if (Changed) {
    addAnchor(M, false, "__hcrt_shared_anchor");
    addAnchor(M, true, "__hcrt_shared_bss_anchor");
  }
  return Changed;
}

} // namespace hcc
