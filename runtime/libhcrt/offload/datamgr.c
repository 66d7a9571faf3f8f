/*
 * datamgr.c - the map table of one OpenMP device spread over the nodes:
 * libomptarget's rules (reference counts, `present`, `always`, `delete`,
 * members of structs, PTR_AND_OBJ attachment), turned into transfer plans
 * by dm_seg.c. All of it runs on the head while planning a batch.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/offload/dm_int.h"

hcrt_status_t hcrt__dm_create(int nnodes, hcrt__dm_t **out)
{
    if (nnodes < 1 || out == NULL)
        return HCRT_ERR_INVALID;
    hcrt__dm_t *dm = calloc(1, sizeof(*dm));
    if (dm == NULL)
        return HCRT_ERR_NOMEM;
    dm->nnodes = nnodes;
    dm->words = (nnodes + 63) / 64;
    dm->epoch = 1;
    dm->next_buf = 1;
    dm->env = calloc(1, sizeof(*dm->env));
    if (dm->env == NULL) {
        free(dm);
        return HCRT_ERR_NOMEM;
    }
    dm->nenv = dm->envcap = 1; /* device 0, selected */
    *out = dm;
    return HCRT_OK;
}

static void env_store(hcrt__dm_t *dm)
{
    dm_env_t *e = &dm->env[dm->cur];
    e->nbuf = dm->nbuf, e->bufcap = dm->bufcap, e->buf = dm->buf;
    e->natt = dm->natt, e->attcap = dm->attcap, e->att = dm->att;
}

static void env_load(hcrt__dm_t *dm, int32_t i)
{
    const dm_env_t *e = &dm->env[i];
    dm->nbuf = e->nbuf, dm->bufcap = e->bufcap, dm->buf = e->buf;
    dm->natt = e->natt, dm->attcap = e->attcap, dm->att = e->att;
    dm->cur = i;
}

hcrt_status_t hcrt__dm_select(hcrt__dm_t *dm, int dev)
{
    if (dm == NULL || dev < 0)
        return HCRT_ERR_INVALID;
    if (dm->env[dm->cur].dev == dev)
        return HCRT_OK;
    int32_t i = 0;
    while (i < dm->nenv && dm->env[i].dev != dev)
        i++;
    if (i == dm->nenv) {
        if (hcrt__ofl_grow((void **)&dm->env, &dm->envcap,
                           (int64_t)dm->nenv + 1, sizeof(*dm->env)) != HCRT_OK)
            return HCRT_ERR_NOMEM;
        dm->env[dm->nenv++] = (dm_env_t){.dev = dev};
    }
    env_store(dm);
    env_load(dm, i);
    return HCRT_OK;
}

int hcrt__dm_selected(const hcrt__dm_t *dm)
{
    return dm->env[dm->cur].dev;
}

void hcrt__dm_destroy(hcrt__dm_t *dm)
{
    if (dm == NULL)
        return;
    env_store(dm);
    for (int32_t e = 0; e < dm->nenv; e++) {
        env_load(dm, e);
        for (int32_t i = 0; i < dm->nbuf; i++)
            hcrt__dm_buf_free(dm->buf[i]);
        free(dm->buf);
        free(dm->att);
    }
    free(dm->env);
    free(dm);
}

void hcrt__dm_batch_begin(hcrt__dm_t *dm)
{
    dm->epoch++;
}

void hcrt__dm_settle(hcrt__dm_t *dm)
{
    dm->settled = dm->next_op;
}

void hcrt__dm_settle_before(hcrt__dm_t *dm, int64_t op)
{
    if (op > dm->settled)
        dm->settled = op;
}

void hcrt__dm_plan_clear(hcrt__dm_plan_t *p)
{
    p->n = 0;
}

void hcrt__dm_plan_fini(hcrt__dm_plan_t *p)
{
    free(p->ops);
    memset(p, 0, sizeof(*p));
}

