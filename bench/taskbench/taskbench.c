/*
 * taskbench.c - a Task-Bench-style harness for target offload (issue #6).
 *
 * A graph of width x steps points; the task of point p at step t is a
 * `target nowait` region whose `depend(in:)` items are the outputs of the
 * points of step t-1 the pattern names and whose `depend(out:)` item is its
 * own output (double buffered: step t writes buffer t % 2, so step t+2
 * waits for step t+1's readers). Each dependency carries BYTES bytes (the
 * producer's output buffer, mapped `to` by the consumer). The kernel is a
 * compute-bound loop of ITER iterations (Task Bench's compute_bound).
 *
 * Patterns (Task Bench's names): trivial (no dependencies), stencil_1d
 * (p-1, p, p+1), nearest (p-2 .. p+2), tree (p/2: the active width
 * doubles each step up to WIDTH), fft (p and p xor 2^k, butterfly).
 *
 * With -S, the kernel does no arithmetic: it waits ITER microseconds of wall
 * time (nanosleep) and writes its output. That models devices that have
 * cores of their own, as separate nodes do: on a machine where all ranks
 * share a few cores, a compute kernel makes every placement take the same
 * total CPU time, so only a waiting kernel shows what placement does to the
 * makespan.
 *
 * With --uneven K, the points use K distinct kernels (K target regions,
 * kernel c costs (1 + 2c) x ITER): the per-kernel time estimates a
 * scheduler learns (HEFT) then differ, so placement matters. The graph is
 * run --reps times (the first one, a warm-up that lets the runtime learn
 * kernel times, is not timed) and checked against a sequential host run.
 *
 * Output: one line "key=value ..." per run (bench/taskbench/run.sh parses
 * it): elapsed = seconds of the fastest timed rep, tasks, the kernel's
 * calibrated duration on the head, and the result check.
 *
 *   hcc -O2 taskbench.c -o taskbench
 *   hcrun -n 2 ./taskbench -p stencil_1d -w 4 -s 100 -i 1000 -b 64
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXDEP 5 /* nearest: p-2 .. p+2 */
#define MAXK 4   /* kernel classes for --uneven */

enum { TRIVIAL, STENCIL, NEAREST, TREE, FFT };
static const char *const pattern_names[] = {"trivial", "stencil_1d", "nearest",
                                            "tree", "fft"};

typedef struct {
    int pattern, width, steps, reps, uneven, verify, sleep;
    long iter, bytes;
} opts_t;

#pragma omp declare target
/* ITER dependent multiply-adds on 4 lanes (or, sleep, a wait of ITER
 * microseconds), seeded by the inputs, written over the whole output buffer
 * (n words). */
static void kernel(uint64_t *out, long n, const uint64_t *const *in, int nin,
                   long iter, int sleep, uint64_t salt)
{
    uint64_t a = salt, b = salt ^ 0x9e3779b97f4a7c15ull, c = salt + 1, d = 7;
    for (int k = 0; k < nin; k++)
        a += in[k][0] * (k + 3);
    if (sleep) {
        struct timespec ts = {iter / 1000000, iter % 1000000 * 1000};
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
        iter = 0;
    }
    for (long i = 0; i < iter; i++) {
        a = a * 6364136223846793005ull + b;
        b = b * 6364136223846793005ull + c;
        c = c * 6364136223846793005ull + d;
        d = d * 6364136223846793005ull + a;
    }
    uint64_t v = a ^ b ^ c ^ d;
    for (long i = 0; i < n; i++)
        out[i] = v + (uint64_t)i;
}
#pragma omp end declare target

/* The points of step t-1 that point p of step t reads; returns how many. */
static int deps(const opts_t *o, int t, int p, int dep[MAXDEP])
{
    int n = 0, w = o->width;
    if (t == 0)
        return 0;
    switch (o->pattern) {
    case TRIVIAL:
        return 0;
    case STENCIL:
    case NEAREST: {
        int r = o->pattern == STENCIL ? 1 : 2;
        for (int q = p - r; q <= p + r; q++)
            if (q >= 0 && q < w)
                dep[n++] = q;
        return n;
    }
    case TREE:
        dep[n++] = p / 2;
        return n;
    default: { /* FFT: log2(width) stages, repeated */
        int lg = 0;
        while ((1 << lg) < w)
            lg++;
        int q = lg ? p ^ (1 << ((t - 1) % lg)) : p;
        dep[n++] = p < q ? p : q;
        if (q != p)
            dep[n++] = p < q ? q : p;
        return n;
    }
    }
}

