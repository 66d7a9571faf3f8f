/* fault_phases.c PHASE [SECONDS]: an OpenMP program that spends about
 * SECONDS (default 8) in one phase of a cluster run, so that a failure
 * injected into a rank meanwhile (HCRT_FAULT_INJECT, hcrun
 * --inject-failure) hits the survivors while they do that:
 *
 *   loop       cluster loops, one after the other
 *   barrier    the head's threads wait in a barrier, the workers compute
 *   reduction  the head's threads wait in the reduction, workers compute
 *   target     the head waits for target tasks running on the workers
 *   dsm        every thread reads and writes shared pages (DSM faults)
 *   seq        the head runs sequential code, the workers wait for it
 *   startup    a short loop (inject with RANK@startup)
 *   shutdown   a short loop, then main returns (inject RANK@shutdown)
 *
 * Prints "PHASE done" and returns 0 when nothing failed. Built by hcc
 * (test/faults/CMakeLists.txt); run by run_fault.sh.
 */
#include <hcrt/hcrt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double secs = 8;

/* Burns CPU until `until` (omp_get_wtime), returns a value to keep. */
static double compute_until(double until)
{
    double x = 0;
    while (omp_get_wtime() < until)
        for (int i = 0; i < 100000; i++)
            x += (double)(i % 7) * 1e-9;
    return x;
}

static double phase_loop(void)
{
    double end = omp_get_wtime() + secs, sum = 0;
    while (omp_get_wtime() < end) {
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (long i = 0; i < 2000000; i++)
            sum += (double)(i % 13) * 1e-6;
    }
    return sum;
}

/* Node 0's threads reach the barrier at once; other nodes compute first. */
static double phase_barrier(void)
{
    double end = omp_get_wtime() + secs, x = 0;
#pragma omp parallel reduction(+ : x)
    {
        if (hcrt_node_id() != 0)
            x += compute_until(end);
#pragma omp barrier
        x += 1;
    }
    return x;
}

/* The head's threads finish at once and wait for the others' partials. */
static double phase_reduction(void)
{
    double end = omp_get_wtime() + secs, x = 0;
#pragma omp parallel reduction(+ : x)
    {
        if (hcrt_node_id() != 0)
            x += compute_until(end);
        x += 1;
    }
    return x;
}

/* Target tasks on every device for SECONDS; the head waits in taskwait. */
static double phase_target(void)
{
    int ndev = omp_get_num_devices();
    double out[64] = {0};
    if (ndev > 64)
        ndev = 64;
    for (int d = 0; d < ndev; d++) {
        double *o = &out[d];
#pragma omp target device(d) map(tofrom : o[0 : 1]) nowait
        {
            double t0 = omp_get_wtime(), x = 0;
            while (omp_get_wtime() < t0 + secs)
                for (int i = 0; i < 100000; i++)
                    x += (double)(i % 7) * 1e-9;
            o[0] = x;
        }
    }
#pragma omp taskwait
    double x = 0;
    for (int d = 0; d < ndev; d++)
        x += out[d];
    return x;
}

/* Every thread writes its own stripe of shared pages and reads its
 * neighbours', with barriers between rounds: a steady stream of DSM
 * faults, fetches and diffs between all nodes. */
static double phase_dsm(void)
{
    const long n = 1L << 21; /* 16 MiB of doubles */
    double *a = malloc(n * sizeof(double)), end = omp_get_wtime() + secs;
    double sum = 0;
    if (!a)
        return -1;
    for (int round = 0; omp_get_wtime() < end; round++) {
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i += 512)
            a[i] = round + i;
#pragma omp parallel for reduction(+ : sum) schedule(static)
        for (long i = 0; i < n; i += 512)
            sum += a[(i + n / 3) % n];
    }
    free(a);
    return sum;
}

static double phase_seq(void)
{
    return compute_until(omp_get_wtime() + secs);
}

int main(int argc, char **argv)
{
    const char *phase = argc > 1 ? argv[1] : "loop";
    double x = 0;
    if (argc > 2)
        secs = atof(argv[2]);
    if (!strcmp(phase, "loop"))
        x = phase_loop();
    else if (!strcmp(phase, "barrier"))
        x = phase_barrier();
    else if (!strcmp(phase, "reduction"))
        x = phase_reduction();
    else if (!strcmp(phase, "target"))
        x = phase_target();
    else if (!strcmp(phase, "dsm"))
        x = phase_dsm();
    else if (!strcmp(phase, "seq"))
        x = phase_seq();
    else if (!strcmp(phase, "startup") || !strcmp(phase, "shutdown")) {
        secs = 0.2;
        x = phase_loop();
    } else {
        fprintf(stderr, "fault_phases: unknown phase '%s'\n", phase);
        return 2;
    }
    printf("%s done (%d nodes) %s\n", phase, hcrt_num_nodes(),
           x != x ? "nan" : "ok");
    return 0;
}
