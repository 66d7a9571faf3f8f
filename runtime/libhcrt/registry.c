/*
 * registry.c - modules, parallel regions and target kernels.
 *
 * Every translation unit built by hcc registers its descriptor table from a
 * constructor. Regions and kernels go into fixed-size bucket lists that are
 * only ever prepended to with a CAS, so lookups on the fork and target paths
 * take no lock and entries never move.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/log.h"
#include "base/stats.h"
#include "libhcrt/core.h"

#define NBUCKETS 4096 /* power of two */

typedef struct region_node {
    hcrt_region_stats_t st;
    struct region_node *next;
} region_node_t;

typedef struct kernel_node {
    hcrt_kernel_stats_t st;
    struct kernel_node *next;
} kernel_node_t;

static region_node_t *regions[NBUCKETS];
static kernel_node_t *kernels[NBUCKETS];
static const hcrt_module_desc_t **modules;
static uint32_t nmodules, cap_modules;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucket_of(uint64_t key)
{
    return hcrt__hash_bucket(key, NBUCKETS);
}

static region_node_t *region_find(const hcrt_region_desc_t *desc, size_t b)
{
    region_node_t *n = __atomic_load_n(&regions[b], __ATOMIC_ACQUIRE);

    for (; n; n = n->next)
        if (n->st.desc == desc || n->st.desc->id == desc->id)
            return n;
    return NULL;
}