/* ---- the table of mapped ranges (sorted, disjoint) ---------------------- */

/* Index of the last buffer starting at or before addr, or -1. */
static int32_t buf_floor(const hcrt__dm_t *dm, uintptr_t addr)
{
    int32_t lo = 0, hi = dm->nbuf - 1, r = -1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        if (dm->buf[mid]->begin <= addr) {
            r = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return r;
}

static dm_buf_t *buf_containing(const hcrt__dm_t *dm, uintptr_t a, uint64_t n)
{
    int32_t i = buf_floor(dm, a);
    if (i < 0)
        return NULL;
    dm_buf_t *b = dm->buf[i];
    return a + n <= b->begin + b->size && a < b->begin + b->size ? b : NULL;
}

static int overlaps_any(const hcrt__dm_t *dm, uintptr_t a, uint64_t n)
{
    int32_t i = buf_floor(dm, a);
    if (i >= 0 && dm->buf[i]->begin + dm->buf[i]->size > a)
        return 1;
    return i + 1 < dm->nbuf && dm->buf[i + 1]->begin < a + n;
}

static hcrt_status_t buf_insert(hcrt__dm_t *dm, uintptr_t a, uint64_t n,
                                dm_buf_t **out)
{
    hcrt_status_t st = hcrt__ofl_grow((void **)&dm->buf, &dm->bufcap,
                                      dm->nbuf + 1, sizeof(dm_buf_t *));
    if (st != HCRT_OK)
        return st;
    dm_buf_t *b = hcrt__dm_buf_new(dm, a, n);
    if (b == NULL)
        return HCRT_ERR_NOMEM;
    int32_t at = buf_floor(dm, a) + 1;
    memmove(&dm->buf[at + 1], &dm->buf[at],
            (size_t)(dm->nbuf - at) * sizeof(dm_buf_t *));
    dm->buf[at] = b;
    dm->nbuf++;
    *out = b;
    return HCRT_OK;
}

/* Unmaps b: frees every node's copy and forgets its attachments. */
static hcrt_status_t buf_remove(hcrt__dm_t *dm, dm_buf_t *b, hcrt__dm_plan_t *p)
{
    for (int n = 0; n < dm->nnodes; n++) {
        if (!(b->alloc[n / 64] & (1ULL << (n % 64))))
            continue;
        hcrt__dm_op_t op = {.kind = HCRT_DM_OP_FREE,
                            .src = n,
                            .dst = n,
                            .buf = b->id,
                            .host = b->begin,
                            .len = b->size,
                            .wait_op = -1};
        hcrt_status_t st = hcrt__dm_op_push(dm, p, &op, NULL);
        if (st != HCRT_OK)
            return st;
    }
    int32_t w = 0;
    for (int32_t a = 0; a < dm->natt; a++)
        if (dm->att[a].q != b->id && dm->att[a].p != b->id)
            dm->att[w++] = dm->att[a];
    dm->natt = w;
    int32_t i = buf_floor(dm, b->begin);
    memmove(&dm->buf[i], &dm->buf[i + 1],
            (size_t)(dm->nbuf - i - 1) * sizeof(dm_buf_t *));
    dm->nbuf--;
    hcrt__dm_buf_free(b);
    return HCRT_OK;
}

/* target: the host pointer's value; poff = target - p's begin, modulo
 * 2^64 (negative for a section that starts after the pointee). */
static hcrt_status_t attach(hcrt__dm_t *dm, uintptr_t slot, dm_buf_t *p,
                            uintptr_t target)
{
    dm_buf_t *q = buf_containing(dm, slot, sizeof(void *));
    if (q == NULL)
        return HCRT_OK; /* the pointer is passed by value: nothing to fix */
    dm_attach_t at = {.q = q->id,
                      .qoff = slot - q->begin,
                      .p = p->id,
                      .poff = target - p->begin};
    for (int32_t a = 0; a < dm->natt; a++)
        if (dm->att[a].q == at.q && dm->att[a].qoff == at.qoff) {
            dm->att[a] = at;
            return HCRT_OK;
        }
    hcrt_status_t st = hcrt__ofl_grow((void **)&dm->att, &dm->attcap,
                                      dm->natt + 1, sizeof(at));
    if (st == HCRT_OK)
        dm->att[dm->natt++] = at;
    return st;
}

/* ---- map entry semantics ---------------------------------------------------
 */

typedef struct entry_state {
    dm_buf_t *b;
    int is_new;
} entry_state_t;

static int is_member(int64_t type)
{
    return HCRT_OFL_MAP_MEMBER_OF(type) > 0 &&
           !(type & HCRT_OFL_MAP_PTR_AND_OBJ);
}

/* host -> node copy of the entry's range, the new latest version. */
static hcrt_status_t copy_to(hcrt__dm_t *dm, dm_buf_t *b,
                             const hcrt__ofl_map_t *m, int node,
                             hcrt__dm_plan_t *p)
{
    uint64_t off = (uintptr_t)m->begin - b->begin;
    int64_t id;
    hcrt_status_t st = hcrt__dm_ensure_alloc(dm, b, node, p);
    hcrt__dm_op_t op = {.kind = HCRT_DM_OP_COPY,
                        .src = HCRT_DM_HOST,
                        .dst = node,
                        .buf = b->id,
                        .host = b->begin,
                        .off = off,
                        .len = (uint64_t)m->size,
                        .wait_op = -1};
    if (st == HCRT_OK)
        st = hcrt__dm_op_push(dm, p, &op, &id);
    if (st == HCRT_OK)
        st = hcrt__dm_write(dm, b, off, (uint64_t)m->size, node, id);
    return st;
}

/* Map-enter of one entry: find or create its mapping, count the reference,
 * copy `to` data when the mapping is new or `always` is given. */
static hcrt_status_t enter_one(hcrt__dm_t *dm, const hcrt__ofl_map_t *m,
                               entry_state_t *es, const entry_state_t *all,
                               int node, hcrt__dm_plan_t *p)
{
    uintptr_t a = (uintptr_t)m->begin;
    uint64_t n = (uint64_t)m->size;
    dm_buf_t *b = buf_containing(dm, a, n);
    hcrt_status_t st = HCRT_OK;
    if (is_member(m->type)) {
        if (b == NULL)
            return HCRT_ERR_INVALID; /* member outside its parent */
        es->is_new = all[HCRT_OFL_MAP_MEMBER_OF(m->type) - 1].is_new;
    } else if (b != NULL) {
        b->refcount++;
    } else if (overlaps_any(dm, a, n)) {
        return HCRT_ERR_INVALID; /* extends a mapping: forbidden */
    } else if (m->type & HCRT_OFL_MAP_PRESENT) {
        return HCRT_ERR_NOT_FOUND;
    } else {
        st = buf_insert(dm, a, n, &b);
        if (st != HCRT_OK)
            return st;
        b->refcount = 1;
        es->is_new = 1;
    }
    es->b = b;
    if ((m->type & HCRT_OFL_MAP_TO) &&
        (es->is_new || (m->type & HCRT_OFL_MAP_ALWAYS)))
        st = copy_to(dm, b, m, node, p);
    /* the node's pointer gets the node address of what the host pointer
     * points at, which may lie before the mapped section: p[10:80] or
     * Fortran's p(10:90) keep p pointing at element 0 or 1 (libomptarget's
     * TgtPtrBegin - Delta) */
    if (st == HCRT_OK && (m->type & HCRT_OFL_MAP_PTR_AND_OBJ))
        st = attach(dm, (uintptr_t)m->base, b, *(const uintptr_t *)m->base);
    return st;
}

/* The errors map-enter can raise, found before anything changes so that a
 * failing construct leaves the table as it was (the runtime then runs it
 * on the head or stops with the diagnostic). */
static hcrt_status_t enter_check(const hcrt__dm_t *dm,
                                 const hcrt__ofl_task_desc_t *t)
{
    const hcrt__ofl_map_t *m = t->maps;
    for (int32_t i = 0; i < t->nmaps; i++) {
        if (!hcrt__ofl_map_is_data(&m[i]))
            continue;
        uintptr_t a = (uintptr_t)m[i].begin;
        uint64_t n = (uint64_t)m[i].size;
        if (buf_containing(dm, a, n) != NULL)
            continue;
        if (is_member(m[i].type)) { /* inside a parent mapped just now? */
            const hcrt__ofl_map_t *pm =
                &m[HCRT_OFL_MAP_MEMBER_OF(m[i].type) - 1];
            if (a < (uintptr_t)pm->begin ||
                a + n > (uintptr_t)pm->begin + (uint64_t)pm->size)
                return HCRT_ERR_INVALID;
            continue;
        }
        if (overlaps_any(dm, a, n))
            return HCRT_ERR_INVALID;
        if (m[i].type & HCRT_OFL_MAP_PRESENT)
            return HCRT_ERR_NOT_FOUND;
    }
    return HCRT_OK;
}

static hcrt_status_t enter_all(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                               int node, entry_state_t *es, hcrt__dm_plan_t *p)
{
    hcrt_status_t st = enter_check(dm, t);
    for (int32_t i = 0; i < t->nmaps && st == HCRT_OK; i++)
        if (hcrt__ofl_map_is_data(&t->maps[i]))
            st = enter_one(dm, &t->maps[i], &es[i], es, node, p);
    return st;
}

/* Map-exit: drop references (in reverse, as libomptarget), copy `from`
 * data home when the mapping goes away or `always` is given, then unmap
 * what reached zero. */
static hcrt_status_t exit_all(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                              hcrt__dm_plan_t *p)
{
    const hcrt__ofl_map_t *m = t->maps;
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = t->nmaps - 1; i >= 0; i--) {
        dm_buf_t *b =
            hcrt__ofl_map_is_data(&m[i])
                ? buf_containing(dm, (uintptr_t)m[i].begin, (uint64_t)m[i].size)
                : NULL;
        if (b == NULL || is_member(m[i].type))
            continue;
        if (m[i].type & HCRT_OFL_MAP_DELETE)
            b->refcount = 0;
        else if (b->refcount > 0)
            b->refcount--;
    }
    for (int32_t i = t->nmaps - 1; i >= 0 && st == HCRT_OK; i--) {
        dm_buf_t *b =
            hcrt__ofl_map_is_data(&m[i])
                ? buf_containing(dm, (uintptr_t)m[i].begin, (uint64_t)m[i].size)
                : NULL;
        if (b != NULL && (m[i].type & HCRT_OFL_MAP_FROM) &&
            (b->refcount == 0 || (m[i].type & HCRT_OFL_MAP_ALWAYS)))
            st = hcrt__dm_copy_home(dm, b, (uintptr_t)m[i].begin - b->begin,
                                    (uint64_t)m[i].size, p);
    }
    for (int32_t i = 0; i < t->nmaps && st == HCRT_OK; i++) {
        dm_buf_t *b =
            hcrt__ofl_map_is_data(&m[i])
                ? buf_containing(dm, (uintptr_t)m[i].begin, (uint64_t)m[i].size)
                : NULL;
        if (b != NULL && b->refcount == 0)
            st = buf_remove(dm, b, p);
    }
    return st;
}

