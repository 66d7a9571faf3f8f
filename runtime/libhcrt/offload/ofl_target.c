/*
 * ofl_target.c - target constructs on the head when worker ranks are
 * devices: builds the task of a `target` region or data construct from
 * clang's map arrays, places it on a node, plans its data with the data
 * manager and hands it to the executor (ofl_exec.c).
 *
 * Device numbers: device n is rank n + 1; the head is the initial device
 * (number ndev). A region without a device clause (clang passes -1) runs
 * on the default device when undeferred, and is placed by
 * HCRT_OFFLOAD_POLICY when it is `nowait` (inside its target task). Each
 * device has its own data environment (select_env): the named device's,
 * or the default device's for a construct without a device clause, also
 * when placement runs it on another node; see docs/offload.md.
 *
 * A target construct met on a worker (a cluster parallel region runs on
 * every node) runs on that worker as on its host device, with the host
 * fallback: its mapped data is the node's view of the shared memory.
 *
 * Target tasks are allocated detachable: a nowait region started from its
 * task's body attaches a completion event to the task and returns, and
 * the executor fulfils the event when the kernel and its copies are done.
 * No thread waits for an in-flight region.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/offload/offload_int.h"
#include "libhcrt/offload/ofl_exec_int.h"

extern void *
ofl_allow_completion(hcrt_ident_t *loc, int32_t gtid,
                     void *task) __asm__("__kmpc_task_allow_completion_event");
extern void *
ofl_kmp_task_alloc(hcrt_ident_t *, int32_t, int32_t, size_t, size_t,
                   hcrt_task_entry_t) __asm__("__kmpc_omp_task_alloc");

/* The program's `requires` clauses (__hcrt_register_requires). */
static int64_t requires_flags;

void hcrt__offload_register_requires(int64_t flags)
{
    __atomic_fetch_or(&requires_flags, flags, __ATOMIC_RELAXED);
}

/* Open use_device_ptr/addr constructs (see sync_mapped). */
static atomic_int head_regions;

/* ---- target tasks: entry wrapper and depend lists ------------------------ */

typedef struct kmp_task_head {
    void *shareds;
    hcrt_task_entry_t routine;
} kmp_task_head_t;

typedef struct tt_info {
    void *task;
    hcrt_task_entry_t entry;
    int32_t ndeps;
    hcrt_depend_info_t *deps;
    int pin;      /* node of a device clause, -1 none */
    int recorded; /* in ofl_graph.c's graph: gnode is its placement */
    int gnode;    /* -1 not placed yet, > 0 HEFT's node, 0 no choice */
    struct tt_info *next;
} tt_info_t;

#define TT_BUCKETS 1024
static tt_info_t *tt[TT_BUCKETS];
static pthread_mutex_t tt_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread tt_info_t *cur_tt;
static __thread int32_t cur_gtid;

static size_t tt_hash(const void *p)
{
    return ((uintptr_t)p >> 6) % TT_BUCKETS;
}

static tt_info_t *tt_find(void *task, int unlink)
{
    pthread_mutex_lock(&tt_lock);
    tt_info_t **pp = &tt[tt_hash(task)], *t;
    while ((t = *pp) && t->task != task)
        pp = &t->next;
    if (t && unlink)
        *pp = t->next;
    pthread_mutex_unlock(&tt_lock);
    return t;
}

static int32_t tt_entry(int32_t gtid, void *task)
{
    tt_info_t *t = tt_find(task, 1);
    if (!t)
        hcrt_fatal(HCRT_MOD_TARGET, "a target task lost its entry");
    if (t->recorded) { /* the first of its batch to start places it */
        pthread_mutex_lock(&hcrt__ofl.lock);
        if (t->gnode == -1)
            hcrt__ofl_graph_place();
        pthread_mutex_unlock(&hcrt__ofl.lock);
    }
    tt_info_t *saved = cur_tt;
    int32_t saved_gtid = cur_gtid;
    cur_tt = t, cur_gtid = gtid;
    int32_t r = t->entry(gtid, task);
    cur_tt = saved, cur_gtid = saved_gtid;
    free(t->deps);
    free(t);
    return r;
}

#define KMP_TASK_DETACHABLE 0x40 /* kmp_tasking_flags_t.detachable */

/* The node of a device number: rank n + 1 for worker device n, the head
 * (0) for the initial device or a number out of range, -1 for none. */
static int node_of(int64_t device_id)
{
    if (device_id == -1)
        return -1;
    return device_id >= 0 && device_id < hcrt__ofl.ndev ? (int)device_id + 1
                                                        : 0;
}

void *hcrt__offload_target_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t flags, size_t sizeof_task,
                                      size_t sizeof_shareds,
                                      hcrt_task_entry_t entry,
                                      int64_t device_id)
{
    tt_info_t *t = calloc(1, sizeof(*t));
    if (!t)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
    /* A plain task, not libomp's target task: that one is a "hidden
     * helper" task, run by a separate team of 8 threads that sleep between
     * tasks; on this 2-core machine each stencil step then waited ~1.8 ms
     * for a helper to wake (52 us with plain tasks). The body only starts
     * the executor and returns, so the thread that runs it is not held. */
    t->pin = node_of(device_id);
    kmp_task_head_t *task =
        ofl_kmp_task_alloc(loc, gtid, flags | KMP_TASK_DETACHABLE, sizeof_task,
                           sizeof_shareds, tt_entry);
    t->task = task;
    t->entry = entry;
    pthread_mutex_lock(&tt_lock);
    size_t h = tt_hash(task);
    t->next = tt[h];
    tt[h] = t;
    pthread_mutex_unlock(&tt_lock);
    return task;
}

