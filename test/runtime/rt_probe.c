/*
 * rt_probe.c - one program, several behaviours, for the tests that check a
 * whole run from outside (expect.sh): exit status, settings errors and
 * warnings, HCRT_PRINT_CONFIG and HCRT_STATS output.
 *
 *   rt_probe init            lazy start, print "probe ok nodes=N"
 *   rt_probe stats           forks and a target kernel, for HCRT_STATS=1
 *   rt_probe main-return N   through __hcrt_main, main returns N
 *   rt_probe main-exit N     through __hcrt_main, exit(N) deep in the head
 *   rt_probe main-signal     through __hcrt_main, the head dies of SIGKILL
 *   rt_probe bad-abi         registers a module built for another ABI
 *   rt_probe lazy-exit N     lazy start on every rank, then exit(N)
 */
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

RT_REGION(probe, 0x7001, 1);
static void probe_body(int32_t gtid, int32_t btid, void **args)
{
    (void)gtid, (void)btid;
    __atomic_fetch_add((int *)args[0], 1, __ATOMIC_RELAXED);
}

/* A dynamic loop after a schedule hint, and one migration point. */
RT_REGION(hinted, 0x7003, 0);
static void hinted_body(int32_t gtid, int32_t btid, void **args)
{
    int32_t last, lo, hi, st;

    (void)btid, (void)args;
    __hcrt_sched_hint(HCRT_SCHED_HINT_HETPROBE, 10, "rt_probe.c", 1);
    __hcrt_dispatch_init_4(&rt_loc, gtid, 35, 0, 99, 1, 4);
    while (__hcrt_dispatch_next_4(&rt_loc, gtid, &last, &lo, &hi, &st))
        ;
    if (__hcrt_migrate_pending == 0 && btid == 0)
        __hcrt_migration_point(&rt_loc, gtid);
}

static void kern_tramp(void **args)
{
    *(int *)args[0] += 1;
}

static const char kern_id;
static const hcrt_kernel_desc_t kernels[] = {
    {.id = 0x7002,
     .name = "__omp_offloading_probe_kernel_l9",
     .region_id = &kern_id,
     .tramp = kern_tramp,
     .nargs = 1,
     .line = 9}};
static const hcrt_region_desc_t *const no_regions = NULL;
static hcrt_module_desc_t module = {.abi_version = HCRT_ABI_VERSION,
                                    .name = "rt_probe.c",
                                    .hash = 0x7000,
                                    .nkernels = 1,
                                    .kernels = kernels,
                                    .regions = NULL};

static int run_stats(void)
{
    int counter = 0, x = 0;
    void *args[1] = {&counter};
    void *bases[1] = {&x};
    int64_t sizes[1] = {sizeof(int)}, types[1] = {0x23};
    hcrt_kernel_args_t ka = {.version = HCRT_KERNEL_ARGS_VERSION,
                             .num_args = 1,
                             .arg_base_ptrs = bases,
                             .arg_ptrs = bases,
                             .arg_sizes = sizes,
                             .arg_types = types};

    (void)no_regions;
    __hcrt_register_module(&module);
    for (int i = 0; i < 3; i++)
        rt_fork(&probe_region, 2, args);
    for (int i = 0; i < 2; i++)
        __hcrt_target_kernel(&rt_loc, -1, 1, 0, (void *)&kern_id, &ka);
    rt_fork(&hinted_region, 2, NULL);
    printf("probe stats counter=%d kernel=%d\n", counter, x);
    return counter == 6 && x == 2 ? 0 : 1;
}

/* The region main_return forks, in a module every rank registers before
 * __hcrt_main, as a program's module constructor would: in cluster mode
 * the head's stack is shared memory, so the region runs on every node. */
static const hcrt_region_desc_t main_regions[] = {{.id = 0x7004,
                                                   .name = "main_probe",
                                                   .file = __FILE__,
                                                   .line = __LINE__,
                                                   .kind = HCRT_REGION_CLUSTER,
                                                   .nargs = 1,
                                                   .tramp = probe_tramp}};
static hcrt_module_desc_t main_module = {.abi_version = HCRT_ABI_VERSION,
                                         .name = "rt_probe_main.c",
                                         .hash = 0x7004,
                                         .nregions = 1,
                                         .regions = main_regions};

static int exit_code;

static void deep_exit(int depth)
{
    if (depth == 0)
        exit(exit_code);
    deep_exit(depth - 1);
}

static int main_return(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    int counter = 0;
    void *args[1] = {&counter};
    rt_fork(&main_regions[0], 2, args);
    printf("head ran main on node %d of %d\n", hcrt_node_id(),
           hcrt_num_nodes());
    fflush(stdout);
    return exit_code;
}

static int main_exit(int argc, char **argv, char **envp)
{
    main_return(argc, argv, envp);
    deep_exit(5);
    return 0;
}

static int main_signal(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    kill(getpid(), SIGKILL);
    return 0;
}

int main(int argc, char **argv, char **envp)
{
    const char *mode = argc > 1 ? argv[1] : "init";

    exit_code = argc > 2 ? atoi(argv[2]) : 0;
    if (strcmp(mode, "init") == 0) {
        int mpi = 0;
        int nodes = hcrt_num_nodes();
        MPI_Initialized(&mpi); /* alone: the runtime needs no MPI */
        printf("probe ok nodes=%d mpi=%d\n", nodes, mpi);
        /* Start-up settings hcrt gives a singleton must not leak. */
        printf("probe env pml=%s\n",
               getenv("OMPI_MCA_pml") ? getenv("OMPI_MCA_pml") : "unset");
        return 0;
    }
    if (strcmp(mode, "lazy-exit") == 0) {
        printf("probe lazy node %d\n", hcrt_node_id());
        fflush(stdout);
        deep_exit(3);
    }
    if (strcmp(mode, "stats") == 0)
        return run_stats();
    if (strncmp(mode, "main-", 5) == 0)
        __hcrt_register_module(&main_module);
    if (strcmp(mode, "main-return") == 0)
        return __hcrt_main(argc, argv, envp, main_return);
    if (strcmp(mode, "main-exit") == 0)
        return __hcrt_main(argc, argv, envp, main_exit);
    if (strcmp(mode, "main-signal") == 0)
        return __hcrt_main(argc, argv, envp, main_signal);
    if (strcmp(mode, "bad-abi") == 0) {
        module.abi_version = HCRT_ABI_VERSION + 98;
        __hcrt_register_module(&module);
        return 0;
    }
    fprintf(stderr, "rt_probe: unknown mode '%s'\n", mode);
    return 2;
}
