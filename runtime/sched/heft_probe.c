/*
 * heft_probe.c - measures latency and bandwidth between every pair of ranks
 * at start-up, for the cost model's transfer times.
 *
 * Pairs are measured in P - 1 rounds of a round-robin tournament (circle
 * method), every pair of a round at the same time, so start-up stays
 * O(P) rounds instead of O(P^2) sequential ping-pongs. Each pair does a few
 * small round trips (latency) and a few large ones (bandwidth); the lower
 * rank times them and tells its partner. An allgather then gives every rank
 * the same matrix, so every rank's scheduler would decide alike.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sched/heft_probe.h"

#define SMALL_REPS 20
#define BIG_REPS 4
#define BIG_BYTES (1 << 20)

/* Partner of `rank` in round k of a tournament over n (even) players;
 * players >= size are byes. */
static int partner(int rank, int k, int n)
{
    if (rank == n - 1)
        return k;
    int j = ((2 * k - rank) % (n - 1) + (n - 1)) % (n - 1);
    return j == rank ? n - 1 : j;
}

/* Round trips of `bytes` with `peer`; the caller (lower rank) returns the
 * mean one-way time, the other side echoes. */
static double pingpong(MPI_Comm comm, int peer, int lead, char *buf, int bytes,
                       int reps)
{
    double t0 = 0.0;
    for (int i = -1; i < reps; i++) { /* round -1 warms the path up */
        if (i == 0)
            t0 = MPI_Wtime();
        if (lead) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, comm);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 0, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, 0, comm);
        }
    }
    return (MPI_Wtime() - t0) / (2.0 * reps);
}

/* One pair: lat and bw as seen by both sides. */
static void measure_pair(MPI_Comm comm, int me, int peer, char *buf,
                         double *lat, double *bw)
{
    int lead = me < peer;
    double res[2];
    double l = pingpong(comm, peer, lead, buf, 8, SMALL_REPS);
    double big = pingpong(comm, peer, lead, buf, BIG_BYTES, BIG_REPS);
    if (lead) {
        res[0] = l;
        /* the latency is already in `big`; a floor keeps bw finite */
        res[1] = BIG_BYTES / (big - l > 1e-9 ? big - l : 1e-9);
        MPI_Send(res, 2, MPI_DOUBLE, peer, 1, comm);
    } else {
        MPI_Recv(res, 2, MPI_DOUBLE, peer, 1, comm, MPI_STATUS_IGNORE);
    }
    *lat = res[0];
    *bw = res[1];
}

static hcrt_status_t fill_model(hcrt__heft_cost_t *cm, const double *lat,
                                const double *bw, int P, int full)
{
    double sl = 0.0, sb = 0.0;
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++)
            if (a != b) {
                sl += lat[a * P + b];
                sb += 1.0 / bw[a * P + b];
            }
    double pairs = (double)P * (P - 1);
    hcrt_status_t st =
        hcrt__heft_cost_set_uniform_link(cm, sl / pairs, pairs / sb);
    for (int a = 0; full && st == HCRT_OK && a < P; a++)
        for (int b = 0; st == HCRT_OK && b < P; b++)
            if (a != b)
                st = hcrt__heft_cost_set_link(cm, a, b, lat[a * P + b],
                                              bw[a * P + b]);
    return st;
}

hcrt_status_t hcrt__heft_cost_measure_links(hcrt__heft_cost_t *cm,
                                            MPI_Comm comm, int full_matrix)
{
    int me, P;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    if (hcrt__heft_cost_nnodes(cm) != P)
        return HCRT_ERR_INVALID;
    if (P == 1)
        return HCRT_OK;
    MPI_Comm pc;
    if (MPI_Comm_dup(comm, &pc) != MPI_SUCCESS) /* no clash with others */
        return HCRT_ERR_MPI;
    int n = P + (P & 1);
    double *row = calloc(2 * (size_t)P, sizeof(double));
    double *all = malloc(sizeof(double) * 2 * (size_t)P * P);
    double *lat = malloc(sizeof(double) * (size_t)P * P);
    double *bw = malloc(sizeof(double) * (size_t)P * P);
    char *buf = calloc(BIG_BYTES, 1);
    hcrt_status_t st = HCRT_ERR_NOMEM;
    if (row == NULL || all == NULL || lat == NULL || bw == NULL || !buf)
        goto out;
    for (int k = 0; k < n - 1; k++) {
        int peer = partner(me, k, n);
        if (peer < P)
            measure_pair(pc, me, peer, buf, &row[peer], &row[P + peer]);
    }
    st = HCRT_ERR_MPI;
    if (MPI_Allgather(row, 2 * P, MPI_DOUBLE, all, 2 * P, MPI_DOUBLE, pc) !=
        MPI_SUCCESS)
        goto out;
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++) {
            lat[a * P + b] = all[(size_t)a * 2 * P + b];
            bw[a * P + b] = all[(size_t)a * 2 * P + P + b];
        }
    st = fill_model(cm, lat, bw, P, full_matrix);
out:
    free(row);
    free(all);
    free(lat);
    free(bw);
    free(buf);
    MPI_Comm_free(&pc);
    return st;
}
