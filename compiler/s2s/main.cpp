//===- main.cpp - hcc-s2s entry point ------------------------------------===//
//
// hcc-s2s [--no-warnings] [--report-unchanged] [--no-default-schedule]
//         [-o OUT] [--overlay YAML [--header-dir DIR]] FILE -- ARGS...
//
// Writes FILE, rewritten for hcc, to OUT (default: stdout), starting with
// `#line 1 "FILE"` so every diagnostic and debug location names FILE. The
// user's headers FILE includes are rewritten too (Sources.h): with
// --overlay, their rewritten copies go to DIR (default: YAML's directory)
// and YAML, a clang VFS overlay, shows OUT and them at the user's paths.
// Exit status: 0 rewritten; 1 error in hcc syntax (reported); 2 clang could
// not parse FILE: the outputs then hold only the clause rewrites, and the
// driver compiles them so that clang reports the real errors; 3 (only with
// --report-unchanged, as the driver runs it) nothing to rewrite: the driver
// then compiles FILE itself, so a program without extensions builds bit for
// bit as without s2s.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "PragmaRewrite.h"
#include "Sources.h"
#include "pragma_scan.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace llvm;

namespace {

/// Counts errors but prints nothing: the real compile step reports clang's
/// own diagnostics, so printing them here would show each one twice.
class SilentConsumer : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level L,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(L, Info);
  }
};

struct Options {
  std::string Input, Output = "-";
  std::string Overlay, HeaderDir; ///< where rewritten headers are shown/go
  bool Warnings = true;
  bool ReportUnchanged = false;
  bool DefaultSchedule = true; ///< clause-less loops: implementation's choice
  std::vector<std::string> CompilerArgs;
};

int usage(const char *Msg) {
  errs() << "hcc-s2s: error: " << Msg
         << "\nusage: hcc-s2s [--no-warnings] [--no-default-schedule] "
            "[-o OUT] [--overlay YAML [--header-dir DIR]] FILE -- "
            "COMPILER-ARGS...\n";
  return 1;
}

bool parseArgs(int Argc, char **Argv, Options &O) {
  int I = 1;
  for (; I < Argc && StringRef(Argv[I]) != "--"; ++I) {
    StringRef A = Argv[I];
    if (A == "--no-warnings")
      O.Warnings = false;
    else if (A == "--report-unchanged")
      O.ReportUnchanged = true;
    else if (A == "--no-default-schedule")
      O.DefaultSchedule = false;
    else if (A == "-o" && I + 1 < Argc)
      O.Output = Argv[++I];
    else if (A == "--overlay" && I + 1 < Argc)
      O.Overlay = Argv[++I];
    else if (A == "--header-dir" && I + 1 < Argc)
      O.HeaderDir = Argv[++I];
    else if (A.starts_with("-") && A != "-")
      return usage(("unknown option '" + A + "'").str().c_str()), false;
    else if (O.Input.empty())
      O.Input = A.str();
    else
      return usage("more than one input file"), false;
  }
  for (++I; I < Argc; ++I)
    O.CompilerArgs.push_back(Argv[I]);
  if (O.Input.empty())
    return usage("no input file"), false;
  if (O.HeaderDir.empty() && !O.Overlay.empty())
    O.HeaderDir = sys::path::parent_path(hcc::overlayKey(O.Overlay)).str();
  return true;
}

/// The clang command line for FILE: the user's flags plus what a parse
/// for analysis needs. Discovery and analysis see the includes exactly as
/// the compile step will.
std::vector<std::string> clangCommand(const Options &O) {
  std::vector<std::string> Cmd{"hcc-s2s"};
  bool HasResourceDir = false;
  for (const std::string &A : O.CompilerArgs) {
    HasResourceDir |= StringRef(A).starts_with("-resource-dir");
    Cmd.push_back(A);
  }
  if (!HasResourceDir)
    Cmd.insert(Cmd.begin() + 1, {"-resource-dir", HCC_S2S_RESOURCE_DIR});
  // -w: clang's warnings (and -Werror) belong to the real compile step.
  // -fno-caret-diagnostics also drops the "N errors generated" line.
  for (const char *A :
       {"-fsyntax-only", "-w", "-fopenmp", "-fno-caret-diagnostics"})
    Cmd.push_back(A);
  Cmd.push_back(O.Input);
  return Cmd;
}

