/*
 * test_heft.c - unit tests of the task-graph scheduler (runtime/sched/heft*):
 * the published HEFT example, degenerate graphs, idle-slot insertion, nodes
 * busy with earlier work, the
 * cost model's learning, data locality, pins, determinism, bad input, and a
 * large graph in bounded time. No MPI: plain code on plain data.
 *
 *   test_heft [NAME...]   runs the named tests (default: all); exit status
 *                         is the number of failed checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "sched/heft.h"
#include "sim.h"

#define CHECK_NEAR(a, b)                                                       \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        if (!(fabs(a_ - b_) <= 1e-3 * (fabs(b_) > 1 ? fabs(b_) : 1))) {        \
            fprintf(stderr, "%s:%d: %s = %.6f, expected %.6f\n", __FILE__,     \
                    __LINE__, #a, a_, b_);                                     \
            check_failed();                                                           \
        }                                                                      \
    } while (0)

#define OK(call) CHECK((call) == HCRT_OK)

/* Runs one policy and validates the schedule independently. */
static double run(const hcrt_sched_policy_ops_t *ops, hcrt__taskgraph_t *g,
                  hcrt__heft_cost_t *cm, hcrt__heft_schedule_t *s)
{
    char why[256] = "";
    OK(hcrt__heft_schedule_init(s, hcrt__taskgraph_ntasks(g)));
    OK(ops->schedule(g, cm, s));
    if (hcrt__heft_schedule_check(g, cm, s, why, sizeof(why)) != HCRT_OK) {
        fprintf(stderr, "%s: invalid schedule: %s\n", ops->name, why);
        check_failed();
    }
    return s->makespan;
}

static double makespan(const hcrt_sched_policy_ops_t *ops, hcrt__taskgraph_t *g,
                       hcrt__heft_cost_t *cm)
{
    hcrt__heft_schedule_t s;
    double m = run(ops, g, cm, &s);
    hcrt__heft_schedule_fini(&s);
    return m;
}

/* ---- the published example --------------------------------------------- */

/* Topcuoglu, Hariri, Wu, IEEE TPDS 13(3) 2002, Fig. 2: 10 tasks on 3
 * processors, costs W[task][proc] and edge communication costs. */
static const double W[10][3] = {
    {14, 16, 9}, {13, 19, 18}, {11, 13, 19}, {13, 8, 17},  {12, 13, 10},
    {13, 16, 9}, {7, 15, 11},  {5, 11, 14},  {18, 12, 20}, {21, 7, 16}};
static const int E[15][3] = {{1, 2, 18},  {1, 3, 12},  {1, 4, 9},  {1, 5, 11},
                             {1, 6, 14},  {2, 8, 19},  {2, 9, 16}, {3, 7, 23},
                             {4, 8, 27},  {4, 9, 23},  {5, 9, 13}, {6, 8, 15},
                             {7, 10, 17}, {8, 10, 11}, {9, 10, 13}};

static hcrt__taskgraph_t *topcuoglu(hcrt__heft_cost_t **cm)
{
    hcrt__taskgraph_t *g;
    OK(hcrt__taskgraph_create(3, &g));
    OK(hcrt__heft_cost_create(3, cm));
    for (int i = 0; i < 10; i++)
        OK(hcrt__taskgraph_add_task_costs(g, W[i], NULL));
    for (int i = 0; i < 15; i++)
        OK(hcrt__taskgraph_add_edge(g, E[i][0] - 1, E[i][1] - 1, 0, E[i][2]));
    return g;
}