void hcrt__offload_task_deps(void *task, int32_t ndeps,
                             const hcrt_depend_info_t *deps, int32_t nnoalias,
                             const hcrt_depend_info_t *noalias)
{
    tt_info_t *t = tt_find(task, 0);
    int32_t n = ndeps + nnoalias;
    if (!t || n <= 0 || t->deps)
        return;
    t->deps = malloc((size_t)n * sizeof(*deps));
    if (!t->deps)
        return; /* only a hint for the write rule: maps decide then */
    memcpy(t->deps, deps, (size_t)ndeps * sizeof(*deps));
    if (nnoalias)
        memcpy(t->deps + ndeps, noalias, (size_t)nnoalias * sizeof(*deps));
    t->ndeps = n;
    /* one device: nothing to choose, nothing to record */
    if (hcrt__ofl.policy == 3 && hcrt__ofl.ndev > 1 &&
        hcrt__ofl_graph_record(t->entry, t->pin, t->deps, n, &t->gnode) == 0)
        t->recorded = 1;
}

/* ---- placement -------------------------------------------------------------
 */

/* Bytes of the task's mapped inputs not valid on node (lock held). */
static uint64_t missing_bytes(const hcrt__ofl_map_t *m, int32_t n, int node)
{
    uint64_t miss = 0;
    for (int32_t i = 0; i < n; i++)
        if (hcrt__ofl_map_is_data(&m[i]) && (m[i].type & HCRT_OFL_MAP_TO) &&
            !hcrt__dm_is_valid(hcrt__ofl.dm, m[i].begin, m[i].size, node))
            miss += (uint64_t)m[i].size;
    return miss;
}

#define OFL_BYTES_PER_NS 2.0 /* ~2 GB/s: this machine's event bandwidth */

/* A node for a free task (lock held): HCRT_OFFLOAD_POLICY. */
static int place(uint64_t kernel, const hcrt__ofl_map_t *m, int32_t n)
{
    ofl_state_t *s = &hcrt__ofl;
    int best = 1;
    double best_v = 0;

    if (s->policy == 1) /* rr */
        for (int k = 0; k < s->ndev; k++) {
            int node =
                1 + (int)(atomic_fetch_add(&s->rr, 1) % (unsigned)s->ndev);
            if (hcrt__ofl_node_live(node))
                return node;
        }
    best = 0;
    for (int node = 1; node <= s->ndev; node++) {
        double v;
        if (!hcrt__ofl_node_live(node)) /* FT mode: a lost rank */
            continue;
        uint64_t miss = missing_bytes(m, n, node);
        if (s->policy == 2) /* locality: fewest missing bytes, then load */
            v = (double)miss * 1e6 + s->load_ns[node];
        else /* eft: earliest estimated finish */
            v = s->load_ns[node] + hcrt__ofl_kernel_est(kernel, node) +
                (double)miss / OFL_BYTES_PER_NS;
        if (!best || v < best_v)
            best = node, best_v = v;
    }
    return best;
}

/* ---- claims: buffers used by running kernels ------------------------------
 *
 * Kernels running next to each other (no depend edge) on one GPU share one
 * device copy: they may update it in place (atomics, disjoint parts) and
 * see each other's writes. Across nodes each has its own copy, and the data
 * manager keeps only one writer's. So a free kernel that uses a buffer a
 * running kernel uses goes to that kernel's node, unless both only read it
 * in the sense of hcrt__ofl_map_shared_read (`to` map, no out-like depend):
 * such readers spread over the nodes (one-to-many distribution). */

typedef struct claim {
    uint64_t buf;
    int node;
    int32_t nshared, nexcl;
} claim_t;

static claim_t *claims; /* lock held */
static int32_t nclaims, claims_cap;

/* The node a free kernel must run on to share a running kernel's copy of
 * its data, -1 if none (lock held). */
static int claimed_node(const hcrt__ofl_map_t *m, int32_t n,
                        const hcrt_depend_info_t *deps, int32_t ndeps)
{
    int node = -1;
    for (int32_t i = 0; i < n && nclaims > 0; i++) {
        uint64_t buf, off;
        uintptr_t host;
        if (!hcrt__ofl_map_is_data(&m[i]) ||
            hcrt__dm_lookup(hcrt__ofl.dm, m[i].begin, &buf, &off, &host) !=
                HCRT_OK)
            continue;
        int shared = hcrt__ofl_map_shared_read(&m[i], deps, ndeps);
        for (int32_t c = 0; c < nclaims; c++) {
            if (claims[c].buf != buf || (shared && claims[c].nexcl == 0) ||
                !hcrt__ofl_node_live(claims[c].node))
                continue;
            if (claims[c].nexcl > 0)
                return claims[c].node; /* an in-place user: join it */
            if (node < 0)
                node = claims[c].node;
        }
    }
    return node;
}

