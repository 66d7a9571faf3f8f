// fork() from the head's main, which runs on a DSM stack (shared memory):
// the child must get a private copy of its stack, or parent and child
// overwrite each other's frames (the parent crashed or took the child's
// values). The child changes a local and exits with a code telling what it
// saw; the parent's locals stay intact and regions run on after it.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    long sum = 0;
    int status = -1;
    volatile int marker = 7;
    pid_t pid = fork();
    if (pid == 0) {
        marker = 99;
        for (volatile int i = 0; i < 100000; i++)
            ;
        _exit(marker == 99 ? 3 : 4);
    }
    waitpid(pid, &status, 0);
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < 1000; i++)
        sum += i + marker;
    printf("parent %d marker %d child exit %d sum %ld\n", pid > 0, marker,
           WEXITSTATUS(status), sum);
    return 0;
}
