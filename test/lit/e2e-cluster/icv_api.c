// The OpenMP ICVs and runtime routines (OpenMP 5.2 chapters 2 and 18) as a
// program sees them in its serial code, at level 1 of a cluster region, in
// tasks and in nested regions, before and after the head changes them: team
// and level queries, nthreads-var, dyn-var, max-active-levels-var,
// thread-limit-var, run-sched-var (omp_set_schedule on the head reaches
// every node; a thread's own omp_set_schedule stays its own), bind-var,
// places, cancel-var, default-device-var, final and explicit tasks, host
// teams, timers, omp_pause_resource(_all) (soft and hard; regions run after
// them), omp_display_env's shape, and omp_get_supported_active_levels.
//
// Documented differences from one node (docs/runtime.md, "OpenMP API in a
// cluster") are checked as such, never silently: omp_get_num_devices() is the
// number of worker nodes (docs/offload.md) and the initial device follows
// it; omp_display_env shows the head's libomp, whose OMP_NUM_THREADS is the
// per-node value.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
// The cluster team is one contention group: OMP_THREAD_LIMIT bounds it.
// (libomp-19 aborts in omp_display_env with OMP_SCHEDULE=guided.)
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   --env OMP_THREAD_LIMIT=5 --env OMP_SCHEDULE=dynamic,5 %s %t.limit
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* hcc's nodes (1 in the plain OpenMP build, which has no libhcrt). */
extern int hcrt_num_nodes(void) __attribute__((weak));
static int nodes(void)
{
    return hcrt_num_nodes ? hcrt_num_nodes() : 1;
}

#define MAXT 64

typedef struct snap {
    int tid, nth, lvl, act, par, maxth, anc0, anc1, ts0, ts1, ts2;
    int dyn, mal, lim, skind, schunk, bind, cancel, ddev, isinit, devnum;
    int final, expl, nteams, teamnum, place, pparts, nplaces;
} snap_t;

static snap_t rec[MAXT], tsk[MAXT], nest[MAXT];
static int own_bad[MAXT];

static void take(snap_t *s)
{
    omp_sched_t k;
    s->tid = omp_get_thread_num();
    s->nth = omp_get_num_threads();
    s->lvl = omp_get_level();
    s->act = omp_get_active_level();
    s->par = omp_in_parallel();
    s->maxth = omp_get_max_threads();
    s->anc0 = omp_get_ancestor_thread_num(0);
    s->anc1 = omp_get_ancestor_thread_num(1);
    s->ts0 = omp_get_team_size(0);
    s->ts1 = omp_get_team_size(1);
    s->ts2 = omp_get_team_size(2);
    s->dyn = omp_get_dynamic();
    s->mal = omp_get_max_active_levels();
    s->lim = omp_get_thread_limit();
    omp_get_schedule(&k, &s->schunk);
    s->skind = (int)k;
    s->bind = (int)omp_get_proc_bind();
    s->cancel = omp_get_cancellation();
    /* With worker nodes, device 0 is the first of them (docs/offload.md);
     * on one node there is no device and 0 is the host. */
    int d = omp_get_default_device();
    s->ddev = d == omp_get_initial_device() ? 'I' : d == 0 && nodes() > 1 ? 'I'
                                                                          : d;
    s->isinit = omp_is_initial_device();
    s->devnum = omp_get_device_num() - omp_get_initial_device();
    s->final = omp_in_final();
    s->expl = omp_in_explicit_task();
    s->nteams = omp_get_num_teams();
    s->teamnum = omp_get_team_num();
    s->place = omp_get_place_num();
    s->pparts = omp_get_partition_num_places();
    s->nplaces = omp_get_num_places();
}

static void show(const char *what, const snap_t *s)
{
    printf("%s: t%d/%d L%d A%d P%d max%d anc %d %d ts %d %d %d dyn%d mal%d "
           "lim%d sched %#x,%d bind%d cancel%d ddev %c init%d devnum%+d "
           "final%d expl%d teams %d/%d place %d %d/%d\n",
           what, s->tid, s->nth, s->lvl, s->act, s->par, s->maxth, s->anc0,
           s->anc1, s->ts0, s->ts1, s->ts2, s->dyn, s->mal, s->lim, s->skind,
           s->schunk, s->bind, s->cancel, s->ddev, s->isinit, s->devnum,
           s->final, s->expl, s->teamnum, s->nteams, s->place, s->pparts,
           s->nplaces);
}

/* A cluster region (it has a worksharing loop) in which every thread takes
 * a snapshot at level 1, in a final task, and in a nested region. */
static int region(void)
{
    int n = 0;
    memset(rec, 0, sizeof rec);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp for
        for (int i = 0; i < MAXT; i++)
            own_bad[i] = 0;
        if (t < MAXT) {
            take(&rec[t]);
            /* libomp-19 sometimes runs the included task on another
             * thread of the team (in the reference too): the executing
             * thread's number is not compared */
#pragma omp task final(1) shared(t)
            {
                take(&tsk[t]);
                tsk[t].tid = tsk[t].anc1 = -1;
            }
#pragma omp taskwait
            /* under a thread limit, which nested team gets the threads
             * left is a race on one node: teams of one */
#pragma omp parallel num_threads(getenv("OMP_THREAD_LIMIT") ? 1 : 2)
            if (omp_get_thread_num() == 0)
                take(&nest[t]);
        }
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
}

