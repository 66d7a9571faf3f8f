/*
 * init.c - start-up, process roles and shutdown.
 *
 * Two ways in: __hcrt_main() (the pass renames the user's main and calls
 * this) and lazy initialisation from the first __hcrt_* entry of a program
 * whose main was not built by hcc. Either way shutdown runs from an on_exit()
 * handler, so exit() anywhere in the program still finalises MPI and the
 * status the handler sees is the program's own.
 *
 * Roles (one node runtime): rank 0 is the head and runs main. Until the
 * cluster runtime exists, workers only wait for the head's exit status and
 * leave with it. In lazy mode every rank runs its own main, and so it does
 * in a program that calls MPI_Init itself (the pass marks it): the runtime
 * then never touches MPI.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/node.h"
#include "base/proc.h"
#include "base/stats.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/dreduce.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/heap.h"
#include "libhcrt/observe.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/runtime.h"
#include "libhcrt/task_share.h"

typedef enum init_mode {
    MODE_NONE = 0,
    MODE_LAZY, /* the program's own main runs on every rank */
    MODE_MAIN  /* __hcrt_main: the head runs main, workers wait */
} init_mode_t;

int hcrt__ready;
static init_mode_t mode;
static int rank = 0, size = 1;
static MPI_Comm comm = MPI_COMM_NULL; /* also in base/proc.c */
static int own_mpi;  /* we called MPI_Init_thread, so we finalise */
static int finished; /* shutdown ran */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int cluster_wanted; /* HCRT_CLUSTER=1 in a job of several ranks */
static int mpi_program;    /* the program owns MPI (__hcrt_mpi_program) */

/* Before MPI is up the launcher's environment already names our rank, so
 * that messages about bad settings say which rank printed them. */
static int launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v >= '0' && *v <= '9')
            return atoi(v);
    }
    return -1;
}

/* The job's size from the launcher's environment, before MPI_Init. */
static int launcher_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v >= '0' && *v <= '9')
            return atoi(v);
    }
    return 1;
}

static hcrt_status_t settings_init(void)
{
    hcrt__settings_register();
    if (hcrt__config_init() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "invalid HCRT_* settings (see above); fix "
                                  "or unset them");
    if (hcrt__log_init(hcrt__config_string("HCRT_LOG")) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "invalid HCRT_LOG (see above)");
    hcrt__stats_on = hcrt__stats_level() != HCRT_STATS_OFF;
    return HCRT_OK;
}

static int started_by_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_RANK") || getenv("PMI_SIZE");
}

/* The one rule for MPI: the runtime uses it under a launcher (mpirun,
 * hcrun, srun), or when the program brought it up before the runtime
 * started. `./prog` alone is a job of one rank that needs no MPI: Open
 * MPI's singleton MPI_Init alone costs ~25 ms of CPU here (dozens of
 * components opened, every PCI device read), ten times a plain OpenMP
 * program's whole run. A program that calls MPI_Init later gets an MPI
 * of its own, which the runtime never touches. */
static int mpi_wanted(void)
{
    int inited = 0, fin = 0;

    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (fin)
        return 0;
    return inited || started_by_launcher();
}

/* MPI with full thread support, or a clear refusal. A program that brought
 * MPI up itself keeps ownership of it. */
