//===- Heap.cpp - hcc-heap
//---------------------------------------------------===//
//
// User heap memory may be shared with regions on other nodes, so the C heap
// entry points are redirected to the DSM heap. Functions named __hcrt_* and
// modules that define their own allocator keep the C library's.
//
//===----------------------------------------------------------------------===//

#include "Heap.h"
#include "Common.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace hcc {

static const char *const HeapNames[] = {
    "malloc",        "calloc",         "realloc", "free",
    "aligned_alloc", "posix_memalign", "memalign"};

bool lowerHeap(Module &M) {
  bool Changed = false;
  for (const char *Name : HeapNames) {
    Function *F = M.getFunction(Name);
    if (!F || !F->isDeclaration())
      continue; // absent, or the user's own allocator
    FunctionCallee Twin =
        M.getOrInsertFunction((Twine("__hcrt_") + Name).str(),
                              F->getFunctionType(), F->getAttributes());
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