static void print_region(const char *what, int n)
{
    char buf[64];
    for (int t = 0; t < n && t < MAXT; t++) {
        snprintf(buf, sizeof buf, "%s %d", what, t);
        show(buf, &rec[t]);
        snprintf(buf, sizeof buf, "%s %d task", what, t);
        show(buf, &tsk[t]);
        snprintf(buf, sizeof buf, "%s %d nested", what, t);
        show(buf, &nest[t]);
    }
}

/* Each thread changes its own task's ICVs: they are its own, and the head's
 * stay as they were. */
static void own_icvs(void)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp for
        for (int i = 0; i < MAXT; i++)
            own_bad[i] = 0;
        omp_set_schedule(omp_sched_static, 7 + t);
        omp_set_num_threads(5 + t);
        omp_set_max_active_levels(3 + t);
        omp_sched_t k;
        int c;
        omp_get_schedule(&k, &c);
        if (t < MAXT)
            own_bad[t] = k != omp_sched_static || c != 7 + t ||
                         omp_get_max_threads() != 5 + t ||
                         omp_get_max_active_levels() != 3 + t;
    }
    int bad = 0;
    for (int t = 0; t < MAXT; t++)
        bad += own_bad[t];
    printf("own ICVs: %d threads did not keep theirs\n", bad);
}

/* omp_display_env writes to stderr: catch it in a file and check its shape
 * and its OMP_NUM_THREADS, the per-node value. */
static void display_env(void)
{
    char path[] = "/tmp/hcc-icv-env.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    omp_display_env(0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fdopen(fd, "r");
    char line[512];
    int begin = 0, end = 0, openmp = 0, nt = -1, lines = 0;
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        begin += strstr(line, "OPENMP DISPLAY ENVIRONMENT BEGIN") != NULL;
        end += strstr(line, "OPENMP DISPLAY ENVIRONMENT END") != NULL;
        openmp += strstr(line, "_OPENMP") != NULL;
        char *p = strstr(line, "OMP_NUM_THREADS='");
        if (p)
            nt = atoi(p + strlen("OMP_NUM_THREADS='"));
        lines++;
    }
    fclose(f);
    unlink(path);
    printf("display_env: begin %d end %d _OPENMP %d, more than 10 lines %d, "
           "OMP_NUM_THREADS is the per-node value %d\n",
           begin, end, openmp, lines > 10,
           nt * nodes() == omp_get_max_threads());
}

static void host_teams(void)
{
    int seen[4] = {0}, nteams = 0;
#pragma omp teams num_teams(2)
    {
        int tn = omp_get_team_num();
        if (tn < 4)
            seen[tn] = 1 + (omp_get_num_threads() >= 1);
        if (tn == 0)
            nteams = omp_get_num_teams();
    }
    printf("host teams: %d teams, seen %d %d, outside %d/%d\n", nteams,
           seen[0], seen[1], omp_get_team_num(), omp_get_num_teams());
}

int main(void)
{
    snap_t s;
    take(&s);
    show("serial", &s);
    printf("supported active levels %d, devices: nodes - 1 %d, initial = "
           "num_devices %d, wtick > 0 %d\n",
           omp_get_supported_active_levels(),
           omp_get_num_devices() == nodes() - 1,
           omp_get_initial_device() == omp_get_num_devices(),
           omp_get_wtick() > 0);
    display_env();
    print_region("default", region());

    /* ICVs the head changes travel to every node's threads */
    omp_set_schedule(omp_sched_dynamic, 3);
    omp_set_max_active_levels(4);
    omp_set_default_device(omp_get_initial_device());
    print_region("changed", region());
    omp_set_default_device(0);
    own_icvs();
    take(&s);
    show("serial after", &s);
    omp_set_schedule(omp_sched_guided, 2);
    omp_set_num_threads(omp_get_max_threads() > 1 ? omp_get_max_threads() - 1
                                                  : 1);
    print_region("fewer threads", region());

    /* parallel if(0): a team of one whose task inherits nthreads-var; the
     * region inside it is the first active level */
    int inner = 0;
#pragma omp parallel if (0)
    {
        take(&s);
#pragma omp parallel
#pragma omp single
        inner = omp_get_num_threads();
    }
    show("if(0)", &s);
    printf("if(0): a region inside it has %d threads\n", inner);

    double t0 = omp_get_wtime(), t1 = omp_get_wtime();
    printf("wtime monotonic %d\n", t1 >= t0);
    host_teams();

    printf("pause soft host %d\n",
           omp_pause_resource(omp_pause_soft, omp_get_initial_device()));
    printf("after soft pause: team %d\n", region());
    printf("pause all soft %d\n", omp_pause_resource_all(omp_pause_soft));
    printf("after soft pause: team %d\n", region());
    if (getenv("OMP_THREAD_LIMIT")) { /* libomp-19 aborts at exit then */
        take(&s);
        show("serial at the end", &s);
        return 0;
    }
    printf("pause all hard %d\n", omp_pause_resource_all(omp_pause_hard));
    /* (libomp-19 itself runs an included task of thread 1 on thread 0
     * after a hard pause: only the team is compared) */
    int n = region();
    printf("after hard pause: team %d\n", n);
    for (int t = 0; t < n && t < MAXT; t++)
        show("after hard pause", &rec[t]);
    take(&s);
    show("serial at the end", &s);
    return 0;
}