static hcrt_status_t update_all(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                                int node, hcrt__dm_plan_t *p)
{
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = 0; i < t->nmaps; i++) /* `present` fails before moving */
        if (hcrt__ofl_map_is_data(&t->maps[i]) &&
            (t->maps[i].type & HCRT_OFL_MAP_PRESENT) &&
            !buf_containing(dm, (uintptr_t)t->maps[i].begin,
                            (uint64_t)t->maps[i].size))
            return HCRT_ERR_NOT_FOUND;
    for (int32_t i = 0; i < t->nmaps && st == HCRT_OK; i++) {
        const hcrt__ofl_map_t *m = &t->maps[i];
        if (!hcrt__ofl_map_is_data(m))
            continue;
        dm_buf_t *b =
            buf_containing(dm, (uintptr_t)m->begin, (uint64_t)m->size);
        if (b == NULL) { /* not present: nothing happens, unless asked */
            if (m->type & HCRT_OFL_MAP_PRESENT)
                st = HCRT_ERR_NOT_FOUND;
            continue;
        }
        if (m->type & HCRT_OFL_MAP_TO)
            st = copy_to(dm, b, m, node, p);
        else if (m->type & HCRT_OFL_MAP_FROM)
            st = hcrt__dm_copy_home(dm, b, (uintptr_t)m->begin - b->begin,
                                    (uint64_t)m->size, p);
    }
    return st;
}

