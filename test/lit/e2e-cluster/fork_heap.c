// A child forked in cluster mode allocates: every malloc of the program is
// DSM memory there (a mapping shared with the parent, whose faults no one
// serves in the child), so the child's malloc, strdup and realloc must
// come from the C library, and its free or realloc of a block the parent
// allocated must leave the parent's block alone. Before, the child died of
// SIGSEGV at its first malloc. The parent's blocks and regions run on
// after it.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int child(char *parents, char *parents2)
{
    int bad = 0;
    for (int k = 0; k < 200; k++) {
        size_t n = 4096 * (size_t)(k % 7 + 1);
        char *p = malloc(n);
        if (!p)
            return 10;
        memset(p, 'c', n);
        char *d = strdup("child string");
        bad |= !d || strcmp(d, "child string") != 0;
        free(d);
        if (k % 3)
            free(p);
    }
    char *q = realloc(parents, 100000); /* the parent's block: moved */
    if (!q || strcmp(q, "parent block") != 0)
        return 11;
    q[0] = 'X';
    free(q);
    free(parents2); /* the parent's: left to it */
    return bad ? 12 : 3;
}

int main(void)
{
    long sum = 0;
    int status = -1;
    char *keep = malloc(64), *keep2 = strdup("second parent block");
    strcpy(keep, "parent block");
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child(keep, keep2));
    waitpid(pid, &status, 0);
    char *more = malloc(1 << 16);
    memset(more, 'p', 1 << 16);
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += more[i] == 'p' ? 1 : 100;
    printf("child %s %d; parent's blocks '%s' '%s'; sum %ld\n",
           WIFEXITED(status) ? "exit" : "signal",
           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), keep,
           keep2, sum);
    free(more);
    free(keep);
    free(keep2);
    return 0;
}
