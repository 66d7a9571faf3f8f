// Legal OpenMP that is risky on a cluster gets a warning with a location.
// RUN: %s2s %s -o %t.c -- -x c 2> %t.err
// RUN: FileCheck %s < %t.err
// Exactly the warnings checked below: none for malloc, stderr, printf or
// code outside parallel regions.
// RUN: grep -c -e '\[-Whcc\]$' %t.err | FileCheck --check-prefix=COUNT %s
// COUNT: {{^6$}}
// RUN: %s2s --no-warnings %s -o %t.c -- -x c 2>&1 | count 0
// RUN: %hcc -Wno-hcc -fsyntax-only %s 2>&1 | count 0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void work(const char *src, FILE *log, int n) {
  char *name = strdup(src);
  char *line = NULL;
  size_t cap = 0;
  getline(&line, &cap, stdin);
  double *map = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *own = malloc(16); // the cluster heap: fine
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    // CHECK: diagnostics.c:[[@LINE+2]]:9: warning: hcc: 'name' points to memory from 'strdup'
    // CHECK: diagnostics.c:{{[0-9]+}}:16: note: hcc: 'name' was set here
    if (name[0] == line[0]) // CHECK: diagnostics.c:[[@LINE]]:20: warning: hcc: 'line' points to memory from 'getline'
      map[i % 512] = own[0];  // CHECK: diagnostics.c:[[@LINE]]:7: warning: hcc: 'map' points to memory from 'mmap'
    fprintf(log, "%d\n", i);  // CHECK: diagnostics.c:[[@LINE]]:5: warning: hcc: 'fprintf' uses a FILE stream inside a worksharing loop
    fprintf(stderr, "%d\n", i); // forwarded by mpirun: no warning
    printf("%d\n", i);          // likewise
  }
  // CHECK: diagnostics.c:[[@LINE+4]]:15: warning: hcc: 'strdup' inside a parallel region returns memory outside the cluster's shared memory
  // CHECK: diagnostics.c:[[@LINE+4]]:5: warning: hcc: 'scanf' reads standard input inside a worksharing loop
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    char *t = strdup(src);
    scanf("%d", &n);
    free(t);
  }
  // Outside parallel regions nothing is reported.
  fprintf(log, "%s %s\n", name, line);
  free(name);
}
