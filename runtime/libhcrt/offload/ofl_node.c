/*
 * ofl_node.c - what a device node does for target offload: keeps its
 * copies of mapped buffers (by the data manager's buffer id), serves
 * alloc/free/put/get/attach events, and runs kernels through their
 * trampolines with the parameters translated to its own copies.
 *
 * Data events are short and run on the event system's DATA side (mostly
 * inline on the gate thread); kernels are EXEC events, except that a
 * kernel whose learned time on this node is below HCRT_OFFLOAD_INLINE_US
 * runs inline too (no thread handoff: the fast path of a tiny target task).
 */
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/offload/ofl_wire.h"

/* ---- this node's copies: buffer id -> memory ------------------------------
 */

typedef struct nbuf {
    uint64_t id;
    void *ptr;
    uint64_t len;
    struct nbuf *next;
} nbuf_t;

#define NB_BUCKETS 4096
static nbuf_t *nb_table[NB_BUCKETS];
static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t nb_hash(uint64_t id)
{
    return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 52) % NB_BUCKETS;
}

static nbuf_t *nb_find(uint64_t id)
{
    nbuf_t *b;
    for (b = nb_table[nb_hash(id)]; b; b = b->next)
        if (b->id == id)
            break;
    return b;
}

void *hcrt__ofl_node_ptr(uint64_t id)
{
    pthread_mutex_lock(&nb_lock);
    nbuf_t *b = nb_find(id);
    void *p = b ? b->ptr : NULL;
    pthread_mutex_unlock(&nb_lock);
    return p;
}

/* Resolves [off, off + len) of buffer id, or NULL with an error logged. */
static void *nb_range(uint64_t id, uint64_t off, uint64_t len, const char *what)
{
    pthread_mutex_lock(&nb_lock);
    nbuf_t *b = nb_find(id);
    void *p =
        b && off <= b->len && len <= b->len - off ? (char *)b->ptr + off : NULL;
    pthread_mutex_unlock(&nb_lock);
    if (!p)
        hcrt_error(HCRT_MOD_TARGET,
                   "%s of bytes %llu..%llu of device buffer %llu, which this "
                   "node does not hold (internal error of the data manager)",
                   what, (unsigned long long)off,
                   (unsigned long long)(off + len), (unsigned long long)id);
    return p;
}

static int hdr_ok(const hcrt__event_ctx_t *c, size_t need)
{
    return c->hdr_len >= need;
}

static hcrt_status_t nb_alloc(uint64_t id, uint64_t len)
{
    nbuf_t *b = malloc(sizeof(*b));
    void *p = malloc(len ? len : 1);
    if (!b || !p) {
        free(b), free(p);
        hcrt_error(HCRT_MOD_TARGET,
                   "out of memory for a %llu-byte device buffer",
                   (unsigned long long)len);
        return HCRT_ERR_NOMEM;
    }
    *b = (nbuf_t){id, p, len, NULL};
    pthread_mutex_lock(&nb_lock);
    if (nb_find(id)) { /* already here: keep the old copy */
        pthread_mutex_unlock(&nb_lock);
        free(p), free(b);
        return HCRT_OK;
    }
    size_t i = nb_hash(id);
    b->next = nb_table[i];
    nb_table[i] = b;
    pthread_mutex_unlock(&nb_lock);
    return HCRT_OK;
}

static void nb_free(uint64_t id)
{
    pthread_mutex_lock(&nb_lock);
    nbuf_t **pp = &nb_table[nb_hash(id)], *b;
    while ((b = *pp) && b->id != id)
        pp = &b->next;
    if (b)
        *pp = b->next;
    pthread_mutex_unlock(&nb_lock);
    if (b) {
        free(b->ptr);
        free(b);
    }
}

static hcrt_status_t nb_attach(uint64_t buf, uint64_t off, uint64_t tbuf,
                               uint64_t toff)
{
    void **slot = nb_range(buf, off, sizeof(void *), "attach");
    char *target = hcrt__ofl_node_ptr(tbuf);
    if (!slot || !target)
        return HCRT_ERR_NOT_FOUND;
    *slot = (void *)((uintptr_t)target + toff); /* toff may be "negative" */
    return HCRT_OK;
}

static hcrt_status_t alloc_run(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    return nb_alloc(h.buf, h.len);
}

