/*
 * dsm_bench.c - the DSM's costs against raw MPI between the same two ranks,
 * measured in the same run (rank 0 = reader/writer, rank 1 = home).
 *
 *   fault   remote read-fault service time (one page, random order) vs a
 *           raw MPI round trip fetching 4 KiB (8-byte request, 4 KiB reply)
 *   stream  sequential read of a remote array, fault driven with prefetch,
 *           vs raw MPI moving the same bytes (4 MiB messages)
 *   release release cost per dirty page (8 changed bytes and a full page)
 *   barrier hcrt__dsm_barrier (nothing dirty) vs MPI_Barrier
 *   busy    fault and stream again while the home computes on the core its
 *           service thread shares (each rank's threads pinned to one
 *           core), as on a node running a thread per core: the service
 *           thread's wake-ups (HCRT_DSM_BELL) against its polling
 *
 * Prints "key value" lines; bench/dsm/run.sh turns them into a table.
 * While rank 1 only serves, its main thread sleeps in a polling barrier so
 * the service thread has a core (as a worker waiting for events would).
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dsm/dsm.h"
#include "libhcrt/runtime.h"

static int me;
static MPI_Comm comm;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A barrier that sleeps while waiting, leaving the core to other threads. */
static void lazy_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(comm, &req);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done)
            usleep(50);
    }
}

/* Median of n times (sorts them). On a loaded machine the mean of a
 * latency is set by a few iterations that lost their core for a time
 * slice; the median is what one operation costs. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? v[n / 2] : 0;
}

static double raw_med; /* median round trip of the last raw_roundtrip */

