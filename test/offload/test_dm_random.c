/*
 * test_dm_random.c - random task sequences (kernels, enter/exit/update,
 * host tasks; random maps, sections, depends) recorded with the dependence
 * recorder, placed by HEFT or at random, planned by the data manager and
 * executed by the simulator in a random order the edges and op waits
 * allow. After every flush the cluster's host memory must equal a
 * sequential one-device execution's.
 */
#include "libhcrt/offload/depgraph.h"
#include "libhcrt/offload/offload_int.h"
#include "ofl_sim.h"
#include "check.h"

enum { NARR = 4, NEL = 32, MAXT = 14, MAXE = 3 };

typedef struct rtask {
    hcrt__ofl_kind_t kind;
    int n;
    hcrt__ofl_map_t m[MAXE];
    hcrt_depend_info_t d[MAXE];
    int arr[MAXE], lo[MAXE], hi[MAXE], write[MAXE];
    int init[MAXE]; /* decided by the reference run: section initialised */
    int salt;
    int node;
    hcrt__dm_plan_t pre, post;
    hcrt__dm_xlate_t xl[MAXE];
    int started, done;
} rtask_t;

static world_t w;
static unsigned rng;
static rtask_t T[MAXT];

static unsigned rnd(unsigned n)
{
    rng = rng * 1103515245u + 12345u;
    return (rng >> 8) % n;
}

static int *arr_h(int a)
{
    return (int *)(w.H + 256 * a);
}
static int *arr_r(int a)
{
    return (int *)(w.R + 256 * a);
}
static int *twin(int *h)
{
    return (int *)(w.R + ((unsigned char *)h - w.H));
}

/* The kernel of every random target task; `ref` selects the reference
 * run, which decides from its device state what is initialised. */
static void kernel(rtask_t *t, void **args, int ref)
{
    int sum = 0;
    for (int i = 0; i < t->n; i++) {
        if (ref)
            t->init[i] =
                ref_initialized(w.ref, args[i], (t->hi[i] - t->lo[i]) * 4);
        if (!t->write[i] && t->init[i])
            sum += ((int *)args[i])[0];
    }
    for (int i = 0; i < t->n; i++) {
        if (!t->write[i])
            continue;
        int *x = args[i];
        for (int e = 0; e < t->hi[i] - t->lo[i]; e++)
            x[e] = t->init[i] ? x[e] * 3 + t->salt + sum : t->salt + e + sum;
    }
}

static void ref_kernel(void *arg, void **args)
{
    kernel(arg, args, 1);
}

/* A section of array a the map table accepts: [lo, hi) unless it would
 * extend a mapping, then that whole mapping. */
static void pick_section(int a, int *lo, int *hi)
{
    static const int cut[3][2] = {{0, NEL}, {0, NEL / 2}, {NEL / 2, NEL}};
    int c = (int)rnd(3);
    *lo = cut[c][0];
    *hi = cut[c][1];
    for (int e = *lo; e < *hi; e++) {
        uintptr_t b;
        uint64_t s;
        if (!ref_mapping(w.ref, &arr_r(a)[e], &b, &s))
            continue;
        int mlo = (int)((int *)b - arr_r(a)), mhi = mlo + (int)(s / 4);
        if (mlo > *lo || mhi < *hi) {
            *lo = mlo;
            *hi = mhi;
        }
        return;
    }
}

/* random_all: the engine's write rule (every kernel map may be written).
 * Device data is then always initialised (no alloc-only maps), so copies
 * home of data a kernel did not write compare equal to the reference. */
static int all_rule;

static int64_t kernel_type(void)
{
    static const int64_t t[] = {HCRT_OFL_MAP_TO, HCRT_OFL_MAP_FROM,
                                HCRT_OFL_MAP_TO | HCRT_OFL_MAP_FROM, 0};
    int64_t ty = t[rnd(4)] | HCRT_OFL_MAP_TARGET_PARAM;
    if (all_rule && !(ty & HCRT_OFL_MAP_FROM))
        ty |= HCRT_OFL_MAP_TO;
    if (rnd(5) == 0)
        ty |= HCRT_OFL_MAP_ALWAYS;
    return ty;
}