static hcrt_status_t free_run(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    nb_free(h.buf);
    return HCRT_OK;
}

/* PUT: the data lands straight in this node's copy. */
static hcrt_status_t put_prepare(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)) || c->nin != 1)
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    c->in[0].ptr = nb_range(h.buf, h.off, c->in[0].len, "write");
    return c->in[0].ptr ? HCRT_OK : HCRT_ERR_NOT_FOUND;
}

static hcrt_status_t put_run(hcrt__event_ctx_t *c)
{
    (void)c;
    return HCRT_OK;
}

/* Sender side of a worker-to-worker PUT (hcrt__event_forward). */
static hcrt_status_t put_source(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    void *p = nb_range(h.buf, h.off, h.len, "forward");
    if (!p)
        return HCRT_ERR_NOT_FOUND;
    c->nout = 1;
    c->out[0] = (hcrt__event_buf_t){p, h.len};
    return HCRT_OK;
}

static hcrt_status_t get_run(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    if (c->nout_max < 1 || c->out_cap[0] < h.len)
        return HCRT_ERR_INVALID;
    void *p = nb_range(h.buf, h.off, h.len, "read");
    if (!p)
        return HCRT_ERR_NOT_FOUND;
    c->nout = 1;
    c->out[0] = (hcrt__event_buf_t){p, h.len};
    return HCRT_OK;
}

static hcrt_status_t attach_run(hcrt__event_ctx_t *c)
{
    ofl_attach_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    return nb_attach(h.buf, h.off, h.tbuf, h.toff);
}

/* ---- the executable's globals (declare target) --------------------------- */

typedef struct exe_seg {
    uintptr_t base, lo, hi; /* load address; a writable segment's range */
    int found;
    const void *addr;
    size_t len;
} exe_seg_t;

/* The main program is the first object dl_iterate_phdr reports. */
static int exe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    exe_seg_t *e = arg;
    uintptr_t a = (uintptr_t)e->addr;
    (void)size;
    e->base = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && a >= lo &&
            a + e->len <= hi)
            e->found = 1;
    }
    return 1; /* the first object only */
}

int64_t hcrt__ofl_exe_offset(const void *addr, size_t len)
{
    exe_seg_t e = {.addr = addr, .len = len};
    dl_iterate_phdr(exe_cb, &e);
    return e.found ? (int64_t)((uintptr_t)addr - e.base) : -1;
}

static void *exe_ptr(uint64_t off, uint64_t len)
{
    exe_seg_t e = {0};
    dl_iterate_phdr(exe_cb, &e);
    void *p = (void *)(e.base + off);
    if (hcrt__ofl_exe_offset(p, len) != (int64_t)off) {
        hcrt_error(HCRT_MOD_TARGET,
                   "a target update names %llu bytes at offset %llu of the "
                   "program's globals, outside them here: every rank must "
                   "run the same binary",
                   (unsigned long long)len, (unsigned long long)off);
        return NULL;
    }
    return p;
}

/* Globals may be DSM memory (cluster mode), which MPI must not touch:
 * the data lands in a buffer of the layer and is copied in here. */
static hcrt_status_t gput_run(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)) || c->nin != 1)
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    void *p = exe_ptr(h.off, c->in[0].len);
    if (!p)
        return HCRT_ERR_NOT_FOUND;
    memcpy(p, c->in[0].ptr, c->in[0].len);
    return HCRT_OK;
}

static void gget_release(hcrt__event_ctx_t *c)
{
    free(c->out[0].ptr);
}

static hcrt_status_t gget_run(hcrt__event_ctx_t *c)
{
    ofl_buf_hdr_t h;
    if (!hdr_ok(c, sizeof(h)))
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    void *p = exe_ptr(h.off, h.len);
    if (!p || c->nout_max < 1 || c->out_cap[0] < h.len)
        return p ? HCRT_ERR_INVALID : HCRT_ERR_NOT_FOUND;
    void *copy = malloc(h.len ? h.len : 1);
    if (!copy)
        return HCRT_ERR_NOMEM;
    memcpy(copy, p, h.len);
    c->nout = 1;
    c->out[0] = (hcrt__event_buf_t){copy, h.len};
    c->out_release = gget_release;
    return HCRT_OK;
}

