// A preprocessed file (.i, as written by hcc -E) still gets its hints: the
// overlay reaches cc1 although the clang driver drops preprocessor flags
// for .i inputs. The module, debug info and dependencies name the user's
// file, exactly as without s2s.
// RUN: %hcc -E %s -o %t.i
// RUN: grep -q 'schedule(hetprobe, 30)' %t.i
// RUN: %hcc -fno-hcc-pass -c %t.i -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYM %s
// SYM: {{[wU]}} __hcrt_sched_hint
// RUN: %hcc -O1 -S -emit-llvm %s -o %t.ll
// RUN: FileCheck --check-prefix=IR %s < %t.ll
// IR: source_filename = "{{[^"]*}}preprocessed.c"
// IR-NOT: hcc-
int f(double *a, int n) {
#pragma omp parallel for schedule(hetprobe, 30)
  for (int i = 0; i < n; i++)
    a[i] = i;
  return n;
}