static void claims_add(ofl_x_t *x, const hcrt__ofl_map_t *m, int32_t n,
                       const hcrt__dm_xlate_t *xl,
                       const hcrt_depend_info_t *deps, int32_t ndeps)
{
    x->cbuf = malloc((size_t)(n ? n : 1) * sizeof(*x->cbuf));
    x->cshared = malloc((size_t)(n ? n : 1));
    if (!x->cbuf || !x->cshared ||
        hcrt__ofl_grow((void **)&claims, &claims_cap, (int64_t)nclaims + n,
                       sizeof(*claims)) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
    for (int32_t i = 0; i < n; i++) {
        if (!hcrt__ofl_map_is_data(&m[i]) || xl[i].buf == 0)
            continue;
        int shared = hcrt__ofl_map_shared_read(&m[i], deps, ndeps);
        int32_t c = 0;
        while (c < nclaims &&
               (claims[c].buf != xl[i].buf || claims[c].node != x->node))
            c++;
        if (c == nclaims)
            claims[nclaims++] = (claim_t){xl[i].buf, x->node, 0, 0};
        if (shared)
            claims[c].nshared++;
        else
            claims[c].nexcl++;
        x->cbuf[x->nclaims] = xl[i].buf;
        x->cshared[x->nclaims++] = (uint8_t)shared;
    }
}

void hcrt__ofl_claims_drop(ofl_x_t *x)
{
    for (int32_t k = 0; k < x->nclaims; k++)
        for (int32_t c = 0; c < nclaims; c++) {
            if (claims[c].buf != x->cbuf[k] || claims[c].node != x->node)
                continue;
            if (x->cshared[k])
                claims[c].nshared--;
            else
                claims[c].nexcl--;
            if (claims[c].nshared <= 0 && claims[c].nexcl <= 0)
                claims[c] = claims[--nclaims];
            break;
        }
    x->nclaims = 0;
}

/* Selects the data environment of a construct for device_id (-1: the
 * default device) in the data manager (lock held). A task placed freely
 * (nowait, no device clause) uses the default device's data wherever it
 * runs; `device(n)` uses device n's. */
static void select_env(int64_t device_id)
{
    int dev = device_id >= 0 ? (int)device_id : ofl_default_device();
    if (hcrt__ofl.shared_env) /* HCRT_OFFLOAD_DATA_ENV=shared */
        dev = 0;
    if (hcrt__dm_select(hcrt__ofl.dm, dev) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_TARGET,
                   "out of memory for the data environment of device %d", dev);
}

/* The node of device_id; 0 for the head (initial device), -1 for "free". */
static int device_node(int64_t device_id, int free_ok, const char *what)
{
    int ndev = hcrt__ofl.ndev;

    if (device_id == -1) {
        if (free_ok)
            return -1;
        device_id = ofl_default_device();
    }
    int node = node_of(device_id);
    if (node > 0) /* FT mode: a lost device's work goes to a survivor */
        node = hcrt__ofl_ft_pinned(node);
    if (node == 0 && device_id != ndev && node_of(device_id) == 0)
        hcrt_error(HCRT_MOD_TARGET,
                   "%s names device %lld, but this run has devices 0..%d "
                   "(the worker ranks) and the host %d: running it on the "
                   "host",
                   what, (long long)device_id, ndev - 1, ndev);
    return node < 0 ? 0 : node;
}

/* ---- unsupported forms -----------------------------------------------------
 */

/* A program that hands device addresses to host code (use_device_ptr or
 * use_device_addr in any module: HCRT_MODULE_DEVICE_ADDR) runs every target
 * construct on the head. A worker's memory is not addressable from the
 * head, and such addresses travel on through host code (is_device_ptr,
 * has_device_addr, pointer comparisons), so one device for the whole run is
 * what keeps them meaningful: the head, whose device addresses are the host
 * addresses. Decided once, from the registered modules. */
static int device_addr_program(void)
{
    static int known, yes;

    if (__atomic_load_n(&known, __ATOMIC_ACQUIRE))
        return yes;
    int y = 0;
    for (uint32_t i = 0; i < hcrt__registry_num_modules(); i++)
        y |= (hcrt__registry_module(i)->flags & HCRT_MODULE_DEVICE_ADDR) != 0;
    if (y && !__atomic_load_n(&known, __ATOMIC_RELAXED))
        hcrt_warn(HCRT_MOD_TARGET,
                  "%s; this program uses them, so every target region runs "
                  "on the head",
                  hcrt__ofl_unsupported_str(HCRT_OFL_USE_DEVICE_PTR));
    yes = y;
    __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    return yes;
}

static int unsupported(const hcrt__ofl_map_t *m, int32_t n, void **mappers,
                       int32_t nargs, const char *what)
{
    static int warned[8];
    hcrt__ofl_unsupported_t why = HCRT_OFL_OK;

    for (int32_t i = 0; mappers && i < nargs; i++)
        if (mappers[i]) {
            if (!__atomic_exchange_n(&warned[7], 1, __ATOMIC_RELAXED))
                hcrt_warn(HCRT_MOD_TARGET,
                          "%s uses a user-defined mapper, which target "
                          "offload across nodes does not support yet: it "
                          "runs on the head",
                          what);
            return 1;
        }
    if (hcrt__ofl_classify_requires(
            __atomic_load_n(&requires_flags, __ATOMIC_RELAXED), &why) ==
            HCRT_OK &&
        hcrt__ofl_classify(m, n, &why) == HCRT_OK)
        return 0;
    if (!__atomic_exchange_n(&warned[why & 7], 1, __ATOMIC_RELAXED))
        hcrt_warn(HCRT_MOD_TARGET, "%s: %s; it runs on the head", what,
                  hcrt__ofl_unsupported_str(why));
    return 1;
}

/* A `declare target link` variable: clang maps it from its reference
 * pointer (a global holding the variable's host address) and does not pass
 * it as a kernel parameter, and the host fallback that runs on a node names
 * the variable itself: that node's own global, which never received the
 * mapped value. Its device is therefore the head: kernels using one run
 * there, and data constructs leave such entries to the host. */
static int is_link(const hcrt__ofl_map_t *m)
{
    return !(m->type & HCRT_OFL_MAP_TARGET_PARAM) &&
           (m->type & HCRT_OFL_MAP_PTR_AND_OBJ) && m->size > 0 &&
           hcrt__ofl_exe_offset(m->base, sizeof(void *)) >= 0 &&
           *(void **)m->base == m->begin &&
           hcrt__ofl_exe_offset(m->begin, (size_t)m->size) >= 0;
}

/* Drops the link entries of `m` (data constructs); returns how many stay. */
static int32_t drop_links(hcrt__ofl_map_t *m, int32_t n)
{
    int32_t k = 0;

    for (int32_t i = 0; i < n; i++)
        if (!is_link(&m[i]))
            m[k++] = m[i];
    return k;
}

static int any_link(const hcrt__ofl_map_t *m, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (is_link(&m[i]))
            return 1;
    return 0;
}

static hcrt__ofl_map_t *zip_maps(int32_t n, void **bases, void **ptrs,
                                 int64_t *sizes, int64_t *types)
{
    hcrt__ofl_map_t *m = malloc((size_t)(n ? n : 1) * sizeof(*m));
    if (!m)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for %d map entries", n);
    for (int32_t i = 0; i < n; i++)
        m[i] = (hcrt__ofl_map_t){bases[i], ptrs[i], sizes[i], types[i]};
    return m;
}

/* A zero-length section of mapped data (clang's implicit map of a pointer
 * used in a region) gives the kernel the device address of the pointee. On
 * one device that moves nothing; here the kernel's node needs the latest
 * copy of that mapping: the entry becomes a present map of the whole
 * enclosing mapping, `tofrom`: the kernel may write through the pointer,
 * so it is not a shared read (see claims) (lock held). */
static void widen_zero_length(hcrt__ofl_map_t *m, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        void *begin;
        int64_t size;
        if (m[i].size != 0 ||
            (m[i].type & (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE |
                          HCRT_OFL_MAP_PTR_AND_OBJ)) ||
            hcrt__dm_extent(hcrt__ofl.dm, m[i].begin, &begin, &size) != HCRT_OK)
            continue;
        m[i].begin = begin;
        m[i].size = size;
        m[i].type |= HCRT_OFL_MAP_TO | HCRT_OFL_MAP_FROM;
    }
}

