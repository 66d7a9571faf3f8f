/*
 * test_fork.c - parallel regions through __hcrt_fork, fork_if, fork_teams,
 * nested forks, and the public hcrt.h queries.
 */
#include <mpi.h>
#include <string.h>

#include "rt_test.h"

RT_REGION(count, 0x1001, 3);
static void count_body(int32_t gtid, int32_t btid, void **args)
{
    int *counter = args[0];
    intptr_t add = (intptr_t)args[1];
    unsigned *seen = args[2];

    (void)gtid;
    __atomic_fetch_add(counter, (int)add, __ATOMIC_RELAXED);
    __atomic_fetch_or(seen, 1u << btid, __ATOMIC_RELAXED);
    CHECK_EQ(__hcrt_omp_get_thread_num(), btid);
    CHECK(__hcrt_omp_in_parallel() || __hcrt_omp_get_num_threads() == 1);
}

RT_REGION(inner, 0x1002, 1);
static void inner_body(int32_t gtid, int32_t btid, void **args)
{
    (void)gtid, (void)btid;
    __atomic_fetch_add((int *)args[0], 1, __ATOMIC_RELAXED);
    CHECK_EQ(__hcrt_omp_get_level(), 2);
}

RT_REGION(outer, 0x1003, 1);
static void outer_body(int32_t gtid, int32_t btid, void **args)
{
    (void)gtid, (void)btid;
    rt_fork(&inner_region, 2, args);
}

RT_REGION(team, 0x1004, 1);
static void team_body(int32_t gtid, int32_t btid, void **args)
{
    (void)gtid, (void)btid;
    __atomic_fetch_add((int *)args[0], 1, __ATOMIC_RELAXED);
    CHECK_EQ(__hcrt_omp_get_num_teams(), 2);
}

static void test_fork_counts(void)
{
    for (int n = 1; n <= 3; n++) {
        int counter = 0;
        unsigned seen = 0;
        void *args[3] = {&counter, (void *)(intptr_t)5, &seen};
        rt_fork(&count_region, n, args);
        CHECK_EQ(counter, 5 * n);
        CHECK_EQ(seen, (1u << n) - 1);
    }
}

static void test_fork_if(void)
{
    int counter = 0;
    unsigned seen = 0;
    void *args[3] = {&counter, (void *)(intptr_t)1, &seen};

    __hcrt_fork_if(&rt_loc, &count_region, 0, args);
    CHECK_EQ(counter, 1);
    CHECK_EQ(seen, 1);
    counter = 0, seen = 0;
    __hcrt_push_num_threads(&rt_loc, __hcrt_global_thread_num(&rt_loc), 2);
    __hcrt_fork_if(&rt_loc, &count_region, 1, args);
    CHECK_EQ(counter, 2);
}

static void test_nested_and_teams(void)
{
    int counter = 0;
    void *args[1] = {&counter};

    __hcrt_omp_set_max_active_levels(2);
    rt_fork(&outer_region, 2, args);
    CHECK_EQ(counter, 4);

    counter = 0;
    __hcrt_push_num_teams(&rt_loc, __hcrt_global_thread_num(&rt_loc), 2, 1);
    __hcrt_fork_teams(&rt_loc, &team_region, args);
    CHECK_EQ(counter, 2);
}

static void test_public_api(void)
{
    int size = 0, rank = -1;

    CHECK(strcmp(hcrt_version(), "0.1.0") == 0);
    CHECK(strstr(hcrt_strerror(HCRT_ERR_NOMEM), "memory") != NULL);
    CHECK(strcmp(hcrt_strerror(HCRT_OK), "success") == 0);
    CHECK_EQ(hcrt_num_nodes() >= 1, 1);
    /* The first hcrt call brought MPI up (lazy start). */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_EQ(hcrt_num_nodes(), size);
    CHECK_EQ(hcrt_node_id(), rank);
}

int main(void)
{
    test_fork_counts();
    test_fork_if();
    test_nested_and_teams();
    test_public_api();
    return rt_report("test_fork");
}