/* ---- kernels ------------------------------------------------------------- */

static int uses_buf(const entry_state_t *es, int32_t n, uint64_t id)
{
    for (int32_t i = 0; i < n; i++)
        if (es[i].b != NULL && es[i].b->id == id)
            return 1;
    return 0;
}

static dm_buf_t *buf_by_id(const hcrt__dm_t *dm, uint64_t id)
{
    for (int32_t i = 0; i < dm->nbuf; i++)
        if (dm->buf[i]->id == id)
            return dm->buf[i];
    return NULL;
}

/* Pointers inside the kernel's buffers must point at this node's copies. */
static hcrt_status_t attach_all(hcrt__dm_t *dm, const entry_state_t *es,
                                int32_t n, int node, hcrt__dm_plan_t *p,
                                int64_t first)
{
    hcrt_status_t st = HCRT_OK;
    for (int32_t a = 0; a < dm->natt && st == HCRT_OK; a++) {
        dm_attach_t at = dm->att[a];
        dm_buf_t *q = buf_by_id(dm, at.q), *pb = buf_by_id(dm, at.p);
        if (q == NULL || pb == NULL || !uses_buf(es, n, at.q))
            continue;
        st = hcrt__dm_make_valid(dm, pb, 0, pb->size, node, p, first);
        hcrt__dm_op_t op = {.kind = HCRT_DM_OP_ATTACH,
                            .src = node,
                            .dst = node,
                            .buf = q->id,
                            .host = q->begin,
                            .off = at.qoff,
                            .len = sizeof(void *),
                            .wait_op = -1,
                            .tbuf = pb->id,
                            .toff = at.poff,
                            .thost = pb->begin};
        if (st == HCRT_OK)
            st = hcrt__dm_op_push(dm, p, &op, NULL);
    }
    return st;
}

