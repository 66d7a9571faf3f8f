/*
 * test_depgraph.c - dependence recording: each pattern's edges must be
 * exactly libomp's (transitively implied edges omitted, as libomp does).
 */
#include "libhcrt/offload/depgraph.h"
#include "libhcrt/offload/offload_int.h"
#include "check.h"

static char mem[8][4096]; /* depend addresses: &mem[array][index] */
#define ADDR(a, i) ((intptr_t)&mem[a][i])

static hcrt__dg_t *dg;
static hcrt__dg_batch_t b;

static void start(void)
{
    if (dg == NULL && hcrt__dg_create(&dg) != HCRT_OK)
        abort();
    hcrt__dg_sync(dg);
}

/* Records a task with the given (addr, flag) pairs; returns its id. */
static int32_t task(int n, const intptr_t *addr, const int *flag)
{
    hcrt_depend_info_t d[64];
    for (int i = 0; i < n; i++)
        d[i] = (hcrt_depend_info_t){
            .base_addr = addr[i], .len = 1, .flags = (uint8_t)flag[i]};
    hcrt__ofl_task_desc_t t = {
        .kind = HCRT_OFL_HOST_TASK, .pin = -1, .deps = d, .ndeps = n};
    int32_t id = -1;
    CHECK_EQ(hcrt__dg_record(dg, &t, &id), HCRT_OK);
    return id;
}

static int32_t task1(intptr_t a, int f)
{
    return task(1, &a, &f);
}

static void take(void)
{
    hcrt__dg_batch_fini(&b);
    CHECK_EQ(hcrt__dg_take(dg, &b), HCRT_OK);
}

/* Checks the batch has exactly the edges in exp (pairs), nothing else. */
static void expect(const int32_t (*exp)[2], int n)
{
    CHECK_EQ(b.nedges, n);
    for (int i = 0; i < n; i++)
        if (!hcrt__dg_batch_has_edge(&b, exp[i][0], exp[i][1])) {
            fprintf(stderr, "missing edge %d -> %d\n", exp[i][0], exp[i][1]);
            check_failures++;
        }
}

static void t_chain(void)
{
    start();
    for (int i = 0; i < 10; i++)
        task1(ADDR(0, 0), i ? HCRT_OFL_DEP_INOUT : HCRT_OFL_DEP_OUT);
    take();
    int32_t e[9][2];
    for (int i = 0; i < 9; i++)
        e[i][0] = i, e[i][1] = i + 1;
    expect(e, 9);
}

static void t_fan_out_in(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT);
    for (int i = 1; i <= 6; i++)
        task1(ADDR(0, 0), HCRT_OFL_DEP_IN);
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT); /* after every reader, not 0 again */
    take();
    int32_t e[12][2];
    for (int i = 1; i <= 6; i++) {
        e[i - 1][0] = 0, e[i - 1][1] = i;
        e[5 + i][0] = i, e[5 + i][1] = 7;
    }
    expect(e, 12);
}

static void t_fan_in(void)
{
    start();
    intptr_t a[8];
    int f[8];
    for (int i = 0; i < 8; i++) {
        task1(ADDR(0, i), HCRT_OFL_DEP_OUT);
        a[i] = ADDR(0, i);
        f[i] = HCRT_OFL_DEP_IN;
    }
    task(8, a, f);
    take();
    int32_t e[8][2];
    for (int i = 0; i < 8; i++)
        e[i][0] = i, e[i][1] = 8;
    expect(e, 8);
}

static void t_diamond(void)
{
    start();
    intptr_t xy[2] = {ADDR(0, 0), ADDR(0, 1)};
    int oo[2] = {HCRT_OFL_DEP_OUT, HCRT_OFL_DEP_OUT};
    task(2, xy, oo);
    intptr_t b1[2] = {ADDR(0, 0), ADDR(0, 2)}, c1[2] = {ADDR(0, 1), ADDR(0, 3)};
    int io[2] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_OUT};
    task(2, b1, io);
    task(2, c1, io);
    intptr_t pq[2] = {ADDR(0, 2), ADDR(0, 3)};
    int ii[2] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_IN};
    task(2, pq, ii);
    take();
    static const int32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    expect(e, 4);
}

