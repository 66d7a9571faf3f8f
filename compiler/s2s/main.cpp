//===- main.cpp - hcc-s2s entry point ------------------------------------===//
//
// hcc-s2s [--no-warnings] [--report-unchanged] [-o OUT] FILE -- ARGS...
//
// Writes FILE, rewritten for hcc, to OUT (default: stdout), starting with
// `#line 1 "FILE"` so every diagnostic and debug location names FILE.
// Exit status: 0 rewritten; 1 error in hcc syntax (reported); 2 clang could
// not parse FILE: OUT then holds only the clause rewrites, and the driver
// compiles it so that clang reports the real errors; 3 (only with
// --report-unchanged, as the driver runs it) nothing to rewrite: the driver
// then compiles FILE itself, so a program without extensions builds bit for
// bit as without s2s.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "PragmaRewrite.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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
  bool Warnings = true;
  bool ReportUnchanged = false;
  bool DefaultSchedule = true; ///< clause-less loops: implementation's choice
  std::vector<std::string> CompilerArgs;
};

int usage(const char *Msg) {
  errs() << "hcc-s2s: error: " << Msg
         << "\nusage: hcc-s2s [--no-warnings] [--no-default-schedule] "
            "[-o OUT] FILE -- COMPILER-ARGS...\n";
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
  return true;
}

/// Builds and analyses the AST of `Text`, presented to clang under the
/// input's own name so that "" includes and __FILE__ behave as usual.
bool analyse(const Options &O, StringRef Text, hcc::AnalysisOptions &AO,
             hcc::AnalysisResult &Res) {
  auto Overlay =
      makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  auto Mem = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Overlay->pushOverlay(Mem);
  SmallString<256> Abs(O.Input);
  sys::fs::make_absolute(Abs);
  Mem->addFile(Abs, 0, MemoryBuffer::getMemBufferCopy(Text, O.Input));
  auto Files = makeIntrusiveRefCnt<clang::FileManager>(
      clang::FileSystemOptions(), Overlay);

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

  // HCC_S2S_DEBUG=1 shows clang's diagnostics for this parse.
  SilentConsumer Silent;
  auto DiagOpts = makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter Printer(errs(), DiagOpts.get());
  const char *Debug = getenv("HCC_S2S_DEBUG");
  clang::tooling::ToolInvocation Inv(Cmd, hcc::makeAnalysisAction(AO, Res),
                                     Files.get());
  if (Debug && *Debug && *Debug != '0')
    Inv.setDiagnosticConsumer(&Printer);
  else
    Inv.setDiagnosticConsumer(&Silent);
  bool Ok = Inv.run();
  return Ok && Res.Parsed;
}

/// `#line 1` makes the output name the user's file; the hint prototype is
/// weak so a program built with hcc -c still links without libhcrt. The
/// language comes from the parse, not from __cplusplus, which is not
/// defined when the output is compiled as preprocessed input (.ii).
std::string prelude(const Options &O, const hcc::AnalysisResult &Res) {
  std::string File;
  for (char C : O.Input) {
    if (C == '"' || C == '\\')
      File += '\\';
    File += C;
  }
  std::string P;
  // The pragmas keep -Weverything -Werror builds (reserved identifier)
  // working: this declaration is hcc's, not the user's.
  if (Res.Parsed && Res.HintsPlaced > 0)
    P = std::string("#pragma clang diagnostic push\n"
                    "#pragma clang diagnostic ignored \"-Weverything\"\n") +
        (Res.CPlusPlus ? "extern \"C\" " : "") +
        "__attribute__((weak)) void __hcrt_sched_hint(int, int, const char *, "
        "int);\n#pragma clang diagnostic pop\n";
  return P + "#line 1 \"" + File + "\"\n";
}

bool writeOutput(const Options &O, const hcc::AnalysisResult &Res,
                 StringRef Body) {
  std::error_code EC;
  raw_fd_ostream Out(O.Output, EC);
  if (EC) {
    errs() << "hcc-s2s: error: cannot write '" << O.Output
           << "': " << EC.message() << "\n";
    return false;
  }
  Out << prelude(O, Res) << Body;
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parseArgs(Argc, Argv, O))
    return 1;
  auto Buf = MemoryBuffer::getFile(O.Input, /*IsText=*/true);
  if (!Buf) {
    errs() << "hcc-s2s: error: cannot read '" << O.Input
           << "': " << Buf.getError().message() << "\n";
    return 1;
  }
  std::string Text;
  hcc::AnalysisOptions AO;
  AO.Warnings = O.Warnings;
  unsigned Defaults = 0;
  if (!hcc::rewriteScheduleClauses((*Buf)->getBuffer(), O.Input,
                                   O.DefaultSchedule, Text, AO.Hints, Defaults,
                                   errs()))
    return 1;
  // Nothing to place and nothing to warn about: skip the parse, which costs
  // as much as a -O0 compile of the file.
  if (AO.Hints.empty() && (!AO.Warnings || !hcc::mayNeedAnalysis(Text))) {
    if (O.ReportUnchanged && Defaults == 0)
      return 3;
    hcc::AnalysisResult None;
    return writeOutput(O, None, Text) ? 0 : 1;
  }
  hcc::AnalysisResult Res;
  bool Parsed = analyse(O, Text, AO, Res);
  if (!writeOutput(O, Res, Parsed ? Res.Rewritten : Text))
    return 1;
  if (!Parsed)
    return 2;
  return O.ReportUnchanged && Res.HintsPlaced == 0 && AO.Hints.empty() &&
                 Defaults == 0
             ? 3
             : 0;
}
