/*
 * test_dred.c - the dynamic reduction's scheduler (runtime/sched/dred*.c)
 * against a model of the ranks: every rank's input is a random 64-bit
 * number, every item a (sum, set of inputs) pair; a task folds two items.
 * Arrivals, task completions and failures come in random orders; at the
 * end the root's item must hold each input exactly once, or the status
 * must name the lost rank, and a run must never stall.
 */
#include "../check.h"

#include "sched/dred.h"

#define MAXR 64
#define MAXITEMS 4096
#define MAXFLY 256

typedef struct item {
    int rank, id;
    uint64_t sum, mask;
} item_t;

typedef struct world {
    hcrt__dred_t d;
    hcrt__dred_perf_t perf;
    int n, root;
    uint64_t raw[MAXR];
    int dead[MAXR], replica_at_fail[MAXR];
    item_t items[MAXITEMS];
    int nitems;
    hcrt__dred_task_t fly[MAXFLY];
    int nfly;
    int tasks, local;
} world_t;

static item_t *find(world_t *w, int rank, int id)
{
    for (int i = 0; i < w->nitems; i++)
        if (w->items[i].rank == rank && w->items[i].id == id)
            return &w->items[i];
    return NULL;
}

static void put(world_t *w, int rank, int id, uint64_t sum, uint64_t mask)
{
    item_t *it = find(w, rank, id);
    if (!it && w->nitems < MAXITEMS)
        it = &w->items[w->nitems++];
    if (it)
        *it = (item_t){rank, id, sum, mask};
}

static void start(world_t *w, int n, int root, rng_t *r)
{
    memset(w, 0, sizeof *w);
    w->n = n, w->root = root;
    hcrt__dred_perf_init(&w->perf, n, 0.5);
    hcrt__dred_init(&w->d, n, root, &w->perf);
    for (int k = 0; k < n; k++) {
        w->raw[k] = rng_next(r);
        put(w, k, 0, w->raw[k], 1ULL << k);
        put(w, k, 1 + k, w->raw[k], 1ULL << k); /* its raw input */
    }
}

static void finish(world_t *w)
{
    hcrt__dred_fini(&w->d);
    hcrt__dred_perf_fini(&w->perf);
}

/* Hands out what the scheduler has, checking each task's rules. */
static void drain(world_t *w)
{
    hcrt__dred_task_t t;
    while (hcrt__dred_next(&w->d, &t)) {
        CHECKF(!w->dead[t.holder] && !w->dead[t.giver], "task %d: %d <- %d",
               t.id, t.holder, t.giver);
        CHECKF(find(w, t.holder, t.holder_item) &&
                   find(w, t.giver, t.giver_item),
               "task %d names an item that does not exist", t.id);
        item_t *g = find(w, t.giver, t.giver_item);
        if (g && (g->mask >> w->root & 1))
            CHECKF(t.holder == w->root, "the root's data left the root");
        if (w->nfly < MAXFLY)
            w->fly[w->nfly++] = t;
        w->tasks++;
        w->local += t.holder == t.giver;
    }
}

static void complete(world_t *w, int i, double ns)
{
    hcrt__dred_task_t t = w->fly[i];
    w->fly[i] = w->fly[--w->nfly];
    item_t *a = find(w, t.holder, t.holder_item);
    item_t *b = find(w, t.giver, t.giver_item);
    if (!a || !b)
        return;
    CHECKF(!(a->mask & b->mask), "task %d folds an input twice", t.id);
    put(w, t.holder, t.out_item, a->sum + b->sum, a->mask | b->mask);
    hcrt__dred_task_done(&w->d, t.id, ns, 1 << 20);
}

static uint64_t total(const world_t *w)
{
    uint64_t s = 0;
    for (int k = 0; k < w->n; k++)
        s += w->raw[k];
    return s;
}

