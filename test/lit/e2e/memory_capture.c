// Data of every storage class reached from parallel regions: globals
// (initialised and zeroed), static locals, heap blocks from malloc, calloc,
// realloc, aligned_alloc and posix_memalign (also allocated and freed inside
// regions), stack arrays, a VLA, a stack struct, and stack data reached
// through pointers stored in other objects.
// RUN: %e2e --O0 %s %t
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define N 2048

long g_init[N] = {1, 2, 3};
long g_zero[N];
const long g_const[4] = {10, 20, 30, 40};
struct {
    int count;
    double vals[64];
} g_struct = {3, {1.5, 2.5}};

struct holder {
    long *data; /* points at stack storage of main */
    long n;
};

static long next_id(void)
{
    static long counter = 1000; /* static local, shared by the team */
    long id;
#pragma omp atomic capture
    id = counter++;
    return id;
}

/* Writes through a pointer that escaped main's frame via a struct. */
static void fill(struct holder *h, long base)
{
#pragma omp parallel for
    for (long i = 0; i < h->n; i++)
        h->data[i] = base + i * i;
}

static long sum_vla(int n)
{
    long vla[n];
    long s = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        vla[i] = (long)i * 3 - 7;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += vla[i] * vla[n - 1 - i];
    return s;
}

int main(void)
{
    /* globals */
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        g_zero[i] = g_init[i % 3] * i + g_const[i % 4];
        if (i < 64)
            g_struct.vals[i] += i;
    }
    long gs = 0, want_gs = 0;
    for (int i = 0; i < N; i++) {
        gs += g_zero[i];
        want_gs += (i % 3 + 1) * i + (i % 4 + 1) * 10;
    }
    CHECK(gs == want_gs && g_struct.vals[1] == 3.5 && g_struct.vals[63] == 63,
          "globals: %ld %g", gs, g_struct.vals[1]);
    printf("globals: sum=%ld struct=%.1f,%.1f count=%d\n", gs,
           g_struct.vals[0], g_struct.vals[1], g_struct.count);

    /* static locals */
    long ids = 0;
#pragma omp parallel for reduction(+ : ids)
    for (int i = 0; i < 500; i++)
        ids += next_id();
    CHECK(ids == 500L * 1000 + 124750 && next_id() == 1500, "static local %ld",
          ids);

    /* heap: malloc/calloc/realloc/aligned_alloc/posix_memalign */
    long *m = malloc(N * sizeof(long));
    double *c = calloc(N, sizeof(double));
    long *al = aligned_alloc(4096, 4 * 4096);
    void *pm = NULL;
    int pm_rc = posix_memalign(&pm, 64, N * sizeof(int));
    CHECK(m && c && al && pm_rc == 0 && ((unsigned long)al % 4096) == 0,
          "allocation failed");
    int *pmi = pm;
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        m[i] = i * 5;
        c[i] += i * 0.5; /* calloc'd zeros must be visible to every thread */
        pmi[i] = -i;
        if (i < 2048)
            al[i] = i ^ 0x55;
    }
    m = realloc(m, 4 * N * sizeof(long));
#pragma omp parallel for
    for (int i = N; i < 4 * N; i++)
        m[i] = m[i % N] + i / N; /* old contents moved by realloc */
    long hs = 0;
    double cs = 0;
    for (int i = 0; i < 4 * N; i++)
        hs += m[i];
    for (int i = 0; i < N; i++)
        cs += c[i] + pmi[i] + al[i];
    printf("heap: %ld %.1f\n", hs, cs);
    CHECK(hs == 4 * 5L * (N * (long)(N - 1) / 2) + 6L * N, "heap %ld", hs);
    free(m);
    free(c);
    free(al);
    free(pm);

    /* heap blocks allocated inside a region, used by other threads later */
    long *blocks[64];
#pragma omp parallel for
    for (int b = 0; b < 64; b++) {
        blocks[b] = malloc((b + 1) * sizeof(long));
        for (int k = 0; k <= b; k++)
            blocks[b][k] = b * 100 + k;
    }
    long bs = 0;
#pragma omp parallel for reduction(+ : bs) schedule(static, 1)
    for (int b = 63; b >= 0; b--) {
        for (int k = 0; k <= b; k++)
            bs += blocks[b][k];
        free(blocks[b]);
    }
    long want_bs = 0;
    for (int b = 0; b < 64; b++)
        for (int k = 0; k <= b; k++)
            want_bs += b * 100 + k;
    CHECK(bs == want_bs, "region heap %ld want %ld", bs, want_bs);

    /* stack arrays, a struct and escaped pointers */
    long stack_arr[N];
    struct {
        long x, y;
        int arr[16];
    } st = {1, 2, {0}};
    struct holder h = {stack_arr, N};
    fill(&h, 7);
#pragma omp parallel for
    for (int i = 0; i < 16; i++)
        st.arr[i] = (int)(stack_arr[i] + st.x + st.y);
    long ss = 0;
    for (int i = 0; i < N; i++)
        ss += stack_arr[i];
    for (int i = 0; i < 16; i++)
        ss += st.arr[i];
    long vs = sum_vla(1001);
    printf("stack: %ld vla=%ld blocks=%ld\n", ss, vs, bs);
    CHECK(st.arr[15] == 7 + 225 + 3, "stack struct %d", st.arr[15]);
    return e2e_finish("memory_capture");
}
