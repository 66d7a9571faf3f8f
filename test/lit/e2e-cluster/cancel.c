// cancel across nodes: `cancel parallel`, `cancel for` (static, dynamic,
// guided and clause-less loops), `cancel sections`, `cancel taskgroup` and
// `cancellation point` with OMP_CANCELLATION=true, and the same program
// with it unset (cancel is then a no-op). Every printed value is
// independent of timing: a thread that waits at a cancellation point
// until it sees the cancellation made on another node proves it arrived;
// searches print the found index; counts are exact where OpenMP makes them
// so (a cancelled region's code after a barrier never runs) and bounded
// where it does not. Without cross-node cancellation the waits time out
// ("NOT SEEN") or a worker leaves its barriers unmatched (a hang: the
// run's timeout fails it).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env OMP_CANCELLATION=true --ref-cflags -DREF_STATIC --stats 'cancellation across nodes: [1-9]' %s %t.on
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --ref-cflags -DREF_STATIC %s %t.off
#include <omp.h>
#include <stdio.h>
#include <time.h>

/* libomp 19 cannot cancel dynamic loops: a thread that leaves one early
 * (clang's code for cancel) leaves its shared dispatch buffer unfinished;
 * the next dynamic loops then lose iterations (a search finds nothing),
 * guided ones hang, and nonmonotonic ones fail an assertion. hcc runs
 * such loops out (one node) or stops handing out chunks (across nodes).
 * The reference (run.sh --ref-cflags) therefore runs them as static
 * loops, which cancel correctly with libomp; every line printed is the
 * same for any correct schedule. */
#ifdef REF_STATIC
#define FOR_DYN1 _Pragma("omp for schedule(static, 1)")
#define FOR_DYN7 _Pragma("omp for schedule(static, 7)")
#define FOR_DYN16 _Pragma("omp for schedule(static, 16)")
#define FOR_GUIDED _Pragma("omp for schedule(static)")
#else
#define FOR_DYN1 _Pragma("omp for schedule(monotonic : dynamic, 1)")
#define FOR_DYN7 _Pragma("omp for schedule(monotonic : dynamic, 7)")
#define FOR_DYN16 _Pragma("omp for schedule(monotonic : dynamic, 16)")
#define FOR_GUIDED _Pragma("omp for schedule(guided)")
#endif

#define N 20000
#define PAGE __attribute__((aligned(4096)))
int data[N] PAGE;
long ran PAGE, after PAGE, unseen PAGE, run2 PAGE;
int sec_ran[4] PAGE, sec_done[4] PAGE;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Called at a thread's first iteration: waits (bounded) until the loop's
 * cancellation reaches this thread, which then leaves the loop. Returns
 * only when the cancellation was not seen in time, or is off. */
#define WAIT_FOR_CANCEL(point)                                                 \
    do {                                                                       \
        double t0_ = now();                                                    \
        while (omp_get_cancellation() && now() - t0_ < 30.0) {                 \
            _Pragma(point)                                                     \
        }                                                                      \
        if (omp_get_cancellation()) {                                          \
            _Pragma("omp atomic") unseen++;                                    \
        }                                                                      \
    } while (0)

static void reset(void)
{
    ran = after = unseen = run2 = 0;
}

/* Thread 0 cancels the region before the barrier: every thread leaves at
 * the barrier, so nothing after it runs. */
static void cancel_parallel(void)
{
    reset();
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
        }
#pragma omp barrier
#pragma omp for
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            after++;
        }
    }
    printf("cancel parallel: after the barrier %ld\n", after);
}

/* A region with cancellation points that nobody cancels, then one whose
 * `cancel parallel if(0)` never fires: both run completely. */
static void no_cancel(int never)
{
    reset();
#pragma omp parallel
    {
FOR_DYN7
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            ran++;
#pragma omp cancellation point for
        }
#pragma omp cancel parallel if (never)
#pragma omp barrier
#pragma omp atomic
        after++;
    }
    printf("not cancelled: %ld iterations, %ld threads after the barrier\n",
           ran, after == omp_get_max_threads() ? 1L : -after);
}

/* Static loop: the owner of iteration 0 cancels; every other thread waits
 * at its first iteration until it sees that. Each thread runs exactly its
 * first iteration. A second loop of the same region, with a cancel that
 * never fires, runs completely. */
static void cancel_static(int never)
{
    reset();
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            ran++;
            if (i == 0) {
#pragma omp cancel for
            }
            WAIT_FOR_CANCEL("omp cancellation point for");
        }
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
            if (never) {
#pragma omp cancel for
            }
#pragma omp atomic
            run2++;
#pragma omp cancellation point for
        }
    }
    printf("cancel for (static): %ld iterations of %d, not seen %ld; next "
           "loop %ld\n",
           ran == (omp_get_cancellation() ? omp_get_max_threads() : N) ? 1L
                                                                       : ran,
           N, unseen, run2);
}

/* A search: the thread that finds the key cancels; the others stop at
 * their next cancellation point or chunk request. */
