/*
 * test_datamgr.c - the data manager against the one-device reference:
 * map semantics per clause, reference counts, sections, structs, pointer
 * attachment, valid-copy tracking, forwarding paths and one-to-many plans.
 * Every test runs the plans in the simulator and compares the cluster's
 * host memory with the reference's.
 */
#include <math.h>
#include <stdint.h>

#include "libhcrt/offload/offload_int.h"
#include "ofl_sim.h"
#include "check.h"

enum {
    TP = HCRT_OFL_MAP_TARGET_PARAM,
    TO = HCRT_OFL_MAP_TO,
    FROM = HCRT_OFL_MAP_FROM,
    TOFROM = TO | FROM,
    ALWAYS = HCRT_OFL_MAP_ALWAYS,
    DEL = HCRT_OFL_MAP_DELETE,
    PRESENT = HCRT_OFL_MAP_PRESENT,
    PAO = HCRT_OFL_MAP_PTR_AND_OBJ
};
#define MEMBER(i) ((int64_t)(i) << 48)

static world_t w;
static int *A, *B, *C; /* int[32] each, inside w.H */

static int *twin(const void *p) /* the reference's copy of a host object */
{
    return (int *)(w.R + ((const unsigned char *)p - w.H));
}

static void setup(int nnodes)
{
    world_init(&w, nnodes, 1 << 16);
    A = (int *)w.H;
    B = A + 32;
    C = B + 32;
    for (int i = 0; i < 96; i++)
        A[i] = twin(A)[i] = i + 1;
}

static void teardown(void)
{
    CHECK_EQ(w.errs, 0);
    CHECK(memcmp(w.H, w.R, w.size) == 0);
    world_fini(&w);
}

static hcrt__ofl_map_t map(void *p, int64_t bytes, int64_t type)
{
    return (hcrt__ofl_map_t){p, p, bytes, type};
}

static int run(hcrt__ofl_kind_t kind, hcrt__ofl_map_t *m, int n,
               hcrt_depend_info_t *d, int nd, int node, ref_kernel_fn fn)
{
    hcrt__ofl_task_desc_t t = {
        .kind = kind, .pin = -1, .deps = d, .ndeps = nd, .maps = m, .nmaps = n};
    int writes[16];
    for (int i = 0; i < n; i++)
        writes[i] = hcrt__ofl_map_is_data(&m[i]) &&
                    (kind != HCRT_OFL_KERNEL || (m[i].type & FROM) ||
                     nd > 0 || /* test kernels below */
                     hcrt__ofl_get_write_rule() == HCRT_OFL_WRITES_ALL);
    return world_task(&w, &t, node, writes, fn, NULL);
}

static hcrt_depend_info_t dep(void *p, int flag)
{
    return (hcrt_depend_info_t){(intptr_t)p, 1, (uint8_t)flag};
}

/* Kernels: args as the trampoline receives them. */
static void k_double(void *arg, void **a) /* a0[0:32] = 2 * a0 + 1 */
{
    (void)arg;
    int *x = a[0];
    for (int i = 0; i < 32; i++)
        x[i] = 2 * x[i] + 1;
}

static void k_add(void *arg, void **a) /* a1[i] = a0[i] + 100 */
{
    (void)arg;
    int *x = a[0], *y = a[1];
    for (int i = 0; i < 32; i++)
        y[i] = x[i] + 100;
}

static int count(const hcrt__dm_plan_t *p, int kind, int src, int dst)
{
    int n = 0;
    for (int32_t i = 0; i < p->n; i++)
        n += (int)p->ops[i].kind == kind &&
             (src == -2 || p->ops[i].src == src) &&
             (dst == -2 || p->ops[i].dst == dst);
    return n;
}