static void plan_failed(hcrt_status_t st, const char *what)
{
    if (st == HCRT_ERR_NOT_FOUND)
        hcrt_fatal(HCRT_MOD_TARGET,
                   "%s: data mapped `present` is not present on the devices "
                   "(map it first with target data or enter data)",
                   what);
    hcrt_fatal(HCRT_MOD_TARGET,
               "%s: a map extends data that is already mapped, or a struct "
               "member lies outside its mapped parent (the OpenMP spec "
               "forbids both): map the whole range the first time; flang-19 "
               "emits such a member for map(x, x%%c) with an allocatable "
               "component c (%s)",
               what, hcrt_strerror(st));
}

/* ---- device memory of omp_target_alloc ------------------------------------
 *
 * A worker's memory is not addressable from the head, and a pointer handed
 * to host code must stay usable by omp_target_memcpy and by regions that
 * receive it with is_device_ptr, on whichever node. So such blocks live in
 * the head's memory, and a region receiving one runs on the head (its
 * mapped data brought home before and sent back after), as on one device
 * whose memory is the head's. */

static struct devmem {
    uintptr_t p;
    size_t len;
} *devmem;
static int32_t ndevmem, devmem_cap;
static pthread_mutex_t devmem_lock = PTHREAD_MUTEX_INITIALIZER;

void *hcrt__offload_dev_alloc(size_t size)
{
    void *p = size ? malloc(size) : NULL;
    pthread_mutex_lock(&devmem_lock);
    if (p && hcrt__ofl_grow((void **)&devmem, &devmem_cap, ndevmem + 1,
                            sizeof(*devmem)) == HCRT_OK)
        devmem[ndevmem++] = (struct devmem){(uintptr_t)p, size};
    else {
        free(p);
        p = NULL;
    }
    pthread_mutex_unlock(&devmem_lock);
    return p;
}

int hcrt__offload_dev_free(void *p)
{
    int found = 0;
    pthread_mutex_lock(&devmem_lock);
    for (int32_t i = 0; i < ndevmem && !found; i++)
        if (devmem[i].p == (uintptr_t)p) {
            devmem[i] = devmem[--ndevmem];
            found = 1;
        }
    pthread_mutex_unlock(&devmem_lock);
    if (found)
        free(p);
    return found;
}

int hcrt__offload_is_dev_mem(const void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p;
    int in = 0;
    pthread_mutex_lock(&devmem_lock);
    for (int32_t i = 0; i < ndevmem && !in; i++)
        in = a >= devmem[i].p && a - devmem[i].p + len <= devmem[i].len &&
             a - devmem[i].p < devmem[i].len + (len == 0);
    pthread_mutex_unlock(&devmem_lock);
    return in;
}

/* Whether a region receives device memory by value (is_device_ptr). */
static int uses_dev_mem(const hcrt_kernel_args_t *a)
{
    if (__atomic_load_n(&ndevmem, __ATOMIC_RELAXED) == 0)
        return 0;
    for (uint32_t i = 0; i < a->num_args; i++)
        if ((a->arg_types[i] & HCRT_OFL_MAP_LITERAL) &&
            hcrt__offload_is_dev_mem(a->arg_base_ptrs[i], 0))
            return 1;
    return 0;
}

static void sync_mapped(int to_devices, int64_t device_id, int32_t nargs,
                        void **bases, void **ptrs, int64_t *sizes);

/* Runs a region that uses device memory on the head, on host copies of
 * its mapped data that are current before and sent back after. */
static void run_on_head(const hcrt_kernel_desc_t *k,
                        const hcrt_kernel_args_t *a, int64_t device_id)
{
    int32_t n = (int32_t)a->num_args;
    void **params = malloc((size_t)(n ? n : 1) * sizeof(void *));
    if (!params)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for kernel arguments");
    int32_t np = 0;
    for (int32_t i = 0; i < n; i++)
        if (a->arg_types[i] & HCRT_OFL_MAP_TARGET_PARAM)
            params[np++] = (a->arg_types[i] & HCRT_OFL_MAP_PTR_AND_OBJ)
                               ? *(void **)a->arg_base_ptrs[i]
                               : a->arg_base_ptrs[i];
    sync_mapped(0, device_id, n, a->arg_base_ptrs, a->arg_ptrs, a->arg_sizes);
    k->tramp(params);
    sync_mapped(1, device_id, n, a->arg_base_ptrs, a->arg_ptrs, a->arg_sizes);
    free(params);
}

