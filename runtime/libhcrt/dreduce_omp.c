/*
 * dreduce_omp.c - OpenMP reductions across nodes over the dynamic
 * reduction (docs/reduce.md "OpenMP reductions").
 *
 * Which scheme a reduction uses must be the same on every rank, but what
 * it depends on (the size of each rank's partial, a late or slow node) is
 * known only where it is measured. So the scheme is chosen per reduction
 * site (its source location) for the site's *next* run, by the rank that
 * sees everything - the tree's root or the dynamic reduction's scheduler -
 * and that choice reaches every rank with the run's end (the tree's acks,
 * the dynamic reduction's end message). A site's first run uses the tree
 * (HCRT_REDUCE_DYNAMIC=auto).
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "libhcrt/cancel.h"
#include "libhcrt/dreduce.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/dreduce_omp.h"
#include "libhcrt/runtime.h"

#define NSITES 256 /* sites remembered (a collision shares a choice) */

static uint64_t site_key[NSITES];
static uint8_t site_mode[NSITES];
static uint64_t n_dynamic, n_switch;
static int cfg_mode = -1; /* 0 auto, 1 always, 2 never */
static double cfg_min_bytes, cfg_slow_ratio, cfg_late_ns;

static void config(void)
{
    if (cfg_mode >= 0)
        return;
    cfg_min_bytes = (double)hcrt__config_int("HCRT_REDUCE_MIN_BYTES");
    cfg_slow_ratio = hcrt__config_double("HCRT_REDUCE_SLOW_RATIO");
    cfg_late_ns = hcrt__config_double("HCRT_REDUCE_LATE_US") * 1e3;
    cfg_mode = hcrt__config_enum("HCRT_REDUCE_DYNAMIC");
}

/* The same on every rank: the site's text, not its address. */
static uint64_t key_of(const hcrt_ident_t *loc)
{
    uint64_t h = 1469598103934665603ULL;
    const char *s = loc && loc->psource ? loc->psource : "";
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h | 1;
}

int hcrt__dr_omp_mode(const hcrt_ident_t *loc)
{
    config();
    if (cfg_mode != 0)
        return cfg_mode == 1;
    uint64_t k = key_of(loc);
    unsigned i = (unsigned)(k % NSITES);
    return site_key[i] == k && site_mode[i];
}

void hcrt__dr_omp_learn(const hcrt_ident_t *loc, int dynamic)
{
    config();
    if (cfg_mode != 0) /* always or never: nothing to learn */
        return;
    uint64_t k = key_of(loc);
    unsigned i = (unsigned)(k % NSITES);
    int before = site_key[i] == k && site_mode[i]; /* a new site: tree */
    if (before != (dynamic != 0))
        n_switch++;
    site_key[i] = k;
    site_mode[i] = (uint8_t)(dynamic != 0);
}

int hcrt__dr_omp_decide(uint64_t max_window, double spread, double late_ns)
{
    config();
    return (double)max_window >= cfg_min_bytes || spread >= cfg_slow_ratio ||
           late_ns >= cfg_late_ns;
}

/* ---- one dynamic OpenMP reduction ---------------------------------------- */

typedef struct omp_ctx {
    hcrt_ident_t *loc;
    void *data;
    size_t size;
    hcrt_reduce_fn_t fn;
    void *msg;
    uint64_t next_check;
} omp_ctx_t;

static hcrt_status_t omp_give(void *ctx, const void **buf, size_t *len)
{
    omp_ctx_t *c = ctx;
    *len = hcrt__reduce_pack(c->data, c->size, &c->msg);
    *buf = c->msg;
    return HCRT_OK;
}

static void omp_given(void *ctx)
{
    omp_ctx_t *c = ctx;
    free(c->msg);
    c->msg = NULL;
}

static hcrt_status_t omp_fold(void *ctx, void *in, size_t len)
{
    omp_ctx_t *c = ctx;
    (void)len;
    hcrt__reduce_unpack_fold(c->data, c->fn, in);
    return HCRT_OK;
}

/* The thread that cancelled the loop this reduction ends never comes. */
static void omp_poll(void *ctx)
{
    omp_ctx_t *c = ctx;
    if (!hcrt__cancel_on || hcrt__now_ns() < c->next_check)
        return;
    hcrt__cancel_reduce_check(c->loc);
    c->next_check = hcrt__now_ns() + 1000000;
}

static const hcrt__dr_ops_t omp_ops = {
    .give = omp_give, .given = omp_given, .fold = omp_fold, .poll = omp_poll};

void hcrt__dr_omp_reduce(hcrt_ident_t *loc, void *data, size_t size,
                         hcrt_reduce_fn_t fn)
{
    omp_ctx_t c = {loc, data, size, fn, NULL, 0};
    hcrt__dr_t *r;
    /* the root (rank 0) never gives: its window is not a partial's */
    uint64_t win = hcrt__rank() ? hcrt__reduce_window(data, size) : 0;
    if (hcrt__dr_start(&omp_ops, &c, win, win, 0, &r) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "cannot start a dynamic reduction");
    hcrt_status_t st = hcrt__dr_wait(r);
    if (st != HCRT_OK) {
        int lost;
        const char *why;
        hcrt__dr_outcome(r, &lost, NULL, &why);
        hcrt_fatal(HCRT_MOD_CORE,
                   "an OpenMP reduction across nodes failed "
                   "(%s): %s, rank %d",
                   hcrt_strerror(st), why, lost);
    }
    n_dynamic++;
    hcrt__dr_omp_learn(loc, hcrt__dr_hint(r));
    hcrt__dr_free(r);
    free(c.msg);
}

void hcrt__dr_omp_counts(uint64_t *dynamic, uint64_t *switches)
{
    *dynamic = n_dynamic, *switches = n_switch;
}