static void t_tofrom(void)
{
    setup(4);
    hcrt__ofl_map_t m = map(A, 128, TOFROM | TP);
    CHECK_EQ(run(HCRT_OFL_KERNEL, &m, 1, NULL, 0, 2, k_double), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_ALLOC, -2, 2), 1);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, HCRT_DM_HOST, 2), 1);
    CHECK_EQ(count(&w.post, HCRT_DM_OP_COPY, 2, HCRT_DM_HOST), 1);
    CHECK_EQ(count(&w.post, HCRT_DM_OP_FREE, -2, 2), 1);
    CHECK_EQ(A[5], 2 * 6 + 1);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(sim_nallocs(w.sim), 0);
    teardown();
}

/* to: in only; from: out only (no copy in); alloc: neither. */
static void t_to_from_alloc(void)
{
    setup(3);
    hcrt__ofl_map_t m[3] = {map(A, 128, TO | TP), map(B, 128, FROM | TP),
                            map(C, 128, TP)};
    CHECK_EQ(run(HCRT_OFL_KERNEL, m, 2, NULL, 0, 1, k_add), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, -2), 1);  /* A only */
    CHECK_EQ(count(&w.post, HCRT_DM_OP_COPY, -2, -2), 1); /* B only */
    CHECK_EQ(B[0], A[0] + 100);
    hcrt__ofl_map_t mc = m[2];
    CHECK_EQ(run(HCRT_OFL_KERNEL, &mc, 1, NULL, 0, 1, NULL), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, -2), 0);
    CHECK_EQ(count(&w.post, HCRT_DM_OP_COPY, -2, -2), 0);
    teardown();
}

/* target enter data keeps the mapping: kernels neither copy in nor out. */
static void t_refcount(void)
{
    setup(4);
    hcrt__ofl_map_t m = map(A, 128, TO);
    CHECK_EQ(run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 1);
    CHECK_EQ(ref_refcount(w.ref, twin(A)), 1);
    hcrt__ofl_map_t k = map(A, 128, TOFROM | TP);
    CHECK_EQ(run(HCRT_OFL_KERNEL, &k, 1, NULL, 0, 2, k_double), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 1, 2), 1); /* worker to worker */
    CHECK_EQ(count(&w.post, HCRT_DM_OP_COPY, -2, -2), 0);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 1);
    CHECK_EQ(A[0], 1); /* still the host's value */
    hcrt__ofl_map_t x = map(A, 128, FROM);
    CHECK_EQ(run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 2, HCRT_DM_HOST), 1);
    CHECK_EQ(A[0], 3);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(sim_nallocs(w.sim), 0);
    teardown();
}

static void t_always(void)
{
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, TO);
    CHECK_EQ(run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL), HCRT_OK);
    A[0] = twin(A)[0] = 1000; /* host code changes A after the copy */
    hcrt__ofl_map_t k[2] = {map(A, 128, TO | TP), map(B, 128, FROM | TP)};
    CHECK_EQ(run(HCRT_OFL_KERNEL, k, 2, NULL, 0, 2, k_add), HCRT_OK);
    CHECK_EQ(B[0], 101); /* the device's stale A */
    k[0].type |= ALWAYS;
    CHECK_EQ(run(HCRT_OFL_KERNEL, k, 2, NULL, 0, 2, k_add), HCRT_OK);
    CHECK_EQ(B[0], 1100);
    hcrt__ofl_map_t x = map(A, 128, FROM | ALWAYS);
    CHECK_EQ(run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL), HCRT_OK);
    teardown();
}

