//===- Analysis.cpp - AST pass of hcc-s2s --------------------------------===//
#include "Analysis.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Lex/Lexer.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace hcc {
namespace {

/// Library calls whose result lives outside the DSM: the pass moves user
/// malloc & co. to the cluster heap, but memory libc allocates internally
/// (or keeps in static buffers) exists only on the node that called.
enum class Origin { None, Heap, Static, Map };

struct NamedOrigin {
  const char *Name;
  Origin O;
};

const NamedOrigin Origins[] = {
#define HCC_S2S_ORIGIN(Name, Kind) {Name, Origin::Kind},
#define HCC_S2S_STREAM(Name, Stdin)
#include "Names.def"
};

struct NamedStream {
  const char *Name;
  bool ReadsStdin;
};

const NamedStream StreamIO[] = {
#define HCC_S2S_ORIGIN(Name, Kind)
#define HCC_S2S_STREAM(Name, Stdin) {Name, Stdin},
#include "Names.def"
};

Origin originOf(StringRef Callee) {
  for (const NamedOrigin &N : Origins)
    if (Callee == N.Name)
      return N.O;
  return Origin::None;
}

/// Functions that fill a caller's pointer through their first argument.
bool allocatesThroughArg(StringRef Callee) {
  return Callee == "getline" || Callee == "getdelim" || Callee == "asprintf" ||
         Callee == "vasprintf";
}

/// Stream I/O and whether it reads the implicit stdin.
bool isStreamIO(StringRef Callee, bool &ReadsStdin) {
  for (const NamedStream &N : StreamIO)
    if (Callee == N.Name) {
      ReadsStdin = N.ReadsStdin;
      return true;
    }
  ReadsStdin = false;
  return false;
}

const FunctionDecl *calleeOf(const CallExpr *CE) {
  return CE->getDirectCallee();
}

const VarDecl *refVar(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->getOpcode() == UO_AddrOf)
      E = UO->getSubExpr()->IgnoreParenCasts();
  if (auto *DRE = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

struct Taint {
  SourceLocation Loc;
  StringRef Callee;
  Origin Kind;
};

class Checker : public RecursiveASTVisitor<Checker> {
public:
  Checker(ASTContext &Ctx, const AnalysisOptions &Opts, AnalysisResult &Res,
          Rewriter &RW);

  bool Collecting = true; ///< first walk: find pointers from libc
  bool TraverseStmt(Stmt *S);
  bool VisitVarDecl(VarDecl *VD);
  bool VisitBinaryOperator(BinaryOperator *BO);
  bool VisitCallExpr(CallExpr *CE);
  bool VisitDeclRefExpr(DeclRefExpr *DRE);
  bool VisitOMPExecutableDirective(OMPExecutableDirective *D);

private:
  ASTContext &Ctx;
  SourceManager &SM;
  const AnalysisOptions &Opts;
  AnalysisResult &Res;
  Rewriter &RW;
  DenseMap<const VarDecl *, Taint> Tainted;
  SmallVector<const OMPExecutableDirective *, 4> Parallel, Loops;
  std::set<std::pair<const void *, const void *>> Reported; // region, var
  DenseMap<const FileEntry *, int> Index;    // file -> index in Opts.Files
  std::set<std::pair<int, unsigned>> Placed; // file, offset of directive

  /// Index in Opts.Files of the file `L` (a file location) is in, or -1.
  int fileOf(SourceLocation L) const;
  bool inUserFile(SourceLocation L) const {
    return fileOf(SM.getExpansionLoc(L)) >= 0;
  }
  /// `L` in the file's first inclusion: a header included twice (no
  /// guard) is one text, rewritten once.
  SourceLocation canonical(SourceLocation L) const;
  void taint(const VarDecl *VD, const CallExpr *CE, StringRef Name);
  void warn(SourceLocation L, const Twine &Msg, SourceLocation Note = {},
            const Twine &NoteMsg = "");
  void print(SourceLocation L, StringRef Kind, const Twine &Msg);
  void placeHint(const OMPLoopDirective *D, const SchedHint &H);
};

Checker::Checker(ASTContext &Ctx, const AnalysisOptions &Opts,
                 AnalysisResult &Res, Rewriter &RW)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), Opts(Opts), Res(Res), RW(RW) {
  FileManager &FM = SM.getFileManager();
  const std::vector<SourceFile> &Files = *Opts.Files;
  for (size_t I = 0; I < Files.size(); ++I)
    for (const std::string &P : Files[I].Paths)
      if (OptionalFileEntryRef F = FM.getOptionalFileRef(P))
        Index[&F->getFileEntry()] = (int)I;
  if (OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID()))
    Index[&Main->getFileEntry()] = 0;
}

