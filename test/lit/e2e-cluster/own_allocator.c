// A program that brings its own allocator (it defines malloc & co., or
// runs under an LD_PRELOAD allocator) serves MPI's, libomp's and the C
// library's allocations too, and its blocks are not the runtime's to
// share (heap.h). Before, such a program died with SIGSEGV at 2 ranks: the
// runtime's own threads touched the program's pool, a global that the DSM
// had protected. Now the job runs every region on the head alone, says so
// once, and gives the one-node answer.
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: %t | FileCheck %s
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 2 %t 2> %t.err2 | FileCheck %s
// RUN: FileCheck --check-prefix=WARN %s < %t.err2
// RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 %t 2> %t.err4 | FileCheck %s
// RUN: FileCheck --check-prefix=WARN %s < %t.err4
// A preloaded allocator (here one that counts and forwards to glibc's):
// RUN: %clang -shared -fPIC -O2 %S/Inputs/preload_malloc.c -o %t.so
// RUN: %hcc -fopenmp -O2 -DNO_OWN %s -o %t.plain
// RUN: env LD_PRELOAD=%t.so timeout -k 5 120 %hcrun -n 2 --threads 1 %t.plain 2> %t.errp | FileCheck %s
// RUN: FileCheck --check-prefix=WARNP %s < %t.errp
// Without one, the same program runs across nodes and says nothing:
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t.plain 2> %t.errn | FileCheck %s
// RUN: FileCheck --check-prefix=NOWARN --allow-empty %s < %t.errn
// CHECK: sum 499500000 copies 1000 str hello
// WARN: defines malloc(): memory it hands out cannot be shared between nodes, so this job runs every parallel region on the head (rank 0) alone
// WARN-NOT: defines malloc
// WARNP: own_allocator.c.tmp.so defines malloc()
// NOWARN-NOT: defines
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NO_OWN
static _Alignas(64) char pool[64 << 20];
static size_t used;

void *malloc(size_t n)
{
    n = (n + 63) & ~(size_t)63;
    size_t at = __atomic_fetch_add(&used, n, __ATOMIC_RELAXED);
    return at + n <= sizeof pool ? pool + at : NULL;
}
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b)
{
    void *p = malloc(a * b);
    if (p)
        memset(p, 0, a * b);
    return p;
}
void *realloc(void *p, size_t n)
{
    void *q = malloc(n);
    if (q && p)
        memcpy(q, p, n); /* the pool is larger: reading past is harmless */
    return q;
}
#endif

int main(void)
{
    enum { N = 1000 };
    long *a = malloc(N * sizeof(long));
    char *s = strdup("hello");
    long sum = 0;
    int copies = 0;

#pragma omp parallel for reduction(+ : sum, copies) schedule(static)
    for (int i = 0; i < N; i++) {
        a[i] = (long)i * 1000;
        sum += a[i];
        char *t = strdup(s); /* the C library allocates in the region */
        copies += t && !strcmp(t, "hello");
        free(t);
    }
    printf("sum %ld copies %d str %s\n", sum, copies, s);
    free(s);
    free(a);
    return 0;
}