/* 1-D 3-point stencil, ping-pong buffers: (s, i) after (s-1, i-1..i+1). */
static void t_stencil(void)
{
    enum { W = 8, S = 5 };
    start();
    for (int s = 0; s < S; s++)
        for (int i = 0; i < W; i++) {
            intptr_t a[4];
            int f[4], n = 0;
            for (int j = i - 1; j <= i + 1; j++)
                if (j >= 0 && j < W) {
                    a[n] = ADDR(s % 2, j);
                    f[n++] = HCRT_OFL_DEP_IN;
                }
            a[n] = ADDR((s + 1) % 2, i);
            f[n++] = HCRT_OFL_DEP_OUT;
            task(n, a, f);
        }
    take();
    int32_t e[S * W * 3][2];
    int n = 0;
    for (int s = 1; s < S; s++)
        for (int i = 0; i < W; i++)
            for (int j = i - 1; j <= i + 1; j++)
                if (j >= 0 && j < W) {
                    e[n][0] = (s - 1) * W + j;
                    e[n++][1] = s * W + i;
                }
    expect(e, n);
}

/* Binary reduction tree: level l node i after children 2i, 2i+1. */
static void t_tree(void)
{
    enum { L = 4 };
    start();
    int32_t id[L + 1][16];
    for (int i = 0; i < 16; i++)
        id[0][i] = task1(ADDR(0, i), HCRT_OFL_DEP_OUT);
    int32_t e[32][2];
    int n = 0;
    for (int l = 1; l <= L; l++)
        for (int i = 0; i < (16 >> l); i++) {
            intptr_t a[3] = {ADDR(l - 1, 2 * i), ADDR(l - 1, 2 * i + 1),
                             ADDR(l, i)};
            int f[3] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_IN, HCRT_OFL_DEP_OUT};
            id[l][i] = task(3, a, f);
            e[n][0] = id[l - 1][2 * i], e[n++][1] = id[l][i];
            e[n][0] = id[l - 1][2 * i + 1], e[n++][1] = id[l][i];
        }
    take();
    expect(e, n);
}

/* FFT butterfly: stage s task i reads x_s[i], x_s[i ^ 2^s], writes
 * x_{s+1}[i]. */
static void t_fft(void)
{
    enum { N = 16, L = 4 };
    start();
    int32_t e[2 * N * L][2];
    int n = 0;
    for (int s = 0; s < L; s++)
        for (int i = 0; i < N; i++) {
            int p = i ^ (1 << s);
            intptr_t a[3] = {ADDR(s, i), ADDR(s, p), ADDR(s + 1, i)};
            int f[3] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_IN, HCRT_OFL_DEP_OUT};
            int32_t id = task(3, a, f);
            if (s > 0) {
                e[n][0] = (s - 1) * N + i, e[n++][1] = id;
                e[n][0] = (s - 1) * N + p, e[n++][1] = id;
            }
        }
    take();
    expect(e, n);
}

static void t_all_to_all(void)
{
    enum { N = 6 };
    start();
    for (int i = 0; i < N; i++)
        task1(ADDR(0, i), HCRT_OFL_DEP_OUT);
    for (int st = 1; st <= 2; st++)
        for (int j = 0; j < N; j++) {
            intptr_t a[N + 1];
            int f[N + 1];
            for (int i = 0; i < N; i++) {
                a[i] = ADDR(st - 1, i);
                f[i] = HCRT_OFL_DEP_IN;
            }
            a[N] = ADDR(st, j);
            f[N] = HCRT_OFL_DEP_OUT;
            task(N + 1, a, f);
        }
    take();
    int32_t e[2 * N * N][2];
    int n = 0;
    for (int st = 1; st <= 2; st++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                e[n][0] = (st - 1) * N + i;
                e[n++][1] = st * N + j;
            }
    expect(e, n);
}

