//===- RegionData.h - regions that work on their own data ----*- C++ -*-===//
#ifndef HCC_PASSES_REGIONDATA_H
#define HCC_PASSES_REGIONDATA_H

#include "llvm/ADT/StringRef.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace hcc {

/// The function attribute markRegionData gives a microtask whose region
/// works on its threads' own data.
inline constexpr llvm::StringLiteral OwnDataAttr = "hcc-own-data";

/// Marks every outlined parallel region of M whose code (the microtask, the
/// functions it calls directly, the regions and tasks it creates) works on
/// its threads' own data: it stores only to their stack slots and
/// threadprivate variables, to shared memory only by atomic operations and
/// the combining step of reduction clauses, reads no shared array (shared
/// scalars only), and passes no shared pointer to an external function
/// that may write through it. Runs on clang's IR, before the other
/// lowerings; ForkLowering copies the mark into the region's descriptor
/// (HCRT_REGION_OWN_DATA).
void markRegionData(llvm::Module &M);

/// Warns where a region stores to a global that its reduction clause
/// combines into, before the combine: clang 19 leaves the region's
/// references to a global's array section in a reduction unprivatized.
void warnUnprivatizedReductions(llvm::Module &M);

/// Whether markRegionData marked this microtask.
bool usesOwnData(const llvm::Function &Microtask);

} // namespace hcc

#endif