static int64_t data_type(hcrt__ofl_kind_t k)
{
    switch (k) {
    case HCRT_OFL_DATA_ENTER:
        return (rnd(3) || all_rule ? HCRT_OFL_MAP_TO : 0) |
               (rnd(4) ? 0 : HCRT_OFL_MAP_ALWAYS);
    case HCRT_OFL_DATA_EXIT: {
        static const int64_t t[] = {HCRT_OFL_MAP_FROM, 0, HCRT_OFL_MAP_DELETE,
                                    HCRT_OFL_MAP_FROM | HCRT_OFL_MAP_ALWAYS,
                                    HCRT_OFL_MAP_FROM | HCRT_OFL_MAP_DELETE};
        return t[rnd(5)];
    }
    default:
        return rnd(2) ? HCRT_OFL_MAP_TO : HCRT_OFL_MAP_FROM;
    }
}

static void gen_task(rtask_t *t)
{
    static const hcrt__ofl_kind_t kinds[] = {
        HCRT_OFL_KERNEL,     HCRT_OFL_KERNEL,    HCRT_OFL_KERNEL,
        HCRT_OFL_DATA_ENTER, HCRT_OFL_DATA_EXIT, HCRT_OFL_DATA_UPDATE,
        HCRT_OFL_HOST_TASK};
    hcrt__dm_plan_t pre = t->pre, post = t->post;
    memset(t, 0, sizeof(*t));
    t->pre = pre;
    t->post = post;
    hcrt__dm_plan_clear(&t->pre);
    hcrt__dm_plan_clear(&t->post);
    t->kind = kinds[rnd(7)];
    t->n = 1 + (int)rnd(t->kind == HCRT_OFL_KERNEL ? MAXE : 2);
    t->salt = (int)rnd(100);
    int used = 0;
    for (int i = 0; i < t->n; i++) {
        int a;
        do
            a = (int)rnd(NARR);
        while (used & (1 << a));
        used |= 1 << a;
        t->arr[i] = a;
        pick_section(a, &t->lo[i], &t->hi[i]);
        int *p = arr_h(a) + t->lo[i];
        int64_t ty =
            t->kind == HCRT_OFL_KERNEL ? kernel_type() : data_type(t->kind);
        t->m[i] = (hcrt__ofl_map_t){p, p, (t->hi[i] - t->lo[i]) * 4, ty};
        /* kernels write what they name inout; data and host tasks touch
         * host or device data: inout keeps the program race-free */
        t->write[i] = t->kind != HCRT_OFL_KERNEL || rnd(2) ||
                      (ty & HCRT_OFL_MAP_FROM); /* a copy back writes host */
        t->d[i] = (hcrt_depend_info_t){(intptr_t)arr_h(a), NEL * 4,
                                       t->write[i] ? HCRT_OFL_DEP_INOUT
                                                   : HCRT_OFL_DEP_IN};
    }
}

/* The reference executes in recording order, on its twin memory. */
static void ref_run(rtask_t *t)
{
    hcrt__ofl_map_t rm[MAXE];
    world_shift(&w, t->m, t->n, rm);
    if (t->kind == HCRT_OFL_HOST_TASK) {
        for (int i = 0; i < t->n; i++)
            for (int e = t->lo[i]; e < t->hi[i]; e++)
                arr_r(t->arr[i])[e] += t->salt;
        return;
    }
    int st = ref_task(w.ref, t->kind, rm, t->n, t->write, ref_kernel, t);
    CHECK_EQ(st, HCRT_OK);
    if (getenv("DEBUG_RANDOM"))
        fprintf(stderr, "  ref ran kind %d (A2[16] %d)\n", t->kind,
                arr_r(2)[16]);
}

static hcrt__ofl_task_desc_t desc(const rtask_t *t)
{
    return (hcrt__ofl_task_desc_t){
        .kind = t->kind,
        .kernel = 1 + (uint64_t)t->n,
        .work = 1,
        .pin = -1,
        .deps = t->d,
        .ndeps = t->n,
        .maps = t->kind == HCRT_OFL_HOST_TASK ? NULL : t->m,
        .nmaps = t->kind == HCRT_OFL_HOST_TASK ? 0 : t->n};
}

