/*
 * sim_gen.c - synthetic task graphs for the simulator: the shapes OpenMP
 * task programs take (chains, fork/join, stencils, reductions, FFT
 * butterflies, all-to-all phases, random layered DAGs) at any size, with a
 * heterogeneous cost model. Everything derives from one seed through
 * splitmix64, so a run is reproducible on any machine.
 *
 * Units are abstract: kernels take 1 .. 10 units on a speed-1 node and the
 * links are set so that mean transfer / mean run time = ccr.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

const char *const sim_gen_families =
    "chain fanout fanin diamond stencil tree fft alltoall random";

#define BW 1e6 /* bytes per time unit; only the ratio to ccr matters */

typedef struct gen {
    const sim_gen_opts_t *o;
    sim_graph_t *sg;
    uint64_t rng;
    double edge_bytes; /* mean bytes per edge for the requested ccr */
    int64_t nsources;  /* entry tasks made so far */
    int64_t nsrc_total;
    int failed;
} gen_t;

static uint64_t next(gen_t *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform(gen_t *g, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(next(g) >> 11) * 0x1.0p-53);
}

static int32_t task(gen_t *g)
{
    int32_t id = -1;
    uint64_t k = next(g) % (uint64_t)g->o->kernels;
    if (hcrt__taskgraph_add_task(g->sg->g, k, uniform(g, 0.5, 1.5), &id) !=
            HCRT_OK ||
        sim_graph_label(g->sg, hcrt__taskgraph_ntasks(g->sg->g) - 1) < 0)
        g->failed = 1;
    return id;
}

static void edge(gen_t *g, int32_t a, int32_t b)
{
    uint64_t bytes = (uint64_t)(g->edge_bytes * uniform(g, 0.5, 1.5));
    if (!g->failed &&
        hcrt__taskgraph_add_edge(g->sg->g, a, b, bytes, -1.0) != HCRT_OK)
        g->failed = 1;
}

/* An entry task reads its input from where a block distribution of the
 * program's data would hold it: that is what locality-greedy can use. */
static int32_t source(gen_t *g)
{
    int32_t t = task(g), d;
    int holder = (int)(g->nsources++ * g->o->nodes /
                       (g->nsrc_total > 0 ? g->nsrc_total : 1));
    if (holder >= g->o->nodes)
        holder = g->o->nodes - 1;
    if (g->failed ||
        hcrt__taskgraph_add_data(g->sg->g, (uint64_t)g->edge_bytes, &holder, 1,
                                 &d) != HCRT_OK ||
        hcrt__taskgraph_add_access(g->sg->g, t, d, HCRT_TG_READ) != HCRT_OK)
        g->failed = 1;
    return t;
}

static int64_t isqrt(int64_t n)
{
    int64_t r = (int64_t)sqrt((double)n);
    return r < 1 ? 1 : r;
}

static void gen_chain(gen_t *g, int64_t n)
{
    g->nsrc_total = 1;
    int32_t prev = source(g);
    for (int64_t i = 1; i < n; i++) {
        int32_t t = task(g);
        edge(g, prev, t);
        prev = t;
    }
}

static void gen_fan(gen_t *g, int64_t n, int in, int diamond)
{
    int32_t hub = -1, sink;
    g->nsrc_total = in ? n - 1 : 1;
    if (!in)
        hub = source(g);
    int32_t first = (int32_t)hcrt__taskgraph_ntasks(g->sg->g);
    int64_t mid = n - 1 - diamond; /* tasks besides hub and sink */
    for (int64_t i = 0; i < mid; i++) {
        int32_t t = in ? source(g) : task(g);
        if (!in)
            edge(g, hub, t);
    }
    if (!in && !diamond)
        return;
    sink = task(g);
    for (int64_t i = 0; i < mid; i++)
        edge(g, first + (int32_t)i, sink);
}

static void gen_stencil(gen_t *g, int64_t n, int64_t w)
{
    int64_t steps = n / w > 0 ? n / w : 1;
    g->nsrc_total = w;
    for (int64_t s = 0; s < steps; s++)
        for (int64_t i = 0; i < w; i++) {
            int32_t t = s == 0 ? source(g) : task(g);
            for (int64_t d = -1; s > 0 && d <= 1; d++)
                if (i + d >= 0 && i + d < w)
                    edge(g, (int32_t)((s - 1) * w + i + d), t);
        }
}

static void gen_tree(gen_t *g, int64_t n)
{
    int64_t leaves = (n + 1) / 2 > 0 ? (n + 1) / 2 : 1, base = 0;
    g->nsrc_total = leaves;
    for (int64_t i = 0; i < leaves; i++)
        source(g);
    for (int64_t width = leaves; width > 1; width = (width + 1) / 2) {
        int64_t up = base + width;
        for (int64_t i = 0; i < width; i += 2) {
            int32_t t = task(g);
            edge(g, (int32_t)(base + i), t);
            if (i + 1 < width)
                edge(g, (int32_t)(base + i + 1), t);
        }
        base = up;
    }
}

static void gen_fft(gen_t *g, int64_t n)
{
    int64_t m = 2, lg = 1;
    while (2 * m * (lg + 2) <= n) { /* m points, lg + 1 rows */
        m *= 2;
        lg++;
    }
    g->nsrc_total = m;
    for (int64_t i = 0; i < m; i++)
        source(g);
    for (int64_t s = 1; s <= lg; s++)
        for (int64_t i = 0; i < m; i++) {
            int32_t t = task(g);
            int64_t prev = (s - 1) * m;
            edge(g, (int32_t)(prev + i), t);
            edge(g, (int32_t)(prev + (i ^ ((int64_t)1 << (s - 1)))), t);
        }
}