static hcrt_status_t kernel_pre(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                                int node, entry_state_t *es, hcrt__dm_plan_t *p)
{
    int64_t first = dm->next_op;
    hcrt_status_t st = enter_all(dm, t, node, es, p);
    for (int32_t i = 0; i < t->nmaps && st == HCRT_OK; i++) {
        const hcrt__ofl_map_t *m = &t->maps[i];
        if (es[i].b != NULL)
            st = hcrt__dm_make_valid(dm, es[i].b,
                                     (uintptr_t)m->begin - es[i].b->begin,
                                     (uint64_t)m->size, node, p, first);
    }
    if (st == HCRT_OK)
        st = attach_all(dm, es, t->nmaps, node, p, first);
    return st;
}

static hcrt_status_t kernel_post(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                                 int node, const entry_state_t *es,
                                 hcrt__dm_plan_t *p)
{
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = 0; i < t->nmaps && st == HCRT_OK; i++) {
        const hcrt__ofl_map_t *m = &t->maps[i];
        if (es[i].b != NULL &&
            hcrt__ofl_map_writes(t->kind, m, t->deps, t->ndeps))
            st = hcrt__dm_write(dm, es[i].b,
                                (uintptr_t)m->begin - es[i].b->begin,
                                (uint64_t)m->size, node, -1);
    }
    if (st == HCRT_OK)
        st = exit_all(dm, t, p);
    return st;
}

