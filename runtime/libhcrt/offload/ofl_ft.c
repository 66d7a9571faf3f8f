/*
 * ofl_ft.c - target tasks under FT mode (fault/ft.h, docs/faults.md "FT
 * mode"): a kernel task whose node was lost runs again on a survivor.
 *
 * A task maps its data for itself (map clauses of the target construct):
 * the data manager plans its copies in, its kernel and its copies home,
 * and forgets the mapping when it plans the task (its reference count is
 * back to 0). Until the task completes, what it brings home is held back
 * here, so the host keeps the task's inputs unchanged: when its node is
 * lost, wherever it was (data going in, kernel running, data coming
 * home), the task is planned again from its start on a survivor, and its
 * inputs come from the host as the first time. Its successors wait for it
 * (depend clauses: its detached OpenMP task completes only then), so
 * nothing read its outputs from the lost node.
 *
 * Data that outlives a task (target data, enter data) may have its only
 * copy on the lost node; re-running the completed tasks that wrote it
 * (lineage) is not implemented: such a loss ends the job, saying so.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/offload/offload_int.h"
#include "libhcrt/offload/ofl_exec_int.h"

static struct {
    pthread_mutex_t lock;
    long reruns, bytes;
    double seconds;
    uint64_t said; /* lost ranks whose device(n) was remapped (bit) */
} ft = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};

int hcrt__ofl_node_live(int node)
{
    return node >= 0 && !hcrt__wait_is_failed(node);
}

/* Data the lost rank held for more than one task cannot come back. */
static void ofl_lost(int rank, void *arg)
{
    ofl_state_t *s = &hcrt__ofl;
    uint64_t bytes;
    uintptr_t first;
    (void)arg;
    pthread_mutex_lock(&s->lock);
    int32_t n = hcrt__dm_on_node(s->dm, rank, &bytes, &first);
    pthread_mutex_unlock(&s->lock);
    if (n)
        hcrt__ft_unrecoverable(
            rank,
            "it held device copies of %d mapped buffer(s) that outlive a "
            "task (target data or enter data; %" PRIu64 " bytes, the first "
            "at host address %p), and re-running the completed tasks that "
            "wrote them (lineage re-execution) is not implemented",
            n, bytes, (void *)first);
}

void hcrt__ofl_ft_init(void)
{
    if (hcrt__ft_on() && hcrt__ofl.rank == 0 && hcrt__ofl.ndev > 0)
        hcrt__ft_on_lost(ofl_lost, NULL);
}

int hcrt__ofl_ft_pinned(int node)
{
    ofl_state_t *s = &hcrt__ofl;
    if (node <= 0 || hcrt__ofl_node_live(node))
        return node;
    int to = 0;
    for (int k = 1; k <= s->ndev && !to; k++) {
        int n = 1 + (node - 1 + k) % s->ndev; /* the next live one */
        if (hcrt__ofl_node_live(n))
            to = n;
    }
    pthread_mutex_lock(&ft.lock);
    uint64_t bit = node < 64 ? 1ULL << node : 0;
    int say = !(ft.said & bit);
    ft.said |= bit;
    pthread_mutex_unlock(&ft.lock);
    if (say && to)
        hcrt_warn(HCRT_MOD_TARGET,
                  "device %d (rank %d) was lost: target regions that name "
                  "it run on device %d (rank %d) from now on",
                  node - 1, node, to - 1, to);
    return to;
}

void hcrt__ofl_ft_hold(ofl_x_t *x, void *host, void *data, size_t len)
{
    ofl_ft_t *f = x->ft;
    if (f->ncommits == f->capcommits &&
        hcrt__ofl_grow((void **)&f->commits, &f->capcommits,
                       (int64_t)f->ncommits + 1,
                       sizeof(*f->commits)) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
    f->commits[f->ncommits++] = (ofl_commit_t){host, data, len};
}

static void drop_held(ofl_ft_t *f)
{
    for (int32_t i = 0; i < f->ncommits; i++)
        free(f->commits[i].data);
    f->ncommits = 0;
}

void hcrt__ofl_ft_complete(ofl_x_t *x)
{
    ofl_ft_t *f = x->ft;
    if (!f)
        return;
    for (int32_t i = 0; i < f->ncommits; i++)
        memcpy(f->commits[i].host, f->commits[i].data, f->commits[i].len);
    drop_held(f);
    if (f->retries) {
        double t = MPI_Wtime() - f->t_fail;
        pthread_mutex_lock(&ft.lock);
        ft.seconds += t;
        pthread_mutex_unlock(&ft.lock);
        hcrt__ft_count_redo(0, 0, t);
    }
}

void hcrt__ofl_ft_free(ofl_x_t *x)
{
    ofl_ft_t *f = x->ft;
    if (!f)
        return;
    drop_held(f);
    free(f->commits);
    free(f->maps);
    free(f->deps);
    free(f->xl);
    free(f);
    x->ft = NULL;
}

/* Bytes the re-planned task sends again (copies from the host). */
static long plan_put_bytes(const hcrt__dm_plan_t *p)
{
    long n = 0;
    for (int32_t i = 0; i < p->n; i++)
        if (p->ops[i].kind == HCRT_DM_OP_COPY && p->ops[i].src == HCRT_DM_HOST)
            n += (long)p->ops[i].len;
    return n;
}

/* Called by hcrt__ofl_ft_retry (ofl_exec.c) once x has a new plan. */
void hcrt__ofl_ft_count(ofl_x_t *x, int lost)
{
    ofl_ft_t *f = x->ft;
    long bytes = plan_put_bytes(&x->pre);
    if (!f->retries++)
        f->t_fail = MPI_Wtime();
    drop_held(f);
    pthread_mutex_lock(&ft.lock);
    ft.reruns++;
    ft.bytes += bytes;
    pthread_mutex_unlock(&ft.lock);
    hcrt__ft_count_redo(1, bytes, 0);
    hcrt_info(HCRT_MOD_TARGET,
              "target task %s re-runs on device %d (rank %d): rank %d was "
              "lost (%ld bytes sent again)",
              f->name ? f->name : "?", x->node - 1, x->node, lost, bytes);
}

int hcrt__ofl_ft_print(FILE *out)
{
    pthread_mutex_lock(&ft.lock);
    long r = ft.reruns, b = ft.bytes;
    double t = ft.seconds;
    pthread_mutex_unlock(&ft.lock);
    if (!hcrt__ft_on() || !hcrt__ft_nlost())
        return 0;
    fprintf(out,
            "offload: FT mode, %d rank(s) lost: %ld target task(s) re-run "
            "on survivors, %ld bytes sent again, %.1f ms from the first "
            "failure of each to its completion (sum)\n",
            hcrt__ft_nlost(), r, b, t * 1e3);
    return 1;
}
