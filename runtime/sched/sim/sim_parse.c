/*
 * sim_parse.c - the simulator's text format: one directive per line, '#'
 * starts a comment. Task and data ids are the user's integers (the
 * published HEFT example numbers its tasks from 1). See docs/heft.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched_int.h"
#include "sim.h"

#define MAXNODES (1 << 20)

typedef struct parser {
    sim_graph_t *sg;
    const char *path;
    int line;
    char **tok; /* fields of the current line */
    int ntok;
    int64_t tcap;
    double *row;              /* [nodes] scratch for cost rows and holders */
    hcrt__kmap_t tasks, data; /* user id -> dense id */
    char *err;
    size_t len;
} parser_t;

static int perr(parser_t *ps, const char *fmt, ...)
{
    int n = snprintf(ps->err, ps->len, "%s:%d: ", ps->path, ps->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < ps->len)
        vsnprintf(ps->err + n, ps->len - n, fmt, ap);
    va_end(ap);
    return -1;
}

static int num(parser_t *ps, int i, double *out)
{
    char *end;
    if (i >= ps->ntok)
        return perr(ps, "'%s' needs more values (see docs/heft.md)",
                    ps->tok[0]);
    errno = 0;
    *out = strtod(ps->tok[i], &end);
    if (*end != '\0' || errno != 0 || *out != *out)
        return perr(ps, "'%s' is not a number", ps->tok[i]);
    return 0;
}

static int integer(parser_t *ps, int i, int64_t *out)
{
    char *end;
    if (i >= ps->ntok)
        return perr(ps, "'%s' needs more values (see docs/heft.md)",
                    ps->tok[0]);
    errno = 0;
    long long v = strtoll(ps->tok[i], &end, 0);
    if (*end != '\0' || errno != 0 || v < 0)
        return perr(ps, "'%s' is not a non-negative integer", ps->tok[i]);
    *out = v;
    return 0;
}

static int node_arg(parser_t *ps, int i, int *out)
{
    int64_t v;
    if (integer(ps, i, &v) < 0)
        return -1;
    if (v >= hcrt__heft_cost_nnodes(ps->sg->cm))
        return perr(ps,
                    "node %lld out of range: the graph has %d nodes "
                    "(0 .. %d)",
                    (long long)v, hcrt__heft_cost_nnodes(ps->sg->cm),
                    hcrt__heft_cost_nnodes(ps->sg->cm) - 1);
    *out = (int)v;
    return 0;
}

/* Dense id of a declared task or data item. */
static int lookup(parser_t *ps, hcrt__kmap_t *m, int i, const char *what,
                  int32_t *out)
{
    int64_t id;
    if (integer(ps, i, &id) < 0)
        return -1;
    *out = hcrt__kmap_get(m, (uint64_t)id);
    if (*out < 0)
        return perr(ps,
                    "%s %lld is not declared (declare it on an earlier "
                    "line)",
                    what, (long long)id);
    return 0;
}

static int check(parser_t *ps, hcrt_status_t st, const char *what)
{
    if (st == HCRT_ERR_NOMEM)
        return perr(ps, "out of memory");
    if (st != HCRT_OK)
        return perr(ps, "invalid %s", what);
    return 0;
}

static int do_nodes(parser_t *ps)
{
    int64_t p;
    if (ps->sg->g != NULL)
        return perr(ps, "'nodes' given twice");
    if (integer(ps, 1, &p) < 0)
        return -1;
    if (p < 1 || p > MAXNODES)
        return perr(ps, "node count %lld out of range 1 .. %d", (long long)p,
                    MAXNODES);
    ps->row = malloc(sizeof(double) * p);
    if (ps->row == NULL ||
        hcrt__taskgraph_create((int)p, &ps->sg->g) != HCRT_OK ||
        hcrt__heft_cost_create((int)p, &ps->sg->cm) != HCRT_OK)
        return perr(ps, "out of memory");
    return 0;
}

static int do_task(parser_t *ps)
{
    int64_t id;
    int32_t t = -1, old;
    int P = hcrt__taskgraph_nnodes(ps->sg->g), is_new;
    hcrt_status_t st;
    if (integer(ps, 1, &id) < 0)
        return -1;
    if (ps->ntok >= 3 && strcmp(ps->tok[2], "kernel") == 0) {
        int64_t k;
        double work = 1.0;
        if (integer(ps, 3, &k) < 0)
            return -1;
        if (ps->ntok != 4 && (ps->ntok != 6 || strcmp(ps->tok[4], "work") != 0))
            return perr(ps, "expected 'task ID kernel K [work W]'");
        if (ps->ntok == 6 && num(ps, 5, &work) < 0)
            return -1;
        st = hcrt__taskgraph_add_task(ps->sg->g, (uint64_t)k, work, &t);
    } else {
        double *costs = ps->row;
        if (ps->ntok != P + 2)
            return perr(ps, "task %lld has %d costs but there are %d nodes",
                        (long long)id, ps->ntok - 2, P);
        for (int p = 0; p < P; p++)
            if (num(ps, p + 2, &costs[p]) < 0)
                return -1;
        st = hcrt__taskgraph_add_task_costs(ps->sg->g, costs, &t);
    }
    if (check(ps, st, "task (run times must be >= 0)") < 0)
        return -1;
    if (hcrt__kmap_put(&ps->tasks, (uint64_t)id, &old, &is_new) != HCRT_OK)
        return perr(ps, "out of memory");
    if (!is_new)
        return perr(ps, "task %lld declared twice", (long long)id);
    return sim_graph_label(ps->sg, id) < 0 ? perr(ps, "out of memory") : 0;
}