static void check_end(world_t *w)
{
    uint64_t all = w->n == 64 ? ~0ULL : (1ULL << w->n) - 1;
    CHECKF(w->d.state != HCRT_DRED_RUNNING, "stalled: %d queued, %d tasks",
           w->d.qlen, w->nfly);
    if (w->d.state != HCRT_DRED_DONE)
        return;
    item_t *f = find(w, w->root, w->d.final_item);
    REQUIRE(f, "no final item %d at the root", w->d.final_item);
    CHECKF(f->mask == all, "final mask %llx", (unsigned long long)f->mask);
    CHECK(f->sum == total(w));
}

/* The seed's figure 4: 4 ranks, root 1, arrivals 0 3 1 2. */
static void test_seed_example(void)
{
    world_t w;
    rng_t r = {7};
    hcrt__dred_task_t t;
    start(&w, 4, 1, &r);
    hcrt__dred_perf_note(&w.perf, 0, 2e6, 1 << 20); /* 3 is faster */
    hcrt__dred_perf_note(&w.perf, 3, 1e6, 1 << 20);
    int order[] = {0, 3, 1, 2};
    for (int i = 0; i < 4; i++)
        hcrt__dred_arrive(&w.d, order[i]);
    REQUIRE(hcrt__dred_next(&w.d, &t), "no first task");
    CHECK_EQ(t.holder, 3); CHECK_EQ(t.giver, 0);
    hcrt__dred_task_t t2;
    REQUIRE(hcrt__dred_next(&w.d, &t2), "no second task");
    CHECK_EQ(t2.holder, 1); CHECK_EQ(t2.giver, 2);
    CHECK(!hcrt__dred_next(&w.d, &t));
    hcrt__dred_task_done(&w.d, t2.id, 1e6, 1 << 20);
    hcrt__dred_task_done(&w.d, 0, 1e6, 1 << 20);
    REQUIRE(hcrt__dred_next(&w.d, &t), "no third task");
    CHECK_EQ(t.holder, 1); CHECK_EQ(t.giver, 3);
    hcrt__dred_task_done(&w.d, t.id, 1e6, 1 << 20);
    CHECK(!hcrt__dred_next(&w.d, &t));
    CHECK_EQ(w.d.state, HCRT_DRED_DONE);
    CHECK_EQ(w.d.nlog, 3);
    finish(&w);
}

/* Random arrivals and completions at 1-64 ranks, every root. */
static void test_pairs(void)
{
    rng_t r = {12345};
    for (int n = 1; n <= MAXR; n += n < 8 ? 1 : 7) {
        for (int rep = 0; rep < 20; rep++) {
            world_t w;
            int order[MAXR], left = n;
            start(&w, n, (int)rng_below(&r, (uint64_t)n), &r);
            for (int k = 0; k < n; k++)
                order[k] = k;
            while (left || w.nfly) {
                if (left && (!w.nfly || rng_below(&r, 2))) {
                    int j = (int)rng_below(&r, (uint64_t)left);
                    hcrt__dred_arrive(&w.d, order[j]);
                    order[j] = order[--left];
                } else {
                    complete(&w, (int)rng_below(&r, (uint64_t)w.nfly),
                             1e6 * (1 + rng_unit(&r)));
                }
                drain(&w);
            }
            drain(&w);
            check_end(&w);
            CHECK_EQ(w.tasks, n - 1);
            finish(&w);
        }
    }
}