static void test_topcuoglu(void)
{
    /* published upward ranks and the HEFT schedule (Fig. 3(a)) */
    static const double rank[10] = {108.000, 77.000, 80.000, 80.000, 69.000,
                                    63.333,  42.667, 35.667, 44.333, 14.667};
    static const int proc[10] = {3, 1, 3, 2, 3, 2, 3, 1, 2, 2};
    static const double start[10] = {0, 27, 9, 18, 28, 26, 38, 57, 56, 73};
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g = topcuoglu(&cm);
    hcrt__heft_schedule_t s;
    double r[10];
    OK(hcrt__heft_upward_ranks(g, cm, r));
    for (int i = 0; i < 10; i++)
        CHECK_NEAR(r[i], rank[i]);
    CHECK_NEAR(run(&hcrt__heft_policy_heft, g, cm, &s), 80.0);
    for (int i = 0; i < 10; i++) {
        CHECK(s.node[i] == proc[i] - 1);
        CHECK_NEAR(s.start[i], start[i]);
        CHECK_NEAR(s.rank[i], rank[i]);
    }
    hcrt__heft_schedule_fini(&s);
    /* HEFT beats both baselines on its own example */
    double rr = makespan(&hcrt__heft_policy_rr, g, cm);
    double loc = makespan(&hcrt__heft_policy_locality, g, cm);
    CHECK(80.0 < rr);
    CHECK(80.0 < loc);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* The checker must reject a schedule that breaks a dependence or overlaps
 * two tasks, or the other tests prove nothing. */
static void test_checker(void)
{
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g = topcuoglu(&cm);
    hcrt__heft_schedule_t s;
    run(&hcrt__heft_policy_heft, g, cm, &s);
    s.start[9] -= 1; /* n10 before its input arrives */
    s.finish[9] -= 1;
    CHECK(hcrt__heft_schedule_check(g, cm, &s, NULL, 0) == HCRT_ERR_INVALID);
    s.start[9] += 1;
    s.finish[9] += 1;
    CHECK(hcrt__heft_schedule_check(g, cm, &s, NULL, 0) == HCRT_OK);
    s.node[4] = 1; /* n5 onto P2, over n6 [26, 42) */
    s.start[4] = 30;
    s.finish[4] = 43;
    CHECK(hcrt__heft_schedule_check(g, cm, &s, NULL, 0) == HCRT_ERR_INVALID);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* ---- degenerate graphs ------------------------------------------------- */

static void test_degenerate(void)
{
    hcrt__heft_cost_t *cm, *cm1;
    hcrt__taskgraph_t *g, *g1;
    OK(hcrt__heft_cost_create(3, &cm));
    OK(hcrt__taskgraph_create(3, &g));
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++) /* empty graph */
        CHECK(makespan(hcrt__heft_policy(i), g, cm) == 0.0);
    double c[3] = {5, 2, 7};
    OK(hcrt__taskgraph_add_task_costs(g, c, NULL)); /* one task */
    CHECK_NEAR(makespan(&hcrt__heft_policy_heft, g, cm), 2.0);
    for (int i = 0; i < 5; i++) /* no edges: HEFT spreads them */
        OK(hcrt__taskgraph_add_task_costs(g, c, NULL));
    double h = makespan(&hcrt__heft_policy_heft, g, cm);
    CHECK(h < 6 * 2.0);
    CHECK(h >= 2.0 * 6 / 3);
    /* one node: every policy runs the tasks back to back, no transfers */
    OK(hcrt__heft_cost_create(1, &cm1));
    OK(hcrt__taskgraph_create(1, &g1));
    double one = 4;
    int32_t a, b;
    OK(hcrt__taskgraph_add_task_costs(g1, &one, &a));
    OK(hcrt__taskgraph_add_task_costs(g1, &one, &b));
    OK(hcrt__taskgraph_add_edge(g1, a, b, 1 << 20, -1));
    OK(hcrt__taskgraph_add_edge(g1, a, b, 0, 99));
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++)
        CHECK_NEAR(makespan(hcrt__heft_policy(i), g1, cm1), 8.0);
    double r[2];
    OK(hcrt__heft_upward_ranks(g1, cm1, r));
    CHECK_NEAR(r[0], 8.0); /* one node: mean transfer cost is zero */
    hcrt__taskgraph_destroy(g);
    hcrt__taskgraph_destroy(g1);
    hcrt__heft_cost_destroy(cm);
    hcrt__heft_cost_destroy(cm1);
}

/* A task waiting for a remote input leaves a gap on node 0 that a later,
 * lower-ranked task fills (the paper's insertion-based policy). */