static int do_edge(parser_t *ps)
{
    int32_t a, b;
    double cost = -1.0, bytes = 0.0;
    if (lookup(ps, &ps->tasks, 1, "task", &a) < 0 ||
        lookup(ps, &ps->tasks, 2, "task", &b) < 0)
        return -1;
    if (ps->ntok == 5 && strcmp(ps->tok[3], "bytes") == 0) {
        if (num(ps, 4, &bytes) < 0)
            return -1;
    } else if (ps->ntok != 4 || num(ps, 3, &cost) < 0) {
        return perr(ps, "expected 'edge FROM TO COST' or "
                        "'edge FROM TO bytes B'");
    }
    if (bytes < 0 || (ps->ntok == 4 && cost < 0))
        return perr(ps, "bytes and transfer times must be >= 0");
    return check(
        ps, hcrt__taskgraph_add_edge(ps->sg->g, a, b, (uint64_t)bytes, cost),
        "edge (a task cannot depend on itself)");
}

static int do_data(parser_t *ps)
{
    int64_t id;
    double bytes;
    int *holders = (int *)ps->row; /* room for nodes ints: checked below */
    int32_t d, old;
    int is_new;
    if (integer(ps, 1, &id) < 0 || num(ps, 2, &bytes) < 0)
        return -1;
    if (ps->ntok < 4 || bytes < 0)
        return perr(ps, "expected 'data ID BYTES NODE...'");
    if (ps->ntok - 3 > hcrt__taskgraph_nnodes(ps->sg->g))
        return perr(ps, "more holders than nodes");
    for (int i = 3; i < ps->ntok; i++)
        if (node_arg(ps, i, &holders[i - 3]) < 0)
            return -1;
    if (check(ps,
              hcrt__taskgraph_add_data(ps->sg->g, (uint64_t)bytes, holders,
                                       ps->ntok - 3, &d),
              "data item") < 0)
        return -1;
    if (hcrt__kmap_put(&ps->data, (uint64_t)id, &old, &is_new) != HCRT_OK)
        return perr(ps, "out of memory");
    return is_new ? 0 : perr(ps, "data %lld declared twice", (long long)id);
}

static int do_access(parser_t *ps, hcrt__taskgraph_access_t mode)
{
    int32_t t, d;
    if (lookup(ps, &ps->tasks, 1, "task", &t) < 0 ||
        lookup(ps, &ps->data, 2, "data", &d) < 0)
        return -1;
    return check(ps, hcrt__taskgraph_add_access(ps->sg->g, t, d, mode),
                 "access");
}

static int do_link(parser_t *ps)
{
    double lat, bw;
    int a, b;
    hcrt__heft_cost_t *cm = ps->sg->cm;
    if (ps->ntok == 5 && strcmp(ps->tok[1], "latency") == 0 &&
        strcmp(ps->tok[3], "bandwidth") == 0) {
        if (num(ps, 2, &lat) < 0 || num(ps, 4, &bw) < 0)
            return -1;
        return check(ps, hcrt__heft_cost_set_uniform_link(cm, lat, bw),
                     "link (latency >= 0, bandwidth > 0)");
    }
    if (ps->ntok == 7 && strcmp(ps->tok[3], "latency") == 0 &&
        strcmp(ps->tok[5], "bandwidth") == 0) {
        if (node_arg(ps, 1, &a) < 0 || node_arg(ps, 2, &b) < 0 ||
            num(ps, 4, &lat) < 0 || num(ps, 6, &bw) < 0)
            return -1;
        return check(ps, hcrt__heft_cost_set_link(cm, a, b, lat, bw),
                     "link (distinct nodes, latency >= 0, bandwidth > 0)");
    }
    return perr(ps, "expected 'link latency L bandwidth B' or "
                    "'link FROM TO latency L bandwidth B'");
}

