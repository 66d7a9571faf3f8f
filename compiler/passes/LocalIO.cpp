//===- LocalIO.cpp - regions that use streams only this process has ------===//
//
// A parallel region whose code reads or writes a stream, file descriptor or
// Fortran unit that exists in the head's process only (a FILE the program
// opened, stdin under mpirun, a descriptor other than 1 and 2, a unit other
// than the standard output and error) cannot run on other nodes: there the
// stream does not exist. ForkLowering gives such regions the LOCAL_IO kind,
// and the runtime runs them on the head alone. Streams the region's code
// opens itself, and the standard output and error (mpirun forwards them),
// are every node's.
//
//===----------------------------------------------------------------------===//

#include "LocalIO.h"
#include "Common.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace hcc {
namespace {

// The stream operand of a C stdio call: 0 the first argument, 1 the last,
// -1 not a stream function.
int streamOperand(StringRef N) {
  static const char *const First[] = {"fprintf",         "vfprintf",
                                      "__fprintf_chk",   "__vfprintf_chk",
                                      "fscanf",          "vfscanf",
                                      "__isoc99_fscanf", "__isoc99_vfscanf",
                                      "__isoc23_fscanf", "__isoc23_vfscanf",
                                      "fgetc",           "getc",
                                      "_IO_getc",        "fgetc_unlocked",
                                      "getc_unlocked",   "fseek",
                                      "fseeko",          "fseeko64",
                                      "ftell",           "ftello",
                                      "ftello64",        "rewind",
                                      "fclose",          "fgetpos",
                                      "fsetpos",         "fwprintf",
                                      "vfwprintf",       "fwscanf",
                                      "fgetwc",          "getwc",
                                      "setvbuf",         "setbuf",
                                      "fflush",          "fflush_unlocked"};
  static const char *const Last[] = {
      "fputs",          "fputc",          "putc",          "_IO_putc",
      "fwrite",         "fread",          "fgets",         "ungetc",
      "fputs_unlocked", "fputc_unlocked", "putc_unlocked", "fwrite_unlocked",
      "fread_unlocked", "fgets_unlocked", "fputws",        "fputwc",
      "putwc",          "fgetws",         "__fread_chk",   "__fgets_chk"};
  for (const char *F : First)
    if (N == F)
      return 0;
  for (const char *L : Last)
    if (N == L)
      return 1;
  return -1;
}

bool isOpenerName(StringRef N) {
  static const char *const Openers[] = {
      "fopen",   "fopen64",      "fdopen",         "freopen",  "freopen64",
      "tmpfile", "tmpfile64",    "popen",          "fmemopen", "open_memstream",
      "open",    "open64",       "openat",         "openat64", "creat",
      "creat64", "dup",          "dup2",           "socket",   "accept",
      "pipe",    "memfd_create", "open_wmemstream"};
  for (const char *O : Openers)
    if (N == O)
      return true;
  return false;
}

// A stream or descriptor the code itself opened (fopen, open, ...): the
// call's result, directly or through a local variable whose every store is
// such a result (-O0), or a phi/select of such. The code that opens it runs
// on the node that uses it.
bool openedHere(const Value *V, unsigned Depth = 0) {
  V = V->stripPointerCasts();
  if (Depth > 4)
    return false;
  if (auto *CB = dyn_cast<CallBase>(V))
    return isOpenerName(calleeName(*CB));
  if (auto *Phi = dyn_cast<PHINode>(V))
    return llvm::all_of(Phi->incoming_values(), [&](const Value *In) {
      return openedHere(In, Depth + 1);
    });
  if (auto *Sel = dyn_cast<SelectInst>(V))
    return openedHere(Sel->getTrueValue(), Depth + 1) &&
           openedHere(Sel->getFalseValue(), Depth + 1);
  auto *LI = dyn_cast<LoadInst>(V);
  auto *A = LI ? dyn_cast<AllocaInst>(LI->getPointerOperand()) : nullptr;
  if (!A)
    return false;
  bool Stored = false;
  for (const User *U : A->users()) {
    auto *II = dyn_cast<IntrinsicInst>(U);
    if (isa<LoadInst>(U) ||
        (II && (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))))
      continue;
    auto *SI = dyn_cast<StoreInst>(U);
    if (!SI || SI->getPointerOperand() != A ||
        !openedHere(SI->getValueOperand(), Depth + 1))
      return false; // escapes, or set from elsewhere
    Stored = true;
  }
  return Stored;
}

