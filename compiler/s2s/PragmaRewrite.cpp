//===- PragmaRewrite.cpp - hcc clause extensions, textual pass -----------===//
//
// The C++ face of pragma_scan.c, which the driver runs too.
//
//===----------------------------------------------------------------------===//
#include "PragmaRewrite.h"

#include "pragma_scan.h"

using namespace llvm;

namespace hcc {

bool rewriteScheduleClauses(StringRef Src, StringRef FileName, int DefaultMode,
                            std::string &Out, std::vector<SchedHint> &Hints,
                            unsigned &NumDefault, raw_ostream &Errs) {
  hcc_scan_t R;
  std::string Name = FileName.str();
  int Rc =
      hcc_scan_pragmas(Src.data(), Src.size(), Name.c_str(), DefaultMode, &R);
  Out.assign(R.out, R.out_len);
  for (size_t I = 0; I < R.nhints; ++I)
    Hints.push_back(
        {R.hints[I].line, (SchedHintKind)R.hints[I].kind, R.hints[I].percent});
  NumDefault = R.default_loops;
  if (R.errors)
    Errs << R.errors;
  hcc_scan_free(&R);
  return Rc == 0;
}

} // namespace hcc