/* Once per region: why it runs on the head (hcrt_kernel_desc_t.host_only). */
static void host_only_note(const hcrt_kernel_desc_t *k)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t noted[64];
    static int nnoted;
    int first = 1;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < nnoted; i++)
        first &= noted[i] != k->id;
    if (first && nnoted < 64)
        noted[nnoted++] = k->id;
    pthread_mutex_unlock(&lock);
    if (!first)
        return;
    char names[256];
    size_t len = 0;
    const char *routine = NULL;
    names[0] = 0;
    for (const hcrt_kernel_global_t *g = k->host_only; g->name; g++)
        if (!g->addr)
            routine = g->name;
        else if (len + 8 < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'",
                                    len ? ", " : "", g->name);
    if (routine)
        hcrt_info(HCRT_MOD_TARGET,
                  "target region %s (line %d) runs on the head: it calls %s "
                  "on a lock it does not initialise, so the lock is the "
                  "host's and means nothing on another node; initialise the "
                  "lock inside the region to run it on a device",
                  k->name, k->line, routine);
    if (!len && routine)
        return;
    if (!len) /* the pass gave up following its code (Target.cpp) */
        snprintf(names, sizeof names, "(not known: too much code to check)");
    hcrt_info(HCRT_MOD_TARGET,
              "target region %s (line %d) runs on the head, on the host's "
              "data: code nested in it (a task or parallel region, or a "
              "function it calls) names the global(s) %s itself, which "
              "another node would read at its own copy, not at the region's "
              "mapped copy; make them 'declare target' or pass them to that "
              "code as pointers to run the region on a device",
              k->name, k->line, names);
}

/* The device copies (in device_id's data environment) of the globals a
 * host-only region names: `from` before it runs on the head, `to` after. */
static void sync_globals(int to_devices, int64_t device_id,
                         const hcrt_kernel_global_t *g)
{
    for (; g->name; g++) {
        if (!g->addr) /* a lock routine, not a global (host_only_note) */
            continue;
        pthread_mutex_lock(&hcrt__ofl.lock);
        select_env(device_id);
        int32_t n = hcrt__dm_overlapping(hcrt__ofl.dm, g->addr,
                                         (int64_t)g->size, NULL, NULL, 0);
        void **b = malloc((size_t)(n ? n : 1) * sizeof(void *));
        int64_t *sz = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
        if (!b || !sz)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory");
        hcrt__dm_overlapping(hcrt__ofl.dm, g->addr, (int64_t)g->size, b, sz, n);
        pthread_mutex_unlock(&hcrt__ofl.lock);
        if (n) /* `target update` of each mapped range, as for arguments */
            sync_mapped(to_devices, device_id, n, b, b, sz);
        free(b), free(sz);
    }
}

/* ---- kernels
 * ----------------------------------------------------------------- */

/* The kernel's parameters for its node: one per TARGET_PARAM entry. */
static void build_params(ofl_x_t *x, int64_t device_id,
                         const hcrt_kernel_args_t *a, const hcrt__ofl_map_t *m,
                         const hcrt__dm_xlate_t *xl)
{
    ofl_param_t stack[OFL_HDR_PARAMS], *pv = x->kh.p;
    uint32_t n = 0, cap = OFL_HDR_PARAMS;
    size_t poff = 0;

    for (uint32_t i = 0; i < a->num_args; i++)
        if (a->arg_types[i] & HCRT_OFL_MAP_TARGET_PARAM)
            n++;
    if (n > OFL_HDR_PARAMS) {
        x->xparams = malloc(n * sizeof(ofl_param_t));
        if (!x->xparams)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory for kernel params");
        pv = x->xparams, cap = n;
    }
    (void)stack, (void)cap;
    for (uint32_t i = 0; i < a->num_args; i++)
        if ((a->arg_types[i] & HCRT_OFL_MAP_PRIVATE) &&
            !(a->arg_types[i] & HCRT_OFL_MAP_LITERAL) && a->arg_sizes[i] > 0)
            x->priv_len += ((size_t)a->arg_sizes[i] + 15) & ~(size_t)15;
    if (x->priv_len && !(x->priv = malloc(x->priv_len)))
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for private data");
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->num_args; i++) {
        int64_t type = a->arg_types[i];
        if (!(type & HCRT_OFL_MAP_TARGET_PARAM))
            continue;
        char *base = a->arg_base_ptrs[i], *begin = m[i].begin;
        if (type & HCRT_OFL_MAP_PTR_AND_OBJ)
            base = *(char **)base;
        ofl_param_t p = {0, (int64_t)(intptr_t)base};
        if (type & HCRT_OFL_MAP_LITERAL) {
            /* by value */
        } else if ((type & HCRT_OFL_MAP_PRIVATE) && a->arg_sizes[i] > 0) {
            memcpy(x->priv + poff, begin, (size_t)a->arg_sizes[i]);
            p = (ofl_param_t){OFL_PRIV, (int64_t)poff + (base - begin)};
            poff += ((size_t)a->arg_sizes[i] + 15) & ~(size_t)15;
        } else if (xl[i].buf) {
            p = (ofl_param_t){xl[i].buf, (int64_t)xl[i].off + (base - begin)};
        } else {
            uint64_t buf, off;
            uintptr_t host;
            pthread_mutex_lock(&hcrt__ofl.lock);
            select_env(device_id);
            if (hcrt__dm_lookup(hcrt__ofl.dm, base, &buf, &off, &host) ==
                HCRT_OK) /* e.g. a zero-length section of mapped data */
                p = (ofl_param_t){buf, (int64_t)off};
            pthread_mutex_unlock(&hcrt__ofl.lock);
        }
        pv[k++] = p;
    }
    x->kh.nparams = n;
    x->kh_len = n > OFL_HDR_PARAMS
                    ? offsetof(ofl_kernel_hdr_t, p)
                    : offsetof(ofl_kernel_hdr_t, p) + n * sizeof(ofl_param_t);
}