static void gen_alltoall(gen_t *g, int64_t n, int64_t w)
{
    int64_t layers = n / w > 0 ? n / w : 1;
    g->nsrc_total = w;
    for (int64_t l = 0; l < layers; l++)
        for (int64_t i = 0; i < w; i++) {
            int32_t t = l == 0 ? source(g) : task(g);
            for (int64_t j = 0; l > 0 && j < w; j++)
                edge(g, (int32_t)((l - 1) * w + j), t);
        }
}

/* Layers of random width (mean w); each task depends on 1..3 tasks of the
 * previous layer and, now and then, on one of any earlier layer. */
static void gen_random(gen_t *g, int64_t n, int64_t w)
{
    int64_t made = 0, prev_lo = 0, prev_n = 0;
    g->nsrc_total = w;
    while (made < n && !g->failed) {
        int64_t width = (int64_t)uniform(g, 0.5 * w, 1.5 * w) + 1;
        if (width > n - made)
            width = n - made;
        for (int64_t i = 0; i < width; i++) {
            int32_t t = prev_n == 0 ? source(g) : task(g);
            int deg = prev_n ? 1 + (int)(next(g) % 3) : 0;
            for (int d = 0; d < deg && d < prev_n; d++)
                edge(g, (int32_t)(prev_lo + (int64_t)(next(g) % prev_n)), t);
            if (prev_lo > 0 && next(g) % 8 == 0)
                edge(g, (int32_t)(next(g) % (uint64_t)prev_lo), t);
        }
        prev_lo = made;
        prev_n = width;
        made += width;
    }
}

/* Node speeds and per (kernel, node) affinities spread by het; links
 * scaled so that the mean transfer costs ccr times the mean run time. */
static int make_model(gen_t *g)
{
    const sim_gen_opts_t *o = g->o;
    hcrt__heft_cost_t *cm = g->sg->cm;
    double h = o->het / 2, mean_run = 0.0;
    /* separate streams: a kernel's base time and a node's speed do not
     * change with the node count or the graph's shape */
    gen_t ks = {.rng = o->seed ^ 0x6b65726e656cULL};
    gen_t ns = {.rng = o->seed ^ 0x6e6f646573ULL};
    double *base = malloc(sizeof(double) * o->kernels);
    if (base == NULL)
        return -1;
    for (int k = 0; k < o->kernels; k++)
        base[k] = uniform(&ks, 1, 10);
    for (int p = 0; p < o->nodes; p++) {
        double speed = uniform(&ns, 1 - h, 1 + h);
        hcrt__heft_cost_set_speed(cm, p, speed);
        for (int k = 0; k < o->kernels; k++) {
            double t = base[k] * uniform(&ns, 1 - h, 1 + h) / speed;
            hcrt__heft_cost_set_exec(cm, (uint64_t)k, p, t);
            mean_run += t;
        }
    }
    free(base);
    mean_run /= (double)o->kernels * o->nodes;
    /* a tenth of a transfer is latency, the rest bandwidth */
    double comm = o->ccr * mean_run;
    hcrt__heft_cost_set_uniform_link(cm, 0.1 * comm, BW);
    g->edge_bytes = 0.9 * comm * BW;
    return 0;
}

static int family_ok(const char *f)
{
    size_t n = strlen(f);
    const char *p = sim_gen_families;
    while ((p = strstr(p, f)) != NULL) {
        if ((p == sim_gen_families || p[-1] == ' ') &&
            (p[n] == ' ' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

int sim_generate(const sim_gen_opts_t *o, sim_graph_t *out, char *err,
                 size_t len)
{
    gen_t g = {.o = o, .sg = out, .rng = o->seed};
    const char *f = o->family;
    memset(out, 0, sizeof(*out));
    if (!family_ok(f)) {
        snprintf(err, len, "unknown graph family '%s' (known: %s)", f,
                 sim_gen_families);
        return -1;
    }
    if (o->tasks < 1 || o->tasks > INT32_MAX / 2 || o->nodes < 1 ||
        o->kernels < 1 || !(o->ccr >= 0) || !(o->het >= 0 && o->het < 2)) {
        snprintf(err, len,
                 "bad generator options: need tasks >= 1, nodes "
                 ">= 1, kernels >= 1, ccr >= 0, 0 <= het < 2");
        return -1;
    }
    if (hcrt__taskgraph_create(o->nodes, &out->g) != HCRT_OK ||
        hcrt__heft_cost_create(o->nodes, &out->cm) != HCRT_OK ||
        make_model(&g) < 0)
        goto nomem;
    int64_t n = o->tasks;
    int64_t w = o->width > 0 ? o->width : isqrt(n);
    if (strcmp(f, "chain") == 0)
        gen_chain(&g, n);
    else if (strcmp(f, "fanout") == 0 || strcmp(f, "fanin") == 0 ||
             strcmp(f, "diamond") == 0)
        gen_fan(&g, n < 3 ? 3 : n, f[3] == 'i', f[0] == 'd');
    else if (strcmp(f, "stencil") == 0)
        gen_stencil(&g, n, w > n ? n : w);
    else if (strcmp(f, "tree") == 0)
        gen_tree(&g, n);
    else if (strcmp(f, "fft") == 0)
        gen_fft(&g, n);
    else if (strcmp(f, "alltoall") == 0)
        gen_alltoall(&g, n, o->width > 0 ? o->width : (w > 32 ? 32 : w));
    else
        gen_random(&g, n, w);
    if (g.failed)
        goto nomem;
    snprintf(out->name, sizeof(out->name), "%s", f);
    return 0;
nomem:
    sim_graph_fini(out);
    snprintf(err, len, "out of memory generating %lld tasks",
             (long long)o->tasks);
    return -1;
}
