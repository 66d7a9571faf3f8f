// A program that sizes an array with omp_get_max_threads() and indexes it
// with omp_get_thread_num(): with a cluster team the numbering is global
// and consistent. Also num_threads(k) and omp_set_num_threads(k).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void run(const char *what)
{
    int max = omp_get_max_threads();
    long *slot = calloc(max, sizeof *slot);
    int team = 0, bad = 0;

#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me >= max || n > max || !omp_in_parallel() && n > 1) {
#pragma omp atomic write
            bad = 1;
        } else {
            slot[me] = me + 1;
        }
#pragma omp master
        team = n;
    }
    long s = 0;
    for (int i = 0; i < max; i++)
        s += slot[i];
    printf("%s: max %d team %d slots sum %ld bad %d in_parallel outside %d\n",
           what, max, team, s, bad, omp_in_parallel());
    free(slot);
}

int main(void)
{
    run("default");
    int n2 = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        n2 = omp_get_num_threads();
    }
    printf("num_threads(2): %d\n", n2);
    omp_set_num_threads(4);
    run("set_num_threads(4)");
    return 0;
}