static void t_mutexinoutset(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT); /* 0 */
    for (int i = 0; i < 3; i++)
        task1(ADDR(0, 0), HCRT_OFL_DEP_MTX); /* 1..3: after 0, no order */
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);      /* 4: after the whole set */
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);      /* 5: same, not after 4 */
    task1(ADDR(0, 1), HCRT_OFL_DEP_MTX);     /* 6: another group */
    take();
    static const int32_t e[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {2, 4},
                                   {3, 4}, {1, 5}, {2, 5}, {3, 5}};
    expect(e, 9);
    int32_t g = b.mtx[b.tasks[1].mtx_off];
    for (int i = 1; i <= 3; i++) {
        CHECK_EQ(b.tasks[i].nmtx, 1);
        CHECK_EQ(b.mtx[b.tasks[i].mtx_off], g);
    }
    CHECK_EQ(b.tasks[0].nmtx, 0);
    CHECK_EQ(b.tasks[4].nmtx, 0);
    CHECK_EQ(b.tasks[6].nmtx, 1);
    CHECK(b.mtx[b.tasks[6].mtx_off] != g);
}

static void t_inoutset(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);  /* 0 */
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);  /* 1 */
    task1(ADDR(0, 0), HCRT_OFL_DEP_SET); /* 2: after the in set */
    task1(ADDR(0, 0), HCRT_OFL_DEP_SET); /* 3: same, unordered with 2 */
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);  /* 4: after the inoutset */
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT); /* 5: after the last set only */
    take();
    static const int32_t e[][2] = {{0, 2}, {1, 2}, {0, 3}, {1, 3},
                                   {2, 4}, {3, 4}, {4, 5}};
    expect(e, 7);
}

static void t_all_memory(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT); /* 0 */
    task1(ADDR(0, 1), HCRT_OFL_DEP_IN);  /* 1 */
    task1(0, HCRT_OFL_DEP_ALL);          /* 2: after 0 and 1 */
    task1(ADDR(0, 2), HCRT_OFL_DEP_IN);  /* 3: new address, after 2 */
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);  /* 4: after 2 */
    task1(-1, HCRT_OFL_DEP_OUT);         /* 5: omp_all_memory, addr -1 */
    take();
    /* 2 -> 5 is implied but libomp links the previous all-memory task */
    static const int32_t e[][2] = {{0, 2}, {1, 2}, {2, 3}, {2, 4},
                                   {3, 5}, {4, 5}, {2, 5}};
    expect(e, 7);
}

static void t_duplicates(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT);
    intptr_t a[2] = {ADDR(0, 0), ADDR(0, 0)};
    int f[2] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_MTX}; /* acts as inout */
    task(2, a, f);
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);
    take();
    static const int32_t e[][2] = {{0, 1}, {1, 2}, {1, 3}};
    expect(e, 3);
    CHECK_EQ(b.tasks[1].ndeps, 1);
    CHECK_EQ(b.deps[b.tasks[1].dep_off].flags, HCRT_OFL_DEP_INOUT);
    CHECK_EQ(b.tasks[1].nmtx, 0);
}

/* A size-bound flush keeps the dependence state: the next batch names its
 * predecessors in the earlier one; sync forgets them. */
static void t_batches(void)
{
    start();
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT);
    task1(ADDR(0, 1), HCRT_OFL_DEP_OUT);
    take();
    uint64_t s0 = b.tasks[0].seq, s1 = b.tasks[1].seq;
    CHECK_EQ(hcrt__dg_pending(dg), 0);
    intptr_t a[2] = {ADDR(0, 0), ADDR(0, 1)};
    int f[2] = {HCRT_OFL_DEP_IN, HCRT_OFL_DEP_IN};
    task(2, a, f);
    task1(ADDR(0, 0), HCRT_OFL_DEP_OUT);
    take();
    CHECK_EQ(b.ntasks, 2);
    CHECK_EQ(b.tasks[0].next, 2);
    CHECK_EQ(b.ext[b.tasks[0].ext_off], s0);
    CHECK_EQ(b.ext[b.tasks[0].ext_off + 1], s1);
    CHECK_EQ(b.tasks[1].next, 0); /* after task 0 of this batch only */
    static const int32_t e[][2] = {{0, 1}};
    expect(e, 1);
    hcrt__dg_sync(dg);
    task1(ADDR(0, 0), HCRT_OFL_DEP_IN);
    take();
    CHECK_EQ(b.nedges, 0);
    CHECK_EQ(b.tasks[0].next, 0);
}