static void t_release_delete(void)
{
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 2, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, -2), 0); /* present */
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 2);
    hcrt__ofl_map_t k = map(A, 128, TO | TP);
    hcrt_depend_info_t d = dep(A, HCRT_OFL_DEP_INOUT);
    CHECK_EQ(run(HCRT_OFL_KERNEL, &k, 1, &d, 1, 2, k_double), HCRT_OK);
    hcrt__ofl_map_t rel = map(A, 128, FROM); /* exit from: rc 2 -> 1 */
    run(HCRT_OFL_DATA_EXIT, &rel, 1, NULL, 0, 0, NULL);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 1);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, -2), 0);
    CHECK_EQ(A[0], 1);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 2, NULL);
    hcrt__ofl_map_t del = map(A, 128, FROM | DEL); /* rc 2 -> 0 at once */
    run(HCRT_OFL_DATA_EXIT, &del, 1, NULL, 0, 0, NULL);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(A[0], 3);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_FREE, -2, -2), 2); /* nodes 1, 2 */
    CHECK_EQ(sim_nallocs(w.sim), 0);
    teardown();
}

static void t_present(void)
{
    setup(2);
    hcrt__ofl_map_t k = map(A, 128, TO | PRESENT | TP);
    CHECK_EQ(run(HCRT_OFL_KERNEL, &k, 1, NULL, 0, 1, k_double),
             HCRT_ERR_NOT_FOUND);
    hcrt__ofl_map_t e = map(A, 128, TO | PRESENT);
    CHECK_EQ(run(HCRT_OFL_DATA_ENTER, &e, 1, NULL, 0, 1, NULL),
             HCRT_ERR_NOT_FOUND);
    hcrt__ofl_map_t u = map(A, 128, TO); /* update of unmapped: nothing */
    CHECK_EQ(run(HCRT_OFL_DATA_UPDATE, &u, 1, NULL, 0, 1, NULL), HCRT_OK);
    CHECK_EQ(w.pre.n, 0);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 0);
    teardown();
}

/* A subsection of a mapping is present; extending a mapping is an error. */
static void t_sections(void)
{
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    hcrt__ofl_map_t k = {A, A + 4, 32, TOFROM | TP};
    hcrt__dm_xlate_t xl;
    CHECK_EQ(
        hcrt__dm_plan_task(
            w.dm,
            &(hcrt__ofl_task_desc_t){
                .kind = HCRT_OFL_KERNEL, .maps = &k, .nmaps = 1, .pin = -1},
            2, &w.pre, &w.post, &xl),
        HCRT_OK);
    uint64_t buf;
    CHECK_EQ(hcrt__dm_lookup(w.dm, A, &buf, NULL, NULL), HCRT_OK);
    CHECK_EQ(xl.buf, buf);
    CHECK_EQ(xl.off, 16);
    /* only the section travels to node 2 */
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 1, 2), 1);
    CHECK_EQ(w.pre.ops[w.pre.n - 1].len, 32);
    CHECK(hcrt__dm_is_valid(w.dm, A + 4, 32, 2));
    CHECK(!hcrt__dm_is_valid(w.dm, A, 128, 2));
    CHECK(!hcrt__dm_is_valid(w.dm, A + 4, 32, 1)); /* written on 2 */
    CHECK(hcrt__dm_is_valid(w.dm, A + 12, 64, 1));
    /* the reference has not seen that task: run the same via the world */
    world_fini(&w);
    setup(3);
    m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    hcrt__ofl_map_t ks = {A + 4, A + 4, 32, TOFROM | TP};
    CHECK_EQ(run(HCRT_OFL_KERNEL, &ks, 1, NULL, 0, 2, NULL), HCRT_OK);
    hcrt__ofl_map_t ext = {A + 24, A + 24, 64, TO | TP}; /* past A's end */
    CHECK_EQ(run(HCRT_OFL_KERNEL, &ext, 1, NULL, 0, 2, NULL), HCRT_ERR_INVALID);
    hcrt__ofl_map_t other = {B + 8, B + 8, 32, TOFROM | TP}; /* own mapping */
    CHECK_EQ(run(HCRT_OFL_KERNEL, &other, 1, NULL, 0, 2, NULL), HCRT_OK);
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 0);
    teardown();
}

typedef struct st {
    int a;
    double x[4];
    int b;
} st_t;

