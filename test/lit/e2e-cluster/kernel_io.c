// The kernel reads and writes DSM memory (docs/dsm.md "The kernel and DSM
// memory"): a system call whose buffer is a global or heap page that is
// protected on this rank (not yet present, or watched for writes) does
// not fault, it fails with EFAULT, and a program that does not check
// (fread returning 0 items) goes on without its input. Every such call
// of the C library must see its memory made resident first: read/fread
// into globals and the heap on the head, pread into a shared array by
// every thread of every node inside a region, stat and
// sched_getaffinity into globals, write/fwrite of data the workers wrote,
// a path in a global array. Regions stay on all nodes (HCRT_SCHED_PLACE=0),
// also over the message path (HCRT_DSM_SHM=0) and at 4 ranks.
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_SCHED_PLACE=0 timeout -k 5 120 %hcrun -n 2 --threads 2 %t %t.d2 | FileCheck %s
// RUN: env HCRT_SCHED_PLACE=0 HCRT_DSM_SHM=0 timeout -k 5 120 %hcrun -n 2 --threads 1 %t %t.d2s | FileCheck %s
// RUN: env HCRT_SCHED_PLACE=0 timeout -k 5 120 %hcrun -n 4 --threads 1 %t %t.d4 | FileCheck %s
// RUN: %t %t.d1 | FileCheck %s
// CHECK: head read: 65536 bytes ok
// CHECK-NEXT: head fread global: 8192 items ok
// CHECK-NEXT: head fread heap: 8192 items ok
// CHECK-NEXT: stat: ok
// CHECK-NEXT: sched_getaffinity: ok
// CHECK-NEXT: region pread: ok
// CHECK-NEXT: fwrite after region: ok
// CHECK-NEXT: write after region: ok
// CHECK-NEXT: read after region: ok
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 8192

static double g[N], back[N];
static char raw[8 * N], path[4096];
static struct stat st;
static cpu_set_t cpus;

static void put(const char *name, const void *buf, size_t n)
{
    snprintf(path, sizeof path, "%s.%s", getenv("KIO_BASE"), name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
        perror(path);
        exit(2);
    }
}

static int same(const double *a, int n, double add)
{
    for (int i = 0; i < n; i++)
        if (a[i] != i + add)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    double *ref = malloc(N * sizeof(double));
    double *h = malloc(N * sizeof(double));

    setenv("KIO_BASE", argc > 1 ? argv[1] : "kernel_io", 1);
    for (int i = 0; i < N; i++)
        ref[i] = i;
    put("in", ref, N * sizeof(double));

    int fd = open(path, O_RDONLY); /* path: a global written just now */
    ssize_t got = fd < 0 ? -1 : read(fd, raw, sizeof raw);
    close(fd);
    printf("head read: %zd bytes %s\n", got,
           got == (ssize_t)sizeof raw && !memcmp(raw, ref, sizeof raw) ? "ok"
                                                                      : "WRONG");
    FILE *f = fopen(path, "rb");
    size_t n1 = fread(g, sizeof(double), N, f);
    rewind(f);
    size_t n2 = fread(h, sizeof(double), N, f);
    fclose(f);
    printf("head fread global: %zu items %s\n", n1,
           n1 == N && same(g, N, 0) ? "ok" : "WRONG");
    printf("head fread heap: %zu items %s\n", n2,
           n2 == N && same(h, N, 0) ? "ok" : "WRONG");
    printf("stat: %s\n", stat(path, &st) == 0 &&
                                 st.st_size == (off_t)(N * sizeof(double))
                             ? "ok"
                             : "WRONG");
    printf("sched_getaffinity: %s\n",
           sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0
               ? "ok"
               : "WRONG");

    /* every thread of every node reads its block into the shared array */
    memset(g, 0, sizeof g);
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int fdt = open(path, O_RDONLY);
#pragma omp for schedule(static)
        for (int b = 0; b < N / 512; b++) {
            size_t len = 512 * sizeof(double), off = b * len;
            bad += pread(fdt, (char *)g + off, len, (off_t)off) != (ssize_t)len;
        }
        close(fdt);
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            back[i] = g[i] + 1;
    }
    printf("region pread: %s\n", !bad && same(g, N, 0) ? "ok" : "WRONG");

    /* what the workers wrote goes out through the kernel */
    put("out", back, sizeof back);
    f = fopen(path, "rb");
    size_t n3 = fread(h, sizeof(double), N, f);
    fclose(f);
    printf("fwrite after region: %s\n", n3 == N && same(h, N, 1) ? "ok" : "WRONG");
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        back[i] = i + 2;
    snprintf(path, sizeof path, "%s.raw", getenv("KIO_BASE"));
    fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ssize_t w = write(fd, back, sizeof back);
    close(fd);
    printf("write after region: %s\n", w == (ssize_t)sizeof back ? "ok" : "WRONG");
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        g[i] = -1;
    fd = open(path, O_RDONLY);
    got = read(fd, g, sizeof g);
    close(fd);
    printf("read after region: %s\n",
           got == (ssize_t)sizeof g && same(g, N, 2) ? "ok" : "WRONG");
    return 0;
}