/* Edge volume: what the producer may write and the consumer maps. */
static void t_edge_bytes(void)
{
    static double A[1000], B[1000];
    start();
    hcrt_depend_info_t d0 = {(intptr_t)A, sizeof(A), HCRT_OFL_DEP_OUT};
    hcrt__ofl_map_t m0[2] = {
        {A, A, sizeof(A), HCRT_OFL_MAP_TO | HCRT_OFL_MAP_FROM | 0x20},
        {B, B, sizeof(B), HCRT_OFL_MAP_TO | 0x20}}; /* read: no edge bytes */
    hcrt__ofl_task_desc_t t0 = {.kind = HCRT_OFL_KERNEL,
                                .kernel = 7,
                                .pin = -1,
                                .deps = &d0,
                                .ndeps = 1,
                                .maps = m0,
                                .nmaps = 2};
    CHECK_EQ(hcrt__dg_record(dg, &t0, NULL), HCRT_OK);
    hcrt_depend_info_t d1 = {(intptr_t)A, sizeof(A), HCRT_OFL_DEP_IN};
    hcrt__ofl_map_t m1[2] = {{A, A + 500, 400 * sizeof(double), 0x21},
                             {B, B, sizeof(B), 0x21}};
    hcrt__ofl_task_desc_t t1 = {.kind = HCRT_OFL_KERNEL,
                                .kernel = 8,
                                .pin = -1,
                                .deps = &d1,
                                .ndeps = 1,
                                .maps = m1,
                                .nmaps = 2};
    CHECK_EQ(hcrt__dg_record(dg, &t1, NULL), HCRT_OK);
    hcrt__ofl_task_desc_t h = {
        .kind = HCRT_OFL_HOST_TASK, .pin = 3, .deps = &d1, .ndeps = 1};
    CHECK_EQ(hcrt__dg_record(dg, &h, NULL), HCRT_OK);
    take();
    CHECK_EQ(b.nedges, 2);
    CHECK_EQ(b.edges[0].bytes, 400 * sizeof(double));
    CHECK_EQ(b.edges[1].bytes, 0); /* the host task maps nothing */
    CHECK_EQ(b.tasks[2].pin, 0);   /* host tasks run on the head */

    /* HEFT graph: same ids, edges, the host task pinned to the head. */
    hcrt__taskgraph_t *tg;
    hcrt__heft_cost_t *cm;
    CHECK_EQ(hcrt__taskgraph_create(4, &tg), HCRT_OK);
    CHECK_EQ(hcrt__heft_cost_create(4, &cm), HCRT_OK);
    CHECK_EQ(hcrt__dg_build_taskgraph(&b, tg, NULL, NULL), HCRT_OK);
    CHECK_EQ(hcrt__taskgraph_ntasks(tg), 3);
    CHECK_EQ(hcrt__taskgraph_nedges(tg), 2);
    CHECK_EQ(hcrt__taskgraph_kernel(tg, 0), 7);
    hcrt__heft_schedule_t s;
    CHECK_EQ(hcrt__heft_schedule_init(&s, 3), HCRT_OK);
    CHECK_EQ(hcrt__heft_policy_heft.schedule(tg, cm, &s), HCRT_OK);
    CHECK_EQ(s.node[2], 0);
    char why[256];
    CHECK_EQ(hcrt__heft_schedule_check(tg, cm, &s, why, sizeof(why)), HCRT_OK);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(tg);
    hcrt__heft_cost_destroy(cm);
}