static void k_struct(void *arg, void **args)
{
    (void)arg;
    st_t *s = (st_t *)((char *)args[0] - offsetof(st_t, a));
    s->a += 1;
    s->b += 2;
}

/* clang's struct map: a combined entry over [&s.a, end of s.b) and member
 * entries for the mapped fields (MEMBER_OF the combined one). */
static void t_struct(void)
{
    setup(3);
    st_t *s = (st_t *)(w.H + 4096), *rs = (st_t *)twin(s);
    s->a = rs->a = 10;
    s->b = rs->b = 20;
    size_t span = offsetof(st_t, b) + sizeof(int);
    hcrt__ofl_map_t m[3] = {{s, &s->a, (int64_t)span, TP},
                            {s, &s->a, 4, TOFROM | MEMBER(1)},
                            {s, &s->b, 4, TOFROM | MEMBER(1)}};
    CHECK_EQ(run(HCRT_OFL_KERNEL, m, 3, NULL, 0, 2, k_struct), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, HCRT_DM_HOST, 2), 2);
    CHECK_EQ(count(&w.post, HCRT_DM_OP_COPY, 2, HCRT_DM_HOST), 2);
    CHECK_EQ(s->a, 11);
    CHECK_EQ(s->b, 22);
    /* enter the struct, then a member alone is present (no refcount) */
    hcrt__ofl_map_t e[2] = {{s, &s->a, (int64_t)span, 0},
                            {s, &s->a, 4, TO | MEMBER(1)}};
    CHECK_EQ(run(HCRT_OFL_DATA_ENTER, e, 2, NULL, 0, 1, NULL), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, &s->b), 1);
    hcrt__ofl_map_t bad = {s, &s->x[0], 64, TO | MEMBER(1)}; /* outside */
    hcrt__ofl_map_t mb[2] = {{&B[0], &B[0], 8, TP}, bad};
    int32_t nb = hcrt__dm_nbuffers(w.dm);
    CHECK_EQ(run(HCRT_OFL_KERNEL, mb, 2, NULL, 0, 1, NULL), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), nb); /* B was not mapped either */
    CHECK_EQ(w.pre.n, 0);
    hcrt__ofl_map_t x[2] = {{s, &s->a, (int64_t)span, DEL},
                            {s, &s->a, 4, FROM | MEMBER(1)}};
    CHECK_EQ(run(HCRT_OFL_DATA_EXIT, x, 2, NULL, 0, 0, NULL), HCRT_OK);
    /* the reference (which stops mid-list) left B mapped: unmap it */
    hcrt__ofl_map_t xb = {&B[0], &B[0], 8, DEL};
    run(HCRT_OFL_DATA_EXIT, &xb, 1, NULL, 0, 0, NULL);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 0);
    teardown();
}

typedef struct vec {
    double *p;
    int n;
} vec_t;

static unsigned char *k_seen_p;
static void k_vec(void *arg, void **args) /* through the attached pointer */
{
    (void)arg;
    vec_t *v = args[0];
    k_seen_p = (unsigned char *)v->p;
    for (int i = 0; i < v->n; i++)
        v->p[i] = 2 * v->p[i] + i;
}

/* PTR_AND_OBJ: v.p[0:8] inside a mapped v: node copies of v point at the
 * node's copy of the array; the host's v.p is never overwritten. */
