/*
 * depgraph.c - dependence recording for head regions: libomp's per-address
 * rules (kmp_taskdeps.cpp) replayed on recorded tasks, producing explicit
 * edges instead of successor lists, so the whole graph can be placed by
 * HEFT before anything runs.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/offload/depgraph.h"
#include "libhcrt/offload/offload_int.h"

typedef struct seqlist {
    int64_t *v;
    int32_t n, cap;
} seqlist_t;

/* libomp's kmp_dephash_entry_t: state of one depend address. */
typedef struct dentry {
    intptr_t addr;
    int64_t last_out; /* seq, -1: none */
    seqlist_t last_set, prev_set;
    int last_flag; /* kind of last_set (0: none) */
    int32_t mtx_group;
} dentry_t;

struct hcrt__dg {
    /* address -> entry index, open addressing */
    intptr_t *keys;
    int32_t *slots;
    int64_t hcap;
    dentry_t *ent;
    int32_t nent, entcap;
    int64_t last_all;
    int32_t ngroups;
    uint64_t next_seq, base_seq;
    /* the batch being recorded */
    hcrt__dg_batch_t b;
    int32_t tcap, ecap, mcap, dcap, xcap, ecap2;
    int32_t *stamp; /* stamp[pred id] == current id + 1: edge exists */
    int32_t scap;
};

hcrt_status_t hcrt__dg_create(hcrt__dg_t **out)
{
    hcrt__dg_t *dg = calloc(1, sizeof(*dg));
    if (dg == NULL)
        return HCRT_ERR_NOMEM;
    dg->last_all = -1;
    *out = dg;
    return HCRT_OK;
}

static void batch_free_arrays(hcrt__dg_batch_t *b)
{
    free(b->tasks);
    free(b->edges);
    free(b->maps);
    free(b->deps);
    free(b->mtx);
    free(b->ext);
}

void hcrt__dg_destroy(hcrt__dg_t *dg)
{
    if (dg == NULL)
        return;
    hcrt__dg_sync(dg);
    free(dg->keys);
    free(dg->slots);
    free(dg->ent);
    batch_free_arrays(&dg->b);
    free(dg->stamp);
    free(dg);
}

void hcrt__dg_batch_fini(hcrt__dg_batch_t *b)
{
    batch_free_arrays(b);
    memset(b, 0, sizeof(*b));
}

void hcrt__dg_sync(hcrt__dg_t *dg)
{
    for (int32_t i = 0; i < dg->nent; i++) {
        free(dg->ent[i].last_set.v);
        free(dg->ent[i].prev_set.v);
    }
    dg->nent = 0;
    if (dg->slots != NULL)
        memset(dg->slots, 0xff, (size_t)dg->hcap * sizeof(int32_t));
    dg->last_all = -1;
}

int32_t hcrt__dg_pending(const hcrt__dg_t *dg)
{
    return dg->b.ntasks;
}

/* ---- the address hash -------------------------------------------------- */

