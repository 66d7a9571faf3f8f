/*
 * test_heft_probe.c - the start-up link measurement, run at 1, 2 and 4
 * ranks: every rank gets the same plausible latency/bandwidth matrix, and
 * the cost model then charges transfers accordingly.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "check.h"
#include "sched/heft_probe.h"

/* Each check says which rank failed. */
#define CHECK_R(cond)                                                          \
    do {                                                                       \
        int ok_ = (cond) != 0;                                                 \
        CHECKF(ok_, "rank %d: %s", me, #cond);                                 \
    } while (0)

int main(int argc, char **argv)
{
    int me, P;
    hcrt__heft_cost_t *cm, *wrong;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    CHECK_R(hcrt__heft_cost_create(P, &cm) == HCRT_OK);
    CHECK_R(hcrt__heft_cost_create(P + 1, &wrong) == HCRT_OK);
    CHECK_R(hcrt__heft_cost_measure_links(wrong, MPI_COMM_WORLD, 1) ==
          HCRT_ERR_INVALID);
    CHECK_R(hcrt__heft_cost_measure_links(cm, MPI_COMM_WORLD, 1) == HCRT_OK);
    /* transfer times of 0 and 1 MiB on every link, compared across ranks */
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++) {
            double t0 = hcrt__heft_cost_comm(cm, a, b, 0);
            double t1 = hcrt__heft_cost_comm(cm, a, b, 1 << 20);
            double mn[2], mx[2], v[2] = {t0, t1};
            MPI_Allreduce(v, mn, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(v, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            CHECK_R(mn[0] == mx[0] && mn[1] == mx[1]); /* same model */
            if (a == b) {
                CHECK_R(t0 == 0.0 && t1 == 0.0);
                continue;
            }
            CHECK_R(t0 > 0.0 && t0 < 0.1); /* latency: > 0, < 100 ms */
            CHECK_R(t1 > t0 && t1 < 10.0); /* 1 MiB costs more, > 100 kB/s */
            CHECK_R(hcrt__heft_cost_comm(cm, a, b, 1 << 20) ==
                  hcrt__heft_cost_comm(cm, b, a, 1 << 20)); /* symmetric */
            if (me == 0 && a == 0 && b == 1)
                printf("link 0-1: latency %.2f us, 1 MiB in %.1f us\n",
                       t0 * 1e6, t1 * 1e6);
        }
    /* the uniform variant keeps the mean */
    hcrt__heft_cost_t *u;
    CHECK_R(hcrt__heft_cost_create(P, &u) == HCRT_OK);
    CHECK_R(hcrt__heft_cost_measure_links(u, MPI_COMM_WORLD, 0) == HCRT_OK);
    if (P > 1) {
        double t = hcrt__heft_cost_comm(u, 0, P - 1, 1 << 20);
        CHECK_R(t > 0.0 && t < 10.0);
    }
    hcrt__heft_cost_destroy(u);
    hcrt__heft_cost_destroy(cm);
    hcrt__heft_cost_destroy(wrong);
    int total;
    MPI_Allreduce(&check_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: %d failed checks at %d ranks\n", total ? "FAIL" : "ok",
               total, P);
    MPI_Finalize();
    return total ? 1 : 0;
}