/* The holder is the rank whose last tasks ran faster. */
static void test_faster(void)
{
    world_t w;
    rng_t r = {3};
    hcrt__dred_task_t t;
    start(&w, 4, 0, &r);
    hcrt__dred_perf_note(&w.perf, 1, 9e6, 1 << 20); /* rank 1 slow */
    hcrt__dred_perf_note(&w.perf, 2, 1e6, 1 << 20);
    hcrt__dred_arrive(&w.d, 1);
    hcrt__dred_arrive(&w.d, 2);
    REQUIRE(hcrt__dred_next(&w.d, &t), "no task");
    CHECK_EQ(t.holder, 2);
    /* an unmeasured rank counts as the mean: 3 beats the slow rank 1 */
    hcrt__dred_task_done(&w.d, t.id, 1e6, 1 << 20);
    CHECK(hcrt__dred_perf_spread(&w.perf) > 4);
    finish(&w);
    start(&w, 4, 0, &r);
    hcrt__dred_perf_note(&w.perf, 1, 9e6, 1 << 20);
    hcrt__dred_perf_note(&w.perf, 2, 1e6, 1 << 20);
    hcrt__dred_arrive(&w.d, 1);
    hcrt__dred_arrive(&w.d, 3);
    REQUIRE(hcrt__dred_next(&w.d, &t), "no task");
    CHECK_EQ(t.holder, 3);
    finish(&w);
}

/* One run with rank `victim` failing after `at` steps; replicas complete
 * `rep_delay` steps after each arrival (-1: never). */
static void fail_run(int n, int root, int victim, int at, int rep_delay,
                     rng_t *r, int *recovered)
{
    world_t w;
    int order[MAXR], left = n, due[MAXR], step = 0;
    start(&w, n, root, r);
    for (int k = 0; k < n; k++)
        order[k] = k, due[k] = -1;
    for (;;) {
        if (step == at) {
            w.dead[victim] = 1;
            w.replica_at_fail[victim] = w.d.replica[victim];
            for (int i = w.nfly - 1; i >= 0; i--)
                if (w.fly[i].holder == victim)
                    w.fly[i] = w.fly[--w.nfly]; /* never reports */
            hcrt__dred_fail(&w.d, victim);
            for (int i = w.nfly - 1; i >= 0; i--) {
                if (w.fly[i].giver != victim || w.fly[i].holder == victim)
                    continue;
                if (rng_below(r, 2)) { /* the fetch had completed */
                    complete(&w, i, 1e6);
                } else {
                    hcrt__dred_task_failed(&w.d, w.fly[i].id);
                    w.fly[i] = w.fly[--w.nfly];
                }
            }
        }
        for (int k = 0; k < n; k++)
            if (due[k] == step && !w.dead[k] &&
                !w.dead[hcrt__dred_buddy(k, n)]) {
                hcrt__dred_replica_done(&w.d, k, hcrt__dred_buddy(k, n));
                put(&w, hcrt__dred_buddy(k, n), 1 + k, w.raw[k], 1ULL << k);
            }
        step++;
        drain(&w);
        int can_arrive = left > 0;
        if (!can_arrive && !w.nfly && step > at)
            break;
        if (can_arrive && (!w.nfly || rng_below(r, 2))) {
            int j = (int)rng_below(r, (uint64_t)left), k = order[j];
            order[j] = order[--left];
            if (w.dead[k])
                continue;
            hcrt__dred_arrive(&w.d, k);
            if (rep_delay >= 0)
                due[k] = step + rep_delay;
        } else if (w.nfly) {
            complete(&w, (int)rng_below(r, (uint64_t)w.nfly), 1e6);
        }
    }
    drain(&w);
    check_end(&w);
    if (w.d.state == HCRT_DRED_LOST) {
        CHECK_EQ(w.d.lost_rank, victim);
        CHECKF(!w.replica_at_fail[victim], "rank %d's replica was complete, "
               "yet: %s", victim, w.d.why);
    }
    CHECK(w.d.state != HCRT_DRED_ROOT_LOST || victim == root);
    if (victim != root && rep_delay == 0 && at > 2 * n) /* all replicated */
        CHECKF(w.d.state == HCRT_DRED_DONE, "n %d victim %d at %d: %s", n,
               victim, at, w.d.why ? w.d.why : "?");
    *recovered += w.d.recovered;
    finish(&w);
}