/* ---- FT mode: what a re-run needs (ofl_ft.c) ---------------------------- */

static int ft_keep(ofl_x_t *x, int64_t device_id, int pin, const char *name,
                   const hcrt__ofl_task_desc_t *d, hcrt__dm_xlate_t *xl)
{
    ofl_ft_t *f = calloc(1, sizeof(*f));
    hcrt_depend_info_t *deps =
        d->ndeps ? malloc((size_t)d->ndeps * sizeof(*deps)) : NULL;
    if (!f || (d->ndeps && !deps)) {
        free(f), free(deps);
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
    }
    if (d->ndeps)
        memcpy(deps, d->deps, (size_t)d->ndeps * sizeof(*deps));
    *f = (ofl_ft_t){.maps = (hcrt__ofl_map_t *)d->maps,
                    .nmaps = d->nmaps,
                    .ndeps = d->ndeps,
                    .deps = deps,
                    .xl = xl,
                    .device_id = device_id,
                    .pin = pin,
                    .name = name};
    x->ft = f;
    return 1;
}

/* The parameters of x's kernel name the buffers of its old plan: those
 * of the new one now, at the same place in the data. */
static void remap_params(ofl_x_t *x, const hcrt__dm_xlate_t *old,
                         const hcrt__dm_xlate_t *xl)
{
    ofl_param_t *pv = x->xparams ? x->xparams : x->kh.p;
    for (uint32_t k = 0; k < x->kh.nparams; k++) {
        if (!pv[k].buf || pv[k].buf == OFL_PRIV)
            continue;
        for (int32_t i = 0; i < x->ft->nmaps; i++)
            if (old[i].buf == pv[k].buf) {
                pv[k].val += (int64_t)xl[i].off - (int64_t)old[i].off;
                pv[k].buf = xl[i].buf;
                break;
            }
    }
}

hcrt_status_t hcrt__ofl_replan(ofl_x_t *x, hcrt__dm_plan_t *old_pre,
                               hcrt__dm_plan_t *old_post)
{
    ofl_state_t *s = &hcrt__ofl;
    ofl_ft_t *f = x->ft;
    uint64_t buf, off;
    uintptr_t host;
    select_env(f->device_id);
    for (int32_t i = 0; i < f->nmaps; i++) /* data beyond this task */
        if (hcrt__ofl_map_is_data(&f->maps[i]) &&
            hcrt__dm_lookup(s->dm, f->maps[i].begin, &buf, &off, &host) ==
                HCRT_OK)
            return HCRT_ERR_UNSUPPORTED;
    int node = f->pin > 0 ? hcrt__ofl_ft_pinned(f->pin)
                          : place(x->kh.kernel, f->maps, f->nmaps);
    if (node <= 0)
        return HCRT_ERR_NODE_FAILED;
    hcrt__dm_xlate_t *xl = calloc((size_t)f->nmaps + 1, sizeof(*xl));
    if (!xl)
        return HCRT_ERR_NOMEM;
    hcrt__ofl_task_desc_t d = {.kind = HCRT_OFL_KERNEL,
                               .kernel = x->kh.kernel,
                               .work = 1,
                               .pin = node,
                               .deps = f->deps,
                               .ndeps = f->ndeps,
                               .maps = f->maps,
                               .nmaps = f->nmaps};
    *old_pre = x->pre, *old_post = x->post;
    x->pre = x->post = (hcrt__dm_plan_t){0};
    hcrt_status_t st =
        hcrt__dm_plan_task(s->dm, &d, node, &x->pre, &x->post, xl);
    if (st != HCRT_OK) {
        free(xl);
        return st;
    }
    hcrt__ofl_ops_add(&x->pre);
    hcrt__ofl_ops_add(&x->post);
    hcrt__ofl_claims_drop(x);
    free(x->cbuf), free(x->cshared);
    x->cbuf = NULL, x->cshared = NULL;
    s->load_ns[x->node] -= x->est_ns;
    if (s->load_ns[x->node] < 0)
        s->load_ns[x->node] = 0;
    remap_params(x, f->xl, xl);
    free(f->xl);
    f->xl = xl;
    x->node = node;
    x->kh.device = node - 1;
    claims_add(x, f->maps, f->nmaps, xl, f->deps, f->ndeps);
    x->est_ns = hcrt__ofl_kernel_est(x->kh.kernel, node);
    s->load_ns[node] += x->est_ns;
    return HCRT_OK;
}