/* Places the batch: HEFT + colocation, or random nodes. */
static void place(const hcrt__dg_batch_t *b, int use_heft, int off)
{
    int32_t node[MAXT];
    for (int i = 0; i < b->ntasks; i++)
        node[i] = (int32_t)rnd((unsigned)w.nnodes);
    if (use_heft) {
        hcrt__taskgraph_t *tg;
        hcrt__heft_cost_t *cm;
        hcrt__heft_schedule_t s;
        CHECK_EQ(hcrt__taskgraph_create(w.nnodes, &tg), HCRT_OK);
        CHECK_EQ(hcrt__heft_cost_create(w.nnodes, &cm), HCRT_OK);
        CHECK_EQ(hcrt__dg_build_taskgraph(b, tg, hcrt__dm_holders, w.dm),
                 HCRT_OK);
        CHECK_EQ(hcrt__heft_schedule_init(&s, b->ntasks), HCRT_OK);
        CHECK_EQ(hcrt__heft_policy_heft.schedule(tg, cm, &s), HCRT_OK);
        char why[256] = "";
        if (hcrt__heft_schedule_check(tg, cm, &s, why, sizeof(why)) !=
            HCRT_OK) {
            fprintf(stderr, "HEFT schedule invalid: %s\n", why);
            check_failures++;
        }
        for (int i = 0; i < b->ntasks; i++)
            node[i] = s.node[i];
        hcrt__dg_colocate(b, node);
        hcrt__heft_schedule_fini(&s);
        hcrt__taskgraph_destroy(tg);
        hcrt__heft_cost_destroy(cm);
    }
    for (int i = 0; i < b->ntasks; i++)
        T[off + i].node = b->tasks[i].kind == HCRT_OFL_HOST_TASK ? 0 : node[i];
}

/* The edges of the tasks being executed (one batch, or two after a
 * size-bound flush, with the second's predecessors in the first). */
static int E[MAXT * MAXT][2], nE;

static void add_edges(const hcrt__dg_batch_t *b, int off,
                      const hcrt__dg_batch_t *prev)
{
    for (int e = 0; e < b->nedges; e++) {
        E[nE][0] = off + b->edges[e].from;
        E[nE++][1] = off + b->edges[e].to;
    }
    for (int i = 0; i < b->ntasks; i++)
        for (int x = 0; x < b->tasks[i].next; x++) {
            uint64_t seq = b->ext[b->tasks[i].ext_off + x];
            int found = 0;
            for (int j = 0; prev != NULL && j < prev->ntasks; j++)
                if (prev->tasks[j].seq == seq) {
                    E[nE][0] = j;
                    E[nE++][1] = off + i;
                    found = 1;
                }
            CHECK(found); /* only the previous batch can be unfinished */
        }
}

static int ready(int i)
{
    for (int e = 0; e < nE; e++)
        if (E[e][1] == i && T[E[e][0]].done != 2)
            return 0;
    return 1;
}

static void run_body(rtask_t *t)
{
    if (t->kind == HCRT_OFL_HOST_TASK) {
        for (int j = 0; j < t->n; j++)
            for (int e = t->lo[j]; e < t->hi[j]; e++)
                arr_h(t->arr[j])[e] += t->salt;
    } else if (t->kind == HCRT_OFL_KERNEL) {
        void *args[MAXE];
        sim_kernel_args(w.sim, t->node, t->m, t->n, t->xl, args);
        kernel(t, args, 0);
    }
}

/* Whether the next op of a plan may run: ops of one plan run in order,
 * each after its wait_op. */
static int op_ready(const hcrt__dm_plan_t *p, int cur)
{
    return cur < p->n &&
           (p->ops[cur].wait_op < 0 || sim_done(w.sim, p->ops[cur].wait_op));
}

/* Event-driven execution in a random order: a ready task's pre ops run
 * (in order, after their waits), then its body, then its post ops; the
 * task completes when they are done. done: 0 waiting, 1 body ran, 2 done. */
