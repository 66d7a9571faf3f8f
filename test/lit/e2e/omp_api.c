// The OpenMP API as a program sees it inside regions: distinct thread
// numbers 0..n-1 agreeing with omp_get_num_threads, the round-robin
// iteration-to-thread mapping that schedule(static, c) fixes, the master
// being thread 0, omp_in_parallel/omp_get_level, timers. Only facts that
// hold at every team size are printed.
// RUN: %e2e %s %t
#include <omp.h>
#include <stdlib.h>

#include "e2e.h"

#define MAXT 4096
#define N 5000

static int owner[N];

int main(void)
{
    int *seen = calloc(MAXT, sizeof(int));
    int team = 0, bad_ids = 0, master_ok = 0, level_ok = 1;
#pragma omp parallel reduction(+ : bad_ids) reduction(& : level_ok)
    {
        int id = omp_get_thread_num(), n = omp_get_num_threads();
        if (id < 0 || id >= n || n > MAXT)
            bad_ids++;
        else {
#pragma omp atomic
            seen[id]++;
        }
#pragma omp master
        {
            team = n;
            master_ok = id == 0;
        }
        level_ok &= omp_in_parallel() == (n > 1) && omp_get_level() == 1 &&
                    omp_get_active_level() == (n > 1);
    }
    for (int i = 0; i < team; i++)
        bad_ids += seen[i] != 1;
    CHECK(team >= 1 && bad_ids == 0 && master_ok && level_ok,
          "thread numbering: team %d bad %d master %d level %d", team, bad_ids,
          master_ok, level_ok);

    /* schedule(static, c): chunk k goes to thread k % n */
    int n_in_loop = 0, map_bad = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static, 7)
        for (int i = 0; i < N; i++)
            owner[i] = omp_get_thread_num();
#pragma omp single
        n_in_loop = omp_get_num_threads();
    }
    for (int i = 0; i < N; i++)
        map_bad += owner[i] != (i / 7) % n_in_loop;
    CHECK(map_bad == 0, "static,7 mapping: %d iterations on the wrong thread",
          map_bad);

    /* schedule(static) without a chunk: each thread gets one contiguous
     * block, in thread order */
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        owner[i] = omp_get_thread_num();
    int blocks_bad = owner[0] != 0;
    for (int i = 1; i < N; i++)
        blocks_bad += owner[i] != owner[i - 1] && owner[i] != owner[i - 1] + 1;
    CHECK(blocks_bad == 0, "static blocks not contiguous/in order");

    double t0 = omp_get_wtime(), t1 = omp_get_wtime();
    CHECK(t1 >= t0 && omp_get_wtick() > 0, "timers");
    CHECK(omp_in_parallel() == 0 && omp_get_thread_num() == 0 &&
              omp_get_num_threads() == 1,
          "sequential part");
    printf("omp_api: numbering ok=%d static,7 ok=%d static ok=%d\n",
           bad_ids == 0, map_bad == 0, blocks_bad == 0);
    free(seen);
    return e2e_finish("omp_api");
}