int32_t hcrt__offload_kernel(hcrt_ident_t *loc, int64_t device_id,
                             const hcrt_kernel_desc_t *k,
                             const hcrt_kernel_args_t *a)
{
    ofl_state_t *s = &hcrt__ofl;
    int nowait = (a->flags & 1) && cur_tt != NULL;
    (void)loc;

    if (s->rank != 0) /* met on a worker in a cluster region: runs there */
        return 1;
    int node = device_node(device_id, nowait, "a target region");
    int pin = node;
    if (node == 0 || atomic_load(&head_regions) > 0 || device_addr_program())
        return 1;
    hcrt__ofl_map_t *m = zip_maps((int32_t)a->num_args, a->arg_base_ptrs,
                                  a->arg_ptrs, a->arg_sizes, a->arg_types);
    if (any_link(m, (int32_t)a->num_args) ||
        unsupported(m, (int32_t)a->num_args, a->arg_mappers,
                    (int32_t)a->num_args, k->name)) {
        free(m);
        return 1;
    }
    if (uses_dev_mem(a)) {
        free(m);
        run_on_head(k, a, device_id);
        return 0;
    }
    if (k->host_only) {
        free(m);
        host_only_note(k);
        sync_globals(0, device_id, k->host_only);
        run_on_head(k, a, device_id);
        sync_globals(1, device_id, k->host_only);
        return 0;
    }
    ofl_x_t *x = calloc(1, sizeof(*x));
    hcrt__dm_xlate_t *xl = calloc(a->num_args + 1, sizeof(*xl));
    if (!x || !xl)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
    hcrt__ofl_task_desc_t d = {.kind = HCRT_OFL_KERNEL,
                               .kernel = k->id,
                               .work = 1,
                               .pin = node,
                               .deps = cur_tt ? cur_tt->deps : NULL,
                               .ndeps = cur_tt ? cur_tt->ndeps : 0,
                               .maps = m,
                               .nmaps = (int32_t)a->num_args};
    x->sync = !nowait;
    x->has_kernel = 1;
    x->kh.kernel = k->id;
    x->kh.thread_limit = (int32_t)a->thread_limit[0];
    pthread_mutex_lock(&s->lock);
    select_env(device_id);
    widen_zero_length(m, (int32_t)a->num_args);
    if (cur_tt)
        hcrt__ofl_graph_learn(cur_tt->entry, k->id, 0);
    if (node < 0)
        node = claimed_node(m, (int32_t)a->num_args, d.deps, d.ndeps);
    if (node < 0 && cur_tt && cur_tt->gnode > 0 &&
        hcrt__ofl_node_live(cur_tt->gnode)) /* HEFT over the graph */
        node = cur_tt->gnode;
    if (node < 0)
        node = place(k->id, m, (int32_t)a->num_args);
    if (node == 0) { /* FT mode: no worker left, the head runs it */
        pthread_mutex_unlock(&s->lock);
        free(x), free(xl), free(m);
        return 1;
    }
    x->node = node;
    x->kh.device = node - 1;
    hcrt_status_t st =
        hcrt__dm_plan_task(s->dm, &d, node, &x->pre, &x->post, xl);
    if (st == HCRT_OK) {
        hcrt__ofl_ops_add(&x->pre);
        hcrt__ofl_ops_add(&x->post);
        claims_add(x, m, (int32_t)a->num_args, xl, d.deps, d.ndeps);
        x->est_ns = hcrt__ofl_kernel_est(k->id, node);
        s->load_ns[node] += x->est_ns;
    }
    pthread_mutex_unlock(&s->lock);
    if (st != HCRT_OK)
        plan_failed(st, k->name);
    build_params(x, device_id, a, m, xl);
    if (hcrt__ft_on() && ft_keep(x, device_id, pin, k->name, &d, xl)) {
        m = NULL, xl = NULL; /* kept for a re-run (ofl_ft.c) */
    }
    free(xl);
    free(m);
    if (nowait)
        x->omp_event =
            (uintptr_t)ofl_allow_completion(loc, cur_gtid, cur_tt->task);
    hcrt__ofl_x_start(x);
    if (!nowait) {
        hcrt__ofl_x_free(x);
    }
    return 0;
}

/* ---- data constructs ----------------------------------------------------- */

/* use_device_ptr/addr constructs run on the head. While one is open, data
 * of it that the devices hold is current on the host (brought home at its
 * start, sent back at its end) and every kernel runs on the head too: the
 * host addresses it hands out are the only ones host code can use. */
static void sync_mapped(int to_devices, int64_t device_id, int32_t nargs,
                        void **bases, void **ptrs, int64_t *sizes)
{
    int64_t *types = malloc((size_t)(nargs ? nargs : 1) * sizeof(int64_t));
    int32_t n = 0;
    void **b = malloc((size_t)(nargs ? nargs : 1) * sizeof(void *) * 2),
         **p = b + (nargs ? nargs : 1);
    int64_t *sz = malloc((size_t)(nargs ? nargs : 1) * sizeof(int64_t));
    if (!types || !b || !sz)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory");
    for (int32_t i = 0; i < nargs; i++) {
        uint64_t buf, off;
        uintptr_t host;
        pthread_mutex_lock(&hcrt__ofl.lock);
        select_env(device_id);
        int mapped =
            sizes[i] > 0 && hcrt__dm_lookup(hcrt__ofl.dm, ptrs[i], &buf, &off,
                                            &host) == HCRT_OK;
        pthread_mutex_unlock(&hcrt__ofl.lock);
        if (!mapped)
            continue;
        b[n] = bases[i], p[n] = ptrs[i], sz[n] = sizes[i];
        types[n++] = to_devices ? HCRT_OFL_MAP_TO : HCRT_OFL_MAP_FROM;
    }
    if (n)
        hcrt__offload_data(3, device_id, n, b, p, sz, types, NULL);
    free(types), free(b), free(sz);
}

/* `target update` of data the devices do not map but that lies in the
 * program's globals (a `declare target` variable, whose device copy is the
 * node's own global): `to` writes it on every device, `from` reads it from
 * the construct's device. Returns 1 if the entry was such a global (the
 * caller checked that the data manager does not map it). In cluster mode
 * such a global is DSM memory, which a node outside a parallel region does
 * not see the head's writes to: it is sent all the same (and staged on
 * both sides). */
