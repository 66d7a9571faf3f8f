// The runtime's helper threads ask the scheduler for a short time slice
// (HCRT_HELPER_SLICE_US, libhcrt/bell.c), so that a woken one preempts a
// computation on its core at once. On a kernel that shows se.slice in
// /proc (Linux 6.12+), the event gate and the event data handler of every
// rank must carry the setting's slice, while the thread that runs
// offloaded kernels, the DSM service thread and the program's own threads
// keep the kernel's default; with 0 every thread keeps the default.
// RUN: %hcc -fopenmp -O1 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_HELPER_SLICE_US=250 OMP_NUM_THREADS=1 timeout -k 5 60 %mpirun -x HCRT_CLUSTER -x HCRT_HELPER_SLICE_US -x OMP_NUM_THREADS -np 2 %t 250000 | FileCheck %s
// RUN: env HCRT_CLUSTER=1 HCRT_HELPER_SLICE_US=0 OMP_NUM_THREADS=1 timeout -k 5 60 %mpirun -x HCRT_CLUSTER -x HCRT_HELPER_SLICE_US -x OMP_NUM_THREADS -np 2 %t 0 | FileCheck %s
// CHECK-DAG: rank 0: slices ok
// CHECK-DAG: rank 1: slices ok
// CHECK-NOT: FAIL
#define _GNU_SOURCE
#include <dirent.h>
#include <hcrt/hcrt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* se.slice of a task of this process (-1: not shown by this kernel) */
static long slice_of(const char *task)
{
    char path[300], line[256];
    long v = -1;
    snprintf(path, sizeof path, "/proc/self/task/%s/sched", task);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "se.slice", 8) == 0)
            v = atol(strchr(line, ':') + 1);
    fclose(f);
    return v;
}

static void comm_of(const char *task, char *out, size_t n)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", task);
    FILE *f = fopen(path, "r");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)n, f))
            out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

/* Runs on every rank: checks this process's threads. A helper thread
 * names itself (and asks for its slice) when it starts running, which may
 * be just after this region started: scan again for up to 2 s until both
 * helpers are named. */
static int scan(long want, int node, long dflt, int report);

static void check(long want, int node)
{
    char self[32];
    snprintf(self, sizeof self, "%ld", (long)gettid());
    long dflt = slice_of(self);
    if (dflt < 0) {
        printf("rank %d: slices ok (this kernel shows no se.slice)\n", node);
        return;
    }
    for (int i = 0; i < 200 && scan(want, node, dflt, 0) != 0; i++)
        usleep(10000);
    if (scan(want, node, dflt, 1) == 0)
        printf("rank %d: slices ok\n", node);
    fflush(stdout);
}

/* 0 when every thread has its expected slice; with `report`, says why not */
static int scan(long want, int node, long dflt, int report)
{
    int fails = 0, helpers = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char comm[64];
        comm_of(e->d_name, comm, sizeof comm);
        long s = slice_of(e->d_name);
        int helper = !strcmp(comm, "hcrt-gate") || !strcmp(comm, "hcrt-data");
        long expect = helper && want > 0 ? want : dflt;
        helpers += helper;
        if (getenv("SHOW"))
            printf("rank %d: %s %s %ld\n", node, e->d_name, comm, s);
        if (s != expect && fails++ < 5 && report)
            printf("FAIL rank %d: thread %s (%s) has slice %ld, want %ld\n",
                   node, e->d_name, comm, s, expect);
    }
    if (d)
        closedir(d);
    if (helpers != 2) {
        fails++;
        if (report)
            printf("FAIL rank %d: %d helper threads found, want 2\n", node,
                   helpers);
    }
    return fails;
}

int main(int argc, char **argv)
{
    long want = argc > 1 ? atol(argv[1]) : 0;
    /* a cluster region: every rank runs it, helpers are up by now */
#pragma omp parallel
    check(want, hcrt_node_id()); /* one thread per node (OMP_NUM_THREADS=1) */
    return 0;
}