int Checker::fileOf(SourceLocation L) const {
  OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getFileID(L));
  if (!F)
    return -1;
  auto It = Index.find(&F->getFileEntry());
  return It == Index.end() ? -1 : It->second;
}

SourceLocation Checker::canonical(SourceLocation L) const {
  OptionalFileEntryRef F = SM.getFileEntryRefForID(SM.getFileID(L));
  FileID First = F ? SM.translateFile(*F) : FileID();
  return First.isValid() ? SM.getComposedLoc(First, SM.getFileOffset(L)) : L;
}

void Checker::print(SourceLocation L, StringRef Kind, const Twine &Msg) {
  L = SM.getExpansionLoc(L);
  PresumedLoc P = SM.getPresumedLoc(L);
  errs() << P.getFilename() << ":" << P.getLine() << ":" << P.getColumn()
         << ": " << Kind << ": hcc: " << Msg
         << (Kind == "warning" ? " [-Whcc]" : "") << "\n";
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  if (Invalid)
    return;
  unsigned Off = SM.getFileOffset(L);
  size_t Begin = Buf.rfind('\n', Off) + 1; // npos + 1 == 0
  size_t End = Buf.find('\n', Off);
  errs() << Buf.slice(Begin, End) << "\n"
         << std::string(Off - Begin, ' ') << "^\n";
}

void Checker::warn(SourceLocation L, const Twine &Msg, SourceLocation Note,
                   const Twine &NoteMsg) {
  if (!Opts.Warnings)
    return;
  ++Res.Warnings;
  print(L, "warning", Msg);
  if (Note.isValid())
    print(Note, "note", NoteMsg);
}

void Checker::taint(const VarDecl *VD, const CallExpr *CE, StringRef Name) {
  if (VD && !Tainted.count(VD))
    Tainted[VD] = {CE->getBeginLoc(), Name, originOf(Name)};
}

bool Checker::VisitVarDecl(VarDecl *VD) {
  if (!Collecting || !VD->getInit())
    return true;
  if (auto *CE = dyn_cast<CallExpr>(VD->getInit()->IgnoreParenCasts()))
    if (auto *FD = calleeOf(CE))
      if (originOf(FD->getName()) != Origin::None)
        taint(VD, CE, FD->getName());
  return true;
}

bool Checker::VisitBinaryOperator(BinaryOperator *BO) {
  if (!Collecting || BO->getOpcode() != BO_Assign)
    return true;
  if (auto *CE = dyn_cast<CallExpr>(BO->getRHS()->IgnoreParenCasts()))
    if (auto *FD = calleeOf(CE))
      if (originOf(FD->getName()) != Origin::None)
        taint(refVar(BO->getLHS()), CE, FD->getName());
  return true;
}

bool Checker::VisitCallExpr(CallExpr *CE) {
  const FunctionDecl *FD = calleeOf(CE);
  if (!FD || !FD->getIdentifier() || !inUserFile(CE->getBeginLoc()))
    return true;
  StringRef Name = FD->getName();
  if (Collecting) {
    if (allocatesThroughArg(Name) && CE->getNumArgs() > 0)
      taint(refVar(CE->getArg(0)), CE, Name);
    return true;
  }
  Origin O = originOf(Name);
  if (!Parallel.empty() && O != Origin::None)
    warn(CE->getBeginLoc(),
         "'" + Name + "' inside a parallel region returns " +
             (O == Origin::Static ? "library-owned static storage"
                                  : "memory outside the cluster's shared "
                                    "memory") +
             ": the pointer is valid only on the node that made the call "
             "(call it before the region, or copy into malloc'ed memory)");
  bool Stdin = false;
  if (!Loops.empty() && isStreamIO(Name, Stdin)) {
    for (const Expr *A : CE->arguments())
      if (const VarDecl *V = refVar(A))
        if (V->getName() == "stdout" || V->getName() == "stderr")
          return true; // forwarded by mpirun from every node, like printf
    warn(CE->getBeginLoc(),
         Stdin ? "'" + Name +
                     "' reads standard input inside a worksharing "
                     "loop: only the head node has standard input, so "
                     "this region runs on the head alone (read the input "
                     "before the loop to let it run across nodes)"
               : "'" + Name +
                     "' uses a FILE stream inside a worksharing "
                     "loop: a stream opened on this node exists only "
                     "here, so this region runs on the head alone (do the "
                     "I/O outside the loop to let it run across nodes)");
  }
  return true;
}