static void test_insertion(void)
{
    static const double c0[2] = {1, 1000}, c1[2] = {1000, 1};
    static const double c2[2] = {5, 1000}, c3[2] = {4, 1000};
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    hcrt__heft_schedule_t s;
    int32_t t0, t1, t2, t3;
    OK(hcrt__heft_cost_create(2, &cm));
    OK(hcrt__taskgraph_create(2, &g));
    OK(hcrt__taskgraph_add_task_costs(g, c0, &t0));
    OK(hcrt__taskgraph_add_task_costs(g, c1, &t1));
    OK(hcrt__taskgraph_add_task_costs(g, c2, &t2));
    OK(hcrt__taskgraph_add_task_costs(g, c3, &t3));
    OK(hcrt__taskgraph_add_edge(g, t0, t2, 0, 1));
    OK(hcrt__taskgraph_add_edge(g, t1, t2, 0, 10));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK(s.node[t2] == 0 && s.start[t2] == 11.0); /* waits for t1's data */
    CHECK(s.node[t3] == 0 && s.start[t3] == 1.0);  /* inserted in the gap */
    CHECK_NEAR(s.makespan, 16.0);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* Work placed before the graph (a live engine's earlier batch) keeps a node
 * busy: HEFT starts nothing there before it ends, goes elsewhere while
 * that finishes earlier, and clearing the graph forgets it. */
static void test_busy_nodes(void)
{
    static const double c[2] = {10, 10};
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    hcrt__heft_schedule_t s;
    int32_t t;
    OK(hcrt__heft_cost_create(2, &cm));
    OK(hcrt__taskgraph_create(2, &g));
    for (int k = 0; k < 4; k++)
        OK(hcrt__taskgraph_add_task_costs(g, c, &t));
    run(&hcrt__heft_policy_heft, g, cm, &s); /* idle nodes: two each */
    CHECK_NEAR(s.makespan, 20.0);
    hcrt__heft_schedule_fini(&s);
    OK(hcrt__taskgraph_set_busy(g, 0, 100.0));
    run(&hcrt__heft_policy_heft, g, cm, &s); /* node 0 busy: all on 1 */
    for (int32_t k = 0; k < 4; k++)
        CHECK(s.node[k] == 1);
    CHECK_NEAR(s.makespan, 40.0);
    hcrt__heft_schedule_fini(&s);
    OK(hcrt__taskgraph_set_busy(g, 0, 15.0));
    run(&hcrt__heft_policy_heft, g, cm, &s); /* three on 1, one at 15 on 0 */
    for (int32_t k = 0; k < 4; k++)
        CHECK(s.node[k] == 1 || s.start[k] >= 15.0);
    CHECK_NEAR(s.makespan, 30.0);
    hcrt__heft_schedule_fini(&s);
    CHECK(hcrt__taskgraph_set_busy(g, 2, 1.0) == HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_set_busy(g, 0, -1.0) == HCRT_ERR_INVALID);
    hcrt__taskgraph_clear(g);
    for (int k = 0; k < 4; k++)
        OK(hcrt__taskgraph_add_task_costs(g, c, &t));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK_NEAR(s.makespan, 20.0);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* ---- cost model ------------------------------------------------------- */

static void test_ewma(void)
{
    hcrt__heft_cost_t *cm;
    OK(hcrt__heft_cost_create(2, &cm));
    OK(hcrt__heft_cost_set_alpha(cm, 0.5));
    CHECK(hcrt__heft_cost_samples(cm, 42, 0) == 0);
    OK(hcrt__heft_cost_observe(cm, 42, 0, 10.0));
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 42, 0), 10.0); /* first sample */
    OK(hcrt__heft_cost_observe(cm, 42, 0, 20.0));
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 42, 0), 15.0); /* 0.5 * 20 + 0.5*10 */
    for (int i = 0; i < 60; i++) /* the kernel got faster: estimate follows */
        OK(hcrt__heft_cost_observe(cm, 42, 0, 7.0));
    CHECK(fabs(hcrt__heft_cost_exec(cm, 42, 0) - 7.0) < 1e-9);
    CHECK(hcrt__heft_cost_samples(cm, 42, 0) == 62);
    /* alpha 1 keeps only the last run */
    OK(hcrt__heft_cost_set_alpha(cm, 1.0));
    OK(hcrt__heft_cost_observe(cm, 42, 0, 3.0));
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 42, 0), 3.0);
    CHECK(hcrt__heft_cost_set_alpha(cm, 0.0) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_cost_set_alpha(cm, 1.5) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_cost_observe(cm, 42, 2, 1.0) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_cost_observe(cm, 42, 0, -1.0) == HCRT_ERR_INVALID);
    hcrt__heft_cost_destroy(cm);
}

