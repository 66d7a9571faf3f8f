/*
 * shmem_touch.c - what the kernel charges for the kind of memory the DSM
 * uses, against the private anonymous memory a one-node OpenMP program
 * gets from malloc.
 *
 * Every heap and global byte of a cluster program lives in the DSM's
 * memfd (a shared tmpfs mapping, docs/dsm.md), also when a region runs on
 * the head alone. A first write to a tmpfs page and freeing it at exit cost
 * more than for an anonymous page; this is the floor under a one-host
 * 2-rank run against the one-node run of a program that touches hundreds
 * of MiB (NPB FT/MG/CG class A, bench/RESULTS.md "Real programs").
 *
 *   shmem_touch MIB RUNS
 *
 * prints one line per kind and run: "<kind> <run> touch_ms free_ms", where
 * touch is a first write to every page and free the unmap (and, for the
 * memfd, the close that frees its pages). Kinds: anon (MAP_PRIVATE |
 * MAP_ANONYMOUS), memfd (MAP_SHARED over a memfd, written page by page),
 * memfd_populate (the same, faulted in by MADV_POPULATE_WRITE in one call,
 * as the DSM does for runs of pages).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void touch(char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 1;
}

static int one(const char *kind, size_t n, int run)
{
    int fd = -1, shared = kind[0] == 'm';
    int populate = strcmp(kind, "memfd_populate") == 0;
    if (shared && ((fd = memfd_create("shmem_touch", MFD_CLOEXEC)) < 0 ||
                   ftruncate(fd, (off_t)n) != 0)) {
        perror("shmem_touch: memfd");
        return 1;
    }
    double t0 = now_ms();
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
                   shared ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
    if (p == MAP_FAILED) {
        perror("shmem_touch: mmap");
        return 1;
    }
    if (populate) {
        if (madvise(p, n, MADV_POPULATE_WRITE) != 0) {
            perror("shmem_touch: MADV_POPULATE_WRITE");
            return 1;
        }
    } else {
        touch(p, n);
    }
    double t1 = now_ms();
    munmap(p, n);
    if (fd >= 0)
        close(fd);
    double t2 = now_ms();
    printf("%s %d %.2f %.2f\n", kind, run, t1 - t0, t2 - t1);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[1]) < 1 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: shmem_touch MIB RUNS (both >= 1)\n");
        return 2;
    }
    size_t n = (size_t)atol(argv[1]) << 20;
    int runs = atoi(argv[2]);
    static const char *kinds[] = {"anon", "memfd", "memfd_populate"};
    for (int r = 0; r < runs; r++) /* alternate, so that load hits all */
        for (int k = 0; k < 3; k++)
            if (one(kinds[k], n, r))
                return 1;
    return 0;
}
