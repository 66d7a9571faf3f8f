/*
 * ofl_sim.c - the cluster simulator and the one-device reference model used
 * by the offload tests (see ofl_sim.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofl_sim.h"

typedef struct sim_copy {
    uint64_t buf, size;
    unsigned char *p;
} sim_copy_t;

struct sim {
    int nnodes;
    sim_copy_t **c;
    int *n, *cap;
    unsigned char *done; /* applied op ids */
    int64_t donecap;
};

sim_t *sim_create(int nnodes)
{
    sim_t *s = calloc(1, sizeof(*s));
    s->nnodes = nnodes;
    s->c = calloc((size_t)nnodes, sizeof(*s->c));
    s->n = calloc((size_t)nnodes, sizeof(int));
    s->cap = calloc((size_t)nnodes, sizeof(int));
    return s;
}

void sim_destroy(sim_t *s)
{
    for (int i = 0; i < s->nnodes; i++) {
        for (int j = 0; j < s->n[i]; j++)
            free(s->c[i][j].p);
        free(s->c[i]);
    }
    free(s->c);
    free(s->n);
    free(s->cap);
    free(s->done);
    free(s);
}

static sim_copy_t *find(sim_t *s, int node, uint64_t buf)
{
    if (node < 0 || node >= s->nnodes)
        return NULL;
    for (int j = 0; j < s->n[node]; j++)
        if (s->c[node][j].buf == buf)
            return &s->c[node][j];
    return NULL;
}

unsigned char *sim_addr(sim_t *s, int node, uint64_t buf, uint64_t off)
{
    sim_copy_t *c = find(s, node, buf);
    return c ? c->p + off : NULL;
}

int sim_nallocs(const sim_t *s)
{
    int n = 0;
    for (int i = 0; i < s->nnodes; i++)
        n += s->n[i];
    return n;
}

int sim_done(const sim_t *s, int64_t id)
{
    return id >= 0 && id < s->donecap && s->done[id];
}

static void mark_done(sim_t *s, int64_t id)
{
    if (id >= s->donecap) {
        int64_t nc = s->donecap ? s->donecap : 256;
        while (nc <= id)
            nc *= 2;
        s->done = realloc(s->done, (size_t)nc);
        memset(s->done + s->donecap, 0, (size_t)(nc - s->donecap));
        s->donecap = nc;
    }
    s->done[id] = 1;
}

static int bad(const hcrt__dm_op_t *op, const char *why)
{
    fprintf(stderr,
            "sim: op %lld (kind %d buf %llu %d->%d off %llu len %llu):"
            " %s\n",
            (long long)op->id, op->kind, (unsigned long long)op->buf, op->src,
            op->dst, (unsigned long long)op->off, (unsigned long long)op->len,
            why);
    return 1;
}

static unsigned char *endpoint(sim_t *s, const hcrt__dm_op_t *op, int loc)
{
    if (loc == HCRT_DM_HOST)
        return (unsigned char *)op->host + op->off;
    sim_copy_t *c = find(s, loc, op->buf);
    if (c == NULL || op->off + op->len > c->size)
        return NULL;
    return c->p + op->off;
}

int sim_apply(sim_t *s, const hcrt__dm_op_t *op)
{
    if (op->wait_op >= 0 && !sim_done(s, op->wait_op))
        return bad(op, "runs before the op it waits for");
    int errs = 0;
    switch (op->kind) {
    case HCRT_DM_OP_ALLOC: {
        if (find(s, op->dst, op->buf))
            return bad(op, "allocated twice");
        int d = op->dst;
        if (s->n[d] == s->cap[d]) {
            s->cap[d] = s->cap[d] ? 2 * s->cap[d] : 8;
            s->c[d] = realloc(s->c[d], (size_t)s->cap[d] * sizeof(sim_copy_t));
        }
        sim_copy_t *c = &s->c[d][s->n[d]++];
        c->buf = op->buf;
        c->size = op->len;
        c->p = malloc(op->len ? op->len : 1);
        memset(c->p, 0xA5, op->len); /* uninitialised device memory */
        break;
    }
    case HCRT_DM_OP_COPY: {
        unsigned char *from = endpoint(s, op, op->src);
        unsigned char *to = endpoint(s, op, op->dst);
        if (from == NULL || to == NULL)
            errs += bad(op, "copy endpoint not allocated");
        else
            memmove(to, from, op->len);
        break;
    }
    case HCRT_DM_OP_ATTACH: {
        unsigned char *slot = sim_addr(s, op->dst, op->buf, op->off);
        unsigned char *tgt = sim_addr(s, op->dst, op->tbuf, op->toff);
        if (slot == NULL || tgt == NULL)
            errs += bad(op, "attach endpoint not allocated");
        else
            memcpy(slot, &tgt, sizeof(tgt));
        break;
    }
    case HCRT_DM_OP_FREE: {
        sim_copy_t *c = find(s, op->dst, op->buf);
        if (c == NULL)
            return bad(op, "free of a buffer not allocated");
        free(c->p);
        *c = s->c[op->dst][--s->n[op->dst]];
        break;
    }
    case HCRT_DM_OP_WAIT:
        break;
    }
    mark_done(s, op->id);
    return errs;
}