/// Builds and analyses the AST with the scanned texts shown at the files'
/// own paths, so "" includes, guards and __FILE__ behave as usual.
bool analyse(const Options &O, const std::vector<hcc::SourceFile> &Files,
             hcc::AnalysisOptions &AO, hcc::AnalysisResult &Res) {
  auto Overlay =
      makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  auto Mem = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Overlay->pushOverlay(Mem);
  for (const hcc::SourceFile &F : Files) {
    if (!F.IsMain && F.Scanned == F.Original)
      continue;
    Mem->addFile(F.Paths.front(), 0,
                 MemoryBuffer::getMemBufferCopy(F.Scanned, F.Name));
    // One file under several names: one identity, as on disk (#pragma once).
    for (size_t I = 1; I < F.Paths.size(); ++I)
      Mem->addHardLink(F.Paths[I], F.Paths.front());
  }
  auto FM = makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(),
                                                    Overlay);
  // HCC_S2S_DEBUG=1 shows clang's diagnostics for this parse.
  SilentConsumer Silent;
  auto DiagOpts = makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter Printer(errs(), DiagOpts.get());
  const char *Debug = getenv("HCC_S2S_DEBUG");
  AO.Files = &Files;
  clang::tooling::ToolInvocation Inv(
      clangCommand(O), hcc::makeAnalysisAction(AO, Res), FM.get());
  if (Debug && *Debug && *Debug != '0')
    Inv.setDiagnosticConsumer(&Printer);
  else
    Inv.setDiagnosticConsumer(&Silent);
  bool Ok = Inv.run();
  return Ok && Res.Parsed;
}

/// The weak hint prototype (a program built with hcc -c still links
/// without libhcrt), then `#line 1` naming the user's file (a header, only
/// shown at its own path, keeps its name without one). The language
/// comes from the parse, not from __cplusplus, which is not defined when
/// the output is compiled as preprocessed input (.ii).
std::string prelude(StringRef Name, bool Prototype, bool CPlusPlus) {
  std::string P;
  // The pragmas keep -Weverything -Werror builds (reserved identifier)
  // working: this declaration is hcc's, not the user's.
  if (Prototype)
    P = std::string("#pragma clang diagnostic push\n"
                    "#pragma clang diagnostic ignored \"-Weverything\"\n") +
        (CPlusPlus ? "extern \"C\" " : "") +
        "__attribute__((weak)) void __hcrt_sched_hint(int, int, const char *, "
        "int);\n#pragma clang diagnostic pop\n";
  if (Name.empty())
    return P + "#line 1\n";
  return P + "#line 1 \"" + hcc::quoted(Name) + "\"\n";
}

bool writeFile(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream Out(Path, EC);
  if (!EC)
    Out << Text;
  if (EC || Out.has_error()) {
    errs() << "hcc-s2s: error: cannot write '" << Path
           << "': " << (EC ? EC : Out.error()).message() << "\n";
    Out.clear_error();
    return false;
  }
  return true;
}

/// A fresh file in the header directory, named after the header (no two
/// runs, even concurrent ones sharing the directory, pick the same name).
bool writeHeader(const Options &O, const hcc::SourceFile &F, StringRef Text,
                 std::string &Path) {
  SmallString<256> Model(O.HeaderDir);
  sys::path::append(Model, "%%%%%%%%-" + sys::path::filename(F.Name));
  int FD;
  SmallString<256> Made;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Made)) {
    errs() << "hcc-s2s: error: cannot create a file in '" << O.HeaderDir
           << "' for the rewritten '" << F.Name << "': " << EC.message()
           << "\n";
    return false;
  }
  raw_fd_ostream Out(FD, /*shouldClose=*/true);
  Out << Text;
  Path = std::string(Made);
  return true;
}

