/*
 * ft_between.c - a worker lost between parallel regions (FT mode,
 * docs/faults.md "FT mode"; run_ft.sh kinds `between`, `between-alloc`,
 * `between-tp`).
 *
 *   ft_between MODE PHASES [KILL_PHASE DELAY_MS]
 *
 * Each phase runs one short parallel region on every node over a shared
 * array, prints its sum, and then lets the head compute alone for 1 s (a
 * sequential part that also writes a global array every rank started
 * with). With KILL_PHASE the node of the team's last thread, a worker,
 * kills itself DELAY_MS after that phase's region: in the head's
 * sequential part, long before the next fork (a killed rank is found in
 * ~0.1 s), so the loss falls between regions by construction. MODE `plain` does only that: a worker lost in a sequential part
 * takes nothing the program needs, and the job must finish with the
 * fault-free output. MODE `alloc` also keeps, from each region, a block a
 * worker's thread allocated, and the head reads it after the region: the
 * job must end saying it cannot recover. MODE `tp` keeps a threadprivate
 * counter (built with -DTP, initial value 5, checked in the first region):
 * the job must end saying why (its values lived on the lost rank).
 * FT_BETWEEN_PROLOGUE=S: the head computes alone S seconds before the
 * first region.
 */
#include <hcrt/hcrt.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N (1 << 18)

static double table[4096]; /* a global: every rank starts with a copy */
#ifdef TP
static long calls = 5; /* .tdata: each thread starts with 5 */
#pragma omp threadprivate(calls)
#define TP_ON 1
#else
static long calls; /* shared: only the `tp` build has threadprivate */
#define TP_ON 0
#endif

static void spin(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 4096; i++)
            table[i] = table[i] * 0.5 + i;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) <
             seconds);
}

static void *kill_later(void *arg)
{
    usleep((useconds_t)(long)arg * 1000);
    kill(getpid(), SIGKILL);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    int phases = argc > 2 ? atoi(argv[2]) : 8;
    int kill_phase = argc > 3 ? atoi(argv[3]) : -1;
    long delay_ms = argc > 4 ? atol(argv[4]) : 200;
    int alloc = !strcmp(mode, "alloc"), tp = TP_ON;
    const char *pro = getenv("FT_BETWEEN_PROLOGUE");
    if (pro)
        spin(atof(pro)); /* sequential code before the first region */
    double *a = malloc(N * sizeof *a);
    double *kept = NULL;
    for (int i = 0; i < N; i++)
        a[i] = i % 7;
    for (int p = 0; p < phases; p++) {
        double s = 0;
#pragma omp parallel reduction(+ : s)
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                a[i] = a[i] * 0.5 + p;
                s += a[i];
            }
            if (tp && p == 0 && calls != 5)
                printf("FAIL: thread %d started with calls %ld, not 5\n",
                       omp_get_thread_num(), calls);
            if (tp)
                calls += omp_get_thread_num() + 1;
            if (p == kill_phase &&
                omp_get_thread_num() == omp_get_num_threads() - 1 &&
                hcrt_node_id() != 0) {
                pthread_t t;
                pthread_create(&t, NULL, kill_later, (void *)delay_ms);
                pthread_detach(t);
            }
            if (alloc && p == 0 &&
                omp_get_thread_num() == omp_get_num_threads() - 1) {
                double *b = malloc(4096 * sizeof *b);
                for (int i = 0; i < 4096; i++)
                    b[i] = p + i;
                kept = b; /* the last thread's: a worker's across nodes */
            }
        }
        long c = 0;
        if (tp) {
#pragma omp parallel reduction(+ : c)
            c += calls;
        }
        /* a page of the block not read before (8 pages): between hosts
         * the first read after the loss needs the lost rank, its home */
        double k = kept ? kept[(p * 512) % 4096] : 0;
        printf("phase %d sum %.6f kept %.1f calls %ld\n", p, s, k, c);
        fflush(stdout);
        spin(1.0); /* the head's sequential part */
    }
    double t = 0;
    for (int i = 0; i < 4096; i++)
        t += table[i];
    printf("table %.6f\n", t);
    free(kept);
    free(a);
    return 0;
}