static uint64_t hash_addr(intptr_t a)
{
    uint64_t x = (uint64_t)a;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static hcrt_status_t rehash(hcrt__dg_t *dg, int64_t ncap)
{
    intptr_t *k = malloc((size_t)ncap * sizeof(*k));
    int32_t *s = malloc((size_t)ncap * sizeof(*s));
    if (k == NULL || s == NULL) {
        free(k);
        free(s);
        return HCRT_ERR_NOMEM;
    }
    memset(s, 0xff, (size_t)ncap * sizeof(*s));
    for (int32_t i = 0; i < dg->nent; i++) {
        uint64_t h = hash_addr(dg->ent[i].addr) & (uint64_t)(ncap - 1);
        while (s[h] >= 0)
            h = (h + 1) & (uint64_t)(ncap - 1);
        k[h] = dg->ent[i].addr;
        s[h] = i;
    }
    free(dg->keys);
    free(dg->slots);
    dg->keys = k;
    dg->slots = s;
    dg->hcap = ncap;
    return HCRT_OK;
}

/* The entry of `addr`, created (last_out = the last omp_all_memory task, as
 * libomp does) when new. */
static hcrt_status_t find_entry(hcrt__dg_t *dg, intptr_t addr, dentry_t **out)
{
    if ((int64_t)(dg->nent + 1) * 2 > dg->hcap) {
        hcrt_status_t st = rehash(dg, dg->hcap ? dg->hcap * 2 : 64);
        if (st != HCRT_OK)
            return st;
    }
    uint64_t mask = (uint64_t)(dg->hcap - 1), h = hash_addr(addr) & mask;
    for (; dg->slots[h] >= 0; h = (h + 1) & mask)
        if (dg->keys[h] == addr) {
            *out = &dg->ent[dg->slots[h]];
            return HCRT_OK;
        }
    hcrt_status_t st = hcrt__ofl_grow((void **)&dg->ent, &dg->entcap,
                                      dg->nent + 1, sizeof(dentry_t));
    if (st != HCRT_OK)
        return st;
    dentry_t *e = &dg->ent[dg->nent];
    memset(e, 0, sizeof(*e));
    e->addr = addr;
    e->last_out = dg->last_all;
    e->mtx_group = -1;
    dg->keys[h] = addr;
    dg->slots[h] = dg->nent++;
    *out = e;
    return HCRT_OK;
}

static hcrt_status_t seq_push(seqlist_t *l, int64_t s)
{
    hcrt_status_t st =
        hcrt__ofl_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(int64_t));
    if (st == HCRT_OK)
        l->v[l->n++] = s;
    return st;
}

/* ---- edges ----------------------------------------------------------------
 */

static uint64_t flow_bytes(const hcrt__dg_batch_t *b, int32_t from, int32_t to)
{
    const hcrt__dg_task_t *tf = &b->tasks[from], *tt = &b->tasks[to];
    const hcrt__ofl_map_t *mf = b->maps + tf->map_off,
                          *mt = b->maps + tt->map_off;
    uint64_t bytes = 0;
    for (int32_t i = 0; i < tf->nmaps; i++) {
        if (!hcrt__ofl_map_writes(tf->kind, &mf[i], b->deps + tf->dep_off,
                                  tf->ndeps))
            continue;
        for (int32_t j = 0; j < tt->nmaps; j++)
            if (hcrt__ofl_map_is_data(&mt[j]))
                bytes += hcrt__ofl_overlap((uintptr_t)mf[i].begin, mf[i].size,
                                           (uintptr_t)mt[j].begin, mt[j].size);
    }
    return bytes;
}

/* Adds pred -> current task (the last one of the batch), once. */
static hcrt_status_t link(hcrt__dg_t *dg, int64_t pred)
{
    hcrt__dg_batch_t *b = &dg->b;
    int32_t cur = b->ntasks - 1;
    hcrt__dg_task_t *t = &b->tasks[cur];
    if (pred < 0)
        return HCRT_OK;
    if ((uint64_t)pred < dg->base_seq) { /* recorded in an earlier batch */
        for (int32_t i = 0; i < t->next; i++)
            if (b->ext[t->ext_off + i] == (uint64_t)pred)
                return HCRT_OK;
        hcrt_status_t st = hcrt__ofl_grow((void **)&b->ext, &dg->xcap,
                                          b->next + 1, sizeof(uint64_t));
        if (st != HCRT_OK)
            return st;
        b->ext[b->next++] = (uint64_t)pred;
        t->next++;
        return HCRT_OK;
    }
    int32_t p = (int32_t)((uint64_t)pred - dg->base_seq);
    if (p == cur || dg->stamp[p] == cur + 1)
        return HCRT_OK;
    dg->stamp[p] = cur + 1;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->edges, &dg->ecap,
                                      b->nedges + 1, sizeof(hcrt__dg_edge_t));
    if (st != HCRT_OK)
        return st;
    b->edges[b->nedges++] =
        (hcrt__dg_edge_t){.from = p, .to = cur, .bytes = flow_bytes(b, p, cur)};
    return HCRT_OK;
}

static hcrt_status_t link_list(hcrt__dg_t *dg, const seqlist_t *l)
{
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = 0; i < l->n && st == HCRT_OK; i++)
        st = link(dg, l->v[i]);
    return st;
}

/* ---- libomp's rules ---------------------------------------------------- */

