// Linked with GNU ld: __start_/__stop_ symbols of both shared sections
// resolve, both ranges are page aligned and a whole number of pages, and a
// 1 GiB zero-initialised array does not bloat the executable.
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O1 -c %s -o %t.o
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O1 -c %S/Inputs/globals-link-other.c -o %t2.o
// RUN: %clang -nostartfiles -Wl,-e,0 -Wl,--unresolved-symbols=ignore-all %t.o %t2.o -o %t.exe
// RUN: llvm-readelf -S %t.exe | FileCheck %s --check-prefix=SEC
// RUN: llvm-nm %t.exe | FileCheck %s --check-prefix=SYM
// RUN: test $(stat -c %%s %t.exe) -lt 1000000
// SEC-DAG: hcrt_shared PROGBITS {{0*}}[[D:[0-9a-f]+]]000 {{[0-9a-f]+}} {{0*}}{{[0-9a-f]*}}000 {{.*}} 4096
// SEC-DAG: hcrt_shared_bss NOBITS {{0*}}[[B:[0-9a-f]+]]000 {{[0-9a-f]+}} {{0*}}4{{[0-9a-f]*}}000 {{.*}} 4096
// SYM-DAG: {{[0-9a-f]*}}000 D __start_hcrt_shared
// SYM-DAG: {{[0-9a-f]*}}000 D __stop_hcrt_shared
// SYM-DAG: {{[0-9a-f]*}}000 B __start_hcrt_shared_bss
// SYM-DAG: {{[0-9a-f]*}}000 B __stop_hcrt_shared_bss
// SYM-DAG: b big
// SYM-DAG: D counter
// SYM-DAG: D other_counter

static double big[1 << 27];
int counter = 3;
double *touch(int i) { big[i] = counter; return &big[i]; }
