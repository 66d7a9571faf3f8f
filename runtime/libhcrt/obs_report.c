/*
 * obs_report.c - shutdown of the observation layer: every rank's figures
 * and trace events travel to the head, which prints the per-node sections
 * of the HCRT_STATS report and writes the HCRT_TRACE file.
 *
 * One collective decides whether anything is wanted (an MPI_Allreduce of
 * the ranks' flags), so a rank whose settings differ cannot hang the
 * others. Timestamps of ranks on another host are moved to the head's clock
 * by an offset taken right after a barrier (good to some microseconds);
 * ranks on the head's host share its monotonic clock.
 */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/stats.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"
#include "libhcrt/runtime.h"

#define TAG_TEXT 0x4f42
#define CHUNK (1 << 30)

typedef struct node_row {
    char host[64], source[64];
    int threads, avail, cores, present;
    uint64_t calls, region_ns, faults, bytes, diff, events, dropped, wall_ns;
} node_row_t;

/* A region or loop merged over the nodes: v[node * 4 + k]. */
typedef struct mrow {
    char key[208]; /* loop: psource; region: "" */
    uint64_t id;   /* region id */
    uint64_t *v;
} mrow_t;

typedef struct table {
    mrow_t *rows;
    int n, cap;
} table_t;

static node_row_t *nodes;
static int nnodes;
static table_t regions, loops;

char *hcrt__obs_text(size_t *len);
uint64_t hcrt__obs_start_ns(void);

static mrow_t *row_of(table_t *t, uint64_t id, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (t->rows[i].id == id && strcmp(t->rows[i].key, key) == 0)
            return &t->rows[i];
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 32;
        mrow_t *r = realloc(t->rows, (size_t)cap * sizeof(*r));
        if (!r)
            return NULL;
        t->rows = r, t->cap = cap;
    }
    mrow_t *r = &t->rows[t->n];
    r->v = calloc((size_t)nnodes * 4, sizeof(uint64_t));
    if (!r->v)
        return NULL;
    r->id = id;
    snprintf(r->key, sizeof(r->key), "%s", key);
    t->n++;
    return r;
}

static void parse_node(int node, const char *line)
{
    node_row_t *n = &nodes[node];
    int used = 0;

    if (sscanf(line,
               "N %63s %d %d %d %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %n",
               n->host, &n->threads, &n->avail, &n->cores, &n->calls,
               &n->region_ns, &n->faults, &n->bytes, &n->diff, &n->events,
               &n->dropped, &n->wall_ns, &used) >= 12) {
        n->present = 1;
        snprintf(n->source, sizeof(n->source), "%.*s",
                 (int)strcspn(line + used, "\n"), line + used);
    }
}

static void parse_line(int node, const char *line)
{
    uint64_t a[6];
    int used = 0;

    if (line[0] == 'N') {
        parse_node(node, line);
    } else if (line[0] == 'R' &&
               sscanf(line,
                      "R %" SCNx64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                      " %" SCNu64 " %" SCNu64,
                      &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
        mrow_t *r = row_of(&regions, a[0], "");
        if (r)
            for (int k = 0; k < 4; k++) /* calls ns faults bytes */
                r->v[node * 4 + k] += a[1 + k];
    } else if (line[0] == 'L' &&
               sscanf(line,
                      "L %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %n",
                      &a[0], &a[1], &a[2], &a[3], &used) >= 4) {
        char key[208];
        snprintf(key, sizeof(key), "%.*s", (int)strcspn(line + used, "\n"),
                 line + used);
        mrow_t *r = row_of(&loops, 0, key);
        if (r)
            for (int k = 0; k < 4; k++) /* calls iters chunks ns */
                r->v[node * 4 + k] += a[k];
    }
}

static void parse_text(int node, const char *s, size_t len)
{
    const char *end = s + len;

    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        parse_line(node, s);
        s = nl ? nl + 1 : end;
    }
}