int sim_apply_plan(sim_t *s, const hcrt__dm_plan_t *p)
{
    int errs = 0;
    for (int32_t i = 0; i < p->n; i++)
        errs += sim_apply(s, &p->ops[i]);
    return errs;
}

void sim_kernel_args(sim_t *s, int node, const hcrt__ofl_map_t *maps, int n,
                     const hcrt__dm_xlate_t *xl, void **args)
{
    for (int i = 0; i < n; i++)
        args[i] = xl[i].buf ? (void *)sim_addr(s, node, xl[i].buf, xl[i].off)
                            : maps[i].base;
}

/* ---- the reference device -------------------------------------------------
 */

typedef struct ref_map {
    uintptr_t begin;
    uint64_t size;
    int64_t rc;
    unsigned char *dev, *init;
} ref_map_t;

typedef struct ref_slot { /* attached pointer: dev slot of a mapping */
    uintptr_t host_slot;
} ref_slot_t;

struct ref {
    ref_map_t m[256];
    int n;
    ref_slot_t slot[64];
    int nslot;
};

ref_t *ref_create(void)
{
    return calloc(1, sizeof(ref_t));
}

void ref_destroy(ref_t *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->m[i].dev);
        free(r->m[i].init);
    }
    free(r);
}

static ref_map_t *ref_find(const ref_t *r, uintptr_t a, uint64_t n, int *part)
{
    *part = 0;
    for (int i = 0; i < r->n; i++) {
        const ref_map_t *m = &r->m[i];
        if (a >= m->begin && a + n <= m->begin + m->size &&
            a < m->begin + m->size)
            return (ref_map_t *)m;
        if (a < m->begin + m->size && m->begin < a + n)
            *part = 1;
    }
    return NULL;
}

int64_t ref_refcount(const ref_t *r, const void *addr)
{
    int part;
    ref_map_t *m = ref_find(r, (uintptr_t)addr, 1, &part);
    return m ? m->rc : -1;
}

int ref_initialized(const ref_t *r, const void *addr, int64_t len)
{
    int part;
    ref_map_t *m = ref_find(r, (uintptr_t)addr, (uint64_t)len, &part);
    if (m == NULL)
        return 0;
    uint64_t off = (uintptr_t)addr - m->begin;
    for (int64_t i = 0; i < len; i++)
        if (!m->init[off + i])
            return 0;
    return 1;
}

static unsigned char *dev_of(const ref_t *r, uintptr_t a)
{
    int part;
    ref_map_t *m = ref_find(r, a, 1, &part);
    return m ? m->dev + (a - m->begin) : NULL;
}

static int is_slot(const ref_t *r, uintptr_t a)
{
    for (int i = 0; i < r->nslot; i++)
        if (a >= r->slot[i].host_slot &&
            a < r->slot[i].host_slot + sizeof(void *))
            return 1;
    return 0;
}

static void ref_to(ref_t *r, ref_map_t *m, uintptr_t a, uint64_t n)
{
    uint64_t off = a - m->begin;
    memcpy(m->dev + off, (void *)a, n);
    memset(m->init + off, 1, n);
    (void)r;
}

static void ref_from(ref_t *r, ref_map_t *m, uintptr_t a, uint64_t n)
{
    uint64_t off = a - m->begin;
    for (uint64_t i = 0; i < n; i++) /* never-written bytes stay as they are */
        if (m->init[off + i] && !is_slot(r, a + i))
            ((unsigned char *)a)[i] = m->dev[off + i];
}