static void test_unknown_kernel(void)
{
    hcrt__heft_cost_t *cm;
    OK(hcrt__heft_cost_create(3, &cm));
    OK(hcrt__heft_cost_set_default_time(cm, 0.5));
    OK(hcrt__heft_cost_set_speed(cm, 2, 2.0));
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 7, 0), 0.5);  /* never seen */
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 7, 2), 0.25); /* twice as fast */
    /* seen on node 2 only: others get its speed-normalised time */
    OK(hcrt__heft_cost_observe(cm, 7, 2, 3.0));
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 7, 2), 3.0);
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 7, 0), 6.0);
    CHECK_NEAR(hcrt__heft_cost_exec(cm, 8, 1), 0.5); /* others unaffected */
    CHECK(hcrt__heft_cost_set_speed(cm, 0, 0.0) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_cost_set_default_time(cm, -1) == HCRT_ERR_INVALID);
    /* transfers: zero on one node, latency + bytes / bandwidth elsewhere */
    OK(hcrt__heft_cost_set_uniform_link(cm, 1e-6, 1e9));
    CHECK(hcrt__heft_cost_comm(cm, 1, 1, 1 << 30) == 0.0);
    CHECK_NEAR(hcrt__heft_cost_comm(cm, 0, 1, 1000000000) * 1e3, 1000.001);
    OK(hcrt__heft_cost_set_link(cm, 0, 2, 1.0, 10.0));
    CHECK_NEAR(hcrt__heft_cost_comm(cm, 0, 2, 100), 11.0);
    CHECK_NEAR(hcrt__heft_cost_comm(cm, 2, 0, 1000000000) * 1e3, 1000.001);
    CHECK(hcrt__heft_cost_set_link(cm, 1, 1, 1, 1) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_cost_set_link(cm, 0, 1, 1, 0) == HCRT_ERR_INVALID);
    hcrt__heft_cost_destroy(cm);
}

/* What the runtime does between graphs: a kernel first placed with the
 * default estimate moves once runs show which node is faster for it. */
