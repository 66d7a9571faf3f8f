/*
 * dsm_pipeline.c - a wavefront pipeline over the DSM, checked element by
 * element: the pattern of NPB LU's SSOR sweeps (threads hand planes to
 * their neighbours through shared flags, spinning with acquires; the
 * consumer clears a flag, the producer sets the next one).
 *
 * Rank r owns a block of rows of every plane. For plane k it waits until
 * rank r-1 has finished its rows of plane k (flag[r-1] = 1), clears the
 * flag, then computes its rows: each element reads its left neighbour row
 * (rank r-1's last row for the first one), the same row of plane k-1 and
 * its own value of the previous step, and every one of those reads is
 * checked against the value the oracle says it must have. Rows are
 * shorter than a page, so pages are written by two ranks at block and
 * plane boundaries; a scratch array (LU's tv) is written and read back by
 * each rank in its rows; the flags share a page with the tail of the data;
 * after each step the ranks add their rows' sums with atomics (LU's norms)
 * and check the total after a barrier. Everything is homed on rank 0,
 * which takes part as the pipeline's first stage and writes its master
 * copies directly, as LU's head does.
 */
#include <sched.h>

#include "dsm_test.h"

#define ROW 65           /* elements of a row: 520 bytes */
#define NJ 16            /* rows per plane: a plane is 2.03 pages */
#define NK 8             /* planes */
#define STEPS 10         /* sweeps */
#define SPIN_MAX 2000000 /* acquires a flag wait may take before failing */

typedef uint64_t plane_t[NJ][ROW];

static uint64_t expect(int s, int k, int j, int i)
{
    uint64_t x =
        (uint64_t)s << 48 ^ (uint64_t)k << 32 ^ (uint64_t)j << 16 ^ (uint64_t)i;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return x | 1; /* never 0: the initial value */
}

typedef struct world {
    plane_t *v;             /* NK planes */
    uint64_t (*tv)[ROW];    /* NJ rows of scratch */
    volatile int32_t *flag; /* nranks flags, after the data */
    uint64_t *sum;          /* per step, added to with atomics */
    int j0, j1;             /* my rows */
    long violations, reads;
} world_t;

static void check(world_t *w, uint64_t got, uint64_t want, const char *what,
                  int s, int k, int j, int i)
{
    w->reads++;
    if (got == want)
        return;
    if (w->violations++ < 8)
        fprintf(stderr,
                "rank %d step %d plane %d row %d col %d: %s is %#llx, the "
                "oracle says %#llx\n",
                me, s, k, j, i, what, (unsigned long long)got,
                (unsigned long long)want);
}

/* Spins with acquires until flag[who] == want (LU: flush in the loop),
 * yielding the core (4 ranks share 2 cores in the tests). */
static void wait_flag(world_t *w, int who, int want)
{
    for (long n = 0; w->flag[who] != want; n++) {
        hcrt__dsm_acquire();
        sched_yield();
        if (n == SPIN_MAX) {
            fprintf(stderr, "rank %d: flag %d never became %d\n", me, who,
                    want);
            exit(3);
        }
    }
}

static void sweep_plane(world_t *w, int s, int k)
{
    if (me > 0) { /* LU's sync_left */
        wait_flag(w, me - 1, 1);
        w->flag[me - 1] = 0;
        hcrt__dsm_acquire();
    }
    for (int j = w->j0; j < w->j1; j++) {
        for (int i = 0; i < ROW; i++) {
            if (j > 0) /* rank me-1's last row for the first of mine */
                check(w, w->v[k][j - 1][i], expect(s, k, j - 1, i), "left row",
                      s, k, j, i);
            check(w, w->v[k - 1][j][i], k - 1 >= 1 ? expect(s, k - 1, j, i) : 0,
                  "lower plane", s, k, j, i);
            check(w, w->v[k][j][i], s > 1 ? expect(s - 1, k, j, i) : 0,
                  "own value", s, k, j, i);
            w->tv[j][i] = expect(s, k, j, i) ^ 0x5555;
        }
        for (int i = 0; i < ROW; i++) {
            check(w, w->tv[j][i], expect(s, k, j, i) ^ 0x5555, "scratch", s, k,
                  j, i);
            w->v[k][j][i] = expect(s, k, j, i);
        }
    }
    if (me < nranks - 1) { /* LU's sync_right */
        hcrt__dsm_acquire();
        wait_flag(w, me, 0);
        w->flag[me] = 1;
        hcrt__dsm_acquire();
    }
}

static uint64_t my_sum(world_t *w, int s)
{
    uint64_t t = 0;
    for (int k = 1; k < NK; k++)
        for (int j = w->j0; j < w->j1; j++)
            for (int i = 0; i < ROW; i++)
                t += expect(s, k, j, i) >> 20;
    return t;
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    world_t w = {0};
    size_t data = NK * sizeof(plane_t);
    char *base = NULL;
    if (me == 0) { /* flags in the page of the data's tail */
        base = hcrt__dsm_calloc(1, data + 64 + NJ * ROW * 8 + STEPS * 8 + 64);
        CHECK(base != NULL);
    }
    base = dsm_test_share(base, 0);
    w.v = (plane_t *)base;
    w.flag = (volatile int32_t *)(base + data);
    w.tv = (uint64_t(*)[ROW])(base + data + 64);
    w.sum = (uint64_t *)(base + data + 64 + NJ * ROW * 8);
    w.j0 = NJ * me / nranks;
    w.j1 = NJ * (me + 1) / nranks;
    hcrt__dsm_barrier();
    for (int s = 1; s <= STEPS; s++) {
        for (int k = 1; k < NK; k++)
            sweep_plane(&w, s, k);
        hcrt__dsm_atomic(&w.sum[s - 1], 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_ADD,
                         my_sum(&w, s), 0, __ATOMIC_RELAXED);
        hcrt__dsm_barrier();
        uint64_t total = 0;
        for (int r = 0; r < nranks; r++) {
            world_t o = w;
            o.j0 = NJ * r / nranks, o.j1 = NJ * (r + 1) / nranks;
            total += my_sum(&o, s);
        }
        check(&w, w.sum[s - 1], total, "sum", s, 0, 0, 0);
        for (int r = 0; r < nranks - 1; r++)
            check(&w, (uint64_t)w.flag[r], 0, "flag after the sweep", s, 0, r,
                  0);
        hcrt__dsm_barrier(); /* all read before the next step writes */
    }
    long v[2] = {w.violations, w.reads}, t[2];
    MPI_Allreduce(v, t, 2, MPI_LONG, MPI_SUM, hcrt__comm_world());
    if (me == 0)
        printf("pipeline: %ld checked reads, %ld violations\n", t[1], t[0]);
    CHECK_EQ(t[0], 0);
    return dsm_test_finish("dsm_pipeline");
}
