/*
 * dsm_exhaust.c - running out of the DSM range is reported clearly: NULL
 * with errno ENOMEM and a message naming the setting to raise; memory
 * freed afterwards is usable again. Run with HCRT_DSM_SIZE=64m.
 */
#include <errno.h>
#include <unistd.h>

#include "dsm_test.h"

/* Runs `fn` with stderr captured into buf. */
static void capture(void (*fn)(void *), void *arg, char *buf, size_t cap)
{
    char path[] = "/tmp/dsm_exhaust_XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, buf, cap - 1, 0);
    buf[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
}

static void *blocks[4096];
static int nblocks;

static void fill(void *arg)
{
    (void)arg;
    while (nblocks < 4096) {
        errno = 0;
        void *p = hcrt__dsm_malloc(1 << 20);
        if (!p) {
            CHECK_EQ(errno, ENOMEM);
            break;
        }
        blocks[nblocks++] = p;
    }
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    size_t slice = hcrt__dsm_size() / (size_t)nranks;
    CHECK(hcrt__dsm_size() <= (256UL << 20)); /* the test sets a small range */
    char msg[4096];
    capture(fill, NULL, msg, sizeof msg);
    CHECK(nblocks < 4096);
    CHECK((size_t)nblocks >= slice / (1 << 20) - 2);
    CHECK(strstr(msg, "DSM heap exhausted") != NULL);
    CHECK(strstr(msg, "HCRT_DSM_SIZE") != NULL);
    if (me == 0)
        fprintf(stderr, "captured: %s", msg);
    void *big = NULL;
    CHECK_EQ(hcrt__dsm_posix_memalign(&big, 64, 1UL << 40), ENOMEM);
    for (int i = 0; i < nblocks; i++)
        hcrt__dsm_free(blocks[i]);
    void *again = hcrt__dsm_malloc(8 << 20); /* freed extents coalesce */
    CHECK(again != NULL);
    hcrt__dsm_free(again);
    hcrt__dsm_barrier();
    return dsm_test_finish("dsm_exhaust");
}