static int ref_enter(ref_t *r, const hcrt__ofl_map_t *maps, int n, int *isnew)
{
    for (int i = 0; i < n; i++) {
        const hcrt__ofl_map_t *e = &maps[i];
        isnew[i] = 0;
        if (e->size <= 0 ||
            (e->type & (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE)))
            continue;
        uintptr_t a = (uintptr_t)e->begin;
        int part, member = HCRT_OFL_MAP_MEMBER_OF(e->type) &&
                           !(e->type & HCRT_OFL_MAP_PTR_AND_OBJ);
        ref_map_t *m = ref_find(r, a, (uint64_t)e->size, &part);
        if (member) {
            if (!m)
                return HCRT_ERR_INVALID;
            isnew[i] = isnew[HCRT_OFL_MAP_MEMBER_OF(e->type) - 1];
        } else if (m) {
            m->rc++;
        } else if (part) {
            return HCRT_ERR_INVALID;
        } else if (e->type & HCRT_OFL_MAP_PRESENT) {
            return HCRT_ERR_NOT_FOUND;
        } else {
            m = &r->m[r->n++];
            m->begin = a;
            m->size = (uint64_t)e->size;
            m->rc = 1;
            m->dev = malloc(m->size);
            memset(m->dev, 0x5A, m->size);
            m->init = calloc(m->size, 1);
            isnew[i] = 1;
        }
        if ((e->type & HCRT_OFL_MAP_TO) &&
            (isnew[i] || (e->type & HCRT_OFL_MAP_ALWAYS)))
            ref_to(r, m, a, (uint64_t)e->size);
        if (e->type & HCRT_OFL_MAP_PTR_AND_OBJ) {
            unsigned char *slot = dev_of(r, (uintptr_t)e->base);
            if (slot != NULL) {
                unsigned char *d = dev_of(r, a);
                memcpy(slot, &d, sizeof(d));
                r->slot[r->nslot++].host_slot = (uintptr_t)e->base;
            }
        }
    }
    return HCRT_OK;
}

static void ref_unmap(ref_t *r, ref_map_t *m)
{
    int w = 0;
    for (int i = 0; i < r->nslot; i++)
        if (r->slot[i].host_slot < m->begin ||
            r->slot[i].host_slot >= m->begin + m->size)
            r->slot[w++] = r->slot[i];
    r->nslot = w;
    free(m->dev);
    free(m->init);
    *m = r->m[--r->n];
}

static void ref_exit(ref_t *r, const hcrt__ofl_map_t *maps, int n)
{
    int part;
    for (int i = n - 1; i >= 0; i--) {
        const hcrt__ofl_map_t *e = &maps[i];
        if (e->size <= 0 ||
            (e->type & (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE)))
            continue;
        ref_map_t *m =
            ref_find(r, (uintptr_t)e->begin, (uint64_t)e->size, &part);
        if (m == NULL || (HCRT_OFL_MAP_MEMBER_OF(e->type) &&
                          !(e->type & HCRT_OFL_MAP_PTR_AND_OBJ)))
            continue;
        if (e->type & HCRT_OFL_MAP_DELETE)
            m->rc = 0;
        else if (m->rc > 0)
            m->rc--;
    }
    for (int i = n - 1; i >= 0; i--) {
        const hcrt__ofl_map_t *e = &maps[i];
        if (e->size <= 0 ||
            (e->type & (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE)))
            continue;
        ref_map_t *m =
            ref_find(r, (uintptr_t)e->begin, (uint64_t)e->size, &part);
        if (m && (e->type & HCRT_OFL_MAP_FROM) &&
            (m->rc == 0 || (e->type & HCRT_OFL_MAP_ALWAYS)))
            ref_from(r, m, (uintptr_t)e->begin, (uint64_t)e->size);
    }
    for (int i = 0; i < r->n;)
        if (r->m[i].rc == 0)
            ref_unmap(r, &r->m[i]);
        else
            i++;
}

/* Marks what the kernel may have written as initialised device data. */
static void ref_mark_written(ref_t *r, const hcrt__ofl_map_t *maps, int n,
                             const int *writes)
{
    int part;
    for (int i = 0; i < n; i++) {
        ref_map_t *m = maps[i].size > 0
                           ? ref_find(r, (uintptr_t)maps[i].begin,
                                      (uint64_t)maps[i].size, &part)
                           : NULL;
        if (m && (writes ? writes[i] : (maps[i].type & HCRT_OFL_MAP_FROM) != 0))
            memset(m->init + ((uintptr_t)maps[i].begin - m->begin), 1,
                   (size_t)maps[i].size);
    }
}

