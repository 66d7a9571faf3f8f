/*
 * fd_report.c - the one fault report: a line per failed rank on stderr
 * through the runtime's log, and with HCRT_FAULT_REPORT a JSON file for
 * job managers; and the activity texts the heartbeats carry ("running
 * the loop at ep.c:9").
 */
#include <stdio.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "libhcrt/fault/fd_int.h"
#include "libhcrt/fault/ft.h"

hcrt_doing_t hcrt__doing;

/* "ep.c:9" from clang's ";path/ep.c;func;9;col;;", else NULL. */
static const char *ident_where(const hcrt_ident_t *loc, char *buf, size_t len)
{
    char file[256];
    int line = 0;
    if (!loc || !loc->psource ||
        sscanf(loc->psource, ";%255[^;];%*[^;];%d", file, &line) != 2 ||
        line <= 0 || !strcmp(file, "unknown"))
        return NULL;
    const char *base = strrchr(file, '/');
    snprintf(buf, len, "%s:%d", base ? base + 1 : file, line);
    return buf;
}

/* "ep.c:7" from the region's descriptor (debug info), else "main()"
 * from its outlined function's name ("main.omp_outlined"), else NULL. */
static const char *region_where(const hcrt_region_desc_t *r, char *buf,
                                size_t len)
{
    if (r && r->file && r->file[0] && r->line > 0) {
        const char *base = strrchr(r->file, '/');
        snprintf(buf, len, "at %s:%d", base ? base + 1 : r->file, r->line);
        return buf;
    }
    const char *dot = r && r->name ? strstr(r->name, ".omp_outlined") : NULL;
    if (!dot || dot == r->name)
        return NULL;
    snprintf(buf, len, "in %.*s()", (int)(dot - r->name), r->name);
    return buf;
}

static void construct_text(char *buf, size_t len, const char *what,
                           const void *where, const hcrt_region_desc_t *r)
{
    char a[300], b[300];
    const char *at = ident_where(where, a, sizeof a);
    const char *in = region_where(r, b, sizeof b);
    if (at && in && strcmp(in + 3, at)) /* in: "at f:l" or "in f()" */
        snprintf(buf, len, "%s at %s (region %s)", what, at, in);
    else if (at)
        snprintf(buf, len, "%s at %s", what, at);
    else if (in)
        snprintf(buf, len, "%s of the region %s", what, in);
    else
        snprintf(buf, len, "%s", what);
}

void hcrt__doing_text(char *buf, size_t len)
{
    int kind = atomic_load_explicit(&hcrt__doing.kind, memory_order_relaxed);
    const void *w =
        atomic_load_explicit(&hcrt__doing.where, memory_order_relaxed);
    const hcrt_region_desc_t *r =
        atomic_load_explicit(&hcrt__doing.region, memory_order_relaxed);
    char b[300];
    switch (kind) {
    case HCRT_DOING_MAIN:
        snprintf(buf, len, "running the program's sequential code");
        break;
    case HCRT_DOING_IDLE:
        snprintf(buf, len, "waiting for the next parallel region");
        break;
    case HCRT_DOING_REGION:
        snprintf(buf, len, "in the parallel region %s",
                 region_where(r, b, sizeof b) ? b : "(place unknown)");
        break;
    case HCRT_DOING_LOOP:
        construct_text(buf, len, "running a loop", w, r);
        break;
    case HCRT_DOING_BARRIER:
        construct_text(buf, len, "in a barrier", w, r);
        break;
    case HCRT_DOING_REDUCTION:
        construct_text(buf, len, "in a reduction", w, r);
        break;
    case HCRT_DOING_TARGET: {
        const hcrt_kernel_desc_t *k = w;
        snprintf(buf, len, "running the target region %s",
                 k && k->name ? k->name : "(unknown)");
        break;
    }
    case HCRT_DOING_SHUTDOWN:
        snprintf(buf, len, "shutting down");
        break;
    default:
        snprintf(buf, len, "starting up");
    }
}