static void execute(int ntasks)
{
    int pre[MAXT] = {0}, post[MAXT] = {0}, left = ntasks;
    while (left > 0) {
        int act[3 * MAXT], na = 0;
        for (int i = 0; i < ntasks; i++) {
            if (T[i].done == 0 && ready(i) &&
                (pre[i] == T[i].pre.n || op_ready(&T[i].pre, pre[i])))
                act[na++] = i;
            if (T[i].done == 1 && op_ready(&T[i].post, post[i]))
                act[na++] = i;
        }
        if (na == 0) {
            fprintf(stderr, "random: nothing can run (plan waits deadlock)\n");
            check_failures++;
            return;
        }
        int i = act[rnd((unsigned)na)];
        rtask_t *t = &T[i];
        if (t->done == 0 && pre[i] < t->pre.n) {
            w.errs += sim_apply(w.sim, &t->pre.ops[pre[i]++]);
        } else if (t->done == 0) {
            run_body(t);
            t->done = 1;
            if (getenv("DEBUG_RANDOM"))
                fprintf(stderr, "  ran task %d (A2[16] %d)\n", i, arr_h(2)[16]);
        } else if (post[i] < t->post.n) {
            w.errs += sim_apply(w.sim, &t->post.ops[post[i]++]);
        }
        if (t->done == 1 && post[i] == t->post.n) {
            t->done = 2;
            left--;
        }
    }
}

static void dump_plan(const char *what, const hcrt__dm_plan_t *p)
{
    for (int32_t k = 0; k < p->n; k++) {
        const hcrt__dm_op_t *o = &p->ops[k];
        fprintf(
            stderr,
            "     %s op %lld kind %d buf %llu %d->%d [%llu,+%llu) wait %lld\n",
            what, (long long)o->id, o->kind, (unsigned long long)o->buf, o->src,
            o->dst, (unsigned long long)o->off, (unsigned long long)o->len,
            (long long)o->wait_op);
    }
}

static void dump(int i)
{
    const rtask_t *t = &T[i];
    fprintf(stderr, "  task %d kind %d node %d salt %d:", i, t->kind, t->node,
            t->salt);
    for (int j = 0; j < t->n; j++)
        fprintf(stderr, " A%d[%d:%d) type %#llx %s", t->arr[j], t->lo[j],
                t->hi[j], (unsigned long long)t->m[j].type,
                t->write[j] ? "inout" : "in");
    fprintf(stderr, "\n");
    dump_plan("pre ", &t->pre);
    dump_plan("post", &t->post);
}

static void plan(int from, int to)
{
    hcrt__dm_batch_begin(w.dm);
    for (int i = from; i < to; i++) {
        hcrt__ofl_task_desc_t d = desc(&T[i]);
        CHECK_EQ(hcrt__dm_plan_task(w.dm, &d, T[i].node, &T[i].pre, &T[i].post,
                                    T[i].xl),
                 HCRT_OK);
        if (getenv("DEBUG_RANDOM"))
            dump(i);
    }
}

/* One flush: n tasks recorded, placed, planned, executed. One time in
 * three the recording is cut in two by a size bound: the second batch is
 * taken and planned while the first has not run, and both run together. */
static void one_batch(hcrt__dg_t *dg, int round)
{
    int n = 1 + (int)rnd(MAXT), cut = rnd(3) == 0 ? (int)rnd((unsigned)n) : n;
    hcrt__dg_batch_t b1 = {0}, b2 = {0};
    for (int i = 0; i < n; i++) {
        if (i == cut)
            CHECK_EQ(hcrt__dg_take(dg, &b1), HCRT_OK);
        gen_task(&T[i]);
        ref_run(&T[i]);
        hcrt__ofl_task_desc_t d = desc(&T[i]);
        CHECK_EQ(hcrt__dg_record(dg, &d, NULL), HCRT_OK);
    }
    CHECK_EQ(hcrt__dg_take(dg, cut < n ? &b2 : &b1), HCRT_OK);
    nE = 0;
    add_edges(&b1, 0, NULL);
    place(&b1, round % 2, 0);
    plan(0, b1.ntasks);
    if (cut < n) {
        add_edges(&b2, cut, &b1);
        place(&b2, round % 2, cut);
        plan(cut, n);
    }
    execute(n);
    hcrt__dg_batch_fini(&b1);
    hcrt__dg_batch_fini(&b2);
    hcrt__dg_sync(dg);     /* the flush waited for everything: */
    hcrt__dm_settle(w.dm); /* tasks and ops */
}