static hcrt_status_t mpi_init(int *argc, char ***argv)
{
    int inited = 0, provided = MPI_THREAD_SINGLE;

    MPI_Initialized(&inited);
    if (!inited) {
        int rc = MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
        if (rc != MPI_SUCCESS)
            hcrt_fatal(HCRT_MOD_CORE, "MPI_Init_thread failed; check that "
                                      "the program is started by mpirun/hcrun "
                                      "or alone");
        own_mpi = 1;
    } else {
        MPI_Query_thread(&provided);
    }
    hcrt__log_set_mpi_up(1);
    /* Test hook: MPI libraries here all grant THREAD_MULTIPLE. */
    int cap = (int)hcrt__config_int("HCRT_TEST_THREAD_LEVEL");
    if (cap >= 0 && provided > cap)
        provided = cap;
    if (provided < MPI_THREAD_MULTIPLE)
        hcrt_fatal(HCRT_MOD_CORE,
                   "MPI grants thread level %d, hcrt needs MPI_THREAD_MULTIPLE "
                   "(%d); use an MPI library built with thread support",
                   provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    hcrt__proc_set(comm, rank, size);
    return HCRT_OK;
}

static void ignored_setting(const char *name, const char *value,
                            const char *option)
{
    hcrt_warn(HCRT_MOD_CORE,
              "%s='%s' is ignored: hcc's fault handling does not run in a "
              "program that owns MPI; unset it (or drop %s)",
              name, value, option);
}

/* The program owns MPI: the pass saw its MPI_Init (abi.h), or the user
 * says so for a call in code hcc did not compile (HCRT_MPI_PROGRAM=1).
 * Needs the settings parsed. */
static int owns_mpi(void)
{
    return &__hcrt_mpi_program != NULL || hcrt__config_bool("HCRT_MPI_PROGRAM");
}

/* An MPI+OpenMP program (it calls MPI_Init itself, abi.h): MPI is the
 * program's, every rank runs main as under mpicc + clang -fopenmp. Said
 * once, by the job's first rank, before MPI exists. */
static void mpi_program_start(void)
{
    int job_rank = launcher_rank() < 0 ? 0 : launcher_rank();

    hcrt__node_probe_own(job_rank, launcher_size());
    hcrt__log_set_identity(job_rank, hcrt__hostname());
    hcrt__obs_set_job(job_rank, launcher_size());
    if (job_rank != 0)
        return;
    hcrt_warn(HCRT_MOD_CORE,
              "this program starts MPI itself (%s): hcc runs it as an "
              "MPI+OpenMP program, as mpicc or mpifort with plain OpenMP "
              "would: every rank runs main and its OpenMP regions on its own "
              "threads; hcc does not spread regions across ranks (no DSM, no "
              "fault tolerance). HCRT_LOG=core:0 silences this",
              &__hcrt_mpi_program && __hcrt_mpi_program ? __hcrt_mpi_program
                                                        : "HCRT_MPI_PROGRAM=1");
    const char *inject = hcrt__config_string("HCRT_FAULT_INJECT");
    if (hcrt__config_bool("HCRT_FT"))
        ignored_setting("HCRT_FT", "1", "hcrun --ft");
    if (inject && *inject)
        ignored_setting("HCRT_FAULT_INJECT", inject, "hcrun --inject-failure");
}

static void stats_sections_init(void)
{
    hcrt__stats_init();
    hcrt__obs_init();
    /* The trace needs the region timings that HCRT_STATS turns on. */
    hcrt__stats_on |= hcrt__obs_on;
    hcrt__registry_stats_init();
    hcrt__loops_stats_init();
    hcrt__target_stats_init();
    hcrt__dr_stats_init();
}

static void on_exit_handler(int status, void *arg);

static void debug_up(void)
{
    const hcrt_node_info_t *node = hcrt__node_info();
    int cores, pus;

    hcrt__node_cores(&cores, &pus);
    hcrt_debug(HCRT_MOD_CORE,
               "rank %d of %d up on %s: %d cores, %d PUs; %s: local rank %d "
               "of %d, node id %d of %d host(s)",
               rank, size, node->host, cores, pus,
               node->have_pmix        ? "PMIx"
               : hcrt__proc_has_mpi() ? "no PMIx (singleton)"
                                      : "no launcher, no MPI",
               node->local_rank, node->local_size, node->node_id,
               node->num_hosts);
}

hcrt_status_t hcrt__runtime_init(int *argc, char ***argv)
{
    pthread_mutex_lock(&init_lock);
    if (hcrt__ready || finished)
        goto out;
    hcrt__node_early();
    hcrt__log_set_identity(launcher_rank(), hcrt__hostname());
    settings_init();
    mpi_program = owns_mpi();
    /* Before MPI: a TCP write to a dead peer must not kill us silently. A
     * program that owns MPI keeps the default, as under clang. */
    if (!mpi_program)
        signal(SIGPIPE, SIG_IGN);
    /* Cluster runtime: the DSM prepares the address space here (re-exec
     * without ASLR), before MPI maps anything. */
    if (mpi_program) {
        mpi_program_start();
    } else {
        if (mpi_wanted())
            mpi_init(argc, argv);
        hcrt__node_probe();
        hcrt__log_set_identity(rank, hcrt__hostname());
    }
    if (size > 1) /* heartbeats and probes from here on (fault/) */
        hcrt__fault_init(comm);
    hcrt__dr_init(comm, own_mpi); /* the dynamic reduction's communicator */
    /* Same binary and settings everywhere, then the DSM (cluster mode). */
    if (mode == MODE_MAIN && size > 1) {
        hcrt__cluster_check_binary(cluster_wanted);
        if (cluster_wanted)
            hcrt__cluster_init();
    }
    hcrt__heap_started(hcrt__cluster_on); /* the program's heap from now */
    if (mode == MODE_MAIN) {
        hcrt__ts_register(); /* event types first: peers may send at once */
        hcrt__offload_init(comm); /* workers as devices (offload/, #6) */
        hcrt__ts_init(comm);      /* tasks other nodes take (tasks.md) */
    }
    int first = mpi_program ? launcher_rank() <= 0 : rank == 0;
    if (first)
        hcrt__config_warn_unknown();
    if (first && hcrt__config_bool("HCRT_PRINT_CONFIG"))
        hcrt__config_print(stderr);
    stats_sections_init();
    on_exit(on_exit_handler, NULL);
    if (hcrt__log_on(HCRT_MOD_CORE, HCRT_LOG_DEBUG))
        debug_up();
    hcrt__doing_set(mode == MODE_MAIN && rank > 0 ? HCRT_DOING_IDLE
                                                  : HCRT_DOING_MAIN,
                    NULL);
    hcrt__fault_started(); /* the watcher learns: start-up is over */
    __atomic_store_n(&hcrt__ready, 1, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&init_lock);
    return HCRT_OK;
}

int hcrt__runtime_head_runs_main(void)
{
    return mode == MODE_MAIN && size > 1;
}

int hcrt__runtime_mpi_program(void)
{
    return mpi_program ? launcher_size() : 0;
}

void hcrt__runtime_lazy_init(void)
{
    if (__atomic_load_n(&hcrt__ready, __ATOMIC_ACQUIRE))
        return;
    if (mode == MODE_NONE)
        mode = MODE_LAZY;
    hcrt__runtime_init(NULL, NULL);
}

/* Head side of the exit protocol: workers learn the job's status. */
static void head_send_status(int status)
{
    MPI_Request req;
    hcrt_wait_t w = {
        .what = "the exit status", .peer = HCRT_WAIT_ANY, .busy = 1};

    if (hcrt__ft_on()) { /* point to point, with the lost ranks */
        uint64_t msg[2] = {(uint64_t)(uint32_t)status,
                           hcrt__cluster_ft_lost_mask()};
        hcrt__cluster_ft_send(msg, sizeof msg, w.what);
        return;
    }
    MPI_Ibcast(&status, 1, MPI_INT, 0, comm, &req);
    hcrt__wait_request(&req, &w);
}

/* Worker side: wait for the head without burning a core, as the idle
 * workers of this version share the head's cores. */
static int worker_wait_status(void)
{
    struct timespec nap = {0, 2 * 1000 * 1000};
    MPI_Request req;
    int status = 0, done = 0;
    hcrt_wait_t w = {.what = "the head's exit status", .peer = 0};
    hcrt_wait_state_t ws;

    if (rank == 1)
        hcrt_info(HCRT_MOD_CORE,
                  "this version runs the program on the head only: %d worker "
                  "rank(s) stay idle until the head exits",
                  size - 1);
    if (hcrt__ft_on()) {
        uint64_t msg[2];
        hcrt__cluster_ft_recv(msg, sizeof msg, w.what, 2000000, NULL);
        hcrt__cluster_ft_adopt(msg[1]);
        return (int)(uint32_t)msg[0];
    }
    MPI_Ibcast(&status, 1, MPI_INT, 0, comm, &req);
    hcrt__wait_begin(&ws);
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (hcrt__wait_poll(&ws, &w) != HCRT_OK)
            return 1; /* the head failed */
        nanosleep(&nap, NULL);
    }
    return status;
}