// A stream every node has: the standard output or error (mpirun forwards
// them from every rank, as it does printf's), NULL (fflush(NULL)), or one
// the region's code opened itself.
bool everyNodeStream(const Value *V) {
  V = V->stripPointerCasts();
  if (isa<ConstantPointerNull>(V) || openedHere(V))
    return true;
  auto *LI = dyn_cast<LoadInst>(V);
  auto *GV = LI ? dyn_cast<GlobalVariable>(
                      LI->getPointerOperand()->stripPointerCasts())
                : nullptr;
  return GV && (GV->getName() == "stdout" || GV->getName() == "stderr");
}

// A Fortran unit every node has for output: the standard output (6, also
// `*`) or error (0).
bool everyNodeUnit(const Value *V) {
  auto *C = dyn_cast<ConstantInt>(V);
  return C && (C->getSExtValue() == 6 || C->getSExtValue() == 0);
}

// Whether a call reads or writes a stream, file descriptor or Fortran unit
// that only this process has: a FILE the program opened, stdin (only the
// head has it under mpirun), a descriptor other than 1 and 2, a unit other
// than the standard output and error.
bool usesNodeLocalIO(const CallBase &CB) {
  StringRef N = calleeName(CB);
  unsigned NA = CB.arg_size();
  int Op = streamOperand(N);
  if (Op >= 0 && NA > 0)
    return !everyNodeStream(CB.getArgOperand(Op == 0 ? 0 : NA - 1));
  if (N == "scanf" || N == "__isoc99_scanf" || N == "__isoc23_scanf" ||
      N == "vscanf" || N == "getchar" || N == "gets" || N == "getline" ||
      N == "getdelim" || N == "getchar_unlocked")
    return N == "getline" || N == "getdelim"
               ? !everyNodeStream(CB.getArgOperand(NA - 1))
               : true;
  bool Writes = N == "write" || N == "pwrite" || N == "pwrite64" ||
                N == "writev" || N == "fsync" || N == "fdatasync";
  if (Writes || N == "read" || N == "pread" || N == "pread64" || N == "readv" ||
      N == "lseek" || N == "lseek64") {
    if (NA == 0 || openedHere(CB.getArgOperand(0)))
      return false;
    auto *C = dyn_cast<ConstantInt>(CB.getArgOperand(0));
    return !Writes || !C || (C->getSExtValue() != 1 && C->getSExtValue() != 2);
  }
  if (!N.consume_front("_FortranAioBegin"))
    return false;
  if (N == "ExternalListOutput" || N == "UnformattedOutput" || N == "Flush")
    return NA < 1 || !everyNodeUnit(CB.getArgOperand(0));
  if (N == "ExternalFormattedOutput")
    return NA < 4 || !everyNodeUnit(CB.getArgOperand(3));
  return N.starts_with("External") || N.starts_with("Unformatted") ||
         N.starts_with("Open") || N == "Close" || N == "Backspace" ||
         N == "Endfile" || N == "Rewind" || N == "Wait" || N == "WaitAll" ||
         N == "InquireUnit" || N == "InquireFile";
}

} // namespace

bool regionUsesNodeLocalIO(Function *Microtask) {
  SetVector<Function *> Roots;
  Roots.insert(Microtask);
  for (Function *F : calleeClosure(Roots, /*IntoRegionsAndTasks=*/true))
    for (Instruction &I : instructions(*F))
      if (auto *CB = dyn_cast<CallBase>(&I); CB && usesNodeLocalIO(*CB))
        return true;
  return false;
}

} // namespace hcc
