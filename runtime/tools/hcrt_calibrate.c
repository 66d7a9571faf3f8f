/*
 * hcrt_calibrate.c - measures HetProbe's fault-period threshold on this
 * system (docs/hetprobe.md, "The calibration tool"; seed libHetMP §3.2.2).
 *
 * Sweeps compute per byte transferred over the DSM: for each intensity k
 * (operations per byte), times rank 0 alone over data it holds, then every
 * rank over its 1/P share of the same data (which the other ranks must
 * fetch), and records the mean time between DSM page transfers on the
 * fetching ranks. The threshold is the fault period at the knee, where
 * splitting starts to beat one node by a margin. Writes a calibration file.
 *
 * Not in the build yet (it needs the DSM of runtime/dsm at run time):
 *   mpicc -O2 -D_GNU_SOURCE -Iinclude -Iruntime \
 *     runtime/sched/calibrate/hcrt_calibrate.c BUILD/lib/libhcrt_static.a \
 *     -lpthread -lm -o hcrt-calibrate
 *   mpirun -np 2 ./hcrt-calibrate [--out PATH] [--pages N] [--margin F]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dsm/dsm.h"
#include "libhcrt/runtime.h"

#define MAX_POINTS 16
#define OPS_BUDGET 2e8 /* operations per measured run, about 0.1-0.3 s */

typedef struct opts {
    size_t pages;  /* largest data set */
    double margin; /* cross-node must win by this fraction */
    int reps;
    int max_ops;
    const char *out;
} opts_t;

typedef struct point {
    int ops;          /* per byte */
    size_t bytes;     /* data set of this point */
    double t1, tp;    /* seconds: rank 0 alone, all ranks */
    double period_us; /* min over fetching ranks (inf: no fault) */
} point_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* k dependent multiply-adds per byte: nothing the compiler can fold. */
static uint64_t kernel(const unsigned char *p, size_t n, int k)
{
    uint64_t acc = 0;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, p + i, 8);
        for (int j = 0; j < 8 * k; j++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        acc += x;
    }
    return acc;
}

/* DSM page transfers (pages fetched + diffs sent), the "faults" HetProbe
 * counts: with sequential prefetch one fault brings up to 64 pages, so the
 * time per transferred page, not per fault, measures the DSM load. */
static uint64_t faults_now(void)
{
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    return c.pages_fetched + c.diff_pages;
}

/* One run over [0, bytes) split among `nrun` ranks; returns the slowest
 * rank's time and the smallest fault period of ranks other than 0. */
static void run_once(unsigned char *buf, size_t bytes, int k, int nrun,
                     double *t, double *period_us, uint64_t *sink)
{
    int me = hcrt__rank();
    MPI_Comm comm = hcrt__comm_world();
    double mine = 0.0, per = INFINITY;
    hcrt__dsm_barrier();
    if (me < nrun) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE), npg = bytes / page;
        size_t a = npg * (size_t)me / (size_t)nrun * page;
        size_t b = npg * (size_t)(me + 1) / (size_t)nrun * page;
        uint64_t f0 = faults_now();
        double t0 = now();
        *sink ^= kernel(buf + a, b - a, k);
        mine = now() - t0;
        uint64_t f = faults_now() - f0;
        if (me != 0 && f > 0)
            per = mine * 1e6 / (double)f;
    }
    MPI_Allreduce(&mine, t, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&per, period_us, 1, MPI_DOUBLE, MPI_MIN, comm);
}

/* Rank 0 rewrites the data so every other rank's copy is stale: each
 * cross-node run starts with all data on rank 0, as an application does. */
static void refill(unsigned char *buf, size_t bytes, int k)
{
    if (hcrt__rank() == 0)
        for (size_t i = 0; i < bytes; i++)
            buf[i] = (unsigned char)(i * 131u + (unsigned)k);
}

static void measure(unsigned char *buf, const opts_t *o, point_t *pt,
                    uint64_t *sink)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (size_t)(OPS_BUDGET / ((double)pt->ops * (double)page));
    int P = hcrt__size();
    if (pages < 16 * (size_t)P)
        pages = 16 * (size_t)P;
    if (pages > o->pages)
        pages = o->pages;
    pt->bytes = pages * page;
    pt->t1 = pt->tp = INFINITY;
    pt->period_us = INFINITY;
    for (int r = 0; r < o->reps; r++) {
        double t, per;
        refill(buf, pt->bytes, pt->ops + r);
        run_once(buf, pt->bytes, pt->ops, 1, &t, &per, sink);
        pt->t1 = t < pt->t1 ? t : pt->t1;
        refill(buf, pt->bytes, pt->ops + r + 1);
        run_once(buf, pt->bytes, pt->ops, P, &t, &per, sink);
        if (t < pt->tp) {
            pt->tp = t;
            pt->period_us = per;
        }
    }
}

/* The fault period at the knee: the first intensity from which splitting
 * wins at every higher one too (a lone win among losses is noise), the
 * period interpolated geometrically with the last losing point. */