int ref_task(ref_t *r, hcrt__ofl_kind_t kind, const hcrt__ofl_map_t *maps,
             int n, const int *writes, ref_kernel_fn fn, void *arg)
{
    int isnew[64], part, st = HCRT_OK;
    void *args[64];
    switch (kind) {
    case HCRT_OFL_KERNEL:
        st = ref_enter(r, maps, n, isnew);
        if (st != HCRT_OK)
            return st;
        for (int i = 0; i < n; i++)
            args[i] = maps[i].size > 0 &&
                              !(maps[i].type &
                                (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE))
                          ? (void *)dev_of(r, (uintptr_t)maps[i].begin)
                          : maps[i].base;
        if (fn)
            fn(arg, args);
        ref_mark_written(r, maps, n, writes);
        ref_exit(r, maps, n);
        break;
    case HCRT_OFL_DATA_ENTER:
        st = ref_enter(r, maps, n, isnew);
        break;
    case HCRT_OFL_DATA_EXIT:
        ref_exit(r, maps, n);
        break;
    case HCRT_OFL_DATA_UPDATE:
        for (int i = 0; i < n; i++) {
            ref_map_t *m = ref_find(r, (uintptr_t)maps[i].begin,
                                    (uint64_t)maps[i].size, &part);
            if (m == NULL)
                continue;
            if (maps[i].type & HCRT_OFL_MAP_TO)
                ref_to(r, m, (uintptr_t)maps[i].begin, (uint64_t)maps[i].size);
            else if (maps[i].type & HCRT_OFL_MAP_FROM)
                ref_from(r, m, (uintptr_t)maps[i].begin,
                         (uint64_t)maps[i].size);
        }
        break;
    default:
        break;
    }
    return st;
}

/* ---- world ------------------------------------------------------------- */

void world_init(world_t *w, int nnodes, size_t size)
{
    memset(w, 0, sizeof(*w));
    w->nnodes = nnodes;
    hcrt__dm_create(nnodes, &w->dm);
    w->sim = sim_create(nnodes);
    w->ref = ref_create();
    w->H = aligned_alloc(64, size);
    w->R = aligned_alloc(64, size);
    memset(w->H, 0, size);
    memset(w->R, 0, size);
    w->size = size;
}

void world_fini(world_t *w)
{
    hcrt__dm_destroy(w->dm);
    sim_destroy(w->sim);
    ref_destroy(w->ref);
    hcrt__dm_plan_fini(&w->pre);
    hcrt__dm_plan_fini(&w->post);
    free(w->H);
    free(w->R);
}

static void *shift_ptr(const world_t *w, void *p)
{
    unsigned char *c = p;
    return c >= w->H && c < w->H + w->size ? w->R + (c - w->H) : p;
}

void world_shift(const world_t *w, const hcrt__ofl_map_t *in, int n,
                 hcrt__ofl_map_t *out)
{
    for (int i = 0; i < n; i++) {
        out[i] = in[i];
        out[i].base = shift_ptr(w, in[i].base);
        out[i].begin = shift_ptr(w, in[i].begin);
    }
}

int world_task(world_t *w, const hcrt__ofl_task_desc_t *t, int node,
               const int *writes, ref_kernel_fn fn, void *arg)
{
    hcrt__dm_xlate_t xl[64];
    void *args[64];
    hcrt__ofl_map_t rm[64];
    hcrt__dm_plan_clear(&w->pre);
    hcrt__dm_plan_clear(&w->post);
    int st = hcrt__dm_plan_task(w->dm, t, node, &w->pre, &w->post, xl);
    world_shift(w, t->maps, t->nmaps, rm);
    int rst = ref_task(w->ref, t->kind, rm, t->nmaps, writes, fn, arg);
    if (rst != st) {
        fprintf(stderr, "world: data manager says %d, reference %d\n", st, rst);
        w->errs++;
    }
    if (st != HCRT_OK)
        return st;
    w->errs += sim_apply_plan(w->sim, &w->pre);
    if (t->kind == HCRT_OFL_KERNEL && fn != NULL) {
        sim_kernel_args(w->sim, node, t->maps, t->nmaps, xl, args);
        fn(arg, args);
    }
    w->errs += sim_apply_plan(w->sim, &w->post);
    return st;
}

int ref_mapping(const ref_t *r, const void *addr, uintptr_t *begin,
                uint64_t *size)
{
    int part;
    ref_map_t *m = ref_find(r, (uintptr_t)addr, 1, &part);
    if (m == NULL)
        return 0;
    *begin = m->begin;
    *size = m->size;
    return 1;
}