/* ---- sections of the report -------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    return slash ? slash + 1 : (path && *path ? path : "?");
}

static void loop_where(const char *key, char *buf, size_t len)
{
    const char *ps = strchr(key, ';') ? strchr(key, ';') : key;
    const char *fn = ps[0] == ';' ? strchr(ps + 1, ';') : NULL;
    const char *ln = fn ? strchr(fn + 1, ';') : NULL;

    if (!ln) {
        snprintf(buf, len, "%s", ps);
        return;
    }
    char file[160];
    snprintf(file, sizeof(file), "%.*s", (int)(fn - ps - 1), ps + 1);
    snprintf(buf, len, "%.60s:%d %.*s", base_name(file), atoi(ln + 1),
             (int)(ln - fn - 1 < 60 ? ln - fn - 1 : 60), fn + 1);
}

/* Says something when the program forked a parallel region (the team
 * sizes matter), a node ran a cluster region or recorded trace events, or
 * a node sent no figures. */
static int print_nodes(FILE *out, void *arg)
{
    int said = hcrt__registry_forks() > 0;

    (void)arg;
    fprintf(out, "%-4s %-16s %7s %-26s %6s %8s %11s %6s %9s %10s %10s %9s\n",
            "node", "host", "threads", "(why)", "cores", "regions", "region ms",
            "busy%", "faults", "MiB in", "diff KiB", "events");
    for (int i = 0; i < nnodes; i++) {
        const node_row_t *n = &nodes[i];
        if (!n->present) {
            fprintf(out, "%-4d (no figures from this node)\n", i);
            said = 1;
            continue;
        }
        said |= n->calls || n->events;
        char cores[24];
        snprintf(cores, sizeof(cores), "%d/%d", n->avail, n->cores);
        fprintf(out,
                "%-4d %-16.16s %7d %-26.26s %6s %8" PRIu64
                " %11.3f %6.1f %9" PRIu64 " %10.3f %10.1f %9" PRIu64 "%s\n",
                i, n->host, n->threads, n->source, cores, n->calls,
                (double)n->region_ns * 1e-6,
                n->wall_ns ? 100.0 * (double)n->region_ns / (double)n->wall_ns
                           : 0.0,
                n->faults, (double)n->bytes / 1048576.0,
                (double)n->diff / 1024.0, n->events,
                n->dropped ? " (some dropped)" : "");
    }
    return said;
}

static int print_regions(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out, "%-16s %-26s %-22s %4s %8s %11s %9s %10s\n", "region id",
            "location", "function", "node", "calls", "time ms", "faults",
            "MiB in");
    for (int i = 0; i < regions.n; i++) {
        const mrow_t *r = &regions.rows[i];
        const hcrt_region_desc_t *d = hcrt__registry_region_by_id(r->id);
        char where[64];
        snprintf(where, sizeof(where), "%s:%d", base_name(d ? d->file : NULL),
                 d ? (int)d->line : 0);
        for (int k = 0; k < nnodes; k++) {
            const uint64_t *v = &r->v[k * 4];
            fprintf(out,
                    "%016" PRIx64 " %-26.26s %-22.22s %4d %8" PRIu64
                    " %11.3f %9" PRIu64 " %10.3f\n",
                    r->id, k ? "" : where,
                    k ? "" : (d && d->name ? d->name : "?"), k, v[0],
                    (double)v[1] * 1e-6, v[2], (double)v[3] / 1048576.0);
        }
    }
    return regions.n > 0;
}