static void observers_text(const fd_case_t *c, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < c->nobs && k < len; i++) {
        int n = snprintf(buf + k, len - k, "%s%d", i ? ", " : "", c->obs[i]);
        k += n > 0 ? (size_t)n : 0;
    }
}

static void report_case(const fd_case_t *c)
{
    fd_state_t *f = &hcrt__fd;
    const fd_peer_t *p = &f->peers[c->subject];
    char ev[512], obs[64], words[FD_TEXT + 32] = "";
    double at = c->since >= 0 ? c->since : hcrt__fd_jobtime(c->opened);
    hcrt__fd_evidence_text(c->ev, c->gap, ev, sizeof ev);
    observers_text(c, obs, sizeof obs);
    /* a crash's own message is on stderr already (dsm/fault_report.c:
     * said once); the JSON file has it too */
    if (c->ev & FD_EV_LAST_CRASH)
        snprintf(words, sizeof words, " (its own message says where)");
    else if (p->lastword[0])
        snprintf(words, sizeof words, " (\"%s\")", p->lastword);
    if (c->diag == FD_DIAG_SELF_CUT) {
        hcrt__log_plain(HCRT_MOD_FAULT,
                        "this rank (%d, host %s) lost contact with every "
                        "other rank at %.1f s -- %s; this rank ends",
                        f->rank, f->peers[f->rank].rec.host, at, ev);
        return;
    }
    hcrt__log_plain(HCRT_MOD_FAULT,
                    "rank %d (host %s) %s at %.1f s -- %s%s; symptoms from "
                    "rank%s %s; it was %s; %s",
                    c->subject, p->rec.host, hcrt__fd_diag_phrase(c->diag), at,
                    ev, words, c->nobs > 1 ? "s" : "", obs,
                    c->doing[0]   ? c->doing
                    : p->doing[0] ? p->doing
                                  : "doing something unknown (no heartbeat "
                                    "yet)",
                    f->ft_going_on ? "the job goes on without it (FT mode)"
                    : f->ft_finished
                        ? "the program had finished, its output is complete: "
                          "the job ends with the program's exit status (FT "
                          "mode)"
                    : hcrt__ft_on() && !atomic_load(&f->started)
                        ? "the job ends (FT mode cannot go on: this rank was "
                          "still in the runtime's start-up, whose collectives "
                          "need every rank; run the job again)"
                        : "the job ends");
}

static void json_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(o, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(o, "\\u%04x", *s);
        else
            fputc(*s, o);
    }
    fputc('"', o);
}

static void json_case(FILE *o, const fd_case_t *c, int first)
{
    const fd_peer_t *p = &hcrt__fd.peers[c->subject];
    fprintf(o, "%s\n    {\"rank\": %d, \"host\": ", first ? "" : ",",
            c->subject);
    json_str(o, p->rec.host);
    fprintf(o,
            ", \"node_id\": %d, \"pid\": %d, \"diagnosis\": \"%s\", "
            "\"rule\": ",
            p->rec.node_id, p->rec.pid, hcrt__fd_diag_name(c->diag));
    json_str(o, c->rule);
    fprintf(o,
            ", \"since_s\": %.3f, \"suspected_s\": %.3f, "
            "\"decided_s\": %.3f, \"evidence\": [",
            c->since >= 0 ? c->since : hcrt__fd_jobtime(c->opened),
            hcrt__fd_jobtime(c->opened), hcrt__fd_jobtime(c->decided_ns));
    for (int i = 0, k = 0; i < FD_EV_COUNT; i++)
        if (c->ev & (1u << i))
            fprintf(o, "%s\"%s\"", k++ ? ", " : "", hcrt__fd_evidence_name(i));
    fprintf(o, "], \"observers\": [");
    for (int i = 0; i < c->nobs; i++)
        fprintf(o, "%s%d", i ? ", " : "", c->obs[i]);
    fprintf(o, "], \"doing\": ");
    json_str(o, c->doing[0] ? c->doing : p->doing);
    fprintf(o, ", \"last_words\": ");
    json_str(o, p->lastword);
    fprintf(o, "}");
}