/* The head's last words: statistics (obs_fini printed them already once
 * every node's figures arrived), then every stdio buffer. */
static void head_report(void)
{
    static int done;

    if (done || rank != 0)
        return;
    done = 1;
    if (hcrt__stats_on)
        hcrt__stats_report(stderr);
    fflush(NULL);
}

/* FT mode after a loss: the shutdown's collectives run over the
 * survivors, which all adopted the head's view of the lost ranks with its
 * exit status (cluster_ft.c). */
static void ft_survivors_comm(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin || !hcrt__ft_on() || !hcrt__ft_nlost())
        return;
    MPI_Comm live = hcrt__ft_comm(comm);
    int r, n;
    MPI_Comm_rank(live, &r);
    MPI_Comm_size(live, &n);
    MPI_Comm_free(&comm);
    comm = live;
    hcrt__proc_set(comm, r, n);
}

void hcrt__runtime_fini(void)
{
    if (finished || !hcrt__ready)
        return;
    finished = 1;
    hcrt__fault_shutdown_begins();
    ft_survivors_comm();
    hcrt__obs_fini(); /* collective: every node's figures reach the head */
    head_report();
    /* Cluster runtime: event threads and the DSM stop here, before MPI. */
    __atomic_store_n(&hcrt__ready, 0, __ATOMIC_RELEASE);
    int fin = !hcrt__proc_has_mpi(); /* a job of one rank without MPI */
    if (!fin) /* a lazy-mode program may have finalised MPI */
        MPI_Finalized(&fin);
    if (!fin) {
        hcrt__dr_fini(); /* FT mode's replica thread */
        hcrt__offload_fini();
        hcrt__ts_fini();
        hcrt__cluster_fini();
        MPI_Comm_free(&comm);
        hcrt__proc_set(comm, rank, size);
        /* FT mode after a loss: MPI_Finalize's fence may wait for the
         * lost rank (Open MPI 4.1 with --enable-recovery, after a stopped
         * rank was killed); the survivors leave without it. */
        if (own_mpi && !(hcrt__ft_on() && hcrt__ft_nlost()))
            MPI_Finalize();
    }
    hcrt__log_set_mpi_up(0);
    hcrt__fault_fini(); /* every rank got this far: none hangs in exit */
}