static hcrt_status_t add_mtx(hcrt__dg_t *dg, dentry_t *e)
{
    if (e->mtx_group < 0)
        e->mtx_group = dg->ngroups++;
    hcrt__dg_batch_t *b = &dg->b;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->mtx, &dg->mcap, b->nmtx + 1,
                                      sizeof(int32_t));
    if (st != HCRT_OK)
        return st;
    b->mtx[b->nmtx++] = e->mtx_group;
    b->tasks[b->ntasks - 1].nmtx++;
    return HCRT_OK;
}

static hcrt_status_t process_dep(hcrt__dg_t *dg, intptr_t addr, int flag,
                                 int64_t self)
{
    dentry_t *e;
    hcrt_status_t st = find_entry(dg, addr, &e);
    if (st != HCRT_OK)
        return st;
    if (flag & HCRT_OFL_DEP_OUT) { /* out, inout: after the set or last out */
        st =
            e->last_set.n ? link_list(dg, &e->last_set) : link(dg, e->last_out);
        e->last_set.n = e->prev_set.n = 0;
        e->last_flag = 0;
        e->last_out = self;
        return st;
    }
    if (e->last_flag == 0 || e->last_flag == flag) { /* join the set */
        st = link(dg, e->last_out);
        if (st == HCRT_OK)
            st = link_list(dg, &e->prev_set);
    } else { /* a set of another kind: it becomes the previous set */
        st = link_list(dg, &e->last_set);
        e->last_out = -1;
        seqlist_t tmp = e->prev_set;
        e->prev_set = e->last_set;
        e->last_set = tmp;
        e->last_set.n = 0;
    }
    if (st == HCRT_OK) {
        e->last_flag = flag;
        st = seq_push(&e->last_set, self);
    }
    if (st == HCRT_OK && flag == HCRT_OFL_DEP_MTX)
        st = add_mtx(dg, e);
    return st;
}

/* omp_all_memory: after every address's last writer or set; it becomes
 * every address's last writer. */
static hcrt_status_t process_all(hcrt__dg_t *dg, int64_t self)
{
    hcrt_status_t st = link(dg, dg->last_all);
    for (int32_t i = 0; i < dg->nent && st == HCRT_OK; i++) {
        dentry_t *e = &dg->ent[i];
        st =
            e->last_set.n ? link_list(dg, &e->last_set) : link(dg, e->last_out);
        e->last_set.n = e->prev_set.n = 0;
        e->last_flag = 0;
        e->last_out = self;
    }
    dg->last_all = self;
    return st;
}

/* Copies both depend lists into the batch, merging items on the same
 * address as libomp does (different kinds on one address act as out). */
static hcrt_status_t copy_deps(hcrt__dg_t *dg, const hcrt__ofl_task_desc_t *d,
                               int *all)
{
    hcrt__dg_batch_t *b = &dg->b;
    int64_t n = (int64_t)d->ndeps + d->nnoalias;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->deps, &dg->dcap,
                                      b->ndeps + n, sizeof(hcrt_depend_info_t));
    if (st != HCRT_OK)
        return st;
    hcrt__dg_task_t *t = &b->tasks[b->ntasks - 1];
    *all = 0;
    for (int64_t i = 0; i < n; i++) {
        const hcrt_depend_info_t *in =
            i < d->ndeps ? &d->deps[i] : &d->noalias[i - d->ndeps];
        if (in->flags == HCRT_OFL_DEP_ALL || in->base_addr == -1) {
            *all = 1;
            continue;
        }
        if (in->base_addr == 0)
            continue;
        hcrt_depend_info_t *seen = NULL;
        for (int32_t j = 0; j < t->ndeps && seen == NULL; j++)
            if (b->deps[t->dep_off + j].base_addr == in->base_addr)
                seen = &b->deps[t->dep_off + j];
        if (seen != NULL) {
            if (seen->flags != in->flags)
                seen->flags = HCRT_OFL_DEP_INOUT;
            if (in->len > seen->len)
                seen->len = in->len;
            continue;
        }
        b->deps[b->ndeps++] = *in;
        t->ndeps++;
    }
    return HCRT_OK;
}

