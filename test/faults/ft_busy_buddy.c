/*
 * ft_busy_buddy.c - a rank lost while its buddy computes keeps its input
 * (docs/reduce.md "Failures"; run_ft_busy_buddy.sh runs it under
 * `hcrun --ft` at 3 ranks). Every rank runs this main (SPMD, -lhcrt).
 *
 *   ft_busy_buddy in|before [BUSY_S]
 *
 * One reduction of 256 Ki int64 (2 MiB: its replica moves by rendezvous),
 * SUM, root 0. Rank 2, the buddy of rank 1, computes for BUSY_S seconds
 * (default 3) without calling hcrt: after it joined the reduction (`in`)
 * or before (`before`). Rank 1 joins 0.2 s after the others (so its
 * replica comes while rank 2 computes), waits 0.3 s and kills itself.
 * Rank 1's input exists only in its replica at rank 2, which must be
 * complete although rank 2 made no reduction call since the replica was
 * sent:
 *  - in: ranks 0 and 2 pair first (rank 2 gives only once it calls in),
 *    rank 1 waits alone in the queue when it is lost;
 *  - before: rank 0, the scheduler, also computes (1.5 s after it joined)
 *    so that it applies the loss before it read rank 1's READY, and
 *    rank 2 joins only after that: the replica is reported by a rank
 *    that has not started the reduction. Then the survivors start a
 *    second reduction before they wait (the scheduler's own READY is
 *    its first reduction call after the loss); it must end
 *    HCRT_ERR_NODE_FAILED, "... the survivors' inputs", with their sum.
 * The root prints "status S recovered N lost L: WHY" and "right" or
 * "WRONG" (against the sequential sum of the three inputs), and exits 0
 * only for HCRT_OK with 1 input recovered and the right sum.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hcrt/hcrt.h"

#define N (256 * 1024)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* A computation that never calls hcrt (no progress of its reductions). */
static volatile uint64_t sink;
static void compute(double secs)
{
    double end = now_s() + secs;
    uint64_t x = 1;
    while (now_s() < end)
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    sink = x;
}

static int64_t input(int rank, size_t i)
{
    return (int64_t)(i * 7919u) + 1000003 * (int64_t)(rank + 1);
}

static int root_check(const int64_t *recv, hcrt_status_t rc,
                      const hcrt_reduce_status_t *st, int nranks)
{
    int right = 1;
    for (size_t i = 0; i < N && right; i++) {
        int64_t want = 0;
        for (int r = 0; r < nranks; r++)
            want += input(r, i);
        right = recv[i] == want;
    }
    printf("ft_busy_buddy: status %d recovered %d lost %d: %s; %s\n", (int)rc,
           st->recovered, st->lost_rank, st->why ? st->why : "-",
           rc == HCRT_OK ? (right ? "right" : "WRONG") : "no result");
    fflush(stdout);
    return rc == HCRT_OK && st->recovered == 1 && right ? 0 : 1;
}

/* The second reduction began after rank 1 was lost: the survivors'. */
static int second_check(int64_t total, hcrt_status_t rc,
                        const hcrt_reduce_status_t *st)
{
    int ok = rc == HCRT_ERR_NODE_FAILED && st->lost_rank == 1 && st->why &&
             strstr(st->why, "survivors") && total == 1 + 3;
    printf("ft_busy_buddy: second: status %d lost %d: %s; %s\n", (int)rc,
           st->lost_rank, st->why ? st->why : "-",
           ok ? "as expected" : "WRONG");
    fflush(stdout);
    return !ok;
}

int main(int argc, char **argv)
{
    int before = argc > 1 && strcmp(argv[1], "before") == 0;
    double busy = argc > 2 ? atof(argv[2]) : 3.0;
    int me = hcrt_node_id(), n = hcrt_num_nodes();
    if (n != 3) {
        fprintf(stderr, "ft_busy_buddy: runs at 3 ranks, not %d\n", n);
        return 2;
    }
    int64_t *send = malloc(N * sizeof *send), *recv = malloc(N * sizeof *recv);
    for (size_t i = 0; i < N; i++)
        send[i] = input(me, i);
    if (me == 2 && before)
        compute(busy);
    if (me == 1)
        nap_ms(200);
    hcrt_future_t *f;
    if (hcrt_reduce_start(send, recv, N, HCRT_INT64, HCRT_OP_SUM, 0, &f) !=
        HCRT_OK)
        return fprintf(stderr, "rank %d: the start failed\n", me), 2;
    if (me == 1) { /* its replica is on its way to rank 2, which computes */
        nap_ms(300);
        kill(getpid(), SIGKILL);
    }
    if (me == 2 && !before)
        compute(busy);
    if (me == 0 && before)
        compute(1.5);
    /* before: the survivors start a second reduction before they wait
     * (at the scheduler its READY is the first call after the loss) */
    int64_t one = me + 1, total = 0;
    hcrt_future_t *f2 = NULL;
    if (before && hcrt_reduce_start(&one, &total, 1, HCRT_INT64, HCRT_OP_SUM, 0,
                                    &f2) != HCRT_OK)
        return fprintf(stderr, "rank %d: the second start failed\n", me), 2;
    hcrt_reduce_status_t st = {0}, st2 = {0};
    hcrt_status_t rc = hcrt_future_wait(f, &st);
    int bad = me == 0 ? root_check(recv, rc, &st, n) : 0;
    if (f2) {
        rc = hcrt_future_wait(f2, &st2);
        if (me == 0)
            bad |= second_check(total, rc, &st2);
    }
    return bad;
}