static void fill_xlate(const hcrt__ofl_task_desc_t *t, const entry_state_t *es,
                       hcrt__dm_xlate_t *xl)
{
    for (int32_t i = 0; i < t->nmaps; i++) {
        xl[i].buf = es[i].b ? es[i].b->id : 0;
        xl[i].off = es[i].b ? (uintptr_t)t->maps[i].begin - es[i].b->begin : 0;
    }
}

hcrt_status_t hcrt__dm_plan_task(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                                 int node, hcrt__dm_plan_t *pre,
                                 hcrt__dm_plan_t *post, hcrt__dm_xlate_t *xlate)
{
    if (dm == NULL || t == NULL || pre == NULL || post == NULL ||
        (t->nmaps && t->maps == NULL) || (t->ndeps && t->deps == NULL))
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__ofl_classify(t->maps, t->nmaps, NULL);
    if (st != HCRT_OK)
        return st;
    int needs_node = t->kind == HCRT_OFL_KERNEL ||
                     t->kind == HCRT_OFL_DATA_ENTER ||
                     t->kind == HCRT_OFL_DATA_UPDATE;
    if (needs_node && (node < 0 || node >= dm->nnodes))
        return HCRT_ERR_INVALID;
    dm->plan_first = dm->next_op;
    if (xlate != NULL && t->nmaps > 0)
        memset(xlate, 0, (size_t)t->nmaps * sizeof(*xlate));
    if (t->nmaps == 0)
        return HCRT_OK;
    entry_state_t *es = calloc((size_t)t->nmaps, sizeof(*es));
    if (es == NULL)
        return HCRT_ERR_NOMEM;
    switch (t->kind) {
    case HCRT_OFL_KERNEL:
        st = kernel_pre(dm, t, node, es, pre);
        if (st == HCRT_OK && xlate != NULL)
            fill_xlate(t, es, xlate);
        if (st == HCRT_OK)
            st = kernel_post(dm, t, node, es, post);
        break;
    case HCRT_OFL_DATA_ENTER:
        st = enter_all(dm, t, node, es, pre);
        break;
    case HCRT_OFL_DATA_EXIT:
        st = exit_all(dm, t, pre);
        break;
    case HCRT_OFL_DATA_UPDATE:
        st = update_all(dm, t, node, pre);
        break;
    default:
        break;
    }
    free(es);
    return st;
}

/* ---- queries ----------------------------------------------------------- */

hcrt_status_t hcrt__dm_lookup(const hcrt__dm_t *dm, const void *addr,
                              uint64_t *buf, uint64_t *off, uintptr_t *host)
{
    dm_buf_t *b = buf_containing(dm, (uintptr_t)addr, 1);
    if (b == NULL)
        return HCRT_ERR_NOT_FOUND;
    if (buf)
        *buf = b->id;
    if (off)
        *off = (uintptr_t)addr - b->begin;
    if (host)
        *host = b->begin;
    return HCRT_OK;
}

hcrt_status_t hcrt__dm_extent(const hcrt__dm_t *dm, const void *addr,
                              void **begin, int64_t *size)
{
    dm_buf_t *b = buf_containing(dm, (uintptr_t)addr, 1);
    if (b == NULL)
        return HCRT_ERR_NOT_FOUND;
    *begin = (void *)b->begin;
    *size = (int64_t)b->size;
    return HCRT_OK;
}