static void test_learning_moves_tasks(void)
{
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    hcrt__heft_schedule_t s;
    OK(hcrt__heft_cost_create(4, &cm));
    OK(hcrt__taskgraph_create(4, &g));
    OK(hcrt__taskgraph_add_task(g, 99, 1.0, NULL));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK(s.node[0] == 0);        /* all equal: the lowest node */
    CHECK_NEAR(s.makespan, 1e-3); /* the default time */
    hcrt__heft_schedule_fini(&s);
    for (int p = 0; p < 4; p++)
        for (int i = 0; i < 5; i++)
            OK(hcrt__heft_cost_observe(cm, 99, p, p == 3 ? 0.1 : 0.4));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK(s.node[0] == 3);
    CHECK_NEAR(s.makespan, 0.1);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* Mean transfer cost over node pairs of a link matrix enters the ranks. */
static void test_link_matrix_rank(void)
{
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    int32_t a, b;
    double r[2], c[3] = {3, 3, 3};
    OK(hcrt__heft_cost_create(3, &cm));
    OK(hcrt__taskgraph_create(3, &g));
    OK(hcrt__heft_cost_set_uniform_link(cm, 1.0, 100.0));
    OK(hcrt__heft_cost_set_link(cm, 0, 1, 4.0, 50.0)); /* one slow link */
    OK(hcrt__taskgraph_add_task_costs(g, c, &a));
    OK(hcrt__taskgraph_add_task_costs(g, c, &b));
    OK(hcrt__taskgraph_add_edge(g, a, b, 100, -1));
    OK(hcrt__heft_upward_ranks(g, cm, r));
    /* 6 ordered pairs: latency mean (5*1 + 4)/6, 1/bw mean (5/100+1/50)/6 */
    CHECK_NEAR(r[0], 3 + 9.0 / 6 + 100 * (0.07 / 6) + 3);
    CHECK_NEAR(r[1], 3.0);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* ---- data, pins, policies --------------------------------------------- */

/* A big input on node 2: locality and HEFT go there, round-robin does not
 * care and pays for the transfer. */
static void test_data_locality(void)
{
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    hcrt__heft_schedule_t s;
    int holder = 2;
    int32_t d, t;
    OK(hcrt__heft_cost_create(3, &cm));
    OK(hcrt__heft_cost_set_uniform_link(cm, 0.0, 1e6));
    OK(hcrt__taskgraph_create(3, &g));
    OK(hcrt__taskgraph_add_data(g, 10000000, &holder, 1, &d)); /* 10 s */
    OK(hcrt__taskgraph_add_task(g, 5, 1.0, &t));
    OK(hcrt__taskgraph_add_access(g, t, d, HCRT_TG_READ));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK(s.node[t] == 2 && s.start[t] == 0.0);
    hcrt__heft_schedule_fini(&s);
    run(&hcrt__heft_policy_locality, g, cm, &s);
    CHECK(s.node[t] == 2);
    hcrt__heft_schedule_fini(&s);
    run(&hcrt__heft_policy_rr, g, cm, &s);
    CHECK(s.node[t] == 0 && s.start[t] >= 10.0);
    hcrt__heft_schedule_fini(&s);
    /* once a task of the graph wrote it, the old copy is not an input */
    int32_t w, r2;
    OK(hcrt__taskgraph_add_task(g, 5, 1.0, &w));
    OK(hcrt__taskgraph_add_task(g, 5, 1.0, &r2));
    OK(hcrt__taskgraph_pin(g, w, 0));
    OK(hcrt__taskgraph_add_access(g, w, d, HCRT_TG_WRITE));
    OK(hcrt__taskgraph_add_access(g, r2, d, HCRT_TG_READ));
    OK(hcrt__taskgraph_add_edge(g, w, r2, 10000000, -1));
    run(&hcrt__heft_policy_heft, g, cm, &s);
    CHECK(s.node[w] == 0 && s.node[r2] == 0);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

static void test_pins(void)
{
    sim_gen_opts_t o = {.family = "random",
                        .tasks = 300,
                        .nodes = 8,
                        .seed = 3,
                        .ccr = 1,
                        .het = 0.5,
                        .kernels = 3};
    sim_graph_t sg;
    char err[256];
    CHECK(sim_generate(&o, &sg, err, sizeof(err)) == 0);
    for (int32_t t = 0; t < hcrt__taskgraph_ntasks(sg.g); t += 7)
        OK(hcrt__taskgraph_pin(sg.g, t, 0)); /* "OpenMP tasks on the head" */
    CHECK(hcrt__taskgraph_pin(sg.g, 0, 8) == HCRT_ERR_INVALID);
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++) {
        hcrt__heft_schedule_t s;
        run(hcrt__heft_policy(i), sg.g, sg.cm, &s); /* checks the pins */
        for (int32_t t = 0; t < s.ntasks; t += 7)
            CHECK(s.node[t] == 0);
        hcrt__heft_schedule_fini(&s);
    }
    sim_graph_fini(&sg);
}

/* Every family, every policy: valid schedules, identical when repeated or
 * regenerated from the same seed, and HEFT at least as good as
 * round-robin on these (fixed-seed) instances. */
static void test_families_deterministic(void)
{
    static const char *fam[] = {"chain",   "fanout",   "fanin",
                                "diamond", "stencil",  "tree",
                                "fft",     "alltoall", "random"};
    for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
        sim_gen_opts_t o = {.family = fam[f],
                            .tasks = 1500,
                            .nodes = 16,
                            .seed = 11,
                            .ccr = 1,
                            .het = 0.5,
                            .kernels = 4};
        sim_graph_t a, b;
        char err[256];
        double span[HCRT_SCHED_TASK_NPOLICIES];
        CHECK(sim_generate(&o, &a, err, sizeof(err)) == 0);
        CHECK(sim_generate(&o, &b, err, sizeof(err)) == 0);
        for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++) {
            hcrt__heft_schedule_t s1, s2, s3;
            span[i] = run(hcrt__heft_policy(i), a.g, a.cm, &s1);
            run(hcrt__heft_policy(i), a.g, a.cm, &s2);
            run(hcrt__heft_policy(i), b.g, b.cm, &s3);
            size_t n = sizeof(double) * s1.ntasks;
            CHECK(memcmp(s1.node, s2.node, sizeof(int32_t) * s1.ntasks) == 0);
            CHECK(memcmp(s1.start, s2.start, n) == 0);
            CHECK(memcmp(s1.node, s3.node, sizeof(int32_t) * s1.ntasks) == 0);
            CHECK(memcmp(s1.finish, s3.finish, n) == 0);
            hcrt__heft_schedule_fini(&s1);
            hcrt__heft_schedule_fini(&s2);
            hcrt__heft_schedule_fini(&s3);
        }
        if (!(span[HCRT_SCHED_TASK_HEFT] <= span[HCRT_SCHED_TASK_RR]))
            fprintf(stderr, "%s: heft %g > rr %g\n", fam[f],
                    span[HCRT_SCHED_TASK_HEFT], span[HCRT_SCHED_TASK_RR]);
        CHECK(span[HCRT_SCHED_TASK_HEFT] <= span[HCRT_SCHED_TASK_RR]);
        sim_graph_fini(&a);
        sim_graph_fini(&b);
    }
}