/* Points active at step t (tree: 1, 2, 4, ... up to the width). */
static int active(const opts_t *o, int t)
{
    if (o->pattern != TREE || t >= 30)
        return o->width;
    return (1 << t) < o->width ? 1 << t : o->width;
}

static int kclass(const opts_t *o, int t, int p)
{
    return o->uneven > 1 ? (p * 5 + t * 3) % o->uneven : 0;
}

static long kiter(const opts_t *o, int c)
{
    return o->iter * (1 + 2 * c);
}

/* One target task; the kernel class picks one of MAXK target regions so a
 * runtime sees MAXK distinct kernels. Unused input slots name `dummy`,
 * mapped once and never written: in-after-in adds no edge. */
#define TB_TARGET                                                              \
    _Pragma(                                                                   \
        "omp target map(to : i0[0 : n0], i1[0 : n1], i2[0 : n2],          \
            i3[0 : n3], i4[0 : n4]) map(from : y[0 : nw])                      \
            depend(in : i0[0], i1[0], i2[0], i3[0], i4[0])                     \
            depend(out : y[0]) nowait")
#define TB_BODY                                                                \
    {                                                                          \
        const uint64_t *ins[MAXDEP] = {i0, i1, i2, i3, i4};                    \
        kernel(y, nw, ins, nin, it, sl, salt);                                 \
    }

static void spawn(int c, uint64_t *y, long nw, uint64_t *const in[MAXDEP],
                  const long len[MAXDEP], int nin, long it, int sl,
                  uint64_t salt)
{
    uint64_t *i0 = in[0], *i1 = in[1], *i2 = in[2], *i3 = in[3], *i4 = in[4];
    long n0 = len[0], n1 = len[1], n2 = len[2], n3 = len[3], n4 = len[4];
    switch (c) {
    case 0:
        TB_TARGET TB_BODY break;
    case 1:
        TB_TARGET TB_BODY break;
    case 2:
        TB_TARGET TB_BODY break;
    default:
        TB_TARGET TB_BODY break;
    }
}

/* buf[t % 2][p]: the output of point p at step t (nw words). */
static void run_graph(const opts_t *o, uint64_t **buf[2], uint64_t *dummy,
                      int offload)
{
    long nw = o->bytes / 8;
    for (int t = 0; t < o->steps; t++)
        for (int p = 0; p < active(o, t); p++) {
            int dep[MAXDEP], nin = deps(o, t, p, dep), c = kclass(o, t, p);
            uint64_t *in[MAXDEP];
            long len[MAXDEP];
            for (int k = 0; k < MAXDEP; k++) {
                in[k] = k < nin ? buf[(t + 1) % 2][dep[k]] : dummy;
                len[k] = k < nin ? nw : 1;
            }
            uint64_t salt = (uint64_t)t * 1000003u + (uint64_t)p;
            uint64_t *y = buf[t % 2][p];
            if (offload)
                spawn(c, y, nw, in, len, nin, kiter(o, c), o->sleep, salt);
            else
                kernel(y, nw, (const uint64_t *const *)in, nin, kiter(o, c),
                       o->sleep, salt);
        }
}

static uint64_t **alloc_layer(const opts_t *o)
{
    uint64_t **l = malloc(o->width * sizeof(uint64_t *));
    for (int p = 0; p < o->width; p++)
        l[p] = calloc(o->bytes / 8, 8);
    return l;
}

static void usage(const char *why)
{
    fprintf(
        stderr,
        "taskbench: %s\n"
        "usage: taskbench [-p trivial|stencil_1d|nearest|tree|fft] [-w WIDTH]\n"
        "  [-s STEPS] [-i ITER] [-b BYTES (multiple of 8)] [-r REPS]\n"
        "  [-u K (1..%d kernel classes)] [-n (no result check)]\n"
        "  [-S (the kernel waits ITER us instead of computing)]\n",
        why, MAXK);
    exit(2);
}

static long num(const char *s, long lo, long hi, const char *what)
{
    char *end;
    long v = strtol(s ? s : "", &end, 10);
    if (!s || *end || v < lo || v > hi) {
        char m[128];
        snprintf(m, sizeof m, "%s must be an integer in [%ld, %ld]", what, lo,
                 hi);
        usage(m);
    }
    return v;
}

