//===- PragmaRewrite.cpp - hcc clause extensions, textual pass -----------===//
//
// A small scanner, not a preprocessor: it finds `#pragma omp` lines
// (with backslash continuations) and `_Pragma("omp ...")` operators outside
// comments, and inside them the clause `schedule ( hetprobe[_i] [, N] )`.
//
//===----------------------------------------------------------------------===//
#include "PragmaRewrite.h"

#include "llvm/ADT/Twine.h"

#include <cctype>

using namespace llvm;

namespace hcc {
namespace {

class Scanner {
public:
  Scanner(StringRef Src, StringRef FileName, std::string &Out,
          std::vector<SchedHint> &Hints, raw_ostream &Errs)
      : Src(Src), FileName(FileName), Out(Out), Hints(Hints), Errs(Errs) {}

  bool run();

private:
  StringRef Src, FileName;
  std::string &Out;
  std::vector<SchedHint> &Hints;
  raw_ostream &Errs;
  size_t Copied = 0; ///< Src[0, Copied) is already in Out
  bool Failed = false;

  unsigned lineOf(size_t Pos) const {
    return Src.take_front(Pos).count('\n') + 1;
  }
  unsigned colOf(size_t Pos) const {
    size_t NL = Src.rfind('\n', Pos); // last newline before Pos
    return NL == StringRef::npos ? Pos + 1 : Pos - NL;
  }
  char at(size_t P) const { return P < Src.size() ? Src[P] : '\0'; }
  size_t skipSpace(size_t P, size_t End) const;
  size_t endOfLogicalLine(size_t P) const;
  size_t skipComment(size_t P) const;
  void error(size_t Pos, const Twine &Msg);
  void scanDirective(size_t Begin, size_t End, unsigned Line);
  bool rewriteClause(size_t At, size_t End, unsigned Line);
};

// Whitespace including backslash-newline splices.
size_t Scanner::skipSpace(size_t P, size_t End) const {
  while (P < End) {
    if (Src[P] == ' ' || Src[P] == '\t')
      ++P;
    else if (Src[P] == '\\' && P + 1 < End && Src[P + 1] == '\n')
      P += 2;
    else if (Src[P] == '\\' && P + 2 < End && Src[P + 1] == '\r' &&
             Src[P + 2] == '\n')
      P += 3;
    else
      break;
  }
  return P;
}

size_t Scanner::endOfLogicalLine(size_t P) const {
  while (P < Src.size() && Src[P] != '\n')
    ++P;
  while (P < Src.size() && P > 0 &&
         (Src[P - 1] == '\\' ||
          (Src[P - 1] == '\r' && P > 1 && Src[P - 2] == '\\'))) {
    ++P;
    while (P < Src.size() && Src[P] != '\n')
      ++P;
  }
  return P;
}

// Returns the position after the comment starting at P, or P if none.
size_t Scanner::skipComment(size_t P) const {
  if (Src.substr(P, 2) == "//")
    return endOfLogicalLine(P);
  if (Src.substr(P, 2) == "/*") {
    size_t E = Src.find("*/", P + 2);
    return E == StringRef::npos ? Src.size() : E + 2;
  }
  return P;
}

void Scanner::error(size_t Pos, const Twine &Msg) {
  Failed = true;
  Errs << FileName << ":" << lineOf(Pos) << ":" << colOf(Pos)
       << ": error: hcc: " << Msg << "\n";
  size_t LineStart = Pos - (colOf(Pos) - 1);
  size_t LineEnd = Src.find('\n', Pos);
  Errs << Src.slice(LineStart, LineEnd) << "\n"
       << std::string(colOf(Pos) - 1, ' ') << "^\n";
}

static bool isIdent(char C) {
  return std::isalnum((unsigned char)C) || C == '_';
}

// At `At` starts the word "schedule". Rewrites it when it is an hcc
// extension; returns true if it did.
bool Scanner::rewriteClause(size_t At, size_t End, unsigned Line) {
  size_t P = skipSpace(At + 8, End);
  if (P >= End || Src[P] != '(')
    return false;
  P = skipSpace(P + 1, End);
  size_t KindPos = P;
  while (P < End && isIdent(Src[P]))
    ++P;
  StringRef Kind = Src.slice(KindPos, P);
  if (Kind != "hetprobe" && Kind != "hetprobe_i")
    return false;
  SchedHint H{Line, Kind == "hetprobe" ? HintHetProbe : HintHetProbeI, 0};
  P = skipSpace(P, End);
  if (P < End && Src[P] == ',') {
    P = skipSpace(P + 1, End);
    size_t NumPos = P;
    while (P < End && (isIdent(Src[P]) || Src[P] == '.' || Src[P] == '-'))
      ++P;
    StringRef Num = Src.slice(NumPos, P);
    unsigned long long V = 0;
    if (Num.empty() || Num.getAsInteger(10, V) || V < 1 || V > 100) {
      error(NumPos, "invalid percentage '" + Num + "' in schedule(" + Kind +
                        ", ...): it must be an integer from 1 to 100 (" +
                        (Kind == "hetprobe" ? "the share of iterations probed"
                                            : "how often to re-probe") +
                        ")");
      return false;
    }
    H.Percent = (int)V;
    P = skipSpace(P, End);
  }
  if (P >= End || Src[P] != ')') {
    error(P, "expected ')' in schedule(" + Kind +
                 "[, percent]): hcc accepts only an integer percentage here");
    return false;
  }
  // Replace, keeping every line splice so the line count is unchanged.
  Out += Src.slice(Copied, At);
  Out += "schedule(runtime)";
  for (StringRef Span = Src.slice(At, P + 1); !Span.empty();) {
    size_t NL = Span.find('\n');
    if (NL == StringRef::npos)
      break;
    Out += " \\\n";
    Span = Span.drop_front(NL + 1);
  }
  Copied = P + 1;
  Hints.push_back(H);
  return true;
}

void Scanner::scanDirective(size_t Begin, size_t End, unsigned Line) {
  // Require "omp" as the first word of the pragma body.
  size_t P = skipSpace(Begin, End);
  if (Src.substr(P, 3) != "omp" || (P + 3 < End && isIdent(Src[P + 3])))
    return;
  for (P += 3; P < End; ++P) {
    if (Src.substr(P, 8) == "schedule" && !isIdent(Src[P - 1]) &&
        (P + 8 >= End || !isIdent(Src[P + 8])))
      rewriteClause(P, End, Line);
  }
}

bool Scanner::run() {
  bool LineStart = true;
  for (size_t P = 0; P < Src.size();) {
    char C = Src[P];
    if (size_t E = skipComment(P); E != P) {
      P = E; // a comment does not end the "only blanks so far" state
      continue;
    }
    if (C == '"' || C == '\'') { // skip literals so "_Pragma" in them is text
      for (++P; P < Src.size() && Src[P] != C && Src[P] != '\n'; ++P)
        if (Src[P] == '\\')
          ++P;
      ++P;
      LineStart = false;
      continue;
    }
    if (C == '\n') {
      LineStart = true;
      ++P;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\r' || C == '\f') {
      ++P;
      continue;
    }
    if (C == '#' && LineStart) {
      size_t End = endOfLogicalLine(P);
      size_t Q = skipSpace(P + 1, End);
      if (Src.substr(Q, 6) == "pragma" && !isIdent(at(Q + 6))) {
        scanDirective(Q + 6, End, lineOf(P));
        P = End;
        continue;
      }
      // Other directives (#define PFOR _Pragma("omp ...")) are scanned on.
    }
    if (Src.substr(P, 7) == "_Pragma" && (P == 0 || !isIdent(Src[P - 1]))) {
      size_t Q = P + 7;
      while (Q < Src.size() && std::isspace((unsigned char)Src[Q]))
        ++Q;
      if (Q < Src.size() && Src[Q] == '(') {
        size_t Open = Src.find('"', Q);
        size_t Close = Open == StringRef::npos ? Open : Src.find('"', Open + 1);
        if (Close != StringRef::npos)
          scanDirective(Open + 1, Close, lineOf(P));
        P = Close == StringRef::npos ? Src.size() : Close + 1;
        LineStart = false;
        continue;
      }
    }
    LineStart = false;
    ++P;
  }
  Out += Src.substr(Copied);
  return !Failed;
}

} // namespace

bool rewriteScheduleClauses(StringRef Src, StringRef FileName, std::string &Out,
                            std::vector<SchedHint> &Hints, raw_ostream &Errs) {
  return Scanner(Src, FileName, Out, Hints, Errs).run();
}

} // namespace hcc
