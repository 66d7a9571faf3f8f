// Nested parallel regions inside a cluster region follow the OpenMP rules
// with the same answers at every rank count: max-active-levels-var (default,
// omp_set_max_active_levels, omp_set_nested), levels, active levels,
// ancestor thread numbers and team sizes at every level, omp_in_parallel,
// omp_get_max_threads (nthreads-var inherited from the head, changed by a
// thread with omp_set_num_threads), dyn-var and max-active-levels-var set on
// the head before the region; and the constructs of a nested team work
// across nodes: worksharing, critical (one section for the whole program),
// atomic, and reductions read by the outer thread after the nested region.
// Each thread records what it sees; the head prints it in thread order.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
// Nesting on from the environment, and a list for nthreads-var (its first
// element is per node: the reference runs with np x threads there).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   --env OMP_MAX_ACTIVE_LEVELS=3 --nthreads-tail ,3,2 %s %t.env
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   --env OMP_NESTED=true --env HCRT_DSM_SHM=0 %s %t.nested
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define MAXO 16 /* outer threads recorded */
#define MAXI 4  /* inner threads recorded */
#define PAGE __attribute__((aligned(4096)))

typedef struct rec {
    int seen, level, active, inpar, tid, nth, maxth;
    int anc[4], ts[4];
} rec_t;

static rec_t rec[MAXO][MAXI];
static int outer_n, inner_n[MAXO];
long crit_count PAGE;
long atomic_count PAGE;
long red_sum[MAXO] PAGE;
long ws_sum[MAXO] PAGE;
int dyn_bad PAGE, mal_bad PAGE;

static void record(rec_t *r)
{
    r->seen = 1;
    r->level = omp_get_level();
    r->active = omp_get_active_level();
    r->inpar = omp_in_parallel();
    r->tid = omp_get_thread_num();
    r->nth = omp_get_num_threads();
    r->maxth = omp_get_max_threads();
    for (int l = 0; l < 4; l++) {
        r->anc[l] = omp_get_ancestor_thread_num(l);
        r->ts[l] = omp_get_team_size(l);
    }
}

static void print_rec(const rec_t *r)
{
    printf("  L%d A%d P%d t%d/%d max%d anc", r->level, r->active, r->inpar,
           r->tid, r->nth, r->maxth);
    for (int l = 0; l < 4; l++)
        printf(" %d", r->anc[l]);
    printf(" ts");
    for (int l = 0; l < 4; l++)
        printf(" %d", r->ts[l]);
    printf("\n");
}

static void report(const char *what)
{
    printf("%s: outer team %d\n", what, outer_n);
    for (int o = 0; o < outer_n && o < MAXO; o++) {
        printf(" outer %d: inner team %d\n", o, inner_n[o]);
        for (int i = 0; i < MAXI; i++)
            if (rec[o][i].seen)
                print_rec(&rec[o][i]);
    }
    memset(rec, 0, sizeof rec);
    memset(inner_n, 0, sizeof inner_n);
}

/* Two levels: the outer (cluster) team, each thread forks `inner` threads
 * (0: no num_threads clause). */
static void two_levels(const char *what, int inner)
{
#pragma omp parallel
    {
        int o = omp_get_thread_num();
#pragma omp single
        outer_n = omp_get_num_threads();
        if (inner > 0)
            omp_set_num_threads(inner); /* this implicit task's nthreads-var */
#pragma omp parallel
        {
            int i = omp_get_thread_num();
            if (o < MAXO && i < MAXI)
                record(&rec[o][i]);
            if (o < MAXO && i == 0)
                inner_n[o] = omp_get_num_threads();
        }
    }
    report(what);
}

/* Three levels, the third records its thread 0 of each level-2 thread 0. */
static void three_levels(const char *what)
{
#pragma omp parallel
    {
        int o = omp_get_thread_num();
#pragma omp single
        outer_n = omp_get_num_threads();
#pragma omp parallel num_threads(2)
        {
            int i = omp_get_thread_num();
#pragma omp parallel num_threads(2)
            {
                int j = omp_get_thread_num();
                if (o < MAXO && i < 2 && j < 2)
                    record(&rec[o][2 * i + j]);
                if (o < MAXO && i == 0 && j == 0)
                    inner_n[o] = omp_get_num_threads();
            }
        }
    }
    report(what);
}

/* Constructs inside nested teams; the results are checked by the outer
 * thread right after its nested region and printed at the end. */
static void constructs(void)
{
    crit_count = atomic_count = 0;
    memset(red_sum, 0, sizeof red_sum);
    memset(ws_sum, 0, sizeof ws_sum);
#pragma omp parallel
    {
        int o = omp_get_thread_num();
        long s = 0, w[64];
#pragma omp single
        outer_n = omp_get_num_threads();
#pragma omp parallel num_threads(2) shared(w)
        {
#pragma omp for
            for (int k = 0; k < 64; k++)
                w[k] = k * (o + 1);
#pragma omp for reduction(+ : s)
            for (int k = 1; k <= 100; k++)
                s += k;
            for (int k = 0; k < 50; k++) {
#pragma omp critical
                crit_count++;
#pragma omp atomic
                atomic_count++;
            }
        }
        long ws = 0;
        for (int k = 0; k < 64; k++)
            ws += w[k];
        if (o < MAXO) {
            red_sum[o] = s;
            ws_sum[o] = ws;
        }
    }
    long per = 0;
    for (int o = 0; o < outer_n && o < MAXO; o++)
        per += red_sum[o] == 5050 && ws_sum[o] == 2016L * (o + 1);
    printf("constructs: %ld of %d outer threads saw their reduction and "
           "loop; per-thread critical/atomic counts %ld %ld\n",
           per, outer_n < MAXO ? outer_n : MAXO, crit_count / outer_n,
           atomic_count / outer_n);
}

/* dyn-var and max-active-levels-var set on the head reach every level. */
static void icvs_from_head(void)
{
    int mal = omp_get_max_active_levels();

    omp_set_dynamic(1);
    omp_set_max_active_levels(mal + 2);
#pragma omp parallel
    {
        if (!omp_get_dynamic())
#pragma omp atomic write
            dyn_bad = 1;
        if (omp_get_max_active_levels() != mal + 2)
#pragma omp atomic write
            mal_bad = 1;
#pragma omp parallel num_threads(1)
        if (!omp_get_dynamic() || omp_get_max_active_levels() != mal + 2)
#pragma omp atomic write
            dyn_bad = 1;
    }
    omp_set_dynamic(0);
    omp_set_max_active_levels(mal);
    printf("dyn-var and max-active-levels-var from the head: bad %d %d\n",
           dyn_bad, mal_bad);
}

int main(void)
{
    printf("start: max active %d max threads %d level %d active %d "
           "in parallel %d\n",
           omp_get_max_active_levels(), omp_get_max_threads(),
           omp_get_level(), omp_get_active_level(), omp_in_parallel());
    two_levels("default", 2);
    two_levels("no clause", 0);
    int mal = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    two_levels("max active 2", 2);
    three_levels("max active 2, three levels");
    omp_set_nested(0);
    two_levels("nested off", 2);
    omp_set_max_active_levels(3);
    three_levels("max active 3, three levels");
    constructs();
    omp_set_max_active_levels(mal);
    constructs();
    icvs_from_head();
    return 0;
}