static void t_ptr_and_obj(void)
{
    setup(4);
    vec_t *v = (vec_t *)(w.H + 8192), *rv = (vec_t *)twin(v);
    double *arr = (double *)(w.H + 12288), *rarr = (double *)twin(arr);
    v->p = arr;
    rv->p = rarr;
    v->n = rv->n = 8;
    for (int i = 0; i < 8; i++)
        arr[i] = rarr[i] = i * 0.5;
    hcrt__ofl_map_t e[2] = {{v, v, sizeof(*v), TO},
                            {&v->p, arr, 64, TO | PAO | MEMBER(1)}};
    CHECK_EQ(run(HCRT_OFL_DATA_ENTER, e, 2, NULL, 0, 1, NULL), HCRT_OK);
    hcrt__ofl_map_t k[2] = {{v, v, sizeof(*v), TOFROM | TP},
                            {&v->p, arr, 64, TOFROM | PAO | MEMBER(1)}};
    hcrt_depend_info_t d = dep(arr, HCRT_OFL_DEP_INOUT);
    uint64_t abuf;
    CHECK_EQ(hcrt__dm_lookup(w.dm, arr, &abuf, NULL, NULL), HCRT_OK);
    for (int node = 1; node <= 3; node++) {
        CHECK_EQ(run(HCRT_OFL_KERNEL, k, 2, &d, 1, node, k_vec), HCRT_OK);
        CHECK(k_seen_p == sim_addr(w.sim, node, abuf, 0));
        CHECK_EQ(count(&w.pre, HCRT_DM_OP_ATTACH, -2, node), 1);
    }
    hcrt__ofl_map_t x[2] = {{v, v, sizeof(*v), FROM},
                            {&v->p, arr, 64, FROM | PAO | MEMBER(1)}};
    CHECK_EQ(run(HCRT_OFL_DATA_EXIT, x, 2, NULL, 0, 0, NULL), HCRT_OK);
    CHECK(v->p == arr); /* the host pointer survived the copy back */
    CHECK(rv->p == rarr);
    CHECK(fabs(arr[3] - (((1.5 * 2 + 3) * 2 + 3) * 2 + 3)) < 1e-12);
    CHECK(memcmp(arr, rarr, 64) == 0);
    rv->p = (double *)v->p; /* equalise the twins for teardown's memcmp */
    CHECK_EQ(sim_nallocs(w.sim), 0);
    teardown();
}

/* Copies follow the latest writer; a write leaves one valid copy. */
static void t_invalidate(void)
{
    setup(4);
    hcrt__ofl_map_t m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    int64_t v0 = hcrt__dm_version(w.dm, A);
    CHECK_EQ(hcrt__dm_writer(w.dm, A), 1); /* the `to` copy's node */
    hcrt__ofl_map_t k = map(A, 128, TO | TP);
    hcrt_depend_info_t din = dep(A, HCRT_OFL_DEP_IN);
    hcrt_depend_info_t dio = dep(A, HCRT_OFL_DEP_INOUT);
    run(HCRT_OFL_KERNEL, &k, 1, &din, 1, 2, NULL); /* read on 2 */
    CHECK(hcrt__dm_is_valid(w.dm, A, 128, 1));
    CHECK(hcrt__dm_is_valid(w.dm, A, 128, 2));
    CHECK_EQ(hcrt__dm_version(w.dm, A), v0);
    run(HCRT_OFL_KERNEL, &k, 1, &dio, 1, 3, k_double); /* write on 3 */
    CHECK(!hcrt__dm_is_valid(w.dm, A, 128, 1));
    CHECK(!hcrt__dm_is_valid(w.dm, A, 128, 2));
    CHECK(hcrt__dm_is_valid(w.dm, A, 128, 3));
    CHECK(hcrt__dm_version(w.dm, A) > v0);
    CHECK_EQ(hcrt__dm_writer(w.dm, A + 31), 3);
    int nodes[4];
    CHECK_EQ(hcrt__dm_holders(w.dm, A, 128, nodes, 4), 1);
    CHECK_EQ(nodes[0], 3);
    run(HCRT_OFL_KERNEL, &k, 1, &din, 1, 1, NULL); /* read back on 1 */
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 3, 1), 1);
    /* a from map without depend counts as a write too */
    hcrt__ofl_map_t kf = map(A, 128, TOFROM | TP);
    run(HCRT_OFL_KERNEL, &kf, 1, NULL, 0, 2, k_double);
    CHECK_EQ(hcrt__dm_holders(w.dm, A, 128, nodes, 4), 1);
    CHECK_EQ(nodes[0], 2);
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 2, HCRT_DM_HOST), 1);
    CHECK_EQ(A[1], 2 * (2 * 2 + 1) + 1);
    teardown();
}

