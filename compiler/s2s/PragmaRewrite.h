//===- PragmaRewrite.h - hcc clause extensions, textual pass ---*- C++ -*-===//
//
// clang's OpenMP parser rejects schedule(hetprobe[, pct]) and
// schedule(hetprobe_i[, pct]), so they are rewritten to schedule(runtime)
// in the raw text before clang sees the file; worksharing loops without a
// schedule clause get the implementation's schedule (pragma_scan.h). The
// rewrite never adds or removes a line, so every later location is the
// user's location.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_S2S_PRAGMAREWRITE_H
#define HCC_S2S_PRAGMAREWRITE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace hcc {

// Values of hcrt_sched_hint_kind_t in include/hcrt/abi.h.
enum SchedHintKind { HintHetProbe = 1, HintHetProbeI = 2 };

/// One extended schedule clause found in the text.
struct SchedHint {
  unsigned DirectiveLine; ///< line of the `#` or `_Pragma` starting it
  SchedHintKind Kind;
  int Percent; ///< 1..100, or 0 for the runtime's default
};

/// Rewrites every extended schedule clause in `Src` and, as `DefaultMode`
/// (HCC_SCAN_* of pragma_scan.h) says, gives clause-less loops the
/// implementation's schedule (`NumDefault` of them). Prints clang-style
/// errors (naming `FileName`) to `Errs` for malformed clauses and returns
/// false if there were any.
bool rewriteScheduleClauses(llvm::StringRef Src, llvm::StringRef FileName,
                            int DefaultMode, std::string &Out,
                            std::vector<SchedHint> &Hints, unsigned &NumDefault,
                            llvm::raw_ostream &Errs);

} // namespace hcc

#endif
