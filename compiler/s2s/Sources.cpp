//===- Sources.cpp - the files of a translation unit s2s rewrites --------===//
#include "Sources.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace hcc {

std::string overlayKey(StringRef Path) {
  SmallString<256> Abs(Path);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return std::string(Abs);
}

std::string quoted(StringRef S) {
  std::string Q;
  for (char C : S) {
    if (C == '"' || C == '\\')
      Q += '\\';
    Q += C;
  }
  return Q;
}

namespace {

/// Under /usr: installed software, a system header for hcc's purposes
/// even when found through -I (e.g. -I/usr/include/foo).
bool isUnderUsr(StringRef Key) {
  SmallString<256> Real;
  if (!sys::fs::real_path(Key, Real))
    if (StringRef(Real).starts_with("/usr/"))
      return true;
  return Key.starts_with("/usr/");
}

/// Records every user file an #include resolves to, skipped by its guard
/// or not (the same header may be reached by two spellings).
class IncludeCollector : public PPCallbacks {
public:
  explicit IncludeCollector(std::vector<SourceFile> &Files) : Files(Files) {
    for (const std::string &P : Files.front().Paths)
      Known[P] = 0;
  }

  void InclusionDirective(SourceLocation, const Token &, StringRef, bool,
                          CharSourceRange, OptionalFileEntryRef File, StringRef,
                          StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind Kind) override {
    if (File && Kind == SrcMgr::C_User)
      add(*File);
  }

private:
  std::vector<SourceFile> &Files;
  std::map<std::string, size_t> Known; // path -> index in Files
  std::map<sys::fs::UniqueID, size_t> ByID;

  void add(FileEntryRef F) {
    std::string Key = overlayKey(F.getName());
    if (Known.count(Key) || isUnderUsr(Key))
      return;
    auto It = ByID.find(F.getUniqueID());
    if (It != ByID.end()) {
      Files[It->second].Paths.push_back(Key);
      Known[Key] = It->second;
      return;
    }
    SourceFile SF;
    SF.Name = F.getName().str();
    SF.Paths.push_back(Key);
    ByID[F.getUniqueID()] = Known[Key] = Files.size();
    Files.push_back(std::move(SF));
  }
};

class DiscoverAction : public PreprocessOnlyAction {
public:
  explicit DiscoverAction(std::vector<SourceFile> &Files) : Files(Files) {}
  bool BeginSourceFileAction(CompilerInstance &CI) override {
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<IncludeCollector>(Files));
    return true;
  }

private:
  std::vector<SourceFile> &Files;
};

} // namespace

void findUserHeaders(const std::vector<std::string> &Cmd,
                     std::vector<SourceFile> &Files) {
  auto FM = makeIntrusiveRefCnt<FileManager>(FileSystemOptions(),
                                             vfs::getRealFileSystem());
  IgnoringDiagConsumer Silent; // the compile step reports clang's errors
  tooling::ToolInvocation Inv(Cmd, std::make_unique<DiscoverAction>(Files),
                              FM.get());
  Inv.setDiagnosticConsumer(&Silent);
  Inv.run(); // a fatal error (missing header) ends the walk: keep what we saw
}

bool writeOverlay(StringRef Out,
                  ArrayRef<std::pair<std::string, std::string>> Map,
                  raw_ostream &Errs) {
  vfs::YAMLVFSWriter W;
  W.setUseExternalNames(false);
  for (const auto &[Virtual, Real] : Map)
    W.addFileMapping(Virtual, overlayKey(Real));
  std::error_code EC;
  raw_fd_ostream OS(Out, EC);
  if (EC) {
    Errs << "hcc-s2s: error: cannot write '" << Out << "': " << EC.message()
         << "\n";
    return false;
  }
  W.write(OS);
  return true;
}

} // namespace hcc