int32_t hcrt__dm_overlapping(const hcrt__dm_t *dm, const void *addr,
                             int64_t len, void **begins, int64_t *sizes,
                             int32_t max)
{
    uintptr_t a = (uintptr_t)addr, e = a + (uintptr_t)len;
    int32_t i = buf_floor(dm, a), n = 0;

    if (i < 0 || dm->buf[i]->begin + dm->buf[i]->size <= a)
        i++; /* the first buffer starts after a, or ends before it */
    for (; i < dm->nbuf && dm->buf[i]->begin < e; i++) {
        if (n < max) {
            begins[n] = (void *)dm->buf[i]->begin;
            sizes[n] = (int64_t)dm->buf[i]->size;
        }
        n++;
    }
    return n;
}

int64_t hcrt__dm_refcount(const hcrt__dm_t *dm, const void *addr)
{
    dm_buf_t *b = buf_containing(dm, (uintptr_t)addr, 1);
    return b ? b->refcount : -1;
}

int32_t hcrt__dm_nbuffers(const hcrt__dm_t *dm)
{
    return dm->nbuf;
}

int32_t hcrt__dm_on_node(hcrt__dm_t *dm, int node, uint64_t *bytes,
                         uintptr_t *first)
{
    int32_t n = 0;
    *bytes = 0, *first = 0;
    env_store(dm);
    for (int32_t e = 0; e < dm->nenv; e++)
        for (int32_t i = 0; i < dm->env[e].nbuf; i++) {
            const dm_buf_t *b = dm->env[e].buf[i];
            if (node < 0 || !(b->alloc[node / 64] & (1ULL << (node % 64))))
                continue;
            if (!n++)
                *first = b->begin;
            *bytes += b->size;
        }
    return n;
}

/* The buffer holding the whole range, or NULL. */
static const dm_buf_t *range_buf(const hcrt__dm_t *dm, const void *addr,
                                 int64_t len)
{
    return len > 0 ? buf_containing(dm, (uintptr_t)addr, (uint64_t)len) : NULL;
}

int hcrt__dm_is_valid(const hcrt__dm_t *dm, const void *addr, int64_t len,
                      int node)
{
    const dm_buf_t *b = range_buf(dm, addr, len);
    if (b == NULL)
        return 0;
    uint64_t lo = (uintptr_t)addr - b->begin, hi = lo + (uint64_t)len;
    for (int32_t i = 0; i < b->nseg; i++) {
        const dm_seg_t *s = &b->seg[i];
        if (s->off + s->len <= lo || s->off >= hi)
            continue;
        int found = 0;
        for (int32_t h = 0; h < s->nh; h++)
            found |= s->h[h].node == node;
        if (!found)
            return 0;
    }
    return 1;
}

static const dm_seg_t *seg_at(const hcrt__dm_t *dm, const void *addr)
{
    const dm_buf_t *b = range_buf(dm, addr, 1);
    if (b == NULL)
        return NULL;
    uint64_t off = (uintptr_t)addr - b->begin;
    for (int32_t i = 0; i < b->nseg; i++)
        if (off >= b->seg[i].off && off < b->seg[i].off + b->seg[i].len)
            return &b->seg[i];
    return NULL;
}

int64_t hcrt__dm_version(const hcrt__dm_t *dm, const void *addr)
{
    const dm_seg_t *s = seg_at(dm, addr);
    return s ? (int64_t)s->version : -1;
}

int hcrt__dm_writer(const hcrt__dm_t *dm, const void *addr)
{
    const dm_seg_t *s = seg_at(dm, addr);
    return s ? s->writer : -1;
}

int hcrt__dm_holders(void *arg, const void *begin, int64_t size, int *nodes,
                     int max)
{
    const hcrt__dm_t *dm = arg;
    int n = 0;
    for (int node = 0; node < dm->nnodes && n < max; node++)
        if (hcrt__dm_is_valid(dm, begin, size, node))
            nodes[n++] = node;
    return n;
}
