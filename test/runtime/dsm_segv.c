/*
 * dsm_segv.c - real segfaults are reported as such and never swallowed:
 * a child process touches (a) an unmapped address and (b) the DSM range's
 * guard page; each must print the address, rank and host and die by
 * SIGSEGV. A legitimate DSM fault in between must still be served. With
 * userfaultfd minor faults the DSM handles SIGBUS too: (c) a real bus
 * error (reading past the end of a mapped file) must be reported as such
 * and kill by SIGBUS.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsm/dsm_int.h" /* dsm.uffd: is the SIGBUS handler installed */
#include "dsm_test.h"

static void run_child(volatile int *addr, int write, const char *addr_text,
                      int sig)
{
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        alarm(20); /* a hang would be a failure too */
        if (write)
            *addr = 1;
        else
            (void)*addr;
        _exit(0); /* reaching here means the fault was swallowed */
    }
    close(pipefd[1]);
    char buf[8192];
    size_t len = 0;
    ssize_t n;
    while ((n = read(pipefd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = 0;
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    if (sig == SIGBUS && dsm.uffd < 0)
        return; /* not ours to report */
    char want[128], host[64];
    gethostname(host, sizeof host);
    CHECK(strstr(buf, sig == SIGBUS ? "bus error at address"
                                    : "segmentation fault at address") != NULL);
    CHECK(strstr(buf, addr_text) != NULL);
    snprintf(want, sizeof want, "on rank %d, host %s", me, host);
    CHECK(strstr(buf, want) != NULL);
    if (me == 0)
        fprintf(stderr, "child said: %.300s\n", buf);
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    run_child((volatile int *)0x1234, 1, "0x1234", SIGSEGV);
    char text[64];
    uintptr_t guard = (uintptr_t)hcrt__dsm_base() + 16;
    snprintf(text, sizeof text, "%#lx", (unsigned long)guard);
    run_child((volatile int *)guard, 0, text, SIGSEGV);
    /* a file of one byte mapped for two pages: the second is a bus error */
    FILE *f = tmpfile();
    CHECK(f != NULL && fputc('x', f) != EOF && fflush(f) == 0);
    char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fileno(f), 0);
    CHECK(m != MAP_FAILED);
    snprintf(text, sizeof text, "%#lx", (unsigned long)(m + 4096));
    run_child((volatile int *)(m + 4096), 0, text, SIGBUS);
    munmap(m, 8192);
    fclose(f);
    /* The handler still serves DSM faults after the children died. */
    int *v = dsm_test_share(me == 0 ? hcrt__dsm_malloc(64) : NULL, 0);
    if (me == 0)
        *v = 99;
    hcrt__dsm_barrier();
    CHECK_EQ(*v, 99);
    hcrt__dsm_barrier();
    return dsm_test_finish("dsm_segv");
}
