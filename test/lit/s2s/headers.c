// The user's headers are rewritten like the main file: kern.h (found
// through -I, guarded, included twice) and sub/deep.h (included by kern.h
// relative to its own directory, #pragma once) get their hint calls and
// default schedules in copies written next to the overlay; the originals
// are untouched; the overlay shows the copies at the headers' own paths.
// RUN: rm -rf %t.d && mkdir %t.d
// RUN: %s2s --overlay %t.d/o.yaml -o %t.d/main.c %s -- -x c -I%S/Inputs/hdr
// RUN: cat %t.d/*-kern.h | FileCheck --check-prefix=KERN %s
// RUN: cat %t.d/*-deep.h | FileCheck --check-prefix=DEEP %s
// RUN: FileCheck --check-prefix=MAIN %s < %t.d/main.c
// RUN: FileCheck --check-prefix=YAML %s < %t.d/o.yaml
// RUN: ls %t.d | FileCheck --check-prefix=LS %s
// RUN: ls %t.d | count 4
// The overlay builds cleanly with plain clang, which rejects the original
// headers' clauses.
// RUN: %clang -fopenmp -fsyntax-only -Wall -Wextra -Werror -I%S/Inputs/hdr \
// RUN:   -Xclang -ivfsoverlay -Xclang %t.d/o.yaml %s
// RUN: not %clang -fopenmp -fsyntax-only -I%S/Inputs/hdr %s 2>&1 \
// RUN:   | FileCheck --check-prefix=PLAIN %s
// PLAIN: kern.h:9:{{[0-9]+}}: error: expected 'static'{{.*}}
//
// Without --overlay s2s has nowhere to put a header: it says so.
// RUN: not %s2s -o %t.d/x.c %s -- -x c -I%S/Inputs/hdr 2>&1 \
// RUN:   | FileCheck --check-prefix=NOOV %s
// NOOV: hcc-s2s: error: the header '{{.*}}kern.h' has hcc clauses: pass --overlay FILE
//
// System headers (-isystem, or anything under /usr) are never rewritten
// (so this one's clause stops the parse: exit 2, clang will report it).
// RUN: rm -rf %t.s && mkdir %t.s
// RUN: not %s2s --overlay %t.s/o.yaml -o %t.s/main.c %s -- -x c \
// RUN:   -I%S/Inputs/hdr -isystem %S/Inputs/hdr-sys -DWITH_SYSTEM
// RUN: FileCheck --check-prefix=SYS %s < %t.s/o.yaml
// SYS: kern.h
// SYS-NOT: syshp.h

#include "kern.h"
#include "kern.h"
#ifdef WITH_SYSTEM
#include <syshp.h>
#endif

double a[100];

double run(void) {
  HDR_PFOR for (int i = 0; i < 100; i++) a[i] = i;
  return fill(a, 100) + twice(a, 100);
}

// KERN: #ifndef KERN_H
// KERN: {if (__hcrt_sched_hint) __hcrt_sched_hint(2, 5, "{{[^"]*}}Inputs/hdr/kern.h", 9);
// KERN-NEXT: {{^}}#line 9{{$}}
// KERN-NEXT: #pragma omp parallel for schedule(runtime) reduction(+ : s)
// KERN: s += a[i];
// KERN-NEXT: }}
// KERN-NEXT: return s;

// DEEP: {{^}}#pragma once
// DEEP-NEXT: #define HDR_PFOR _Pragma("omp parallel for schedule(runtime)")
// DEEP: {if (__hcrt_sched_hint) __hcrt_sched_hint(1, 0, "{{[^"]*}}sub/deep.h", 7);
// DEEP-NEXT: {{^}}#line 7{{$}}
// DEEP-NEXT: #pragma omp parallel for schedule(runtime) reduction(+ : s)
// DEEP-NEXT: for (int i = 0; i < n; i++)
// DEEP-NEXT: s += 2 * a[i];}
// DEEP-NEXT: #pragma omp parallel for schedule(dynamic, 2147483629) reduction(+ : s)

// A hint from a header's macro goes where the macro is used.
// MAIN: __attribute__((weak)) void __hcrt_sched_hint(int, int, const char *, int);
// MAIN: {if (__hcrt_sched_hint) __hcrt_sched_hint(1, 30, "{{[^"]*}}headers.c", [[@LINE-23]]); HDR_PFOR for (int i = 0; i < 100; i++) a[i] = i;}

// YAML: 'use-external-names': 'false'
// YAML-DAG: 'name': "headers.c"
// YAML-DAG: 'name': "kern.h"
// YAML-DAG: 'name': "deep.h"
// YAML-DAG: 'external-contents': "{{[^"]*}}main.c"

// LS-DAG: {{^[0-9a-f]+}}-deep.h
// LS-DAG: {{^[0-9a-f]+}}-kern.h
// LS-DAG: main.c
// LS-DAG: o.yaml