/* Data tasks follow the first kernel that uses their data. */
static void t_colocate(void)
{
    static double A[100], B[100];
    start();
    hcrt__ofl_map_t ma = {A, A, sizeof(A), HCRT_OFL_MAP_TO};
    hcrt__ofl_map_t mb = {B, B, sizeof(B), HCRT_OFL_MAP_TO};
    hcrt__ofl_task_desc_t enter_a = {
        .kind = HCRT_OFL_DATA_ENTER, .pin = -1, .maps = &ma, .nmaps = 1};
    hcrt__ofl_task_desc_t enter_b = enter_a, k_b = enter_a, k_a = enter_a;
    enter_b.maps = &mb;
    k_b.kind = k_a.kind = HCRT_OFL_KERNEL;
    k_b.maps = &mb;
    CHECK_EQ(hcrt__dg_record(dg, &enter_a, NULL), HCRT_OK);
    CHECK_EQ(hcrt__dg_record(dg, &enter_b, NULL), HCRT_OK);
    CHECK_EQ(hcrt__dg_record(dg, &k_b, NULL), HCRT_OK);
    CHECK_EQ(hcrt__dg_record(dg, &k_a, NULL), HCRT_OK);
    take();
    int32_t node[4] = {1, 1, 2, 3};
    hcrt__dg_colocate(&b, node);
    CHECK_EQ(node[0], 3);
    CHECK_EQ(node[1], 2);
}

static int holders_at3(void *arg, const void *begin, int64_t size, int *nodes,
                       int max)
{
    (void)begin;
    (void)size;
    (void)max;
    ++*(int *)arg;
    nodes[0] = 3;
    return 1;
}

/* Inputs that exist before the batch are HEFT data items at their holders:
 * over a slow link HEFT runs their reader where the data is. */
static void t_inputs(void)
{
    static char A[1 << 20], B[1 << 20];
    start();
    hcrt_depend_info_t da = {(intptr_t)A, 1, HCRT_OFL_DEP_OUT};
    hcrt__ofl_map_t ma = {A, A, sizeof(A), HCRT_OFL_MAP_FROM | 0x20};
    hcrt__ofl_task_desc_t w0 = {.kind = HCRT_OFL_KERNEL,
                                .kernel = 1,
                                .pin = 1,
                                .deps = &da,
                                .ndeps = 1,
                                .maps = &ma,
                                .nmaps = 1};
    CHECK_EQ(hcrt__dg_record(dg, &w0, NULL), HCRT_OK);
    hcrt__ofl_map_t mr[2] = {{A, A, 4096, HCRT_OFL_MAP_TO | 0x20},
                             {B, B, sizeof(B), HCRT_OFL_MAP_TO | 0x20}};
    hcrt_depend_info_t dr = {(intptr_t)A, 1, HCRT_OFL_DEP_IN};
    hcrt__ofl_task_desc_t r = {.kind = HCRT_OFL_KERNEL,
                               .kernel = 2,
                               .pin = -1,
                               .deps = &dr,
                               .ndeps = 1,
                               .maps = mr,
                               .nmaps = 2};
    CHECK_EQ(hcrt__dg_record(dg, &r, NULL), HCRT_OK);
    take();
    hcrt__taskgraph_t *tg;
    hcrt__heft_cost_t *cm;
    CHECK_EQ(hcrt__taskgraph_create(4, &tg), HCRT_OK);
    CHECK_EQ(hcrt__heft_cost_create(4, &cm), HCRT_OK);
    CHECK_EQ(hcrt__heft_cost_set_uniform_link(cm, 1e-6, 1e6), HCRT_OK);
    CHECK_EQ(hcrt__heft_cost_set_default_time(cm, 1e-3), HCRT_OK);
    int calls = 0;
    CHECK_EQ(hcrt__dg_build_taskgraph(&b, tg, holders_at3, &calls), HCRT_OK);
    /* B only: task 0 only writes A, and A flows to task 1 along the edge */
    CHECK_EQ(calls, 1);
    hcrt__heft_schedule_t s;
    CHECK_EQ(hcrt__heft_schedule_init(&s, 2), HCRT_OK);
    CHECK_EQ(hcrt__heft_policy_heft.schedule(tg, cm, &s), HCRT_OK);
    CHECK_EQ(s.node[0], 1);
    CHECK_EQ(s.node[1], 3); /* 1 MiB of B weighs more than 4 KiB of A */
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(tg);
    hcrt__heft_cost_destroy(cm);
}