static int update_global(int node, void *ptr, int64_t size, int64_t type)
{
    int64_t off;

    if (size <= 0 || (off = hcrt__ofl_exe_offset(ptr, (size_t)size)) < 0) {
        hcrt_debug(HCRT_MOD_TARGET,
                   "target update of %p (%lld bytes): not mapped, not a "
                   "global of the program: nothing to do",
                   ptr, (long long)size);
        return 0;
    }
    hcrt_debug(HCRT_MOD_TARGET,
               "target update of the global at %p (%lld bytes): the nodes' "
               "own copies",
               ptr, (long long)size);
    ofl_buf_hdr_t h = {0, (uint64_t)off, (uint64_t)size};
    void *stage = malloc((size_t)size);
    if (!stage)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory");
    hcrt__event_buf_t b = {stage, (size_t)size};
    hcrt__event_send_t s = {.hdr = &h, .hdr_len = sizeof(h), .sync = 1};
    if (type & HCRT_OFL_MAP_TO) {
        memcpy(stage, ptr, (size_t)size);
        s.type = OFL_EV_GPUT, s.nbufs = 1, s.bufs = &b;
    } else {
        s.type = OFL_EV_GGET, s.nreply = 1, s.reply_bufs = &b;
    }
    int first = type & HCRT_OFL_MAP_TO ? 1 : node;
    int last = type & HCRT_OFL_MAP_TO ? hcrt__ofl.ndev : node;
    for (int n = first; n <= last; n++) {
        hcrt__event_t *ev;
        s.dest = n;
        hcrt_status_t st = hcrt__event_send(&s, &ev);
        if (st == HCRT_OK)
            st = hcrt__event_wait(ev, -1.0), hcrt__event_release(ev);
        if (st != HCRT_OK)
            hcrt_fatal(HCRT_MOD_TARGET,
                       "target update of a global on node %d failed: %s", n,
                       hcrt_strerror(st));
    }
    if (!(type & HCRT_OFL_MAP_TO))
        memcpy(ptr, stage, (size_t)size);
    free(stage);
    return 1;
}

static int has_return_param(int32_t nargs, const int64_t *types)
{
    for (int32_t i = 0; i < nargs; i++)
        if (types[i] & HCRT_OFL_MAP_RETURN_PARAM)
            return 1;
    return 0;
}

int hcrt__offload_data(int what, int64_t device_id, int32_t nargs, void **bases,
                       void **ptrs, int64_t *sizes, int64_t *types,
                       void **mappers)
{
    static const char *const names[] = {"", "target enter data",
                                        "target exit data", "target update"};
    static const hcrt__ofl_kind_t kinds[] = {
        HCRT_OFL_DATA_ENTER, HCRT_OFL_DATA_ENTER, HCRT_OFL_DATA_EXIT,
        HCRT_OFL_DATA_UPDATE};
    ofl_state_t *s = &hcrt__ofl;

    if (s->rank != 0) /* met on a worker in a cluster region: host device */
        return 1;
    int node = device_node(device_id, 0, names[what]);
    if (node == 0 || device_addr_program())
        return 1;
    if (what != 3 && has_return_param(nargs, types)) {
        static int warned;
        if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
            hcrt_warn(HCRT_MOD_TARGET,
                      "%s; the construct runs on the head, and "
                      "the target regions inside it as well",
                      hcrt__ofl_unsupported_str(HCRT_OFL_USE_DEVICE_PTR));
        if (what == 1)
            atomic_fetch_add(&head_regions, 1);
        sync_mapped(what == 2, device_id, nargs, bases, ptrs, sizes);
        if (what == 2)
            atomic_fetch_sub(&head_regions, 1);
        return 1;
    }
    hcrt__ofl_map_t *m = zip_maps(nargs, bases, ptrs, sizes, types);
    if (unsupported(m, nargs, mappers, nargs, names[what])) {
        free(m);
        return 1;
    }
    nargs = drop_links(m, nargs); /* (no mapper is left: unsupported) */
    if (what == 3) { /* globals the devices do not map: their own copies */
        int32_t k = 0;
        for (int32_t i = 0; i < nargs; i++) {
            pthread_mutex_lock(&s->lock);
            select_env(device_id);
            int g =
                hcrt__dm_lookup(s->dm, m[i].begin, NULL, NULL, NULL) != HCRT_OK;
            pthread_mutex_unlock(&s->lock);
            if (!(g && update_global(node, m[i].begin, m[i].size, m[i].type)))
                m[k++] = m[i];
        }
        nargs = k;
    }
    ofl_x_t *x = calloc(1, sizeof(*x));
    if (!x)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a data task");
    hcrt__ofl_task_desc_t d = {.kind = kinds[what],
                               .work = 0,
                               .pin = node,
                               .deps = cur_tt ? cur_tt->deps : NULL,
                               .ndeps = cur_tt ? cur_tt->ndeps : 0,
                               .maps = m,
                               .nmaps = nargs};
    x->sync = 1;
    x->node = node;
    pthread_mutex_lock(&s->lock);
    select_env(device_id);
    if (cur_tt)
        hcrt__ofl_graph_learn(cur_tt->entry, 0, 1);
    hcrt_status_t st =
        hcrt__dm_plan_task(s->dm, &d, node, &x->pre, &x->post, NULL);
    if (st == HCRT_OK) {
        hcrt__ofl_ops_add(&x->pre);
        hcrt__ofl_ops_add(&x->post);
    }
    pthread_mutex_unlock(&s->lock);
    free(m);
    if (st != HCRT_OK)
        plan_failed(st, names[what]);
    hcrt__ofl_x_start(x);
    hcrt__ofl_x_free(x);
    return 0;
}

int hcrt__offload_is_present(const void *p, int device)
{
    ofl_state_t *s = &hcrt__ofl;
    if (!s->up || s->rank != 0 || !s->dm)
        return 0;
    pthread_mutex_lock(&s->lock);
    select_env(device);
    int present = hcrt__dm_lookup(s->dm, p, NULL, NULL, NULL) == HCRT_OK;
    pthread_mutex_unlock(&s->lock);
    return present;
}