/* The head is not a relay when a worker holds the data. */
static void t_forwarding(void)
{
    setup(4);
    hcrt__ofl_map_t m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 0, NULL); /* head's copy */
    hcrt__ofl_map_t k = map(A, 128, TO | TP);
    hcrt_depend_info_t din = dep(A, HCRT_OFL_DEP_IN);
    run(HCRT_OFL_KERNEL, &k, 1, &din, 1, 2, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 0, 2), 1); /* only holder */
    hcrt__dm_batch_begin(w.dm);
    run(HCRT_OFL_KERNEL, &k, 1, &din, 1, 3, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 2, 3), 1); /* worker, not head */
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 0, -2), 0);
    run(HCRT_OFL_KERNEL, &k, 1, &din, 1, 1, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 0, -2), 0);
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 0, HCRT_DM_HOST), 0);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, HCRT_DM_HOST), 1);
    teardown();
}

/* n readers of one copy: each destination receives exactly once, the
 * tree is about log2(n) deep, no node sends more than that. */
static void one_to_many(int nnodes, int origin)
{
    setup(nnodes);
    hcrt__ofl_map_t m = map(w.H + 16384, 4096, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, origin, NULL);
    hcrt__dm_batch_begin(w.dm);
    hcrt__ofl_map_t k = map(w.H + 16384, 4096, TO | TP);
    hcrt_depend_info_t din = dep(w.H + 16384, HCRT_OFL_DEP_IN);
    int got[1024] = {0}, sends[1024] = {0}, depth_of[4096] = {0};
    int64_t first = -1;
    int maxdepth = 0, ncopies = 0;
    for (int node = 1; node < nnodes; node++) {
        CHECK_EQ(run(HCRT_OFL_KERNEL, &k, 1, &din, 1, node, NULL), HCRT_OK);
        for (int32_t i = 0; i < w.pre.n; i++) {
            const hcrt__dm_op_t *op = &w.pre.ops[i];
            if (op->kind != HCRT_DM_OP_COPY)
                continue;
            if (first < 0)
                first = op->id;
            got[op->dst]++;
            sends[op->src]++;
            ncopies++;
            int d =
                1 + (op->wait_op >= first ? depth_of[op->wait_op - first] : 0);
            depth_of[op->id - first] = d;
            maxdepth = d > maxdepth ? d : maxdepth;
        }
    }
    int need = nnodes - 1 - (origin != 0); /* the origin already has it */
    /* from the head: one copy to a worker, then a tree among workers */
    int log2n = (int)ceil(log2((double)need + 1)) + (origin == 0);
    CHECK_EQ(ncopies, need);
    for (int node = 1; node < nnodes; node++)
        CHECK_EQ(got[node], node == origin ? 0 : 1);
    CHECK(maxdepth <= log2n);
    for (int node = 0; node < nnodes; node++)
        CHECK(sends[node] <= log2n);
    if (origin == 0)
        CHECK_EQ(sends[0], 1); /* the head starts the tree, workers spread */
    printf(
        "one-to-many from %d to %d nodes: depth %d (log2 %d), origin sent %d\n",
        origin, need, maxdepth, log2n, sends[origin]);
    teardown();
}

static void t_one_to_many(void)
{
    one_to_many(33, 1); /* a worker holds it */
    one_to_many(17, 0); /* only the head holds it */
    one_to_many(200, 5);
}