static hcrt_status_t push_task(hcrt__dg_t *dg, const hcrt__ofl_task_desc_t *d)
{
    hcrt__dg_batch_t *b = &dg->b;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->tasks, &dg->tcap,
                                      b->ntasks + 1, sizeof(hcrt__dg_task_t));
    if (st == HCRT_OK)
        st = hcrt__ofl_grow((void **)&dg->stamp, &dg->scap, b->ntasks + 1,
                            sizeof(int32_t));
    if (st == HCRT_OK)
        st = hcrt__ofl_grow((void **)&b->maps, &dg->ecap2,
                            (int64_t)b->nmaps + d->nmaps,
                            sizeof(hcrt__ofl_map_t));
    if (st != HCRT_OK)
        return st;
    dg->stamp[b->ntasks] = 0;
    hcrt__dg_task_t *t = &b->tasks[b->ntasks++];
    memset(t, 0, sizeof(*t));
    t->kind = d->kind;
    t->kernel = d->kernel;
    t->work = d->work > 0 ? d->work : 1.0;
    t->pin = d->kind == HCRT_OFL_HOST_TASK ? 0 : d->pin;
    t->seq = dg->next_seq++;
    t->map_off = b->nmaps;
    t->nmaps = d->nmaps;
    if (d->nmaps > 0)
        memcpy(b->maps + b->nmaps, d->maps,
               (size_t)d->nmaps * sizeof(*d->maps));
    b->nmaps += d->nmaps;
    t->dep_off = b->ndeps;
    t->mtx_off = b->nmtx;
    t->ext_off = b->next;
    return HCRT_OK;
}

hcrt_status_t hcrt__dg_record(hcrt__dg_t *dg, const hcrt__ofl_task_desc_t *d,
                              int32_t *out_id)
{
    if (dg == NULL || d == NULL || d->ndeps < 0 || d->nnoalias < 0 ||
        d->nmaps < 0 || (d->ndeps && !d->deps) ||
        (d->nnoalias && !d->noalias) || (d->nmaps && !d->maps))
        return HCRT_ERR_INVALID;
    hcrt_status_t st = push_task(dg, d);
    int all = 0;
    if (st == HCRT_OK)
        st = copy_deps(dg, d, &all);
    hcrt__dg_task_t *t = &dg->b.tasks[dg->b.ntasks - 1];
    int64_t self = (int64_t)t->seq;
    if (st == HCRT_OK && all)
        st = process_all(dg, self);
    for (int32_t i = 0; st == HCRT_OK && !all && i < t->ndeps; i++) {
        const hcrt_depend_info_t *dep = &dg->b.deps[t->dep_off + i];
        int flag = dep->flags;
        if (flag != HCRT_OFL_DEP_IN && flag != HCRT_OFL_DEP_MTX &&
            flag != HCRT_OFL_DEP_SET)
            flag = HCRT_OFL_DEP_INOUT; /* out and inout behave alike */
        st = process_dep(dg, dep->base_addr, flag, self);
    }
    if (st == HCRT_OK && out_id != NULL)
        *out_id = dg->b.ntasks - 1;
    return st;
}

static int edge_cmp(const void *a, const void *b)
{
    const hcrt__dg_edge_t *x = a, *y = b;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

hcrt_status_t hcrt__dg_take(hcrt__dg_t *dg, hcrt__dg_batch_t *out)
{
    if (dg == NULL || out == NULL)
        return HCRT_ERR_INVALID;
    *out = dg->b;
    out->nmtx_groups = dg->ngroups;
    if (out->nedges > 1)
        qsort(out->edges, (size_t)out->nedges, sizeof(*out->edges), edge_cmp);
    memset(&dg->b, 0, sizeof(dg->b));
    dg->tcap = dg->ecap = dg->mcap = dg->dcap = dg->xcap = dg->ecap2 = 0;
    dg->base_seq = dg->next_seq;
    return HCRT_OK;
}

int hcrt__dg_batch_has_edge(const hcrt__dg_batch_t *b, int32_t from, int32_t to)
{
    hcrt__dg_edge_t key = {.from = from, .to = to};
    return bsearch(&key, b->edges, (size_t)b->nedges, sizeof(key), edge_cmp) !=
           NULL;
}