/* Creation takes the lock so two threads do not add the same region. */
static region_node_t *region_add(const hcrt_region_desc_t *desc, size_t b)
{
    region_node_t *n;

    pthread_mutex_lock(&lock);
    n = region_find(desc, b);
    if (!n) {
        n = calloc(1, sizeof(*n));
        if (!n)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory registering a region");
        n->st.desc = desc;
        n->next = regions[b];
        __atomic_store_n(&regions[b], n, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return n;
}

hcrt_region_stats_t *hcrt__registry_region(const hcrt_region_desc_t *desc)
{
    size_t b = bucket_of(desc->id);
    region_node_t *n = region_find(desc, b);

    return HCRT_LIKELY(n != NULL) ? &n->st : &region_add(desc, b)->st;
}

static void kernel_add(const hcrt_kernel_desc_t *desc)
{
    size_t b = bucket_of((uint64_t)(uintptr_t)desc->region_id);
    kernel_node_t *n;

    for (n = kernels[b]; n; n = n->next)
        if (n->st.desc->region_id == desc->region_id)
            return; /* the same module registered twice */
    n = calloc(1, sizeof(*n));
    if (!n)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory registering a kernel");
    n->st.desc = desc;
    n->next = kernels[b];
    __atomic_store_n(&kernels[b], n, __ATOMIC_RELEASE);
}

hcrt_kernel_stats_t *hcrt__registry_kernel(const void *host_ptr)
{
    size_t b = bucket_of((uint64_t)(uintptr_t)host_ptr);
    kernel_node_t *n = __atomic_load_n(&kernels[b], __ATOMIC_ACQUIRE);

    for (; n; n = n->next)
        if (n->st.desc->region_id == host_ptr)
            return &n->st;
    return NULL;
}

static void module_push(const hcrt_module_desc_t *m)
{
    if (nmodules == cap_modules) {
        uint32_t cap = cap_modules ? 2 * cap_modules : 16;
        const hcrt_module_desc_t **p = realloc(modules, cap * sizeof(*p));
        if (!p)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory registering a module");
        modules = p;
        cap_modules = cap;
    }
    modules[nmodules++] = m;
}

HCRT_ABI_EXPORT void __hcrt_register_module(const hcrt_module_desc_t *m)
{
    if (!m)
        hcrt_fatal(HCRT_MOD_CORE, "internal error: NULL module descriptor");
    if (m->abi_version != HCRT_ABI_VERSION)
        hcrt_fatal(HCRT_MOD_CORE,
                   "module '%s' was compiled for hcrt ABI version %u but this "
                   "libhcrt implements version %d: rebuild it with the hcc "
                   "that matches this runtime (or link the matching libhcrt)",
                   m->name ? m->name : "?", m->abi_version, HCRT_ABI_VERSION);
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < nmodules; i++)
        if (modules[i] == m)
            goto out;
    module_push(m);
    for (uint32_t i = 0; i < m->nkernels; i++)
        kernel_add(&m->kernels[i]);
out:
    pthread_mutex_unlock(&lock);
    for (uint32_t i = 0; i < m->nregions; i++)
        hcrt__registry_region(&m->regions[i]);
}

uint32_t hcrt__registry_num_modules(void)
{
    return nmodules;
}

const hcrt_module_desc_t *hcrt__registry_module(uint32_t i)
{
    return i < nmodules ? modules[i] : NULL;
}

/* Workers name a region by its id (the head broadcasts it): a scan of the
 * modules' tables, a few hundred entries at most, once per cluster fork. */
const hcrt_region_desc_t *hcrt__registry_region_by_id(uint64_t id)
{
    for (uint32_t i = 0; i < nmodules; i++)
        for (uint32_t r = 0; r < modules[i]->nregions; r++)
            if (modules[i]->regions[r].id == id)
                return &modules[i]->regions[r];
    return NULL;
}

/* ---- statistics ---------------------------------------------------------- */

static int by_time(const void *a, const void *b)
{
    const hcrt_region_stats_t *x = *(const hcrt_region_stats_t *const *)a;
    const hcrt_region_stats_t *y = *(const hcrt_region_stats_t *const *)b;

    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? 1 : -1;
    return x->forks < y->forks ? 1 : (x->forks > y->forks ? -1 : 0);
}

static size_t collect_regions(hcrt_region_stats_t ***out)
{
    size_t n = 0, cap = 64;
    hcrt_region_stats_t **v = malloc(cap * sizeof(*v));

    for (size_t b = 0; v && b < NBUCKETS; b++)
        for (region_node_t *r = regions[b]; r; r = r->next) {
            if (n == cap) {
                hcrt_region_stats_t **p = realloc(v, 2 * cap * sizeof(*v));
                if (!p)
                    break;
                v = p, cap *= 2;
            }
            v[n++] = &r->st;
        }
    if (v)
        qsort(v, n, sizeof(*v), by_time);
    *out = v;
    return v ? n : 0;
}

uint64_t hcrt__registry_forks(void)
{
    uint64_t n = 0;

    for (size_t b = 0; b < NBUCKETS; b++)
        for (region_node_t *r = regions[b]; r; r = r->next)
            n += __atomic_load_n(&r->st.forks, __ATOMIC_RELAXED);
    return n;
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    if (!path || !*path)
        return "?";
    return slash ? slash + 1 : path;
}

/* "file:line" from the descriptor, else from psource
 * ";file;function;line;column;;". */
static void region_where(const hcrt_region_stats_t *s, char *buf, size_t len)
{
    const char *p = s->psource, *f, *fn, *ln;

    if ((s->desc->file && *s->desc->file) || !p || *p != ';') {
        snprintf(buf, len, "%s:%d", base_name(s->desc->file),
                 (int)s->desc->line);
        return;
    }
    f = p + 1;
    fn = strchr(f, ';');
    ln = fn ? strchr(fn + 1, ';') : NULL;
    if (!ln) {
        snprintf(buf, len, "?:0");
        return;
    }
    char file[200];
    size_t n = (size_t)(fn - f) < sizeof(file) - 1 ? (size_t)(fn - f)
                                                   : sizeof(file) - 1;
    memcpy(file, f, n);
    file[n] = '\0';
    snprintf(buf, len, "%s:%d", base_name(file), atoi(ln + 1));
}

static int print_regions(FILE *out, void *arg)
{
    hcrt_region_stats_t **v;
    size_t n = collect_regions(&v);
    uint64_t forks = 0, t = 0;

    (void)arg;
    fprintf(out, "%-18s %-28s %-24s %-7s %10s %8s %12s %10s\n", "region id",
            "location", "function", "kind", "forks", "serial", "time ms",
            "avg us");
    for (size_t i = 0; i < n; i++) {
        const hcrt_region_stats_t *s = v[i];
        char where[256];
        if (s->forks == 0)
            continue;
        region_where(s, where, sizeof(where));
        fprintf(out,
                "%016" PRIx64 "   %-28.28s %-24.24s %-7s %10" PRIu64
                " %8" PRIu64 " %12.3f %10.2f\n",
                s->desc->id, where, s->desc->name ? s->desc->name : "?",
                s->desc->kind == HCRT_REGION_HEAD       ? "head"
                : s->desc->kind == HCRT_REGION_LOCAL_IO ? "head-io"
                                                        : "cluster",
                s->forks, s->serial, (double)s->time_ns * 1e-6,
                (double)s->time_ns * 1e-3 / (double)s->forks);
        forks += s->forks, t += s->time_ns;
    }
    fprintf(out, "%-18s %-28s %-24s %-7s %10" PRIu64 " %8s %12.3f\n", "total",
            "", "", "", forks, "", (double)t * 1e-6);
    free(v);
    return forks > 0;
}

/* Every launch of a kernel, on the head (its host fallback, timed here) or
 * offloaded to a worker node (timed there: "target offload"). */
static int print_kernels(FILE *out, void *arg)
{
    uint64_t launches = 0, offloaded = 0, t = 0;

    (void)arg;
    fprintf(out, "%-18s %-44s %10s %10s %12s\n", "kernel id", "name",
            "launches", "offloaded", "head ms");
    for (size_t b = 0; b < NBUCKETS; b++)
        for (kernel_node_t *k = kernels[b]; k; k = k->next) {
            const hcrt_kernel_stats_t *s = &k->st;
            fprintf(out,
                    "%016" PRIx64 "   %-44.44s %10" PRIu64 " %10" PRIu64
                    " %12.3f\n",
                    s->desc->id, s->desc->name ? s->desc->name : "?",
                    s->launches, s->offloaded, (double)s->time_ns * 1e-6);
            launches += s->launches, offloaded += s->offloaded;
            t += s->time_ns;
        }
    fprintf(out, "%-18s %-44s %10" PRIu64 " %10" PRIu64 " %12.3f\n", "total",
            "", launches, offloaded, (double)t * 1e-6);
    return launches > 0;
}

void hcrt__registry_stats_init(void)
{
    hcrt__stats_register("parallel regions (sorted by time)", print_regions,
                         NULL);
    hcrt__stats_register("target kernels", print_kernels, NULL);
}
