// argv, envp, `environ` and getenv() results of the head, read inside a
// parallel region on every node. The head changes argv[0] first (C lets a
// program modify its argument strings) and reads a variable whose value
// differs per rank under mpirun; before the copy to DSM memory a worker
// read its own strings at the head's addresses and counted mismatches.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env HCC_STACK_WORD=hello %s %t
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;
static char want_arg[256], want_word[256];
static unsigned long want_env, want_envp;

static unsigned long hash_env(char **e)
{
    unsigned long h = 5381;
    for (; *e; e++)
        for (const char *c = *e; *c; c++)
            h = h * 33 + (unsigned char)*c;
    return h;
}

int main(int argc, char **argv, char **envp)
{
    const char *word = getenv("OMPI_COMM_WORLD_RANK"); /* "0" on the head */
    if (!word)
        word = getenv("HCC_STACK_WORD");
    argv[0][0] ^= 1;
    snprintf(want_arg, sizeof want_arg, "%s", argv[0]);
    snprintf(want_word, sizeof want_word, "%s", word);
    char **env = environ;
    want_env = hash_env(env);
    want_envp = hash_env(envp); /* MPI_Init may have changed environ */
    long bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int i = 0; i < 64; i++) {
        bad += strcmp(argv[0], want_arg) != 0;
        bad += strcmp(word, want_word) != 0;
        bad += hash_env(env) != want_env;
        bad += hash_env(envp) != want_envp;
        bad += argc != 1 || argv[argc] != NULL;
    }
    printf("checks %d bad %ld\n", 64 * 5, bad);
    return 0;
}