/* A failure of every rank at every point (cases 1-3 of the seed). */
static void test_fail_points(void)
{
    rng_t r = {99};
    int recovered = 0;
    for (int n = 2; n <= 8; n++)
        for (int victim = 0; victim < n; victim++)
            for (int at = 0; at < 4 * n; at++)
                for (int rep = -1; rep <= 2; rep++)
                    for (int k = 0; k < 3; k++)
                        fail_run(n, (victim + 1 + k) % n, victim, at, rep, &r,
                                 &recovered);
    CHECKF(recovered > 0, "no input was ever recovered");
}

/* The root failing ends the instance with ROOT_LOST, never a stall. */
static void test_root_lost(void)
{
    rng_t r = {5};
    int rec = 0;
    for (int at = 0; at < 12; at++) {
        world_t w;
        start(&w, 4, 2, &r);
        finish(&w);
        fail_run(4, 2, 2, at, 0, &r, &rec);
    }
    world_t w;
    start(&w, 3, 1, &r);
    hcrt__dred_arrive(&w.d, 0);
    hcrt__dred_fail(&w.d, 1);
    CHECK_EQ(w.d.state, HCRT_DRED_ROOT_LOST);
    CHECK_EQ(w.d.lost_rank, 1);
    finish(&w);
}

/* A rank and the buddy holding its replica both lost: LOST names it. */
static void test_buddy_lost(void)
{
    world_t w;
    rng_t r = {11};
    hcrt__dred_task_t t;
    start(&w, 4, 0, &r);
    for (int k = 0; k < 4; k++) {
        hcrt__dred_arrive(&w.d, k);
        hcrt__dred_replica_done(&w.d, k, hcrt__dred_buddy(k, 4));
    }
    REQUIRE(hcrt__dred_next(&w.d, &t), "no task");         /* 0 <- 1 */
    REQUIRE(hcrt__dred_next(&w.d, &t) && t.holder != 0, "no task");
    hcrt__dred_task_done(&w.d, t.id, 1e6, 1);          /* 2+3 at one */
    int holder = t.holder, other = t.giver;
    hcrt__dred_fail(&w.d, other);
    CHECK_EQ(w.d.state, HCRT_DRED_RUNNING);
    hcrt__dred_fail(&w.d, holder); /* the path {2,3} must be split */
    CHECK_EQ(w.d.state, HCRT_DRED_LOST);
    CHECK(w.d.lost_rank == 2 || w.d.lost_rank == 3);
    finish(&w);
}

/* Ranks lost before an instance began take no part: the survivors'
 * inputs make the result; an excluded root ends it ROOT_LOST. */
static void test_excluded(void)
{
    world_t w;
    rng_t r = {13};
    start(&w, 4, 0, &r);
    hcrt__dred_exclude(&w.d, 2);
    CHECK_EQ(w.d.excluded, 2);
    CHECK(hcrt__dred_arrive(&w.d, 2) != HCRT_OK);
    for (int k = 0; k < 4; k++)
        if (k != 2)
            hcrt__dred_arrive(&w.d, k);
    drain(&w);
    for (int guard = 0; w.nfly && guard < 16; guard++) {
        complete(&w, 0, 1e6);
        drain(&w);
    }
    CHECK_EQ(w.d.state, HCRT_DRED_DONE);
    item_t *f = find(&w, 0, w.d.final_item);
    REQUIRE(f, "no final item");
    CHECK(f->mask == 0xb);
    CHECK(f->sum == w.raw[0] + w.raw[1] + w.raw[3]);
    finish(&w);
    start(&w, 3, 1, &r);
    hcrt__dred_exclude(&w.d, 1);
    CHECK_EQ(w.d.state, HCRT_DRED_ROOT_LOST);
    finish(&w);
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"seed_example", test_seed_example},
        {"pairs", test_pairs},
        {"faster", test_faster},
        {"fail_points", test_fail_points},
        {"root_lost", test_root_lost},
        {"buddy_lost", test_buddy_lost},
        {"excluded", test_excluded},
        {NULL, NULL}};
    return check_run(argc, argv, cases);
}