/* The uniform-link shortcut for data-ready times must agree with the exact
 * per-node computation: the same links given as a matrix take the slow path
 * and must produce the very same schedules. */
static void test_fast_path(void)
{
    static const char *fam[] = {"random", "fanin", "alltoall", "stencil"};
    for (size_t f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
        sim_gen_opts_t o = {.family = fam[f],
                            .tasks = 800,
                            .nodes = 12,
                            .seed = 21,
                            .ccr = 2,
                            .het = 0.8,
                            .kernels = 3};
        sim_graph_t a, b;
        char err[256];
        CHECK(sim_generate(&o, &a, err, sizeof(err)) == 0);
        CHECK(sim_generate(&o, &b, err, sizeof(err)) == 0);
        double lat = hcrt__heft_cost_comm(b.cm, 0, 1, 0);
        double bw = 1e6 / (hcrt__heft_cost_comm(b.cm, 0, 1, 1000000) - lat);
        OK(hcrt__heft_cost_set_link(b.cm, 0, 1, lat, bw)); /* matrix mode */
        for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++) {
            hcrt__heft_schedule_t s1, s2;
            run(hcrt__heft_policy(i), a.g, a.cm, &s1);
            run(hcrt__heft_policy(i), b.g, b.cm, &s2);
            int same = 1;
            for (int32_t t = 0; t < s1.ntasks; t++)
                same &=
                    s1.node[t] == s2.node[t] &&
                    fabs(s1.start[t] - s2.start[t]) <= 1e-9 * (1 + s1.start[t]);
            if (!same)
                fprintf(stderr, "%s/%s: uniform and matrix links differ\n",
                        fam[f], hcrt__heft_policy(i)->name);
            CHECK(same);
            hcrt__heft_schedule_fini(&s1);
            hcrt__heft_schedule_fini(&s2);
        }
        sim_graph_fini(&a);
        sim_graph_fini(&b);
    }
}