static int print_loops(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out, "%-40s %8s %12s %10s  %s\n", "loop", "calls", "iterations",
            "slowest ms", "node share of iterations (chunks)");
    for (int i = 0; i < loops.n; i++) {
        const mrow_t *r = &loops.rows[i];
        uint64_t calls = 0, iters = 0, ns = 0;
        char where[256];
        for (int k = 0; k < nnodes; k++) {
            calls = r->v[k * 4] > calls ? r->v[k * 4] : calls;
            iters += r->v[k * 4 + 1];
            ns = r->v[k * 4 + 3] > ns ? r->v[k * 4 + 3] : ns;
        }
        loop_where(r->key, where, sizeof(where));
        fprintf(out, "%-40.40s %8" PRIu64 " %12" PRIu64 " %10.3f ", where,
                calls, iters, (double)ns * 1e-6);
        for (int k = 0; k < nnodes; k++)
            fprintf(out, " %d:%.1f%% (%" PRIu64 ")", k,
                    iters ? 100.0 * (double)r->v[k * 4 + 1] / (double)iters
                          : 0.0,
                    r->v[k * 4 + 2]);
        fprintf(out, "\n");
    }
    return loops.n > 0;
}

/* ---- gathering ------------------------------------------------------------
 */

static void clock_sync(MPI_Comm comm, int64_t *off, uint64_t *origin)
{
    struct {
        uint64_t t, origin;
        char host[64];
    } h;

    MPI_Barrier(comm);
    uint64_t t = hcrt__now_ns();
    h.t = t, h.origin = hcrt__obs_start_ns();
    snprintf(h.host, sizeof(h.host), "%s", hcrt__hostname());
    MPI_Bcast(&h, sizeof(h), MPI_BYTE, 0, comm);
    *origin = h.origin;
    *off = strcmp(h.host, hcrt__hostname()) == 0 ? 0 : (int64_t)(t - h.t);
}

static void send_text(MPI_Comm comm, const char *s, size_t len, int tag)
{
    for (size_t at = 0; at < len; at += CHUNK) {
        size_t n = len - at < CHUNK ? len - at : CHUNK;
        MPI_Send(s + at, (int)n, MPI_BYTE, 0, tag, comm);
    }
}

static char *recv_text(MPI_Comm comm, int from, size_t len, int tag)
{
    char *s = malloc(len + 1);

    for (size_t at = 0; at < len; at += CHUNK) {
        size_t n = len - at < CHUNK ? len - at : CHUNK;
        MPI_Recv(s ? s + at : NULL, s ? (int)n : 0, MPI_BYTE, from, tag, comm,
                 MPI_STATUS_IGNORE);
    }
    if (s)
        s[len] = '\0';
    return s;
}

/* Texts of every rank at the head: parts[k * size + r]. */
static void gather(MPI_Comm comm, char **text, const size_t *len, char **parts,
                   size_t *lens)
{
    int rank = hcrt__rank(), size = hcrt__size();
    uint64_t mine[2] = {len[0], len[1]};
    uint64_t *all = rank == 0 ? calloc((size_t)size * 2, sizeof(*all)) : NULL;

    MPI_Gather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, 0, comm);
    for (int k = 0; k < 2; k++) {
        if (rank != 0) {
            send_text(comm, text[k], len[k], TAG_TEXT + k);
            continue;
        }
        parts[k * size] = text[k], lens[k * size] = len[k];
        for (int r = 1; r < size; r++) {
            lens[k * size + r] = all ? all[2 * r + k] : 0;
            if (lens[k * size + r])
                parts[k * size + r] =
                    recv_text(comm, r, lens[k * size + r], TAG_TEXT + k);
        }
    }
    free(all);
}

/* In a program that owns MPI every rank is a job of its own to the
 * runtime: its report is titled with its rank of the MPI job and written in
 * one piece (ranks print at the same time), its trace goes to a file of its
 * own: HCRT_TRACE for rank 0, HCRT_TRACE.<rank> for the others. */
static int job_rank, job_size = 1;

void hcrt__obs_set_job(int rank, int size)
{
    job_rank = rank;
    job_size = size;
}

static void stats_print(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = job_size > 1 ? open_memstream(&buf, &len) : NULL;

    if (!mem) {
        hcrt__stats_report_final(stderr);
        return;
    }
    fprintf(mem,
            "==== rank %d of %d of an MPI program: the statistics of this "
            "rank alone ====\n",
            job_rank, job_size);
    hcrt__stats_report_final(mem);
    fclose(mem);
    fwrite(buf, 1, len, stderr);
    free(buf);
}

