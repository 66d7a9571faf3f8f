// Clause-less loops in headers get the implementation's schedule like those
// of the main file, with the same exception: an orphaned loop stays static
// when a nowait anywhere in the unit (here: in the main file, not in the
// header) may chain it to a loop that assumes the static mapping.
// RUN: rm -rf %t && mkdir %t %t/w
// RUN: %s2s --overlay %t/o.yaml -o %t/main.c %S/Inputs/hdr/orphan-use.c -- -x c
// RUN: cat %t/*-orphan.h | FileCheck --check-prefix=MARKED %s
// MARKED: #pragma omp for schedule(dynamic, 2147483629){{$}}
// RUN: %s2s --overlay %t/w/o.yaml -o %t/w/main.c %S/Inputs/hdr/orphan-chain.c -- -x c
// RUN: ls %t/w | FileCheck --check-prefix=KEPT %s
// KEPT-NOT: orphan.h
// RUN: FileCheck --check-prefix=CHAIN %s < %t/w/main.c
// CHAIN: #pragma omp for nowait
// The driver leaves the chained case to hcc-s2s (the header has a loop it
// might mark), and marks the other (the header needs s2s too).
// RUN: %hcc -### -c %S/Inputs/hdr/orphan-chain.c 2>&1 | FileCheck --check-prefix=DRV %s
// RUN: %hcc -### -c %S/Inputs/hdr/orphan-use.c 2>&1 | FileCheck --check-prefix=DRV %s
// DRV: hcc-s2s