static long search(int key, int kind)
{
    long found = -1;
    ran = 0;
#pragma omp parallel shared(found)
    {
        if (kind == 0) {
FOR_DYN16
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                ran++;
                if (data[i] == key) {
#pragma omp atomic write
                    found = i;
#pragma omp cancel for
                }
#pragma omp cancellation point for
            }
        } else if (kind == 1) {
FOR_GUIDED
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                ran++;
                if (data[i] == key) {
#pragma omp atomic write
                    found = i;
#pragma omp cancel for
                }
            }
        } else {
#pragma omp for
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                ran++;
                if (data[i] == key) {
#pragma omp atomic write
                    found = i;
#pragma omp cancel for
                }
#pragma omp cancellation point for
            }
        }
    }
    return found;
}

static void searches(void)
{
    static const char *name[] = {"dynamic", "guided", "no schedule clause"};
    for (int kind = 0; kind < 3; kind++)
        for (int key = 0; key < 3; key++) {
            int at = key == 0 ? 3 : key == 1 ? N / 2 + 1 : N - 1;
            long found = search(-1 - key, kind);
            printf("search (%s) key at %d: found %ld, iterations bounded %d\n",
                   name[kind], at, found, ran >= 1 && ran <= N);
        }
}

/* Dynamic loop, chunk 1: the thread that gets iteration 0 cancels, every
 * other thread waits at its first iteration until it sees that. No chunk
 * is handed out after the cancellation, so at most one iteration ran per
 * thread. */
static void cancel_dynamic_chunks(void)
{
    reset();
#pragma omp parallel
    {
FOR_DYN1
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            ran++;
            if (i == 0) {
#pragma omp cancel for
            }
            WAIT_FOR_CANCEL("omp cancellation point for");
        }
    }
    int T = omp_get_max_threads();
    printf("cancel for (dynamic): at most one iteration a thread %d, not "
           "seen %ld\n",
           omp_get_cancellation() ? ran >= 1 && ran <= T : ran == N, unseen);
}

/* Section 0 cancels; every other section waits until it sees that, so no
 * section completes and each thread runs at most its first section. */
static void cancel_sections(void)
{
    reset();
    for (int s = 0; s < 4; s++)
        sec_ran[s] = sec_done[s] = 0;
#pragma omp parallel
    {
#pragma omp sections
        {
#pragma omp section
            {
                sec_ran[0] = 1;
#pragma omp cancel sections
                sec_done[0] = 1;
            }
#pragma omp section
            {
                sec_ran[1] = 1;
                WAIT_FOR_CANCEL("omp cancellation point sections");
                sec_done[1] = 1;
            }
#pragma omp section
            {
                sec_ran[2] = 1;
                WAIT_FOR_CANCEL("omp cancellation point sections");
                sec_done[2] = 1;
            }
#pragma omp section
            {
                sec_ran[3] = 1;
                WAIT_FOR_CANCEL("omp cancellation point sections");
                sec_done[3] = 1;
            }
        }
#pragma omp for
        for (int i = 0; i < N; i++) {
#pragma omp atomic
            run2++;
        }
    }
    int r = 0, d = 0, T = omp_get_max_threads();
    for (int s = 0; s < 4; s++)
        r += sec_ran[s], d += sec_done[s];
    printf("cancel sections: ran %d, completed %d, not seen %ld, next loop "
           "%ld\n",
           omp_get_cancellation() ? r == (T < 4 ? T : 4) : r, d, unseen,
           run2);
}

/* A cancelled loop inside a region with a reduction: every thread still
 * reaches the region's reduction (after the loop's barrier). */
static void cancel_then_reduce(void)
{
    long threads = 0;
#pragma omp parallel reduction(+ : threads)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            if (i == N / 3) {
#pragma omp cancel for
            }
        threads++;
    }
    printf("cancel for, then the region's reduction: %d\n",
           threads == omp_get_max_threads());
}

/* Tasks of one taskgroup (all on the node whose thread created them)
 * search blocks; the finder cancels the taskgroup. */
static void cancel_taskgroup(void)
{
    long found = -1;
#pragma omp parallel shared(found)
    {
#pragma omp for
        for (int i = 0; i < N; i++)
            data[i] = data[i]; /* a cluster region: it has a loop */
#pragma omp single
#pragma omp taskgroup
        for (int b = 0; b < N; b += 500) {
#pragma omp task firstprivate(b) shared(found)
            {
                for (int i = b; i < b + 500; i++)
                    if (data[i] == -2) {
#pragma omp atomic write
                        found = i;
#pragma omp cancel taskgroup
                    }
#pragma omp cancellation point taskgroup
            }
        }
    }
    printf("cancel taskgroup: found %ld\n", found);
}

int main(void)
{
    for (int i = 0; i < N; i++)
        data[i] = i % 1000;
    data[3] = -1, data[N / 2 + 1] = -2, data[N - 1] = -3;
    printf("cancellation %s\n", omp_get_cancellation() ? "on" : "off");
    cancel_parallel();
    no_cancel(data[0] == 12345);
    cancel_static(data[0] == 12345);
    searches();
    cancel_dynamic_chunks();
    cancel_sections();
    cancel_taskgroup();
    cancel_then_reduce();
    cancel_parallel(); /* again, after all that */
    return 0;
}
