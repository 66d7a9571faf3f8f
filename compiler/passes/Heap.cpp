//===- Heap.cpp - hcc-heap
//---------------------------------------------------===//
//
// User heap memory may be shared with regions on other nodes, so the C heap
// entry points and C++'s replaceable global operator new/delete (every form:
// array, nothrow, sized, aligned) are redirected to the DSM heap. Functions
// named __hcrt_* and modules that define their own allocator keep the
// library's. Allocations made inside libstdc++.so itself are not seen.
//
//===----------------------------------------------------------------------===//

#include "Heap.h"
#include "Common.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {

static const char *const HeapNames[][2] = {
    {"malloc", "__hcrt_malloc"},
    {"calloc", "__hcrt_calloc"},
    {"realloc", "__hcrt_realloc"},
    {"free", "__hcrt_free"},
    {"aligned_alloc", "__hcrt_aligned_alloc"},
    {"posix_memalign", "__hcrt_posix_memalign"},
    {"memalign", "__hcrt_memalign"},
    // Itanium C++ ABI (x86_64: size_t is m, align_val_t a size_t enum).
    {"_Znwm", "__hcrt_cxx_new"},
    {"_Znam", "__hcrt_cxx_new_array"},
    {"_ZnwmRKSt9nothrow_t", "__hcrt_cxx_new_nothrow"},
    {"_ZnamRKSt9nothrow_t", "__hcrt_cxx_new_array_nothrow"},
    {"_ZnwmSt11align_val_t", "__hcrt_cxx_new_aligned"},
    {"_ZnamSt11align_val_t", "__hcrt_cxx_new_array_aligned"},
    {"_ZnwmSt11align_val_tRKSt9nothrow_t", "__hcrt_cxx_new_aligned_nothrow"},
    {"_ZnamSt11align_val_tRKSt9nothrow_t",
     "__hcrt_cxx_new_array_aligned_nothrow"},
    {"_ZdlPv", "__hcrt_cxx_delete"},
    {"_ZdaPv", "__hcrt_cxx_delete_array"},
    {"_ZdlPvm", "__hcrt_cxx_delete_sized"},
    {"_ZdaPvm", "__hcrt_cxx_delete_array_sized"},
    {"_ZdlPvRKSt9nothrow_t", "__hcrt_cxx_delete_nothrow"},
    {"_ZdaPvRKSt9nothrow_t", "__hcrt_cxx_delete_array_nothrow"},
    {"_ZdlPvSt11align_val_t", "__hcrt_cxx_delete_aligned"},
    {"_ZdaPvSt11align_val_t", "__hcrt_cxx_delete_array_aligned"},
    {"_ZdlPvmSt11align_val_t", "__hcrt_cxx_delete_sized_aligned"},
    {"_ZdaPvmSt11align_val_t", "__hcrt_cxx_delete_array_sized_aligned"},
    {"_ZdlPvSt11align_val_tRKSt9nothrow_t",
     "__hcrt_cxx_delete_aligned_nothrow"},
    {"_ZdaPvSt11align_val_tRKSt9nothrow_t",
     "__hcrt_cxx_delete_array_aligned_nothrow"}};

bool lowerHeap(Module &M) {
  bool Changed = false;
  for (const auto &Names : HeapNames) {
    Function *F = M.getFunction(Names[0]);
    if (!F || !F->isDeclaration())
      continue; // absent, or the user's own allocator
    FunctionCallee Twin = M.getOrInsertFunction(Names[1], F->getFunctionType(),
                                                F->getAttributes());
    for (Use &U : make_early_inc_range(F->uses())) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I || isRuntimeFunction(*I->getFunction()))
        continue;
      U.set(Twin.getCallee());
      Changed = true;
    }
  }
  return Changed;
}

} // namespace hcc