static double knee(const point_t *pt, int n, double margin, const char **how)
{
    int first = n;
    while (first > 0 && pt[first - 1].t1 / pt[first - 1].tp >= 1.0 + margin)
        first--;
    if (first == n) {
        *how = "splitting did not win at the highest intensity: largest "
               "period measured";
        double best = 0.0;
        for (int i = 0; i < n; i++)
            if (isfinite(pt[i].period_us) && pt[i].period_us > best)
                best = pt[i].period_us;
        return best;
    }
    if (first == 0 || !isfinite(pt[first - 1].period_us)) {
        *how = "splitting won from the lowest intensity: smallest period";
        return pt[first].period_us;
    }
    *how = "knee between the last losing and the first winning point";
    return sqrt(pt[first - 1].period_us * pt[first].period_us);
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    o->pages = 4096;
    o->margin = 0.1;
    o->reps = 3;
    o->max_ops = 4096;
    o->out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--out") == 0 && v)
            o->out = v, i++;
        else if (strcmp(a, "--pages") == 0 && v && atol(v) > 0)
            o->pages = (size_t)atol(v), i++;
        else if (strcmp(a, "--margin") == 0 && v && atof(v) >= 0)
            o->margin = atof(v), i++;
        else if (strcmp(a, "--reps") == 0 && v && atoi(v) > 0)
            o->reps = atoi(v), i++;
        else if (strcmp(a, "--max-ops") == 0 && v && atoi(v) > 0)
            o->max_ops = atoi(v), i++;
        else {
            fprintf(stderr,
                    "hcrt-calibrate: bad argument `%s`; usage: mpirun -np 2 "
                    "hcrt-calibrate [--out FILE] [--pages N] [--margin F] "
                    "[--reps N] [--max-ops N]\n",
                    a);
            return -1;
        }
    }
    return 0;
}

/* ~/.cache/hcc/calibration (or under $XDG_CACHE_HOME), directories made. */
static int default_path(char *path, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096];
    if (xdg != NULL && *xdg == '/')
        snprintf(dir, sizeof(dir), "%s", xdg);
    else if (home != NULL && *home != '\0')
        snprintf(dir, sizeof(dir), "%s/.cache", home);
    else
        return -1;
    mkdir(dir, 0755);
    size_t n = strlen(dir);
    snprintf(dir + n, sizeof(dir) - n, "/hcc");
    mkdir(dir, 0755);
    snprintf(path, len, "%s/calibration", dir);
    return 0;
}

static int write_file(const char *path, const point_t *pt, int n, double thr,
                      const char *how, const opts_t *o)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        fprintf(stderr, "hcrt-calibrate: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(f, "# written by hcrt-calibrate, %d ranks, %s\n", hcrt__size(),
            how);
    fprintf(f, "format = hcc-calibration-1\n");
    fprintf(f, "fault_period_us = %.1f\n", thr);
    fprintf(f, "date = %s\nranks = %d\nmargin = %.3f\n", date, hcrt__size(),
            o->margin);
    fprintf(f, "# sweep = ops/byte bytes speedup fault_period_us\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "sweep = %d %zu %.3f %.1f\n", pt[i].ops, pt[i].bytes,
                pt[i].t1 / pt[i].tp, pt[i].period_us);
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    opts_t o;
    hcrt__dsm_prepare_address_space(argc, argv);
    if (hcrt__runtime_init(&argc, &argv) != HCRT_OK)
        return 2;
    int me = hcrt__rank(), bad = parse_args(argc, argv, &o);
    if (bad == 0 && hcrt__size() < 2) { /* alone: no MPI, no DSM */
        fprintf(stderr, "hcrt-calibrate: needs 2 or more ranks: run it "
                        "under mpirun -np 2\n");
        bad = 1;
    }
    if (bad || hcrt__dsm_init(hcrt__comm_world()) != HCRT_OK)
        return 2;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint64_t addr = 0, sink = 0;
    if (me == 0)
        addr = (uintptr_t)hcrt__dsm_malloc(o.pages * page);
    MPI_Bcast(&addr, 1, MPI_UINT64_T, 0, hcrt__comm_world());
    if (addr == 0) {
        if (me == 0)
            fprintf(stderr,
                    "hcrt-calibrate: cannot allocate %zu DSM pages; "
                    "lower --pages or raise HCRT_DSM_SIZE\n",
                    o.pages);
        return 2;
    }
    point_t pt[MAX_POINTS];
    int n = 0;
    for (int k = 1; k <= o.max_ops && n < MAX_POINTS; k *= 4, n++) {
        pt[n].ops = k;
        measure((unsigned char *)(uintptr_t)addr, &o, &pt[n], &sink);
        if (me == 0)
            printf("%6d ops/byte %9zu bytes: 1 rank %.4fs, %d ranks %.4fs, "
                   "speedup %.2f, fault period %.1fus\n",
                   k, pt[n].bytes, pt[n].t1, hcrt__size(), pt[n].tp,
                   pt[n].t1 / pt[n].tp, pt[n].period_us);
    }
    const char *how;
    double thr = knee(pt, n, o.margin, &how);
    int rc = 0;
    if (me == 0) {
        char path[4200];
        if (o.out != NULL)
            snprintf(path, sizeof(path), "%s", o.out);
        else if (default_path(path, sizeof(path)) != 0)
            snprintf(path, sizeof(path), "calibration");
        printf("threshold %.1f us (%s) -> %s (checksum %llx)\n", thr, how, path,
               (unsigned long long)sink);
        rc = thr > 0.0 && write_file(path, pt, n, thr, how, &o) == 0 ? 0 : 1;
    }
    hcrt__dsm_fini();
    return rc;
}