static void on_exit_handler(int status, void *arg)
{
    (void)arg;
    if (finished || !hcrt__ready)
        return;
    hcrt__fault_exit_begins(); /* FT mode: a loss from now on ends the job */
    if (hcrt__cluster_on)      /* exit() inside a region: the job ends here */
        hcrt__cluster_exit_check(status);
    if (mode == MODE_MAIN && rank == 0)
        hcrt__fault_program_done(status);
    fflush(NULL); /* statistics follow in fini, with the workers' figures */
    if (mode == MODE_MAIN && rank == 0 && size > 1) {
        if (hcrt__cluster_on)
            hcrt__cluster_head_exit(status);
        else
            head_send_status(status);
    }
    hcrt__runtime_fini();
    if (rank == 0)
        hcrt__fault_ft_done(status);
}

/* A worker of a cluster job leaves without running the program's exit
 * handlers and the destructors of its globals: it never ran main, and its
 * globals are the head's (DSM memory): a global stream would flush the
 * head's buffer into the head's file a second time, a global container
 * would free the head's blocks. */
static _Noreturn void worker_exit(int status)
{
    hcrt__runtime_fini();
    fflush(NULL);
    _exit(status);
}

/* Cluster mode needs the process's allocator to be ours (heap.h): a
 * program that brings its own runs every region on the head, and says so. */
static int own_allocator(void)
{
    const char *name, *who = hcrt__heap_foreign_allocator(&name);

    if (!who)
        return 1;
    if (launcher_rank() <= 0)
        hcrt_warn(HCRT_MOD_CORE,
                  "%s defines %s(): memory it hands out cannot be shared "
                  "between nodes, so this job runs every parallel region on "
                  "the head (rank 0) alone, as with HCRT_CLUSTER=0; to run "
                  "regions across nodes, drop the program's allocator (or "
                  "LD_PRELOAD of one) or rename it",
                  who, name);
    return 0;
}

HCRT_ABI_EXPORT int __hcrt_main(int argc, char **argv, char **envp,
                                hcrt_main_fn_t user_main)
{
    if (!user_main)
        hcrt_fatal(HCRT_MOD_CORE, "internal error: __hcrt_main without main");
    hcrt__node_early(); /* messages about settings name the rank */
    hcrt__log_set_identity(launcher_rank(), hcrt__hostname());
    hcrt__settings_register();
    int settings_ok = hcrt__config_init() == HCRT_OK;
    if (settings_ok && owns_mpi()) { /* every rank runs main */
        mode = MODE_LAZY;
        hcrt__runtime_init(&argc, &argv);
        return user_main(argc, argv, envp);
    }
    mode = MODE_MAIN;
    cluster_wanted = launcher_size() > 1 && settings_ok &&
                     hcrt__config_bool("HCRT_CLUSTER") && own_allocator();
    /* Before MPI maps anything: identical addresses in every rank. */
    if (cluster_wanted) {
        hcrt__dsm_prepare_address_space(argc, argv);
        hcrt__mainstack_prepare();
    }
    hcrt__runtime_init(&argc, &argv);
    if (rank == 0) {
        hcrt__cluster_set_main_thread();
        return hcrt__mainstack_run_main(user_main, argc, argv, envp);
    }
    if (hcrt__cluster_on)
        worker_exit(hcrt__mainstack_run_worker(hcrt__cluster_worker_loop));
    return worker_wait_status();
}