/* ---- kernels ---------------------------------------------------------------
 */

static __thread int cur_device = -1;
/* Kernels running on this node and its device number: threads of a
 * parallel region inside a kernel do not see the runner's cur_device.
 * Outside cluster mode a worker rank runs nothing but kernels, so any
 * thread of it while one runs is a device thread; in cluster mode a thread
 * of a host parallel region running on this node at the same time would
 * be taken for one too (a rare overlap). */
static atomic_int node_kernels;
static atomic_int node_device = -1;

int hcrt__offload_cur_device(void)
{
    if (cur_device >= 0)
        return cur_device;
    if (atomic_load_explicit(&node_kernels, memory_order_acquire) > 0)
        return atomic_load_explicit(&node_device, memory_order_relaxed);
    return -1;
}

static const hcrt_kernel_desc_t *kernel_by_id(uint64_t id)
{
    uint32_t n = hcrt__registry_num_modules();
    for (uint32_t m = 0; m < n; m++) {
        const hcrt_module_desc_t *md = hcrt__registry_module(m);
        for (uint32_t k = 0; k < md->nkernels; k++)
            if (md->kernels[k].id == id)
                return &md->kernels[k];
    }
    return NULL;
}

/* Learned run time per kernel on this node (lossy table, EWMA), for the
 * inline decision. */
#define KT_SLOTS 256
static struct {
    uint64_t id;
    double ns;
} ktime[KT_SLOTS];
static int inline_ns = -1;

static double ktime_get(uint64_t id)
{
    size_t i = (size_t)(id % KT_SLOTS);
    return __atomic_load_n(&ktime[i].id, __ATOMIC_ACQUIRE) == id ? ktime[i].ns
                                                                 : -1.0;
}

static void ktime_put(uint64_t id, double ns)
{
    size_t i = (size_t)(id % KT_SLOTS);
    if (ktime[i].id == id)
        ktime[i].ns = 0.7 * ktime[i].ns + 0.3 * ns;
    else {
        ktime[i].ns = ns;
        __atomic_store_n(&ktime[i].id, id, __ATOMIC_RELEASE);
    }
}

/* Whether kernel `id` is known to run shorter than HCRT_OFFLOAD_INLINE_US
 * here. */
static int short_kernel(uint64_t id)
{
    double t = inline_ns > 0 ? ktime_get(id) : -1.0;
    return t >= 0 && t < inline_ns;
}

