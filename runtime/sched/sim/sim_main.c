/*
 * sim_main.c - hcrt-sched-sim: schedules one task graph with each placement
 * policy of runtime/sched and prints the makespans, so HEFT can be studied
 * (and tested) at node counts this machine does not have.
 *
 *   hcrt-sched-sim [options] FILE            graph + cost model from a file
 *   hcrt-sched-sim [options] --gen FAMILY    a synthetic graph
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

typedef struct opts {
    const char *file;
    sim_gen_opts_t gen;
    int use_gen;
    int pol[HCRT_SCHED_TASK_NPOLICIES]; /* which policies, in print order */
    int npol;
    int schedule, ranks, check, csv;
} opts_t;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hcrt-sched-sim [options] FILE\n"
            "       hcrt-sched-sim [options] --gen FAMILY\n"
            "Schedules a task graph with each task placement policy and\n"
            "prints the makespans (file format: docs/heft.md).\n"
            "  FILE           graph + cost model ('-' reads stdin)\n"
            "  --gen FAMILY   synthetic graph: %s\n"
            "  --tasks N      about N tasks (default 1000)\n"
            "  --nodes P      P nodes (default 16)\n"
            "  --seed S       random seed (default 1)\n"
            "  --ccr R        mean transfer / mean run time (default 1)\n"
            "  --het H        node heterogeneity in [0, 2) (default 0.5)\n"
            "  --kernels K    distinct kernels (default 4)\n"
            "  --width W      stencil/alltoall/random width (default auto)\n"
            "  --policy LIST  comma list of heft,rr,locality (default all)\n"
            "  --schedule     print every task's node, start and finish\n"
            "  --ranks        print HEFT's upward rank of every task\n"
            "  --check        verify every schedule; exit 1 if one is wrong\n"
            "  --csv          print graph,nodes,tasks,policy,makespan,ms\n",
            sim_gen_families);
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "hcrt-sched-sim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    return -1;
}

static int parse_num(const char *opt, const char *s, double lo, double hi,
                     double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s ? s : "", &end);
    if (s == NULL || *end != '\0' || errno != 0 || !(v >= lo && v <= hi)) {
        fprintf(stderr,
                "hcrt-sched-sim: %s needs a number in [%g, %g], got '%s'\n",
                opt, lo, hi, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_policies(opts_t *o, char *list)
{
    char *save = NULL;
    o->npol = 0;
    for (char *w = strtok_r(list, ",", &save); w != NULL;
         w = strtok_r(NULL, ",", &save)) {
        int id = -1;
        for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++)
            if (strcmp(hcrt__heft_policy(i)->name, w) == 0)
                id = i;
        if (id < 0)
            return bad("unknown policy '%s' (known: heft, rr, locality)", w);
        if (o->npol < HCRT_SCHED_TASK_NPOLICIES)
            o->pol[o->npol++] = id;
    }
    return o->npol > 0 ? 0 : bad("%s", "--policy needs at least one name");
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    o->gen = (sim_gen_opts_t){.tasks = 1000,
                              .nodes = 16,
                              .seed = 1,
                              .ccr = 1.0,
                              .het = 0.5,
                              .kernels = 4};
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++)
        o->pol[o->npol++] = i;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        int rc = 0, takes = 1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--gen") == 0) {
            o->use_gen = v != NULL;
            o->gen.family = v;
            rc = v ? 0 : bad("%s needs a family name", a);
        } else if (strcmp(a, "--tasks") == 0) {
            rc = parse_num(a, v, 1, 1e9, &x);
            o->gen.tasks = (int64_t)x;
        } else if (strcmp(a, "--nodes") == 0) {
            rc = parse_num(a, v, 1, 1 << 20, &x);
            o->gen.nodes = (int)x;
        } else if (strcmp(a, "--seed") == 0) {
            rc = parse_num(a, v, 0, 1e18, &x);
            o->gen.seed = (uint64_t)x;
        } else if (strcmp(a, "--ccr") == 0) {
            rc = parse_num(a, v, 0, 1e6, &o->gen.ccr);
        } else if (strcmp(a, "--het") == 0) {
            rc = parse_num(a, v, 0, 1.99, &o->gen.het);
        } else if (strcmp(a, "--kernels") == 0) {
            rc = parse_num(a, v, 1, 1e6, &x);
            o->gen.kernels = (int)x;
        } else if (strcmp(a, "--width") == 0) {
            rc = parse_num(a, v, 1, 1e9, &x);
            o->gen.width = (int)x;
        } else if (strcmp(a, "--policy") == 0) {
            rc = v ? parse_policies(o, argv[i + 1]) : bad("%s needs a list", a);
        } else {
            takes = 0;
            if (strcmp(a, "--schedule") == 0)
                o->schedule = 1;
            else if (strcmp(a, "--ranks") == 0)
                o->ranks = 1;
            else if (strcmp(a, "--check") == 0)
                o->check = 1;
            else if (strcmp(a, "--csv") == 0)
                o->csv = 1;
            else if (a[0] == '-' && a[1] != '\0')
                rc = bad("unknown option '%s'", a);
            else if (o->file != NULL)
                rc = bad("more than one graph file ('%s')", a);
            else
                o->file = a;
        }
        if (rc < 0)
            return -1;
        i += takes;
    }
    if ((o->file != NULL) == o->use_gen)
        return bad("%s", "give either a graph FILE or --gen FAMILY");
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void print_schedule(const sim_graph_t *sg, const char *policy,
                           const hcrt__heft_schedule_t *s)
{
    for (int32_t t = 0; t < s->ntasks; t++)
        printf("%s task %lld node %d start %.3f finish %.3f\n", policy,
               (long long)sg->label[t], s->node[t], s->start[t], s->finish[t]);
}