static void t_update(void)
{
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    hcrt__ofl_map_t k = map(A, 128, TO | TP);
    hcrt_depend_info_t dio = dep(A, HCRT_OFL_DEP_INOUT);
    run(HCRT_OFL_KERNEL, &k, 1, &dio, 1, 2, k_double);
    hcrt__ofl_map_t uf = {A, A + 8, 16, FROM}; /* a section back */
    CHECK_EQ(run(HCRT_OFL_DATA_UPDATE, &uf, 1, NULL, 0, 0, NULL), HCRT_OK);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, 2, HCRT_DM_HOST), 1);
    CHECK_EQ(A[8], 2 * 9 + 1);
    CHECK_EQ(A[12], 13);
    A[0] = twin(A)[0] = -7;
    hcrt__ofl_map_t ut = {A, A, 4, TO};
    CHECK_EQ(run(HCRT_OFL_DATA_UPDATE, &ut, 1, NULL, 0, 1, NULL), HCRT_OK);
    CHECK(hcrt__dm_is_valid(w.dm, A, 4, 1));
    CHECK(!hcrt__dm_is_valid(w.dm, A, 4, 2));
    CHECK(hcrt__dm_is_valid(w.dm, A + 1, 124, 2));
    run(HCRT_OFL_KERNEL, &k, 1, &dio, 1, 2, k_double);
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(A[0], -13);
    teardown();
}

/* alloc'd device memory is not copied in; written, it is copied out. */
static void t_alloc_written(void)
{
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, 0);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, -2), 0);
    hcrt__ofl_map_t k[2] = {map(B, 128, TO | TP), map(A, 128, TP)};
    hcrt_depend_info_t d = dep(A, HCRT_OFL_DEP_OUT);
    run(HCRT_OFL_KERNEL, k, 2, &d, 1, 2, k_add);
    CHECK_EQ(count(&w.pre, HCRT_DM_OP_COPY, -2, 2), 1); /* B only */
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(A[0], B[0] + 100);
    teardown();
}

/* The default (engine) rule: a kernel's writes to data it maps `alloc`,
 * `to` or present, even under depend(in:), are the only valid copy after
 * it and what `from` brings home (OpenMP_VV's map and depend tests). */
static void t_written_all(void)
{
    hcrt__ofl_set_write_rule(HCRT_OFL_WRITES_ALL);
    setup(3);
    hcrt__ofl_map_t m = map(A, 128, 0);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL); /* enter alloc */
    hcrt__ofl_map_t k[2] = {map(B, 128, TO | TP), map(A, 128, TO | TP)};
    run(HCRT_OFL_KERNEL, k, 2, NULL, 0, 2, k_add); /* writes present A */
    int nodes[3];
    CHECK_EQ(hcrt__dm_holders(w.dm, A, 128, nodes, 3), 1);
    CHECK_EQ(nodes[0], 2);
    CHECK_EQ(hcrt__dm_holders(w.dm, B, 128, nodes, 3), 0); /* unmapped */
    hcrt__ofl_map_t x = map(A, 128, FROM);
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(A[0], B[0] + 100);
    CHECK_EQ(A[31], B[31] + 100);
    int a0 = A[0];
    m = map(A, 128, TO);
    run(HCRT_OFL_DATA_ENTER, &m, 1, NULL, 0, 1, NULL);
    hcrt__ofl_map_t kd = map(A, 128, TO | TP);
    hcrt_depend_info_t din = dep(A, HCRT_OFL_DEP_IN);
    run(HCRT_OFL_KERNEL, &kd, 1, &din, 1, 2, k_double); /* in, writes */
    CHECK(!hcrt__dm_is_valid(w.dm, A, 128, 1));
    CHECK(hcrt__dm_is_valid(w.dm, A, 128, 2));
    run(HCRT_OFL_DATA_EXIT, &x, 1, NULL, 0, 0, NULL);
    CHECK_EQ(A[0], 2 * a0 + 1);
    teardown();
}

