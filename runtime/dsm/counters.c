/*
 * counters.c - DSM counters per rank and per region, and the "DSM" section
 * of the HCRT_STATS report.
 *
 * Counters are relaxed atomics bumped on the fault path. A region's figures
 * are the deltas between region_begin and region_end on this rank; the
 * fault period (time between faults in the current region) is what
 * HetProbe compares with its threshold. The head collects other ranks'
 * totals through their service threads, so printing needs no collective.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

#define NREGIONS 256
#define NCTR (sizeof(hcrt_dsm_counters_t) / sizeof(uint64_t))

typedef struct region {
    uint64_t id, runs, ns;
    hcrt_dsm_counters_t sum;
} region_t;

static struct {
    pthread_mutex_t mu;
    region_t tab[NREGIONS];
    int n;
    uint64_t cur_id, t0;
    hcrt_dsm_counters_t at_begin;
} reg = {.mu = PTHREAD_MUTEX_INITIALIZER};

uint64_t hcrt__dsm_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void hcrt__dsm_counters(hcrt_dsm_counters_t *out)
{
    uint64_t *o = (uint64_t *)out;
    for (size_t i = 0; i < NCTR; i++)
        o[i] = atomic_load_explicit(&dsm.ctr.v[i], memory_order_relaxed);
}

static uint64_t faults(const hcrt_dsm_counters_t *c)
{
    return c->read_faults + c->write_faults + c->home_faults;
}

void hcrt__dsm_region_begin(uint64_t id)
{
    pthread_mutex_lock(&reg.mu);
    reg.cur_id = id;
    hcrt__dsm_counters(&reg.at_begin);
    reg.t0 = hcrt__dsm_now_ns();
    pthread_mutex_unlock(&reg.mu);
}

void hcrt__dsm_region_end(uint64_t id)
{
    hcrt_dsm_counters_t now;
    hcrt__dsm_counters(&now);
    pthread_mutex_lock(&reg.mu);
    region_t *r = NULL;
    for (int i = 0; i < reg.n && !r; i++)
        if (reg.tab[i].id == id)
            r = &reg.tab[i];
    if (!r && reg.n < NREGIONS) {
        r = &reg.tab[reg.n++];
        r->id = id;
    }
    if (r) {
        uint64_t *s = (uint64_t *)&r->sum, *a = (uint64_t *)&now,
                 *b = (uint64_t *)&reg.at_begin;
        for (size_t i = 0; i < NCTR; i++)
            s[i] += a[i] - b[i];
        r->runs++;
        r->ns += hcrt__dsm_now_ns() - reg.t0;
    }
    pthread_mutex_unlock(&reg.mu);
}

double hcrt__dsm_region_fault_period_ns(void)
{
    hcrt_dsm_counters_t now;
    hcrt__dsm_counters(&now);
    pthread_mutex_lock(&reg.mu);
    double el = (double)(hcrt__dsm_now_ns() - reg.t0);
    uint64_t f = faults(&now) - faults(&reg.at_begin);
    pthread_mutex_unlock(&reg.mu);
    return f ? el / (double)f : el;
}

void hcrt__dsm_stats_serve(int src, dsm_msg_t *m)
{
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    hcrt__dsm_reply(src, m, M_STATS_R, 0, &c, sizeof c);
}

static void copy_stats(dsm_op_t *op, void *msg, size_t len)
{
    if (len >= sizeof(dsm_msg_t) + sizeof(hcrt_dsm_counters_t))
        memcpy(op->arg, (dsm_msg_t *)msg + 1, sizeof(hcrt_dsm_counters_t));
}

static void fetch_stats(int rank, hcrt_dsm_counters_t *c)
{
    memset(c, 0, sizeof *c);
    if (rank == dsm.rank) {
        hcrt__dsm_counters(c);
        return;
    }
    if (hcrt__wait_is_failed(rank)) /* FT mode: lost, its figures too */
        return;
    dsm_msg_t m = {M_STATS, 0, 0, 0, 0, 0};
    dsm_op_t op = {0};
    op.dest = rank;
    op.sbuf = &m;
    op.slen = sizeof m;
    op.want_reply = 1;
    op.on_reply = copy_stats;
    op.arg = c;
    hcrt__dsm_submit(&op);
    hcrt__dsm_wait(&op);
}

static void print_row(FILE *out, const char *who, const hcrt_dsm_counters_t *c)
{
    fprintf(out,
            "  %-12s %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %10" PRIu64
            " %12" PRIu64 " %10" PRIu64 " %11" PRIu64 " %8" PRIu64 " %8" PRIu64
            " %8" PRIu64 " %8" PRIu64 "\n",
            who, c->read_faults, c->write_faults, c->home_faults,
            c->pages_fetched, c->bytes_fetched, c->diff_pages, c->diff_bytes,
            c->invalidations, c->atomics_remote + c->locks, c->shm_pages,
            c->pages_migrated_in);
}

/* Whether a rank's DSM moved anything between the nodes (a home fault
 * alone is the first touch of a rank's own page: the runtime's start-up
 * takes a few in every run). */
static int busy(const hcrt_dsm_counters_t *c)
{
    return (c->read_faults | c->write_faults | c->pages_fetched |
            c->diff_pages | c->invalidations | c->atomics_remote | c->locks) !=
           0;
}

static int print_section(FILE *out, void *arg)
{
    int said = 0;

    (void)arg;
    if (!dsm.ready)
        return 0;
    fprintf(out, "  %-12s %9s %9s %9s %10s %12s %10s %11s %8s %8s %8s %8s\n",
            "rank", "rd-fault", "wr-fault", "home-flt", "pg-fetch", "bytes-in",
            "diff-pg", "diff-bytes", "inval", "sync-op", "shm-pg", "mig-in");
    for (int r = 0; r < dsm.size; r++) {
        hcrt_dsm_counters_t c;
        char name[32];
        fetch_stats(r, &c);
        said |= busy(&c);
        snprintf(name, sizeof name, "%d", r);
        print_row(out, name, &c);
    }
    pthread_mutex_lock(&reg.mu);
    for (int i = 0; i < reg.n; i++) {
        region_t *r = &reg.tab[i];
        uint64_t f = faults(&r->sum);
        char name[32];
        snprintf(name, sizeof name, "reg %08" PRIx64,
                 (uint64_t)(r->id & 0xffffffffULL));
        print_row(out, name, &r->sum);
        fprintf(out,
                "  %-12s runs %" PRIu64 ", mean time between faults "
                "%.1f us\n",
                "", r->runs,
                f ? (double)r->ns / (double)f / 1e3 : (double)r->ns / 1e3);
    }
    said |= reg.n > 0;
    pthread_mutex_unlock(&reg.mu);
    return said;
}

void hcrt__dsm_counters_init(void)
{
    memset(&dsm.ctr, 0, sizeof dsm.ctr);
    reg.n = 0;
    reg.t0 = hcrt__dsm_now_ns();
    static int registered;
    if (!registered)
        hcrt__stats_register("DSM", print_section, NULL);
    registered = 1;
}