/// Writes the main file to OUT and, with --overlay, each changed header and
/// the overlay. A header with hcc clauses cannot compile unrewritten, so
/// without --overlay that is an error; one whose only change is the
/// default schedule of its loops is left as it is.
bool writeOutputs(const Options &O, const std::vector<hcc::SourceFile> &Files,
                  const hcc::AnalysisResult &Res) {
  std::vector<std::pair<std::string, std::string>> Map;
  bool Ok = true;
  for (size_t I = 0; I < Files.size(); ++I) {
    const hcc::SourceFile &F = Files[I];
    const hcc::FileOutput *R = I < Res.Files.size() ? &Res.Files[I] : nullptr;
    std::string Text = R && R->Changed ? R->Text : F.Scanned;
    if (F.IsMain) {
      Text = prelude(F.Name, Res.HintsPlaced > 0, Res.CPlusPlus) + Text;
      Ok &= writeFile(O.Output, Text);
      if (Ok && O.Output != "-")
        Map.push_back({F.Paths.front(), O.Output});
      continue;
    }
    if (Text == F.Original)
      continue;
    if (O.Overlay.empty()) {
      if (F.Hints.empty() && !(R && R->Changed))
        continue;
      errs() << "hcc-s2s: error: the header '" << F.Name
             << "' has hcc clauses: pass --overlay FILE to write it "
                "rewritten, then compile with -ivfsoverlay FILE\n";
      Ok = false;
      continue;
    }
    if (R && R->HintsPlaced > 0 && R->BeforeMain)
      Text = prelude("", true, Res.CPlusPlus) + Text;
    std::string Path;
    if (!writeHeader(O, F, Text, Path))
      return false;
    for (const std::string &P : F.Paths)
      Map.push_back({P, Path});
  }
  if (Ok && !O.Overlay.empty())
    Ok = hcc::writeOverlay(O.Overlay, Map, errs());
  return Ok;
}

bool readFile(hcc::SourceFile &F) {
  auto Buf = MemoryBuffer::getFile(F.IsMain ? F.Name : F.Paths.front(),
                                   /*IsText=*/true);
  if (!Buf) {
    errs() << "hcc-s2s: error: cannot read '" << F.Name
           << "': " << Buf.getError().message() << "\n";
    return false;
  }
  F.Original = (*Buf)->getBuffer().str();
  return true;
}

/// The textual pass over every file of the unit. A nowait in one file may
/// chain an orphaned loop in another, so it counts for all of them.
bool scanAll(const Options &O, std::vector<hcc::SourceFile> &Files) {
  int Mode = HCC_SCAN_NO_DEFAULTS;
  if (O.DefaultSchedule) {
    Mode = HCC_SCAN_DEFAULTS;
    for (const hcc::SourceFile &F : Files)
      if (Files.size() > 1 &&
          hcc_mentions_word(F.Original.data(), F.Original.size(), "nowait"))
        Mode = HCC_SCAN_DEFAULTS_NOWAIT;
  }
  bool Ok = true;
  for (hcc::SourceFile &F : Files)
    Ok &= hcc::rewriteScheduleClauses(F.Original, F.Name, Mode, F.Scanned,
                                      F.Hints, F.Defaults, errs());
  return Ok;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parseArgs(Argc, Argv, O))
    return 1;
  std::vector<hcc::SourceFile> Files(1);
  Files[0].IsMain = true;
  Files[0].Name = O.Input;
  Files[0].Paths.push_back(hcc::overlayKey(O.Input));
  if (!readFile(Files[0]))
    return 1;
  hcc::findUserHeaders(clangCommand(O), Files);
  for (size_t I = 1; I < Files.size(); ++I)
    if (!readFile(Files[I]))
      return 1;
  if (!scanAll(O, Files))
    return 1;
  bool Hints = false, Analyse = false, Changed = false;
  for (const hcc::SourceFile &F : Files) {
    Hints |= !F.Hints.empty();
    Analyse |= O.Warnings && hcc::mayNeedAnalysis(F.Scanned);
    Changed |= F.Defaults > 0 || !F.Hints.empty();
  }
  // Nothing to place and nothing to warn about: skip the parse, which costs
  // as much as a -O0 compile of the file.
  if (!Hints && !Analyse) {
    if (O.ReportUnchanged && !Changed)
      return 3;
    return writeOutputs(O, Files, hcc::AnalysisResult()) ? 0 : 1;
  }
  hcc::AnalysisOptions AO;
  AO.Warnings = O.Warnings;
  hcc::AnalysisResult Res;
  bool Parsed = analyse(O, Files, AO, Res);
  if (!Parsed)
    Res = hcc::AnalysisResult(); // clause rewrites only
  if (!writeOutputs(O, Files, Res))
    return 1;
  if (!Parsed)
    return 2;
  return O.ReportUnchanged && !Changed && Res.HintsPlaced == 0 ? 3 : 0;
}
