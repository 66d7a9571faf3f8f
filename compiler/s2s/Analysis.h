//===- Analysis.h - AST pass of hcc-s2s ------------------------*- C++ -*-===//
//
// Runs on the text produced by PragmaRewrite: places the schedule hint
// calls (wrapping construct + loop in braces, so `if (c) #pragma omp ...`
// stays one statement) and reports code that is valid OpenMP but risky when
// iterations run on other nodes.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_S2S_ANALYSIS_H
#define HCC_S2S_ANALYSIS_H

#include "PragmaRewrite.h"

#include "clang/Frontend/FrontendAction.h"

#include <memory>
#include <string>
#include <vector>

namespace hcc {

struct AnalysisOptions {
  bool Warnings = true;
  std::vector<SchedHint> Hints;
};

struct AnalysisResult {
  bool Parsed = false;    ///< the AST was built without errors
  bool CPlusPlus = false; ///< the file was parsed as C++
  std::string Rewritten;  ///< main-file text with hint calls inserted
  unsigned HintsPlaced = 0;
  unsigned Warnings = 0;
};

/// False when `Text` (the main file) names none of the library calls the
/// analysis reports, or no OpenMP at all: then the AST pass has nothing to
/// say and the driver can skip parsing (only the main file is analysed).
bool mayNeedAnalysis(llvm::StringRef Text);

/// The frontend action; `Result` is filled when it ends.
std::unique_ptr<clang::FrontendAction>
makeAnalysisAction(const AnalysisOptions &Opts, AnalysisResult &Result);

} // namespace hcc

#endif