/* Runs one policy; returns its makespan, or -1 after printing why. */
static double run_policy(const opts_t *o, const sim_graph_t *sg, int id,
                         int *failed)
{
    const hcrt_sched_policy_ops_t *ops = hcrt__heft_policy(id);
    hcrt__heft_schedule_t s;
    char why[256];
    if (hcrt__heft_schedule_init(&s, hcrt__taskgraph_ntasks(sg->g)) !=
        HCRT_OK) {
        fprintf(stderr, "hcrt-sched-sim: out of memory\n");
        *failed = 2;
        return -1;
    }
    double t0 = now_ms();
    hcrt_status_t st = ops->schedule(sg->g, sg->cm, &s);
    double ms = now_ms() - t0, span = s.makespan;
    if (st != HCRT_OK) {
        fprintf(stderr, "hcrt-sched-sim: %s: %s\n", ops->name,
                st == HCRT_ERR_NOMEM ? "out of memory"
                                     : "the graph has a cycle: tasks depend "
                                       "on each other in a loop");
        *failed = 2;
        hcrt__heft_schedule_fini(&s);
        return -1;
    }
    if (o->check && hcrt__heft_schedule_check(sg->g, sg->cm, &s, why,
                                              sizeof(why)) != HCRT_OK) {
        fprintf(stderr, "hcrt-sched-sim: %s: invalid schedule: %s\n", ops->name,
                why);
        *failed = 1;
    }
    if (o->ranks && s.rank != NULL)
        for (int32_t t = 0; t < s.ntasks; t++)
            printf("rank task %lld %.3f\n", (long long)sg->label[t], s.rank[t]);
    if (o->schedule)
        print_schedule(sg, ops->name, &s);
    if (o->csv)
        printf("%s,%d,%d,%s,%.6g,%.3f\n", sg->name,
               hcrt__taskgraph_nnodes(sg->g), s.ntasks, ops->name, span, ms);
    else
        printf("%-9s %14.3f %8.3f ms\n", ops->name, span, ms);
    hcrt__heft_schedule_fini(&s);
    return span;
}

static int run_all(const opts_t *o, const sim_graph_t *sg)
{
    double span[HCRT_SCHED_TASK_NPOLICIES];
    int failed = 0;
    if (!o->csv) {
        printf("graph %s: %d tasks, %lld edges, %d nodes\n", sg->name,
               hcrt__taskgraph_ntasks(sg->g),
               (long long)hcrt__taskgraph_nedges(sg->g),
               hcrt__taskgraph_nnodes(sg->g));
        printf("%-9s %14s %11s\n", "policy", "makespan", "sched-time");
    }
    for (int i = 0; i < HCRT_SCHED_TASK_NPOLICIES; i++)
        span[i] = -1;
    for (int i = 0; i < o->npol && failed != 2; i++)
        span[o->pol[i]] = run_policy(o, sg, o->pol[i], &failed);
    double h = span[HCRT_SCHED_TASK_HEFT];
    int others = o->npol - (h >= 0);
    if (!o->csv && failed != 2 && h > 0 && others > 0) {
        printf("heft gain:");
        for (int i = 1; i < HCRT_SCHED_TASK_NPOLICIES; i++)
            if (span[i] >= 0)
                printf(" %.3fx vs %s", span[i] / h, hcrt__heft_policy(i)->name);
        printf("\n");
    }
    return failed;
}

int main(int argc, char **argv)
{
    opts_t o = {0};
    sim_graph_t sg;
    char err[512];
    if (parse_args(argc, argv, &o) < 0)
        return 2;
    int rc = o.use_gen ? sim_generate(&o.gen, &sg, err, sizeof(err))
                       : sim_parse_file(o.file, &sg, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "hcrt-sched-sim: %s\n", err);
        return 2;
    }
    rc = run_all(&o, &sg);
    sim_graph_fini(&sg);
    return rc;
}