bool Checker::VisitDeclRefExpr(DeclRefExpr *DRE) {
  if (Collecting || Parallel.empty())
    return true;
  auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
  auto It = VD ? Tainted.find(VD) : Tainted.end();
  if (It == Tainted.end() || !inUserFile(DRE->getLocation()))
    return true;
  // Set inside this same region: used on the node that allocated it.
  const OMPExecutableDirective *R = Parallel.back();
  SourceLocation TL = SM.getExpansionLoc(It->second.Loc);
  const Stmt *Body = R->hasAssociatedStmt() ? R->getAssociatedStmt() : nullptr;
  if (Body &&
      SM.isBeforeInTranslationUnit(SM.getExpansionLoc(R->getBeginLoc()), TL) &&
      SM.isBeforeInTranslationUnit(TL, SM.getExpansionLoc(Body->getEndLoc())))
    return true;
  // One warning per variable and region.
  if (!Reported.insert({R, VD}).second)
    return true;
  warn(DRE->getLocation(),
       "'" + VD->getName() + "' points to memory from '" + It->second.Callee +
           "', which is not in the cluster's shared memory: nodes other than "
           "the one that called '" +
           It->second.Callee + "' cannot read it in this parallel region",
       It->second.Loc, "'" + VD->getName() + "' was set here");
  return true;
}

bool Checker::TraverseStmt(Stmt *S) {
  auto *D = dyn_cast_or_null<OMPExecutableDirective>(S);
  if (!D || Collecting)
    return RecursiveASTVisitor::TraverseStmt(S);
  OpenMPDirectiveKind K = D->getDirectiveKind();
  bool Par = isOpenMPParallelDirective(K);
  bool Loop = isOpenMPLoopDirective(K) && isOpenMPWorksharingDirective(K);
  if (Par)
    Parallel.push_back(D);
  if (Loop)
    Loops.push_back(D);
  bool R = RecursiveASTVisitor::TraverseStmt(S);
  if (Loop)
    Loops.pop_back();
  if (Par)
    Parallel.pop_back();
  return R;
}

bool Checker::VisitOMPExecutableDirective(OMPExecutableDirective *D) {
  auto *LD = dyn_cast<OMPLoopDirective>(D);
  if (Collecting || !LD || !isOpenMPWorksharingDirective(D->getDirectiveKind()))
    return true;
  SourceLocation Sp = SM.getSpellingLoc(D->getBeginLoc());
  int File = fileOf(Sp);
  if (File < 0)
    return true;
  unsigned Line = SM.getSpellingLineNumber(Sp);
  for (const SchedHint &H : (*Opts.Files)[File].Hints)
    if (H.DirectiveLine == Line)
      placeHint(LD, H);
  return true;
}

