//===- Sources.h - the files of a translation unit s2s rewrites -*- C++ -*-===//
//
// hcc clauses and clause-less loops may sit in the user's own headers as
// well as in the main file. s2s asks clang's preprocessor which headers the
// main file includes (with the compile flags, so "" lookups relative to the
// includer, -iquote/-I order, guards and #pragma once are clang's own),
// keeps the user's ones (not system headers: -isystem, the default system
// directories, anything under /usr), and writes the rewritten copies next
// to a VFS overlay that shows them to the compiler at their own paths. The
// originals are never touched, so parallel builds never race on them.
//
//===----------------------------------------------------------------------===//
#ifndef HCC_S2S_SOURCES_H
#define HCC_S2S_SOURCES_H

#include "PragmaRewrite.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>
#include <vector>

namespace hcc {

/// One file of the translation unit that s2s may rewrite.
struct SourceFile {
  std::string Name;               ///< as clang names it (messages, #line)
  std::vector<std::string> Paths; ///< absolute paths clang opens it by
  bool IsMain = false;
  std::string Original; ///< the text on disk
  std::string Scanned;  ///< after the textual pass
  std::vector<SchedHint> Hints;
  unsigned Defaults = 0; ///< loops given the implementation's schedule
};

/// Appends to `Files` the user headers the translation unit `Cmd` (a clang
/// command line whose input is `Files[0]`, the main file) includes,
/// directly or not, each once, with every path it is included by. A header
/// that cannot be found is left to the compile step to report.
void findUserHeaders(const std::vector<std::string> &Cmd,
                     std::vector<SourceFile> &Files);

/// The absolute, dot-free form of `Path`, as a VFS overlay looks it up.
std::string overlayKey(llvm::StringRef Path);

/// `S` quoted for a #line directive or a C string literal.
std::string quoted(llvm::StringRef S);

/// Writes a clang VFS overlay (-ivfsoverlay) showing each `.second` at the
/// path `.first`, under the user's names (use-external-names: false).
bool writeOverlay(llvm::StringRef Out,
                  llvm::ArrayRef<std::pair<std::string, std::string>> Map,
                  llvm::raw_ostream &Errs);

} // namespace hcc

#endif