static int kernel_inline(const hcrt__event_ctx_t *c)
{
    const ofl_kernel_hdr_t *h = c->hdr;
    return c->hdr_len >= offsetof(ofl_kernel_hdr_t, p) &&
           short_kernel(h->kernel);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs kernel `id` with parameters pv (translated to this node's copies)
 * and private data priv; its time goes in *r. */
/* thread-limit-var of the kernel's task: the target construct's
 * thread_limit clause, as libomptarget gives it to the device (the
 * executing thread's own value comes back afterwards). */
static int32_t limit_threads(int32_t limit)
{
    int32_t old = omp_get_thread_limit();

    if (limit > 0)
        __kmpc_set_thread_limit(NULL, __kmpc_global_thread_num(NULL), limit);
    return old;
}

static hcrt_status_t kernel_exec(uint64_t id, int32_t device, uint32_t nparams,
                                 int32_t thread_limit, const ofl_param_t *pv,
                                 char *priv, ofl_kernel_reply_t *r)
{
    void *stack[64], **params = stack;
    hcrt_status_t st = HCRT_OK;
    const hcrt_kernel_desc_t *k = kernel_by_id(id);

    if (!k || !k->tramp) {
        hcrt_error(HCRT_MOD_TARGET,
                   "kernel %#llx is not in this node's kernel table: every "
                   "rank must run the same binary",
                   (unsigned long long)id);
        return HCRT_ERR_NOT_FOUND;
    }
    if (nparams > 64 && !(params = malloc(nparams * sizeof(void *))))
        return HCRT_ERR_NOMEM;
    for (uint32_t i = 0; i < nparams && st == HCRT_OK; i++) {
        if (pv[i].buf == 0) {
            params[i] = (void *)(intptr_t)pv[i].val;
        } else if (pv[i].buf == OFL_PRIV) {
            params[i] = priv ? priv + pv[i].val : NULL;
        } else {
            char *b = hcrt__ofl_node_ptr(pv[i].buf);
            if (!b) {
                hcrt_error(HCRT_MOD_TARGET,
                           "kernel %s: parameter %u names device buffer %llu, "
                           "which this node does not hold",
                           k->name, i, (unsigned long long)pv[i].buf);
                st = HCRT_ERR_NOT_FOUND;
            }
            params[i] = b + pv[i].val;
        }
    }
    if (st == HCRT_OK) {
        uint64_t t0 = now_ns();
        cur_device = device;
        atomic_store_explicit(&node_device, (int)device, memory_order_relaxed);
        atomic_fetch_add_explicit(&node_kernels, 1, memory_order_acq_rel);
        int32_t saved = limit_threads(thread_limit);
        hcrt__doing_set(HCRT_DOING_TARGET, k); /* for a fault report */
        /* The region ends when the tasks it created have: they are bound
         * to its implicit parallel region, whose barrier waits for them
         * (this thread's libomp may defer them; the results go back to the
         * host right after). */
        static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;target region;0;0;;"};
        int32_t gtid = __kmpc_global_thread_num(&loc);
        __kmpc_taskgroup(&loc, gtid);
        k->tramp(params);
        __kmpc_end_taskgroup(&loc, gtid);
        hcrt__doing_set(HCRT_DOING_IDLE, NULL);
        if (thread_limit > 0)
            limit_threads(saved);
        atomic_fetch_sub_explicit(&node_kernels, 1, memory_order_acq_rel);
        cur_device = -1;
        uint64_t dt = now_ns() - t0;
        ktime_put(id, (double)dt);
        hcrt_kernel_stats_t *ks = hcrt__registry_kernel(k->region_id);
        if (ks) {
            __atomic_fetch_add(&ks->launches, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&ks->time_ns, dt, __ATOMIC_RELAXED);
        }
        r->run_ns = dt;
    }
    if (params != stack)
        free(params);
    return st;
}

/* Buffers of a kernel event: 0 the parameters beyond the header's (if
 * nparams > OFL_HDR_PARAMS), then the private data (if any). */
static hcrt_status_t kernel_run(hcrt__event_ctx_t *c)
{
    ofl_kernel_hdr_t h;

    if (c->hdr_len < offsetof(ofl_kernel_hdr_t, p))
        return HCRT_ERR_INVALID;
    memset(&h, 0, sizeof(h));
    memcpy(&h, c->hdr, c->hdr_len < sizeof(h) ? c->hdr_len : sizeof(h));
    const ofl_param_t *pv = h.p;
    int bi = 0;
    if (h.nparams > OFL_HDR_PARAMS) {
        if (c->nin < 1 || c->in[0].len < h.nparams * sizeof(ofl_param_t))
            return HCRT_ERR_INVALID;
        pv = c->in[0].ptr;
        bi = 1;
    }
    char *priv = bi < c->nin ? c->in[bi].ptr : NULL;
    ofl_kernel_reply_t r = {0};
    hcrt_status_t st = kernel_exec(h.kernel, h.device, h.nparams,
                                   h.thread_limit, pv, priv, &r);
    if (st == HCRT_OK) {
        memcpy(c->reply_hdr, &r, sizeof(r));
        c->reply_hdr_len = sizeof(r);
    }
    return st;
}

/* ---- batches (ofl_wire.h) -------------------------------------------------
 */

static void batch_release(hcrt__event_ctx_t *c)
{
    free(c->out[0].ptr);
}

static hcrt_status_t batch_run(hcrt__event_ctx_t *c)
{
    ofl_batch_hdr_t h;
    if (!hdr_ok(c, sizeof(h)) || c->nin != 1)
        return HCRT_ERR_INVALID;
    memcpy(&h, c->hdr, sizeof(h));
    size_t recs = (size_t)h.nrec * sizeof(ofl_rec_t),
           pars = (size_t)h.nparams * sizeof(ofl_param_t),
           privp = (h.priv_len + 7) & ~(uint64_t)7;
    if (c->in[0].len != recs + pars + privp + h.put_len ||
        (h.get_len && (c->nout_max < 1 || c->out_cap[0] < h.get_len)))
        return HCRT_ERR_INVALID;
    char *blob = c->in[0].ptr;
    const char *put = blob + recs + pars + privp;
    char *get = NULL;
    uint64_t put_at = 0, get_at = 0;
    if (h.get_len && !(get = malloc(h.get_len)))
        return HCRT_ERR_NOMEM;
    hcrt_status_t st = HCRT_OK;
    for (uint32_t i = 0; i < h.nrec && st == HCRT_OK; i++) {
        ofl_rec_t r;
        memcpy(&r, blob + i * sizeof(r), sizeof(r));
        void *p;
        switch (r.kind) {
        case OFL_REC_ALLOC:
            st = nb_alloc(r.buf, r.len);
            break;
        case OFL_REC_FREE:
            nb_free(r.buf);
            break;
        case OFL_REC_ATTACH:
            st = nb_attach(r.buf, r.off, r.tbuf, r.toff);
            break;
        case OFL_REC_PUT:
        case OFL_REC_GET: {
            uint64_t *at = r.kind == OFL_REC_PUT ? &put_at : &get_at;
            uint64_t lim = r.kind == OFL_REC_PUT ? h.put_len : h.get_len;
            if (r.len > lim - *at) {
                st = HCRT_ERR_INVALID;
                break;
            }
            p = nb_range(r.buf, r.off, r.len,
                         r.kind == OFL_REC_PUT ? "write" : "read");
            if (!p)
                st = HCRT_ERR_NOT_FOUND;
            else if (r.kind == OFL_REC_PUT)
                memcpy(p, put + *at, r.len);
            else
                memcpy(get + *at, p, r.len);
            *at += r.len;
            break;
        }
        case OFL_REC_KERNEL: {
            ofl_kernel_reply_t kr = {0};
            st = kernel_exec(h.kernel, h.device, h.nparams, h.thread_limit,
                             (const ofl_param_t *)(blob + recs),
                             h.priv_len ? blob + recs + pars : NULL, &kr);
            memcpy(c->reply_hdr, &kr, sizeof(kr));
            c->reply_hdr_len = sizeof(kr);
            break;
        }
        default:
            st = HCRT_ERR_INVALID;
        }
    }
    if (st != HCRT_OK) {
        free(get);
        return st;
    }
    if (get) {
        c->nout = 1;
        c->out[0] = (hcrt__event_buf_t){get, h.get_len};
        c->out_release = batch_release;
    }
    return HCRT_OK;
}

/* Short batches run inline: data only, or a kernel known to be short. */
static int batch_inline(const hcrt__event_ctx_t *c)
{
    const ofl_batch_hdr_t *h = c->hdr;
    return c->hdr_len >= sizeof(*h) &&
           (!h->has_kernel || short_kernel(h->kernel));
}

void hcrt__ofl_node_register(void)
{
    static const struct {
        int id;
        hcrt__event_type_ops_t ops;
    } types[] = {
        {OFL_EV_ALLOC,
         {.name = "offload-alloc",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = alloc_run}},
        {OFL_EV_FREE,
         {.name = "offload-free",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = free_run}},
        {OFL_EV_PUT,
         {.name = "offload-put",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .prepare = put_prepare,
          .run = put_run,
          .source = put_source}},
        {OFL_EV_GET,
         {.name = "offload-get",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = get_run}},
        {OFL_EV_ATTACH,
         {.name = "offload-attach",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = attach_run}},
        {OFL_EV_GPUT,
         {.name = "offload-global-put",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = gput_run}},
        {OFL_EV_GGET,
         {.name = "offload-global-get",
          .queue = HCRT_EVENT_QUEUE_DATA,
          .run = gget_run}},
        {OFL_EV_KERNEL,
         {.name = "offload-kernel",
          .queue = HCRT_EVENT_QUEUE_EXEC,
          .run = kernel_run,
          .run_inline = kernel_inline}},
        {OFL_EV_BATCH,
         {.name = "offload-batch",
          .queue = HCRT_EVENT_QUEUE_EXEC,
          .run = batch_run,
          .run_inline = batch_inline}},
    };
    inline_ns = (int)hcrt__config_int("HCRT_OFFLOAD_INLINE_US") * 1000;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        hcrt__event_register(types[i].id, &types[i].ops);
}