static double raw_roundtrip(int iters)
{
    static char page[4096];
    uint64_t req = 0;
    double *each = malloc(sizeof(double) * (size_t)iters);
    MPI_Barrier(comm);
    double t = now();
    for (int i = 0; i < iters; i++) {
        double t1 = now();
        if (me == 0) {
            MPI_Send(&req, 1, MPI_UINT64_T, 1, 1, comm);
            MPI_Recv(page, 4096, MPI_BYTE, 1, 2, comm, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(&req, 1, MPI_UINT64_T, 0, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(page, 4096, MPI_BYTE, 0, 2, comm);
        }
        each[i] = now() - t1;
    }
    t = (now() - t) / iters;
    raw_med = median(each, iters);
    free(each);
    return t;
}

static double raw_stream(size_t bytes)
{
    size_t chunk = 4 << 20;
    char *buf = malloc(chunk);
    memset(buf, 1, chunk);
    MPI_Barrier(comm);
    double t = now();
    for (size_t off = 0; off < bytes; off += chunk) {
        if (me == 0)
            MPI_Recv(buf, (int)chunk, MPI_BYTE, 1, 3, comm, MPI_STATUS_IGNORE);
        else if (me == 1)
            MPI_Send(buf, (int)chunk, MPI_BYTE, 0, 3, comm);
    }
    t = now() - t;
    free(buf);
    return t;
}

/* Rank 1 allocates (home) and fills `bytes`; returns the shared pointer. */
static char *home_array(size_t bytes)
{
    uint64_t p = 0;
    if (me == 1) {
        char *a = hcrt__dsm_malloc(bytes);
        for (size_t i = 0; i < bytes; i += 4096)
            memset(a + i, (int)(i >> 12), 4096);
        p = (uintptr_t)a;
    }
    MPI_Bcast(&p, 1, MPI_UINT64_T, 1, comm);
    hcrt__dsm_barrier();
    return (char *)(uintptr_t)p;
}

/* 0..pages-1 shuffled (the same order on every run). */
static int *shuffled(int pages)
{
    int *order = malloc(sizeof(int) * (size_t)pages);
    for (int i = 0; i < pages; i++)
        order[i] = i;
    srand(7);
    for (int i = pages - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    return order;
}

static double fault_med; /* median of the last dsm_fault */

static double dsm_fault(int pages)
{
    char *a = home_array((size_t)pages * 2 * 4096);
    double per = 0;
    if (me == 0) {
        /* Every other page, in shuffled order: no prefetch kicks in. */
        int *order = shuffled(pages);
        double *each = malloc(sizeof(double) * (size_t)pages);
        volatile char sink = 0;
        double t = now();
        for (int i = 0; i < pages; i++) {
            double t1 = now();
            sink += a[(size_t)order[i] * 2 * 4096];
            each[i] = now() - t1;
        }
        per = (now() - t) / pages;
        fault_med = median(each, pages);
        (void)sink;
        free(order);
        free(each);
    }
    lazy_barrier();
    hcrt__dsm_barrier();
    return per;
}

/* Reads a remote array twice: cold (first touch: the kernel also has to
 * allocate and zero the local pages) and warm (after the barrier's
 * self-invalidation, as every later sweep of an iterative loop). */
static void dsm_stream(size_t bytes, double *cold, double *warm)
{
    char *a = home_array(bytes);
    for (int pass = 0; pass < 2; pass++) {
        double t = 0;
        if (me == 0) {
            volatile uint64_t sum = 0;
            t = now();
            for (size_t i = 0; i < bytes; i += 64)
                sum += (uint64_t)a[i];
            t = now() - t;
        }
        *(pass ? warm : cold) = t;
        lazy_barrier();
        hcrt__dsm_barrier();
    }
}

/* Per dirty page: `changed` bytes written on each of `pages` remote pages,
 * then one release is timed. */
static double dsm_release(int pages, size_t changed)
{
    char *a = home_array((size_t)pages * 4096);
    double per = 0;
    if (me == 0) {
        for (int i = 0; i < pages; i++)
            memset(a + (size_t)i * 4096, 0x5a, changed);
        double t = now();
        hcrt__dsm_release();
        per = (now() - t) / pages;
    }
    lazy_barrier();
    hcrt__dsm_barrier();
    return per;
}

/* Every thread of this process (the DSM's service thread included) onto
 * one core. */
static void pin_all_threads(int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.')
            sched_setaffinity((pid_t)atoi(e->d_name), sizeof one, &one);
    if (d)
        closedir(d);
}

/* Rank 1 computes until rank 0 has run `reader` over the home's array. */
static double while_home_computes(char *a, int pages,
                                  double (*reader)(char *, int))
{
    double t = 0;
    if (me == 0) {
        t = reader(a, pages);
        int done = 1;
        MPI_Send(&done, 1, MPI_INT, 1, 9, comm);
    } else if (me == 1) {
        MPI_Request req;
        int done = 0, flag = 0;
        volatile double x = 1.0;
        MPI_Irecv(&done, 1, MPI_INT, 0, 9, comm, &req);
        while (!flag) {
            for (int i = 0; i < 20000; i++)
                x = x * 1.0000001 + 1e-9;
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        }
    }
    lazy_barrier();
    hcrt__dsm_barrier();
    return t;
}

static double read_shuffled(char *a, int pages)
{
    int *order = shuffled(pages);
    volatile char sink = 0;
    double t = now();
    for (int i = 0; i < pages; i++)
        sink += a[(size_t)order[i] * 2 * 4096];
    t = (now() - t) / pages;
    free(order);
    return t;
}

static double read_all(char *a, int pages)
{
    volatile uint64_t sum = 0;
    double t = now();
    for (size_t i = 0; i < (size_t)pages * 4096; i += 64)
        sum += (uint64_t)a[i];
    return now() - t;
}

static void barriers(int iters, double *dsm_b, double *mpi_b)
{
    MPI_Barrier(comm);
    double t = now();
    for (int i = 0; i < iters; i++)
        MPI_Barrier(comm);
    *mpi_b = (now() - t) / iters;
    t = now();
    for (int i = 0; i < iters; i++)
        hcrt__dsm_barrier();
    *dsm_b = (now() - t) / iters;
}

int main(int argc, char **argv)
{
    hcrt__dsm_prepare_address_space(argc, argv);
    hcrt__runtime_init(&argc, &argv);
    if (hcrt__dsm_init(hcrt__comm_world()) != HCRT_OK)
        return 2;
    MPI_Comm_dup(hcrt__comm_world(), &comm);
    me = hcrt__rank();
    size_t stream_bytes = (size_t)(argc > 1 ? atol(argv[1]) : 64) << 20;
    int pages = argc > 2 ? atoi(argv[2]) : 2000;

    raw_roundtrip(200); /* warm up both paths */
    dsm_fault(200);
    double rt = raw_roundtrip(pages);
    double raw_med_main = raw_med;
    double fault = dsm_fault(pages);
    double raw_s = raw_stream(stream_bytes);
    double dsm_cold, dsm_s;
    dsm_stream(stream_bytes, &dsm_cold, &dsm_s);
    double rel8 = dsm_release(pages, 8);
    double relp = dsm_release(pages, 4096);
    double db, mb;
    barriers(1000, &db, &mb);
    /* last: pinned from here on */
    pin_all_threads(me % (int)sysconf(_SC_NPROCESSORS_ONLN));
    int bpages = pages < 500 ? pages : 500;
    double bfault = while_home_computes(home_array((size_t)bpages * 2 * 4096),
                                        bpages, read_shuffled);
    size_t bbytes = stream_bytes < (16 << 20) ? stream_bytes : 16 << 20;
    double bstream =
        while_home_computes(home_array(bbytes), (int)(bbytes / 4096), read_all);
    if (me == 0) {
        hcrt_dsm_counters_t c;
        hcrt__dsm_counters(&c);
        printf("raw_rt_us %.2f\n", rt * 1e6);
        printf("fault_us %.2f\n", fault * 1e6);
        printf("raw_rt_med_us %.2f\n", raw_med_main * 1e6);
        printf("fault_med_us %.2f\n", fault_med * 1e6);
        printf("stream_mib %zu\n", stream_bytes >> 20);
        printf("raw_stream_gbs %.3f\n", stream_bytes / raw_s / 1e9);
        printf("dsm_stream_cold_gbs %.3f\n", stream_bytes / dsm_cold / 1e9);
        printf("dsm_stream_gbs %.3f\n", stream_bytes / dsm_s / 1e9);
        printf("release8_us %.2f\n", rel8 * 1e6);
        printf("releasepage_us %.2f\n", relp * 1e6);
        printf("dsm_barrier_us %.2f\n", db * 1e6);
        printf("mpi_barrier_us %.2f\n", mb * 1e6);
        printf("busy_fault_us %.2f\n", bfault * 1e6);
        printf("busy_stream_gbs %.3f\n", bbytes / bstream / 1e9);
        printf("faults %llu\n", (unsigned long long)(c.read_faults));
        printf("shm_pages %llu\n", (unsigned long long)(c.shm_pages));
        printf("direct_fetches %llu\n", (unsigned long long)(c.direct_fetches));
    }
    MPI_Comm_free(&comm);
    hcrt__dsm_fini();
    return 0;
}
