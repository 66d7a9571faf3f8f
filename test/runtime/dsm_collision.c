/*
 * dsm_collision.c - something already mapped inside the DSM range on one
 * rank: start-up fails on every rank (nobody hangs) with a message naming
 * the address and the settings to change.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "dsm_test.h"

int main(int argc, char **argv)
{
    hcrt__dsm_prepare_address_space(argc, argv);
    hcrt__runtime_init(&argc, &argv);
    me = hcrt__rank();
    nranks = hcrt__size();
    void *want = (void *)(0x200000000000UL + (64UL << 20));
    if (me == nranks - 1) { /* squat inside the range on the last rank */
        void *p =
            mmap(want, 4096, PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        CHECK(p == want);
    }
    char path[] = "/tmp/dsm_collision_XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    hcrt_status_t st = hcrt__dsm_init(hcrt__comm_world());
    fflush(stderr);
    dup2(saved, 2);
    char msg[4096] = {0};
    ssize_t n = pread(fd, msg, sizeof msg - 1, 0);
    (void)n;
    close(fd);
    unlink(path);
    CHECK(st != HCRT_OK);
    CHECK(!hcrt__dsm_initialized());
    if (me == nranks - 1) {
        CHECK(strstr(msg, "cannot reserve the DSM range at 0x200000000000") !=
              NULL);
        CHECK(strstr(msg, "HCRT_DSM_ADDR") != NULL);
        fprintf(stderr, "rank %d said: %s", me, msg);
    } else {
        CHECK(strstr(msg, "failed on another rank") != NULL);
    }
    int mine = check_failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, hcrt__comm_world());
    if (me == 0)
        printf("dsm_collision: %s\n", total ? "FAILED" : "ok");
    return total ? 1 : 0;
}