static int do_model(parser_t *ps)
{
    hcrt__heft_cost_t *cm = ps->sg->cm;
    const char *w = ps->tok[0];
    int P = hcrt__heft_cost_nnodes(cm), node;
    double v;
    int64_t k;
    if (strcmp(w, "speed") == 0) {
        if (ps->ntok != P + 1)
            return perr(ps, "'speed' needs one factor per node (%d)", P);
        for (int p = 0; p < P; p++)
            if (num(ps, p + 1, &v) < 0 ||
                check(ps, hcrt__heft_cost_set_speed(cm, p, v),
                      "speed (must be > 0)") < 0)
                return -1;
        return 0;
    }
    if (strcmp(w, "default-time") == 0)
        return num(ps, 1, &v) < 0
                   ? -1
                   : check(ps, hcrt__heft_cost_set_default_time(cm, v),
                           "default-time (must be >= 0)");
    if (strcmp(w, "alpha") == 0)
        return num(ps, 1, &v) < 0 ? -1
                                  : check(ps, hcrt__heft_cost_set_alpha(cm, v),
                                          "alpha (must be in (0, 1])");
    if (strcmp(w, "kernel") == 0) { /* kernel K t0 .. tP-1 */
        if (integer(ps, 1, &k) < 0)
            return -1;
        if (ps->ntok != P + 2)
            return perr(ps, "'kernel' needs one time per node (%d)", P);
        for (int p = 0; p < P; p++)
            if (num(ps, p + 2, &v) < 0 ||
                check(ps, hcrt__heft_cost_set_exec(cm, (uint64_t)k, p, v),
                      "kernel time (must be >= 0)") < 0)
                return -1;
        return 0;
    }
    /* observe K NODE T: one measured run, learned with the EWMA */
    if (integer(ps, 1, &k) < 0 || node_arg(ps, 2, &node) < 0 ||
        num(ps, 3, &v) < 0)
        return -1;
    return check(ps, hcrt__heft_cost_observe(cm, (uint64_t)k, node, v),
                 "observed time (must be >= 0)");
}

static int do_line(parser_t *ps)
{
    const char *w = ps->tok[0];
    if (strcmp(w, "nodes") == 0)
        return do_nodes(ps);
    if (ps->sg->g == NULL)
        return perr(ps, "the first directive must be 'nodes P'");
    if (strcmp(w, "task") == 0)
        return do_task(ps);
    if (strcmp(w, "edge") == 0)
        return do_edge(ps);
    if (strcmp(w, "pin") == 0) {
        int32_t t;
        int node;
        if (lookup(ps, &ps->tasks, 1, "task", &t) < 0 ||
            node_arg(ps, 2, &node) < 0)
            return -1;
        return check(ps, hcrt__taskgraph_pin(ps->sg->g, t, node), "pin");
    }
    if (strcmp(w, "data") == 0)
        return do_data(ps);
    if (strcmp(w, "read") == 0)
        return do_access(ps, HCRT_TG_READ);
    if (strcmp(w, "write") == 0)
        return do_access(ps, HCRT_TG_WRITE);
    if (strcmp(w, "link") == 0)
        return do_link(ps);
    if (strcmp(w, "speed") == 0 || strcmp(w, "default-time") == 0 ||
        strcmp(w, "alpha") == 0 || strcmp(w, "kernel") == 0 ||
        strcmp(w, "observe") == 0)
        return do_model(ps);
    return perr(ps,
                "unknown directive '%s' (known: nodes task edge pin data "
                "read write link speed default-time alpha kernel "
                "observe)",
                w);
}

static int split(parser_t *ps, char *line)
{
    char *hash = strchr(line, '#'), *save = NULL;
    if (hash != NULL)
        *hash = '\0';
    ps->ntok = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t != NULL;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (hcrt__sched_grow((void **)&ps->tok, &ps->tcap, ps->ntok + 1,
                             sizeof(char *)) != HCRT_OK)
            return perr(ps, "out of memory");
        ps->tok[ps->ntok++] = t;
    }
    return 0;
}

int sim_parse_file(const char *path, sim_graph_t *out, char *err, size_t len)
{
    parser_t ps = {.sg = out, .path = path, .err = err, .len = len};
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    memset(out, 0, sizeof(*out));
    if (f == NULL) {
        snprintf(err, len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    snprintf(out->name, sizeof(out->name), "%s", path);
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        ps.line++;
        rc = split(&ps, line);
        if (rc == 0 && ps.ntok > 0)
            rc = do_line(&ps);
    }
    if (rc == 0 && out->g == NULL)
        rc = perr(&ps, "no 'nodes P' line: not a graph file");
    free(line);
    if (f != stdin)
        fclose(f);
    hcrt__kmap_fini(&ps.tasks);
    hcrt__kmap_fini(&ps.data);
    free(ps.tok);
    free(ps.row);
    if (rc < 0)
        sim_graph_fini(out);
    return rc;
}

void sim_graph_fini(sim_graph_t *sg)
{
    hcrt__taskgraph_destroy(sg->g);
    hcrt__heft_cost_destroy(sg->cm);
    free(sg->label);
    memset(sg, 0, sizeof(*sg));
}

int sim_graph_label(sim_graph_t *sg, int64_t label)
{
    if (hcrt__sched_grow((void **)&sg->label, &sg->lcap, sg->nlabel + 1,
                         sizeof(int64_t)) != HCRT_OK)
        return -1;
    sg->label[sg->nlabel++] = label;
    return 0;
}