static void trace_write(char **parts, size_t *lens, int size)
{
    const char *path = hcrt__config_string("HCRT_TRACE");
    char *own = NULL;

    if (job_size > 1 && job_rank > 0 &&
        asprintf(&own, "%s.%d", path, job_rank) > 0)
        path = own;
    if (hcrt__trace_write(path, parts + size, lens + size, size) == 0)
        hcrt_info(HCRT_MOD_CORE, "trace of %d node(s) written to %s", size,
                  path);
    free(own);
}

static void head_finish(char **parts, size_t *lens, int want_trace_any)
{
    int size = hcrt__size();

    nnodes = size;
    nodes = calloc((size_t)size, sizeof(*nodes));
    if (nodes) {
        for (int r = 0; r < size; r++)
            if (parts[r])
                parse_text(r, parts[r], lens[r]);
        hcrt__stats_register("nodes (threads, cores used/available)",
                             print_nodes, NULL);
        if (regions.n)
            hcrt__stats_register("cluster regions per node", print_regions,
                                 NULL);
        if (loops.n)
            hcrt__stats_register("cluster loops per node", print_loops, NULL);
    }
    if (hcrt__stats_level() != HCRT_STATS_OFF)
        stats_print();
    if (hcrt__trace_on) {
        trace_write(parts, lens, size);
    } else if (want_trace_any) {
        hcrt_warn(HCRT_MOD_CORE,
                  "HCRT_TRACE is set on some ranks but not on the head: no "
                  "trace written (set it for every rank, e.g. with hcrun)");
    }
}

/* Whether any rank wants statistics (1) or a trace (2); 0 also when MPI
 * is gone (a lazy-mode program finalised it): nothing can be gathered. */
static int wanted_anywhere(MPI_Comm comm)
{
    int inited = 0, fin = 0, all = 0;
    int mine =
        (hcrt__stats_level() != HCRT_STATS_OFF) | (hcrt__trace_on ? 2 : 0);

    if (!hcrt__proc_has_mpi()) /* one rank without MPI */
        return mine;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (!inited || fin)
        return 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_BOR, comm);
    return all;
}

void hcrt__obs_fini(void)
{
    static int done;
    int all;

    if (done)
        return;
    done = 1;
    MPI_Comm comm = hcrt__comm_world();
    int mpi = hcrt__proc_has_mpi();
    if (!(all = wanted_anywhere(comm)))
        return;
    int64_t off = 0;
    uint64_t origin = hcrt__obs_start_ns();
    if ((all & 2) && mpi)
        clock_sync(comm, &off, &origin);
    char *text[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    if (all & 1)
        text[0] = hcrt__obs_text(&len[0]);
    if (hcrt__trace_on)
        text[1] = hcrt__trace_render(off, origin, &len[1]);
    int size = hcrt__size();
    char **parts =
        hcrt__rank() == 0 ? calloc((size_t)size * 2, sizeof(char *)) : NULL;
    size_t *lens = parts ? calloc((size_t)size * 2, sizeof(size_t)) : NULL;
    if (hcrt__rank() == 0 && (!parts || !lens))
        hcrt_fatal(HCRT_MOD_CORE, "out of memory gathering statistics");
    if (mpi) {
        gather(comm, text, len, parts, lens);
    } else { /* the head alone: its own texts */
        parts[0] = text[0], lens[0] = len[0];
        parts[1] = text[1], lens[1] = len[1];
    }
    if (hcrt__rank() == 0)
        head_finish(parts, lens, (all & 2) != 0);
    for (int i = 0; parts && i < 2 * size; i++)
        free(parts[i]);
    if (!parts)
        free(text[0]), free(text[1]);
    free(parts), free(lens);
    fflush(NULL);
    /* Workers leave only once the head has printed and written. */
    if (mpi)
        MPI_Barrier(comm);
}
