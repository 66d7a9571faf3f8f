/*
 * sim.c - the random-interleaving driver of sim.h.
 */
#include <math.h>

#include "sim.h"

enum { IDLE = 0, HOLDING = 1, DONE = 2 };

void sim_init(sim_t *s, int nnodes, const int *threads, uint64_t trip,
              uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->nnodes = nnodes;
    s->threads = threads;
    s->trip = trip;
    s->rng.s = seed * 2654435761u + 88172645463325252ull;
    s->switch_at = trip;
    for (int k = 0; k < nnodes; k++) {
        s->speed[k] = s->speed2[k] = 1e6;
        s->cmpki[k] = -1.0;
    }
}

void sim_fini(sim_t *s)
{
    hcrt__hetprobe_destroy(s->hp);
    free(s->seen);
    free(s->log);
    free(s->log_node);
    s->hp = NULL;
    s->seen = NULL;
    s->log = NULL;
    s->log_node = NULL;
}

static double chunk_seconds(const sim_t *s, int node,
                            const hcrt__hetprobe_chunk_t *c)
{
    uint64_t a = c->begin, b = c->end, k = s->switch_at;
    uint64_t before = b <= k ? b - a : (a >= k ? 0 : k - a);
    return (double)before / s->speed[node] +
           (double)(b - a - before) / s->speed2[node];
}

static void log_chunk(sim_t *s, int node, const hcrt__hetprobe_chunk_t *c)
{
    if (s->nlog == s->logcap) {
        s->logcap = s->logcap ? 2 * s->logcap : 256;
        s->log = realloc(s->log, s->logcap * sizeof(*s->log));
        s->log_node = realloc(s->log_node, s->logcap * sizeof(int));
        if (s->log == NULL || s->log_node == NULL)
            abort();
    }
    s->log[s->nlog] = *c;
    s->log_node[s->nlog++] = node;
}

static void report(sim_t *s, int node, int *progress)
{
    if (!hcrt__hetprobe_counters_due(s->hp, node))
        return;
    uint64_t f = s->faults[node];
    double per = s->period_us[node];
    if (s->random_counters) {
        f = rng_below(&s->rng, 4) == 0 ? 0 : rng_below(&s->rng, 100);
        per = 1.0 + rng_unit(&s->rng) * 400.0;
    }
    hcrt_status_t rc =
        hcrt__hetprobe_counters(s->hp, node, f, per, s->cmpki[node]);
    CHECKF(rc == HCRT_OK, "counters(node %d) = %d", node, rc);
    s->errors += rc != HCRT_OK;
    *progress = 1;
}

static void take(sim_t *s, int node, const hcrt__hetprobe_chunk_t *c)
{
    CHECKF(c->begin < c->end && c->end <= s->trip,
          "chunk [%llu, %llu) outside [0, %llu)", (unsigned long long)c->begin,
          (unsigned long long)c->end, (unsigned long long)s->trip);
    if (!(c->begin < c->end && c->end <= s->trip)) {
        s->errors++;
        return;
    }
    for (uint64_t i = c->begin; i < c->end; i++) {
        if (s->seen[i]++ != 0 && s->errors++ < 5)
            CHECKF(0, "iteration %llu handed out twice", (unsigned long long)i);
    }
    log_chunk(s, node, c);
}

/* One step of thread (n, j): complete its chunk, or ask for the next one. */
static int step(sim_t *s, int n, int j, int *state,
                hcrt__hetprobe_chunk_t *held)
{
    int progress = 0;
    if (*state == HOLDING) {
        double sec = chunk_seconds(s, n, held);
        hcrt_status_t rc = hcrt__hetprobe_complete(s->hp, n, j, held, sec);
        CHECKF(rc == HCRT_OK, "complete = %d", rc);
        s->errors += rc != HCRT_OK;
        s->iters[n] += held->end - held->begin;
        s->busy[n] += sec;
        *state = IDLE;
        if (rng_below(&s->rng, 2) == 0)
            report(s, n, &progress);
        return 1;
    }
    hcrt__hetprobe_next_t what;
    hcrt__hetprobe_chunk_t c;
    hcrt_status_t rc = hcrt__hetprobe_next(s->hp, n, j, &c, &what);
    if (rc != HCRT_OK) {
        CHECKF(0, "next(%d, %d) = %d", n, j, rc);
        s->errors++;
        return 1;
    }
    if (*state == DONE) {
        CHECKF(what == HCRT_HP_NEXT_DONE, "thread %d.%d got work after DONE", n,
              j);
        s->errors += what != HCRT_HP_NEXT_DONE;
        return 0;
    }
    if (what == HCRT_HP_NEXT_CHUNK) {
        take(s, n, &c);
        *held = c;
        *state = HOLDING;
        return 1;
    }
    if (what == HCRT_HP_NEXT_DONE) {
        *state = DONE;
        return 1;
    }
    return progress;
}

int sim_run(sim_t *s)
{
    int T = 0, *off = calloc((size_t)s->nnodes + 1, sizeof(int));
    for (int k = 0; k < s->nnodes; k++)
        off[k + 1] = off[k] + s->threads[k];
    T = off[s->nnodes];
    int *state = calloc((size_t)T, sizeof(int)),
        *owner = calloc(T, sizeof(int));
    hcrt__hetprobe_chunk_t *held = calloc((size_t)T, sizeof(*held));
    s->seen = calloc(s->trip ? s->trip : 1, 1);
    for (int k = 0; k < s->nnodes; k++)
        for (int j = off[k]; j < off[k + 1]; j++)
            owner[j] = k;
    int live = T, stall = 0;
    while (live > 0 && !s->deadlock && s->errors == 0) {
        int t = (int)rng_below(&s->rng, (uint64_t)T), n = owner[t];
        int was_done = state[t] == DONE;
        int p = step(s, n, t - off[n], &state[t], &held[t]);
        live -= !was_done && state[t] == DONE;
        if (rng_below(&s->rng, 4) == 0)
            report(s, (int)rng_below(&s->rng, (uint64_t)s->nnodes), &p);
        stall = p ? 0 : stall + 1;
        if (stall < 20 * T + 100)
            continue;
        /* A full sweep: every node reports, every thread asks once. */
        int any = 0;
        for (int k = 0; k < s->nnodes; k++)
            report(s, k, &any);
        for (int u = 0; u < T; u++) {
            int d0 = state[u] == DONE;
            any |= step(s, owner[u], u - off[owner[u]], &state[u], &held[u]);
            live -= !d0 && state[u] == DONE;
        }
        s->deadlock = !any;
        stall = 0;
    }
    CHECKF(!s->deadlock, "deadlock: %d live threads all told WAIT", live);
    int missing = 0;
    for (uint64_t i = 0; i < s->trip && s->errors == 0 && !s->deadlock; i++)
        if (s->seen[i] != 1 && missing++ < 5)
            CHECKF(0, "iteration %llu handed out %d times",
                  (unsigned long long)i, s->seen[i]);
    int unfinished =
        s->errors == 0 && !s->deadlock && !hcrt__hetprobe_finished(s->hp);
    CHECKF(!unfinished, "not finished after every thread was told DONE");
    free(off);
    free(state);
    free(owner);
    free(held);
    return s->errors + s->deadlock + missing + unfinished;
}
