/*
 * dsm_torture.c - random reads, writes, acquires and releases on every rank
 * against an oracle: over 10^6 operations, zero violations allowed.
 *
 * The program is data-race free by construction, so release consistency
 * promises exact values: in each epoch (between barriers) every word and
 * byte has at most one writer, chosen by a hash all ranks compute. A rank
 * reads only locations nobody writes in this epoch (oracle: the value from
 * earlier epochs) or that it writes itself (its own latest store). Owners
 * are random per location, so pages are falsely shared by every rank; the
 * arrays are allocated by different ranks, so pages have different homes.
 * Random acquires and releases mid-epoch stress partial flushes. With a
 * thread count argument, every rank runs that many threads ("agents"), each
 * owning its own locations, and the epochs end with the team barrier.
 */
#include <pthread.h>

#include "dsm_test.h"

#define WORDS_PER_RANK 8192 /* 32 KiB of uint32 per allocating rank */
#define BYTES 8192          /* a 2-page byte array, byte-level sharing */
#define EPOCHS 40
#define OPS 14000

static uint32_t mix(uint64_t a, uint64_t b)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (uint32_t)x;
}

static int nthreads = 1;
/* "sticky": owners per page for 6 epochs at a time (a seventh of the
 * pages random per location meanwhile), so homes migrate to their writer
 * and on (HCRT_DSM_MIGRATE) while the oracle checks every read; an agent
 * then leaves alone the locations it does not own in the chunk its rank
 * allocated (a home that uses a page keeps it: migrate.c), which the
 * other ranks check. */
static int sticky;

/* Writer (agent = rank * nthreads + thread) of location `loc` in epoch
 * `e`, or -1 for none. */
static int owner(int e, uint64_t loc)
{
    uint32_t h = mix((uint64_t)e, loc);
    uint32_t agents = (uint32_t)(nranks * nthreads);
    if (h % 5 == 0)
        return -1;
    if (!sticky)
        return (int)((h >> 8) % agents);
    uint64_t page = loc >= (1ULL << 40) ? loc / 4096 : loc / 1024;
    uint32_t u = mix((uint64_t)(e / 6) + 1000, page);
    return (int)(((u % 7 == 0 ? h : u) >> 8) % agents);
}

typedef struct world {
    uint32_t **chunk; /* chunk r allocated (homed) by rank r */
    uint8_t *bytes;
    size_t nwords;
    uint32_t *oracle_w, *mine_w; /* private */
    uint8_t *oracle_b, *mine_b;
    pthread_barrier_t local;
} world_t;

typedef struct agent {
    world_t *w;
    int id, t;
    uint64_t rng, ops, violations;
} agent_t;

static uint32_t *word(world_t *w, size_t i)
{
    return &w->chunk[i / WORDS_PER_RANK][i % WORDS_PER_RANK];
}

/* Sticky mode: may agent g (rank `me`) read word i it does not own? */
static int may_read(size_t i, int bytes)
{
    return !sticky || (bytes ? me != 0 : (int)(i / WORDS_PER_RANK) != me);
}

static void check(agent_t *g, uint64_t got, uint64_t want, const char *what,
                  size_t i, int e)
{
    g->ops++;
    if (got == want)
        return;
    if (g->violations++ < 5)
        fprintf(stderr,
                "rank %d epoch %d: %s %zu is %#llx, oracle says "
                "%#llx\n",
                me, e, what, i, (unsigned long long)got,
                (unsigned long long)want);
}

static void random_ops(agent_t *g, int e)
{
    world_t *w = g->w;
    for (int k = 0; k < OPS; k++) {
        uint64_t r = dsm_test_rand(&g->rng);
        if (r % 3000 == 0) {
            (r & 1) ? hcrt__dsm_acquire() : hcrt__dsm_release();
            g->ops++;
            continue;
        }
        int bytes = (r >> 20) % 4 == 0;
        size_t n = bytes ? BYTES : w->nwords;
        size_t i = (size_t)(r >> 24) % n;
        int o = owner(e, i + (bytes ? (1ULL << 40) : 0));
        if (o == g->id && (r >> 8) % 2) {
            uint32_t v = (uint32_t)(r >> 32);
            if (bytes) {
                w->bytes[i] = (uint8_t)v;
                w->mine_b[i] = (uint8_t)v;
            } else {
                *word(w, i) = v;
                w->mine_w[i] = v;
            }
            g->ops++;
        } else if (o == g->id) {
            if (bytes)
                check(g, w->bytes[i], w->mine_b[i], "own byte", i, e);
            else
                check(g, *word(w, i), w->mine_w[i], "own word", i, e);
        } else if (o < 0 && may_read(i, bytes)) {
            if (bytes)
                check(g, w->bytes[i], w->oracle_b[i], "byte", i, e);
            else
                check(g, *word(w, i), w->oracle_w[i], "word", i, e);
        }
    }
}

