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
#include "Sources.h"

#include "clang/Frontend/FrontendAction.h"

#include <memory>
#include <string>
#include <vector>

namespace hcc {

struct AnalysisOptions {
  bool Warnings = true;
  /// The main file first, then the user's headers (Sources.h): hints are
  /// placed, and warnings given, in these files only.
  const std::vector<SourceFile> *Files = nullptr;
};

/// What the AST pass did to one of the files.
struct FileOutput {
  bool Changed = false; ///< hint calls were inserted
  std::string Text;     ///< the file with them (when Changed)
  unsigned HintsPlaced = 0;
  /// Included before the main file's first line (-include): the hint
  /// prototype at the top of the main file comes too late for it.
  bool BeforeMain = false;
};

struct AnalysisResult {
  bool Parsed = false;           ///< the AST was built without errors
  bool CPlusPlus = false;        ///< the file was parsed as C++
  std::vector<FileOutput> Files; ///< parallel to AnalysisOptions::Files
  unsigned HintsPlaced = 0;
  unsigned Warnings = 0;
};

/// False when `Text` (one file) names none of the library calls the
/// analysis reports, or no OpenMP at all: when that holds for every file
/// the AST pass has nothing to say and s2s can skip parsing.
bool mayNeedAnalysis(llvm::StringRef Text);

/// The frontend action; `Result` is filled when it ends.
std::unique_ptr<clang::FrontendAction>
makeAnalysisAction(const AnalysisOptions &Opts, AnalysisResult &Result);

} // namespace hcc

#endif