static void test_bad_input(void)
{
    hcrt__heft_cost_t *cm;
    hcrt__taskgraph_t *g;
    hcrt__heft_schedule_t s;
    double c[2] = {1, 1}, neg[2] = {1, -1};
    int32_t a, b;
    int bad_holder = 5;
    OK(hcrt__heft_cost_create(3, &cm));
    OK(hcrt__taskgraph_create(2, &g));
    CHECK(hcrt__taskgraph_create(0, &g) == HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_add_task_costs(g, neg, NULL) == HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_add_task(g, 1, -2.0, NULL) == HCRT_ERR_INVALID);
    OK(hcrt__taskgraph_add_task_costs(g, c, &a));
    OK(hcrt__taskgraph_add_task_costs(g, c, &b));
    CHECK(hcrt__taskgraph_add_edge(g, a, a, 0, 1) == HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_add_edge(g, a, 7, 0, 1) == HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_add_data(g, 8, &bad_holder, 1, NULL) ==
          HCRT_ERR_INVALID);
    CHECK(hcrt__taskgraph_add_access(g, a, 0, HCRT_TG_READ) ==
          HCRT_ERR_INVALID);
    OK(hcrt__heft_schedule_init(&s, 2));
    /* a model for 3 nodes cannot place a graph for 2 */
    CHECK(hcrt__heft_policy_heft.schedule(g, cm, &s) == HCRT_ERR_INVALID);
    hcrt__heft_cost_destroy(cm);
    OK(hcrt__heft_cost_create(2, &cm));
    hcrt__heft_schedule_t s5; /* sized for another graph */
    OK(hcrt__heft_schedule_init(&s5, 5));
    CHECK(hcrt__heft_policy_rr.schedule(g, cm, &s5) == HCRT_ERR_INVALID);
    hcrt__heft_schedule_fini(&s5);
    CHECK(hcrt__heft_policy_rr.schedule(g, cm, &s) == HCRT_OK);
    OK(hcrt__taskgraph_add_edge(g, a, b, 0, 1));
    OK(hcrt__taskgraph_add_edge(g, b, a, 0, 1)); /* a cycle */
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++)
        CHECK(hcrt__heft_policy(i)->schedule(g, cm, &s) == HCRT_ERR_INVALID);
    CHECK(hcrt__heft_policy_find("heft") == &hcrt__heft_policy_heft);
    CHECK(hcrt__heft_policy_find("locality") == &hcrt__heft_policy_locality);
    CHECK(hcrt__heft_policy_find("fifo") == NULL);
    hcrt__heft_schedule_fini(&s);
    hcrt__taskgraph_destroy(g);
    hcrt__heft_cost_destroy(cm);
}

/* 10^5 tasks on 1024 nodes within a time bound (the OMPC use case: the
 * graph is scheduled while the program waits). */
static void test_large(void)
{
    sim_gen_opts_t o = {.family = "random",
                        .tasks = 100000,
                        .nodes = 1024,
                        .seed = 5,
                        .ccr = 1,
                        .het = 0.5,
                        .kernels = 4};
    sim_graph_t sg;
    char err[256];
    struct timespec t0, t1;
    CHECK(sim_generate(&o, &sg, err, sizeof(err)) == 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    double h = makespan(&hcrt__heft_policy_heft, sg.g, sg.cm);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double sec = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("large: heft on %d tasks, 1024 nodes: makespan %.1f, %.2f s CPU "
           "(with the check)\n",
           hcrt__taskgraph_ntasks(sg.g), h, sec);
    CHECK(sec < 20.0);
    CHECK(h > 0 && h < makespan(&hcrt__heft_policy_rr, sg.g, sg.cm));
    sim_graph_fini(&sg);
}

static const check_case_t tests[] = {
    {"topcuoglu", test_topcuoglu},
    {"checker", test_checker},
    {"degenerate", test_degenerate},
    {"insertion", test_insertion},
    {"busy_nodes", test_busy_nodes},
    {"ewma", test_ewma},
    {"unknown_kernel", test_unknown_kernel},
    {"learning", test_learning_moves_tasks},
    {"link_matrix", test_link_matrix_rank},
    {"data_locality", test_data_locality},
    {"pins", test_pins},
    {"families", test_families_deterministic},
    {"fast_path", test_fast_path},
    {"bad_input", test_bad_input},
    {"large", test_large},
    {NULL, NULL},
};

int main(int argc, char **argv)
{
    return check_run(argc, argv, tests);
}
