/*
 * reduce_api.c - the public reduction API (hcrt.h, docs/reduce.md): every
 * rank runs this main (an SPMD program linked with -lhcrt, not built by
 * hcc) and reduces its own buffers: one blocking sum, then eight
 * non-blocking reductions in flight at once (built-in and a user
 * operator), overlapped with work, each checked at its root.
 *
 *   cc reduce_api.c -Ibuild/include -Lbuild/lib -lhcrt -o reduce_api
 *   hcrun -n 4 ./reduce_api
 */
#include <stdio.h>
#include <stdlib.h>

#include "hcrt/hcrt.h"

#define N (1 << 20) /* doubles per reduction: 8 MiB */
#define K 8

typedef struct {
    double v;
    int rank;
} maxloc_t;

/* A user operator: the largest value and the lowest rank holding it. */
static void maxloc(void *inout, const void *in, size_t n, void *arg)
{
    maxloc_t *a = inout;
    const maxloc_t *b = in;
    (void)arg;
    for (size_t i = 0; i < n; i++)
        if (b[i].v > a[i].v || (b[i].v == a[i].v && b[i].rank < a[i].rank))
            a[i] = b[i];
}

int main(void)
{
    int rank = hcrt_node_id(), n = hcrt_num_nodes(), bad = 0;
    double *x = malloc(N * sizeof *x), *sum = malloc(N * sizeof *sum);
    for (long i = 0; i < N; i++)
        x[i] = (double)(rank + 1) * (double)(i % 7);

    /* blocking: the sum of every rank's x at rank 0 */
    hcrt_reduce_status_t st;
    if (hcrt_reduce(x, sum, N, HCRT_DOUBLE, HCRT_OP_SUM, 0, &st) != HCRT_OK)
        fprintf(stderr, "rank %d: reduction failed: %s\n", rank, st.why);
    if (rank == 0)
        for (long i = 0; i < N; i++)
            bad += sum[i] != (double)n * (n + 1) / 2 * (double)(i % 7);

    /* K at once, roots spread over the ranks, work done meanwhile */
    hcrt_future_t *f[K];
    long *in = malloc(K * sizeof *in), *out = malloc(K * sizeof *out);
    maxloc_t mine = {(double)((rank * 5) % 3), rank}, best;
    for (int k = 0; k < K - 1; k++) {
        in[k] = (long)(rank + k);
        hcrt_reduce_start(&in[k], &out[k], 1, HCRT_INT64, HCRT_OP_MAX, k % n,
                          &f[k]);
    }
    hcrt_reduce_start_user(&mine, &best, 1, sizeof mine, maxloc, NULL, 0,
                           &f[K - 1]);
    double work = 0;
    for (long i = 0; i < N; i++) /* overlapped with the reductions */
        work += x[i] * 0.5;
    for (int k = 0; k < K; k++) {
        hcrt_future_wait(f[k], &st);
        bad += st.status != HCRT_OK;
        if (k < K - 1 && rank == k % n)
            bad += out[k] != (long)(n - 1 + k);
    }
    if (rank == 0)
        printf("reduce_api: %d ranks, sum of %d MiB %s, %d concurrent "
               "reductions %s, maxloc %.0f at rank %d (work %.0f)\n",
               n, (int)(N * sizeof(double) >> 20), bad ? "WRONG" : "ok", K,
               bad ? "WRONG" : "ok", best.v, best.rank, work);
    free(x), free(sum), free(in), free(out);
    return bad != 0;
}
