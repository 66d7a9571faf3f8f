// Diagnostics and debug info from a rewritten header name the header and
// its own lines, exactly as for the main file.
// A clang warning after a placed hint:
// RUN: %hcc -fsyntax-only -Wall -I%S/Inputs/hdr -DWARN %s 2>&1 \
// RUN:   | FileCheck --check-prefix=WARN %s
// WARN: In file included from {{.*}}header-lines.c:
// WARN-NEXT: {{.*}}Inputs/hdr/warn.h:6:7: warning: unused variable 'unused_here'
// A real error in a header with an hcc clause: clang's own error, at the
// header's line, and nothing about hetprobe.
// RUN: not %hcc -c -I%S/Inputs/hdr -DBAD %s -o %t.o 2>&1 \
// RUN:   | FileCheck --check-prefix=BAD %s
// BAD-NOT: hetprobe
// BAD: {{.*}}Inputs/hdr/bad.h:5:10: error: use of undeclared identifier 'nope'
// BAD-NOT: hetprobe
// An error in hcc's own syntax inside a header:
// RUN: not %hcc -c -I%S/Inputs/hdr -DPCT %s -o %t.o 2>&1 \
// RUN:   | FileCheck --check-prefix=PCT %s
// PCT: {{.*}}Inputs/hdr/pct.h:3:46: error: hcc: invalid percentage '200' in schedule(hetprobe, ...)
// Debug info: the header's functions and their outlined regions at the
// header's lines, in one file entry per header (the rewrite's `#line N`
// keeps the header's own name).
// RUN: %hcc -g -O0 -S -emit-llvm -I%S/Inputs/hdr %s -o %t.ll
// RUN: FileCheck --check-prefix=DBG %s < %t.ll
// RUN: grep -c 'DIFile(filename: "[^"]*kern.h"' %t.ll | FileCheck --check-prefix=ONE %s
// RUN: grep -c 'DIFile(filename: "[^"]*deep.h"' %t.ll | FileCheck --check-prefix=ONE %s
// ONE: {{^1$}}
// DBG: call void @__hcrt_sched_hint(i32 noundef 2, i32 noundef 5, {{.*}}, i32 noundef 9)
// DBG-DAG: ![[K:[0-9]+]] = !DIFile(filename: "{{[^"]*}}Inputs/hdr/kern.h"
// DBG-DAG: ![[D:[0-9]+]] = !DIFile(filename: "{{[^"]*}}Inputs/hdr/sub/deep.h"
// DBG-DAG: !DISubprogram(name: "fill", scope: ![[K]], file: ![[K]], line: 7,
// DBG-DAG: !DISubprogram(name: "fill.omp_outlined", scope: ![[K]], file: ![[K]], line: 9,
// DBG-DAG: !DISubprogram(name: "twice", scope: ![[D]], file: ![[D]], line: 5,
// DBG-DAG: !DISubprogram(name: "twice.omp_outlined", scope: ![[D]], file: ![[D]], line: 7,
// DBG-DAG: !DISubprogram(name: "twice.omp_outlined.{{[0-9]+}}", scope: ![[D]], file: ![[D]], line: 10,
#if defined(WARN)
#include "warn.h"
int main(void) { return warn(3); }
#elif defined(BAD)
#include "bad.h"
int main(void) { return bad(3); }
#elif defined(PCT)
#include "pct.h"
int main(void) { return pct(3); }
#else
#include "kern.h"
double a[10];
int main(void) { return (int)(fill(a, 10) + twice(a, 10)); }
#endif