/* Plans (without running them) one data task of `kind` on node 1. */
static hcrt_status_t plan(hcrt__ofl_kind_t kind, void *p, int64_t bytes,
                          int64_t type)
{
    hcrt__ofl_map_t m = map(p, bytes, type);
    hcrt__ofl_task_desc_t t = {
        .kind = kind, .pin = 1, .maps = &m, .nmaps = 1};
    hcrt__dm_plan_t pre = {0}, post = {0};
    hcrt_status_t st = hcrt__dm_plan_task(w.dm, &t, 1, &pre, &post, NULL);
    hcrt__dm_plan_fini(&pre);
    hcrt__dm_plan_fini(&post);
    return st;
}

/* Every device has its own data environment: the same host range entered
 * on two devices is two buffers with their own reference counts, and
 * leaving one device's does not touch the other's. */
static void t_devices(void)
{
    setup(3);
    uint64_t b0, b1, off;
    uintptr_t host;
    CHECK_EQ(hcrt__dm_selected(w.dm), 0);
    CHECK_EQ(plan(HCRT_OFL_DATA_ENTER, A, 128, TO), HCRT_OK);
    CHECK_EQ(hcrt__dm_select(w.dm, 1), HCRT_OK);
    CHECK_EQ(hcrt__dm_selected(w.dm), 1);
    CHECK_EQ(hcrt__dm_lookup(w.dm, A, &b1, &off, &host), HCRT_ERR_NOT_FOUND);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(plan(HCRT_OFL_DATA_ENTER, A, 128, TO), HCRT_OK);
    CHECK_EQ(plan(HCRT_OFL_DATA_ENTER, A, 128, TO), HCRT_OK);
    CHECK_EQ(plan(HCRT_OFL_DATA_ENTER, B, 128, TO), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 2);
    CHECK_EQ(hcrt__dm_lookup(w.dm, A, &b1, &off, &host), HCRT_OK);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 2);
    CHECK_EQ(hcrt__dm_select(w.dm, 0), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 1);
    CHECK_EQ(hcrt__dm_lookup(w.dm, A, &b0, &off, &host), HCRT_OK);
    CHECK(b0 != b1);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 1);
    CHECK_EQ(hcrt__dm_refcount(w.dm, B), -1);
    /* a mapping of device 1 does not make `present` pass on device 0 */
    CHECK_EQ(plan(HCRT_OFL_DATA_ENTER, B, 128, TO | PRESENT),
             HCRT_ERR_NOT_FOUND);
    CHECK_EQ(plan(HCRT_OFL_DATA_EXIT, A, 128, FROM), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(hcrt__dm_select(w.dm, 1), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), 2);
    CHECK_EQ(plan(HCRT_OFL_DATA_EXIT, A, 128, DEL), HCRT_OK);
    CHECK_EQ(hcrt__dm_refcount(w.dm, A), -1);
    CHECK_EQ(hcrt__dm_refcount(w.dm, B), 1);
    CHECK_EQ(hcrt__dm_select(w.dm, -1), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__dm_selected(w.dm), 1);
    /* device 1's B is left mapped: destroy frees every device's table */
    teardown();
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"devices", t_devices},
        {"tofrom", t_tofrom},
        {"to_from_alloc", t_to_from_alloc},
        {"refcount", t_refcount},
        {"always", t_always},
        {"release_delete", t_release_delete},
        {"present", t_present},
        {"sections", t_sections},
        {"struct", t_struct},
        {"ptr_and_obj", t_ptr_and_obj},
        {"invalidate", t_invalidate},
        {"forwarding", t_forwarding},
        {"one_to_many", t_one_to_many},
        {"update", t_update},
        {"alloc_written", t_alloc_written},
        {"written_all", t_written_all},
        {NULL, NULL},
    };
    /* the cases above check OMPC's clause rule; written_all the default */
    hcrt__ofl_set_write_rule(HCRT_OFL_WRITES_CLAUSES);
    return check_run(argc, argv, cases);
}