/* Recording and building stay fast on big batches (20000 tasks). */
static void t_large(void)
{
    enum { W = 100, S = 200 };
    static double cell[2][W * 64];
    start();
    for (int s = 0; s < S; s++)
        for (int i = 0; i < W; i++) {
            hcrt_depend_info_t d[4];
            hcrt__ofl_map_t m[4];
            int n = 0;
            for (int j = i - 1; j <= i + 1; j++)
                if (j >= 0 && j < W) {
                    double *p = &cell[s % 2][j * 64];
                    d[n] = (hcrt_depend_info_t){(intptr_t)p, 512, 1};
                    m[n++] = (hcrt__ofl_map_t){p, p, 512, 0x21};
                }
            double *o = &cell[(s + 1) % 2][i * 64];
            d[n] = (hcrt_depend_info_t){(intptr_t)o, 512, 2};
            m[n++] = (hcrt__ofl_map_t){o, o, 512, 0x22};
            hcrt__ofl_task_desc_t t = {.kind = HCRT_OFL_KERNEL,
                                       .kernel = 9,
                                       .pin = -1,
                                       .deps = d,
                                       .ndeps = n,
                                       .maps = m,
                                       .nmaps = n};
            CHECK_EQ(hcrt__dg_record(dg, &t, NULL), HCRT_OK);
        }
    take();
    CHECK_EQ(b.ntasks, W * S);
    CHECK_EQ(b.nedges, (S - 1) * (3 * W - 2));
    CHECK_EQ(b.edges[0].bytes, 512);
    hcrt__taskgraph_t *tg;
    CHECK_EQ(hcrt__taskgraph_create(8, &tg), HCRT_OK);
    CHECK_EQ(hcrt__dg_build_taskgraph(&b, tg, NULL, NULL), HCRT_OK);
    CHECK_EQ(hcrt__taskgraph_nedges(tg), b.nedges);
    hcrt__taskgraph_destroy(tg);
}

/* Whether OpenMP orders two depend kinds on one address (the later task
 * depends on the earlier): all but in/in, mutexinoutset/mutexinoutset and
 * inoutset/inoutset. */
static int conflict(int a, int b)
{
    return !(a == b && (a == HCRT_OFL_DEP_IN || a == HCRT_OFL_DEP_MTX ||
                        a == HCRT_OFL_DEP_SET));
}

/* Random depend sequences against the spec's rules: every pair the spec
 * orders is ordered (transitively), every edge joins a conflicting pair,
 * and unordered mutexinoutset pairs share a mutual-exclusion group. */
static void t_random_deps(void)
{
    enum { N = 120, NA = 6, MAXD = 3 };
    static const int kinds[] = {HCRT_OFL_DEP_IN,  HCRT_OFL_DEP_IN,
                                HCRT_OFL_DEP_OUT, HCRT_OFL_DEP_INOUT,
                                HCRT_OFL_DEP_MTX, HCRT_OFL_DEP_SET};
    static int kind[N][NA]; /* 0: no item on that address */
    static uint64_t reach[N][(N + 63) / 64];
    unsigned r = 7;
    for (int seed = 0; seed < 40; seed++) {
        start();
        memset(kind, 0, sizeof(kind));
        for (int i = 0; i < N; i++) {
            intptr_t a[MAXD];
            int f[MAXD], n = 0;
            for (int k = 0;
                 k < 1 + (int)((r = r * 1103515245u + 12345u) >> 16) % MAXD;
                 k++) {
                r = r * 1103515245u + 12345u;
                int addr = (int)((r >> 16) % NA);
                int fl = kinds[(r >> 8) % 6];
                if (kind[i][addr])
                    continue;
                kind[i][addr] = fl;
                a[n] = ADDR(0, addr);
                f[n++] = fl;
            }
            task(n, a, f);
        }
        take();
        memset(reach, 0, sizeof(reach));
        for (int e = 0; e < b.nedges; e++) { /* sorted by target */
            int fr = b.edges[e].from, to = b.edges[e].to;
            int ok = 0;
            for (int x = 0; x < NA; x++)
                ok |= kind[fr][x] && kind[to][x] &&
                      conflict(kind[fr][x], kind[to][x]);
            if (!ok) {
                fprintf(stderr, "seed %d: edge %d -> %d joins no conflict\n",
                        seed, fr, to);
                check_failures++;
            }
            reach[to][fr / 64] |= 1ULL << (fr % 64);
            for (int w = 0; w < (N + 63) / 64; w++)
                reach[to][w] |= reach[fr][w];
        }
        for (int j = 0; j < N; j++)
            for (int i = 0; i < j; i++)
                for (int x = 0; x < NA; x++) {
                    if (!kind[i][x] || !kind[j][x])
                        continue;
                    int ordered = (reach[j][i / 64] >> (i % 64)) & 1;
                    if (conflict(kind[i][x], kind[j][x]) && !ordered) {
                        fprintf(stderr, "seed %d: %d -> %d not ordered\n", seed,
                                i, j);
                        check_failures++;
                    }
                    if (kind[i][x] == HCRT_OFL_DEP_MTX &&
                        kind[j][x] == HCRT_OFL_DEP_MTX && !ordered) {
                        int shared = 0;
                        for (int p = 0; p < b.tasks[i].nmtx; p++)
                            for (int q = 0; q < b.tasks[j].nmtx; q++)
                                shared |= b.mtx[b.tasks[i].mtx_off + p] ==
                                          b.mtx[b.tasks[j].mtx_off + q];
                        CHECK(shared);
                    }
                }
    }
}