static void parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){STENCIL, 4, 50, 3, 1, 1, 0, 1000, 64};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-n")) {
            o->verify = 0;
            continue;
        }
        if (!strcmp(a, "-S")) {
            o->sleep = 1;
            continue;
        }
        i++;
        if (!strcmp(a, "-p")) {
            o->pattern = -1;
            for (int k = 0; k < 5; k++)
                if (v && !strcmp(v, pattern_names[k]))
                    o->pattern = k;
            if (o->pattern < 0)
                usage("unknown pattern");
        } else if (!strcmp(a, "-w"))
            o->width = (int)num(v, 1, 4096, "-w");
        else if (!strcmp(a, "-s"))
            o->steps = (int)num(v, 1, 1000000, "-s");
        else if (!strcmp(a, "-i"))
            o->iter = num(v, 0, 1L << 40, "-i");
        else if (!strcmp(a, "-b"))
            o->bytes = num(v, 8, 1L << 30, "-b");
        else if (!strcmp(a, "-r"))
            o->reps = (int)num(v, 2, 1000, "-r (the first rep is a warm-up)");
        else if (!strcmp(a, "-u"))
            o->uneven = (int)num(v, 1, MAXK, "-u");
        else
            usage("unknown option");
    }
    if (o->bytes % 8)
        usage("-b must be a multiple of 8");
    if (o->pattern == FFT && (o->width & (o->width - 1)))
        usage("fft needs a power-of-two width");
}

static double now(void) /* omp_get_wtime() ticks in microseconds here */
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink; /* keeps the calibration runs alive */

/* The kernel's run time on the head: the best of a few runs. */
static double calibrate(const opts_t *o)
{
    uint64_t *y = malloc(o->bytes), x = 1;
    const uint64_t *in[1] = {&x};
    double best = 1e30;
    for (int k = 0; k < 20; k++) {
        double t0 = now();
        kernel(y, o->bytes / 8, in, 1, o->iter, o->sleep, (uint64_t)k);
        double dt = now() - t0;
        sink += y[o->bytes / 8 - 1];
        best = dt < best ? dt : best;
    }
    free(y);
    return best;
}

int main(int argc, char **argv)
{
    opts_t o;
    parse(argc, argv, &o);
    uint64_t **buf[2] = {alloc_layer(&o), alloc_layer(&o)}, dummy[1] = {0};
    long ntasks = 0, work = 0; /* work: sum of ITER units */
    for (int t = 0; t < o.steps; t++)
        for (int p = 0; p < active(&o, t); p++) {
            ntasks++;
            work += 1 + 2 * kclass(&o, t, p);
        }
    double elapsed = 0;
#pragma omp target enter data map(to : dummy[0 : 1])
    for (int r = 0; r < o.reps; r++) {
        double t0 = now();
#pragma omp parallel
#pragma omp single
        {
            run_graph(&o, buf, dummy, 1);
#pragma omp taskwait
        }
        double dt = now() - t0; /* the best rep: robust to a loaded box */
        if (r > 0 && (elapsed == 0 || dt < elapsed))
            elapsed = dt;
    }
#pragma omp target exit data map(release : dummy[0 : 1])
    int ok = 1;
    if (o.verify) {
        uint64_t **ref[2] = {alloc_layer(&o), alloc_layer(&o)};
        run_graph(&o, ref, dummy, 0);
        for (int s = 0; s < 2; s++)
            for (int p = 0; p < o.width; p++)
                ok &= !memcmp(ref[s][p], buf[s][p], o.bytes);
    }
    double unit = calibrate(&o);
    printf("pattern=%s width=%d steps=%d iter=%ld bytes=%ld uneven=%d "
           "kernel=%s devices=%d tasks=%ld reps=%d elapsed=%.6f task_s=%.9f "
           "work_s=%.6f per_task_s=%.9f check=%s\n",
           pattern_names[o.pattern], o.width, o.steps, o.iter, o.bytes,
           o.uneven, o.sleep ? "sleep" : "compute", omp_get_num_devices(),
           ntasks, o.reps - 1, elapsed, unit,
           unit * work, elapsed / ntasks,
           o.verify ? (ok ? "ok" : "WRONG") : "skipped");
    return ok ? 0 : 1;
}