/// `{ hint-call; <construct + loop> }` without moving any user line: a
/// `#pragma` must start its line, so the call goes on a line of its own
/// followed by `#line` restoring the numbering.
void Checker::placeHint(const OMPLoopDirective *D, const SchedHint &H) {
  SourceLocation Begin = SM.getExpansionLoc(D->getBeginLoc());
  const Stmt *Body = D->hasAssociatedStmt() ? D->getAssociatedStmt() : nullptr;
  int In = fileOf(Begin);
  if (!Body || In < 0)
    return;
  SourceLocation End = SM.getExpansionRange(Body->getEndLoc()).getEnd();
  // Expression statements end before their ';': take it inside the braces.
  if (std::optional<Token> Next =
          Lexer::findNextToken(End, SM, Ctx.getLangOpts()))
    if (Next->is(tok::semi))
      End = Next->getLocation();
  // Both braces go into one file, once per text position.
  if (SM.getFileID(End) != SM.getFileID(Begin) ||
      !Placed.insert({In, SM.getFileOffset(Begin)}).second)
    return;
  PresumedLoc P = SM.getPresumedLoc(Begin);
  std::string File = quoted(P.getFilename());
  Begin = canonical(Begin);
  End = canonical(End);
  std::string Call = "{if (__hcrt_sched_hint) __hcrt_sched_hint(" +
                     std::to_string(H.Kind) + ", " + std::to_string(H.Percent) +
                     ", \"" + File + "\", " + std::to_string(P.getLine()) +
                     ");";
  bool Hash = *SM.getCharacterData(Begin) == '#';
  if (Hash) {
    SourceLocation LineStart =
        Begin.getLocWithOffset(-(int)(SM.getExpansionColumnNumber(Begin) - 1));
    // In a header, `#line N` alone: the name stays the file's own, so
    // clang keeps one debug-info file entry (with its checksum) for it.
    // The main file names itself (its output may be compiled elsewhere).
    std::string Name = In == 0 ? " \"" + File + "\"" : "";
    RW.InsertTextBefore(LineStart, Call + "\n#line " +
                                       std::to_string(P.getLine()) + Name +
                                       "\n");
  } else {
    RW.InsertTextBefore(Begin, Call + " ");
  }
  RW.InsertTextAfterToken(End, "}");
  ++Res.HintsPlaced;
  ++Res.Files[In].HintsPlaced;
}

class Consumer : public ASTConsumer {
public:
  Consumer(const AnalysisOptions &Opts, AnalysisResult &Res)
      : Opts(Opts), Res(Res) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred())
      return; // a broken AST would give wrong rewrites: caller falls back
    Res.Files.assign(Opts.Files->size(), FileOutput());
    Rewriter RW(Ctx.getSourceManager(), Ctx.getLangOpts());
    Checker C(Ctx, Opts, Res, RW);
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
    C.Collecting = false;
    C.TraverseDecl(Ctx.getTranslationUnitDecl());
    collect(Ctx.getSourceManager(), RW);
    Res.Parsed = true;
    Res.CPlusPlus = Ctx.getLangOpts().CPlusPlus;
  }

private:
  const AnalysisOptions &Opts;
  AnalysisResult &Res;

  void collect(SourceManager &SM, Rewriter &RW);
};

/// Each file's rewritten text, and whether it is entered before the main
/// file (through -include).
void Consumer::collect(SourceManager &SM, Rewriter &RW) {
  FileManager &FM = SM.getFileManager();
  for (size_t I = 0; I < Opts.Files->size(); ++I) {
    FileOutput &Out = Res.Files[I];
    OptionalFileEntryRef F =
        FM.getOptionalFileRef((*Opts.Files)[I].Paths.front());
    FileID FID = I == 0 ? SM.getMainFileID()
                 : F    ? SM.translateFile(*F)
                        : FileID();
    if (FID.isInvalid())
      continue;
    if (const RewriteBuffer *B = RW.getRewriteBufferFor(FID)) {
      Out.Changed = true;
      Out.Text = std::string(B->begin(), B->end());
    }
    FileID Up = FID;
    while (Up.isValid() && Up != SM.getMainFileID())
      Up = SM.getFileID(SM.getIncludeLoc(Up));
    Out.BeforeMain = Up.isInvalid();
  }
}

class Action : public ASTFrontendAction {
public:
  Action(const AnalysisOptions &Opts, AnalysisResult &Res)
      : Opts(Opts), Res(Res) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &,
                                                 StringRef) override {
    return std::make_unique<Consumer>(Opts, Res);
  }

private:
  const AnalysisOptions &Opts;
  AnalysisResult &Res;
};

} // namespace

std::unique_ptr<FrontendAction> makeAnalysisAction(const AnalysisOptions &Opts,
                                                   AnalysisResult &Result) {
  return std::make_unique<Action>(Opts, Result);
}

bool mayNeedAnalysis(StringRef Text) {
  if (!Text.contains("omp"))
    return false;
  for (const NamedOrigin &N : Origins)
    if (Text.contains(N.Name))
      return true;
  for (const NamedStream &N : StreamIO)
    if (Text.contains(N.Name))
      return true;
  return false;
}

} // namespace hcc