static void host_code(void)
{
    for (int k = (int)rnd(4); k > 0; k--) {
        int a = (int)rnd(NARR), e = (int)rnd(NEL), v = (int)rnd(1000);
        arr_h(a)[e] = v;
        arr_r(a)[e] = v;
    }
}

/* Unmaps whatever is left, copying it home, as a final exit would. */
static void drain(void)
{
    for (int a = 0; a < NARR; a++)
        for (int e = 0; e < NEL; e++) {
            uintptr_t b;
            uint64_t s;
            if (!ref_mapping(w.ref, &arr_r(a)[e], &b, &s))
                continue;
            int *h = arr_h(a) + ((int *)b - arr_r(a));
            hcrt__ofl_map_t m = {h, h, (int64_t)s,
                                 HCRT_OFL_MAP_FROM | HCRT_OFL_MAP_DELETE};
            hcrt__ofl_task_desc_t d = {
                .kind = HCRT_OFL_DATA_EXIT, .pin = -1, .maps = &m, .nmaps = 1};
            CHECK_EQ(world_task(&w, &d, 0, NULL, NULL, NULL), HCRT_OK);
        }
}

static void run_seed(unsigned seed, int nnodes)
{
    rng = seed;
    world_init(&w, nnodes, 4096);
    for (int a = 0; a < NARR; a++)
        for (int e = 0; e < NEL; e++)
            arr_h(a)[e] = arr_r(a)[e] = a * 1000 + e;
    hcrt__dg_t *dg;
    CHECK_EQ(hcrt__dg_create(&dg), HCRT_OK);
    for (int round = 0; round < 12; round++) {
        one_batch(dg, round);
        if (getenv("DEBUG_RANDOM"))
            fprintf(stderr, "round %d done\n", round);
        if (memcmp(w.H, w.R, w.size) != 0) {
            for (int a = 0; a < NARR; a++)
                for (int e = 0; e < NEL; e++)
                    if (arr_h(a)[e] != arr_r(a)[e])
                        fprintf(stderr, "  A%d[%d]: cluster %d reference %d\n",
                                a, e, arr_h(a)[e], arr_r(a)[e]);
            fprintf(stderr, "seed %u nodes %d round %d: host data differs\n",
                    seed, nnodes, round);
            check_failures++;
            break;
        }
        host_code();
    }
    drain();
    CHECK(memcmp(w.H, w.R, w.size) == 0);
    CHECK_EQ(sim_nallocs(w.sim), 0);
    CHECK_EQ(hcrt__dm_nbuffers(w.dm), 0);
    if (w.errs)
        fprintf(stderr, "seed %u: %d simulator violations\n", seed, w.errs);
    CHECK_EQ(w.errs, 0);
    for (int i = 0; i < MAXT; i++) {
        hcrt__dm_plan_fini(&T[i].pre);
        hcrt__dm_plan_fini(&T[i].post);
    }
    hcrt__dg_destroy(dg);
    world_fini(&w);
}

static void t_random(void)
{
    all_rule = 0;
    hcrt__ofl_set_write_rule(HCRT_OFL_WRITES_CLAUSES);
    const char *one = getenv("RANDOM_SEED");
    if (one != NULL) {
        run_seed((unsigned)atoi(one), 1 + atoi(one) % 8);
        return;
    }
    for (unsigned seed = 1; seed <= 1000 && !check_failures; seed++)
        run_seed(seed, 1 + (int)(seed % 8));
}

/* The default rule: kernels reading data next to each other (depend in, no
 * edge) each count as writers, so a reader may take its copy from a node
 * whose kernel is still running or whose copy is still arriving. */
static void t_random_all(void)
{
    all_rule = 1;
    hcrt__ofl_set_write_rule(HCRT_OFL_WRITES_ALL);
    const char *one = getenv("RANDOM_SEED");
    if (one != NULL) {
        run_seed((unsigned)atoi(one), 1 + atoi(one) % 8);
        return;
    }
    for (unsigned seed = 1; seed <= 500 && !check_failures; seed++)
        run_seed(seed, 1 + (int)(seed % 8));
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"random", t_random}, {"random_all", t_random_all}, {NULL, NULL}};
    (void)twin;
    return check_run(argc, argv, cases);
}