static void t_classify(void)
{
    hcrt__ofl_unsupported_t why;
    hcrt__ofl_map_t ok[2] = {{0, 0, 8, 0x23}, {0, 0, 8, 0x1 | (1LL << 48)}};
    CHECK_EQ(hcrt__ofl_classify(ok, 2, &why), HCRT_OK);
    CHECK_EQ(why, HCRT_OFL_OK);
    hcrt__ofl_map_t udp = {0, 0, 8, HCRT_OFL_MAP_RETURN_PARAM};
    CHECK_EQ(hcrt__ofl_classify(&udp, 1, &why), HCRT_ERR_UNSUPPORTED);
    CHECK_EQ(why, HCRT_OFL_USE_DEVICE_PTR);
    hcrt__ofl_map_t bad = {0, 0, 8, 0x1 | (3LL << 48)};
    CHECK_EQ(hcrt__ofl_classify(&bad, 1, &why), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__ofl_classify_requires(0x8, &why), HCRT_ERR_UNSUPPORTED);
    CHECK_EQ(why, HCRT_OFL_USM);
    CHECK_EQ(hcrt__ofl_classify_requires(0x10, &why), HCRT_OK);
    CHECK(strstr(hcrt__ofl_unsupported_str(HCRT_OFL_USM), "head") != NULL);
    hcrt__ofl_task_desc_t t = {.kind = HCRT_OFL_HOST_TASK, .ndeps = 1};
    CHECK_EQ(hcrt__dg_record(dg, &t, NULL), HCRT_ERR_INVALID); /* deps NULL */
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"chain", t_chain},
        {"fan_out_in", t_fan_out_in},
        {"fan_in", t_fan_in},
        {"diamond", t_diamond},
        {"stencil", t_stencil},
        {"tree", t_tree},
        {"fft", t_fft},
        {"all_to_all", t_all_to_all},
        {"mutexinoutset", t_mutexinoutset},
        {"inoutset", t_inoutset},
        {"all_memory", t_all_memory},
        {"duplicates", t_duplicates},
        {"batches", t_batches},
        {"edge_bytes", t_edge_bytes},
        {"colocate", t_colocate},
        {"classify", t_classify},
        {"inputs", t_inputs},
        {"large", t_large},
        {"random_deps", t_random_deps},
        {NULL, NULL},
    };
    /* edge volumes and HEFT inputs are checked under OMPC's clause rule
     * (the engine's default counts every kernel map as written) */
    hcrt__ofl_set_write_rule(HCRT_OFL_WRITES_CLAUSES);
    int rc = check_run(argc, argv, cases);
    hcrt__dg_batch_fini(&b);
    hcrt__dg_destroy(dg);
    return rc;
}