static void write_json(const char *path)
{
    fd_state_t *f = &hcrt__fd;
    FILE *o = fopen(path, "w");
    if (!o) {
        hcrt_warn(HCRT_MOD_FAULT,
                  "cannot write the fault report to '%s' "
                  "(HCRT_FAULT_REPORT): %m",
                  path);
        return;
    }
    fprintf(o, "{\n  \"reporter\": {\"rank\": %d, \"host\": ", f->rank);
    json_str(o, f->peers[f->rank].rec.host);
    fprintf(o, "},\n  \"time_s\": %.3f,\n  \"ranks\": %d,\n  \"failures\": [",
            hcrt__fd_jobtime(hcrt__fd_now()), f->size);
    int first = 1;
    for (int i = 0; i < FD_MAX_CASES; i++) {
        const fd_case_t *c = &f->cases[i];
        if (c->used && c->decided && hcrt__fd_is_failure(c->diag)) {
            json_case(o, c, first);
            first = 0;
        }
    }
    const char *why = hcrt__fd_ft_why();
    fprintf(o, "\n  ],\n  \"outcome\": ");
    json_str(o, why              ? "the job ends"
                : f->ft_going_on ? "the job goes on"
                : f->ft_finished ? "the program had finished"
                                 : "the job ends");
    if (why) {
        fprintf(o, ",\n  \"cannot_recover\": ");
        json_str(o, why);
    }
    fprintf(o, ",\n  \"exit_status\": %d\n}\n",
            f->ft_going_on && !why ? 0 : f->status);
    fclose(o);
}

/* One report. A rank that found itself cut off says so once, on its
 * own stderr, and writes no JSON: the ranks it lost report the job's
 * view (and on one machine the files would overwrite each other). */
void hcrt__fd_report(void)
{
    fd_state_t *f = &hcrt__fd;
    if (f->reported)
        return;
    f->reported = 1;
    for (int i = 0; i < FD_MAX_CASES; i++) {
        const fd_case_t *c = &f->cases[i];
        if (c->used && c->decided && c->diag == FD_DIAG_SELF_CUT) {
            report_case(c);
            return;
        }
    }
    for (int i = 0; i < FD_MAX_CASES; i++) {
        const fd_case_t *c = &f->cases[i];
        if (c->used && c->decided && !c->ft_done &&
            hcrt__fd_is_failure(c->diag))
            report_case(c);
    }
    hcrt__fd_report_json();
}

void hcrt__fd_report_json(void)
{
    const char *path = hcrt__config_string("HCRT_FAULT_REPORT");
    if (path && *path)
        write_json(path);
}

void hcrt__fd_report_slow(const fd_case_t *c)
{
    char ev[512];
    hcrt__fd_evidence_text(c->ev, c->gap, ev, sizeof ev);
    if (c->ev & FD_EV_PROC_BUSY) { /* said once: the host is overloaded */
        static int said;
        if (!said++)
            hcrt_warn(HCRT_MOD_FAULT,
                      "rank %d (host %s) did not answer for %.1f s, but its "
                      "fault detector thread is runnable: it waited that "
                      "long for a CPU (more runnable threads than cores); "
                      "the job goes on. A rank silent this way for over "
                      "60 s is taken as failed; on an overloaded host raise "
                      "HCRT_FAULT_TIMEOUT",
                      c->subject, hcrt__fd.peers[c->subject].rec.host, c->gap);
    }
    hcrt_info(HCRT_MOD_FAULT, "rank %d (host %s) is slow, not failed: %s",
              c->subject, hcrt__fd.peers[c->subject].rec.host, ev);
}