/* Owners store the epoch's final values, then everybody checks all. */
static void end_epoch(agent_t *g, int e)
{
    world_t *w = g->w;
    for (size_t i = 0; i < w->nwords; i++)
        if (owner(e, i) == g->id)
            *word(w, i) = mix((uint64_t)e, i);
    for (size_t i = 0; i < BYTES; i++)
        if (owner(e, i + (1ULL << 40)) == g->id)
            w->bytes[i] = (uint8_t)mix((uint64_t)e, i + 7);
    hcrt__dsm_barrier_team(nthreads);
    if (g->t == 0) { /* the private oracle, updated by one thread */
        for (size_t i = 0; i < w->nwords; i++)
            if (owner(e, i) >= 0)
                w->oracle_w[i] = w->mine_w[i] = mix((uint64_t)e, i);
        for (size_t i = 0; i < BYTES; i++)
            if (owner(e, i + (1ULL << 40)) >= 0)
                w->oracle_b[i] = w->mine_b[i] =
                    (uint8_t)mix((uint64_t)e, i + 7);
    }
    pthread_barrier_wait(&w->local);
    for (size_t i = (size_t)g->t; i < w->nwords; i += (size_t)nthreads)
        if (may_read(i, 0) || owner(e + 1, i) == g->id)
            check(g, *word(w, i), w->oracle_w[i], "word after barrier", i, e);
    for (size_t i = (size_t)g->t; i < BYTES; i += (size_t)nthreads)
        if (may_read(i, 1) || owner(e + 1, i + (1ULL << 40)) == g->id)
            check(g, w->bytes[i], w->oracle_b[i], "byte after barrier", i, e);
    /* nobody writes the next epoch before all have read */
    hcrt__dsm_barrier_team(nthreads);
}

static void *agent_main(void *arg)
{
    agent_t *g = arg;
    for (int e = 0; e < EPOCHS; e++) {
        random_ops(g, e);
        end_epoch(g, e);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    sticky = argc > 2 && strcmp(argv[2], "sticky") == 0;
    world_t w = {0};
    pthread_barrier_init(&w.local, NULL, (unsigned)nthreads);
    w.nwords = (size_t)WORDS_PER_RANK * (size_t)nranks;
    w.chunk = calloc((size_t)nranks, sizeof *w.chunk);
    uint32_t *mine = hcrt__dsm_calloc(WORDS_PER_RANK, sizeof(uint32_t));
    for (int r = 0; r < nranks; r++)
        w.chunk[r] = dsm_test_share(mine, r);
    w.bytes = me == 0 ? hcrt__dsm_calloc(BYTES, 1) : NULL;
    w.bytes = dsm_test_share(w.bytes, 0);
    w.oracle_w = calloc(w.nwords, 4);
    w.mine_w = calloc(w.nwords, 4);
    w.oracle_b = calloc(BYTES, 1);
    w.mine_b = calloc(BYTES, 1);
    hcrt__dsm_barrier();
    agent_t *g = calloc((size_t)nthreads, sizeof *g);
    pthread_t *tid = calloc((size_t)nthreads, sizeof *tid);
    for (int t = 0; t < nthreads; t++) {
        g[t] = (agent_t){&w, me * nthreads + t, t, 0, 0, 0};
        g[t].rng = 0x1234567ULL * (uint64_t)(g[t].id + 1);
        pthread_create(&tid[t], NULL, agent_main, &g[t]);
    }
    uint64_t tot[2] = {0, 0}, sum[2];
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tid[t], NULL);
        tot[0] += g[t].ops;
        tot[1] += g[t].violations;
    }
    MPI_Allreduce(tot, sum, 2, MPI_UINT64_T, MPI_SUM, hcrt__comm_world());
    hcrt_dsm_counters_t mc, c; /* summed over ranks */
    hcrt__dsm_counters(&mc);
    MPI_Allreduce(&mc, &c, sizeof c / 8, MPI_UINT64_T, MPI_SUM,
                  hcrt__comm_world());
    if (me == 0)
        printf(
            "torture: %llu operations, %llu violations; all ranks: %llu read "
            "faults, %llu write faults, %llu diff bytes, %llu "
            "invalidations\n",
            (unsigned long long)sum[0], (unsigned long long)sum[1],
            (unsigned long long)c.read_faults,
            (unsigned long long)c.write_faults,
            (unsigned long long)c.diff_bytes,
            (unsigned long long)c.invalidations);
    CHECK(sum[0] >= 1000000);
    CHECK_EQ(sum[1], 0);
    CHECK(c.read_faults > 0 && c.write_faults > 0);
    if (me == 0 && sticky)
        printf("torture: %llu pages changed their home\n",
               (unsigned long long)c.pages_migrated_in);
    if (sticky && hcrt__dsm_migrates())
        CHECK(c.pages_migrated_in > 0); /* the homes followed */
    if (c.shm_pages == 0) { /* copies, diffs and invalidations (messages) */
        CHECK(c.diff_bytes > 0);
        CHECK(c.invalidations > 0);
    } /* else one host: every page mapped in place, nothing to diff */
    return dsm_test_finish("dsm_torture");
}
