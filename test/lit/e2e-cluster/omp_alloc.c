// OpenMP's allocators across nodes: omp_alloc, omp_aligned_alloc,
// omp_calloc, omp_aligned_calloc, omp_realloc and omp_free with the
// predefined allocators and with omp_init_allocator traits (alignment, a
// pool with each fallback), the allocate directive on a variable of main
// and the allocate clause on private copies. Blocks are written by every
// thread of every node and checked on the head; blocks allocated inside a
// region (with the head's allocator) are written on the allocating node
// and read by another. Without DSM memory behind these calls a worker
// reads its own memory at the head's addresses (wrong sums) or faults.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 4096
#define MAXT 64

static long fill_sum(long *x, int n)
{
    long s = 0;
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        x[i] = 3L * i + 1;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

static int misaligned(void *p, size_t a)
{
    return p == NULL || (uintptr_t)p % a != 0;
}

int main(void)
{
    long *a = omp_alloc(N * sizeof(long), omp_default_mem_alloc);
    long *b = omp_aligned_alloc(256, N * sizeof(long), omp_large_cap_mem_alloc);
    long *c = omp_calloc(N, sizeof(long), omp_const_mem_alloc);
    long *d = omp_aligned_calloc(64, N, sizeof(long), omp_null_allocator);
    long zeros = 0;
#pragma omp parallel for reduction(+ : zeros)
    for (int i = 0; i < N; i++)
        zeros += c[i] == 0 && d[i] == 0;
    printf("predefined: %ld %ld %ld %ld zeros %ld aligned %d\n",
           fill_sum(a, N), fill_sum(b, N), fill_sum(c, N), fill_sum(d, N),
           zeros, !misaligned(b, 256) && !misaligned(d, 64));

    a = omp_realloc(a, 2 * N * sizeof(long), omp_default_mem_alloc,
                    omp_default_mem_alloc);
    long kept = 0;
#pragma omp parallel for reduction(+ : kept)
    for (int i = 0; i < N; i++)
        kept += a[i] == 3L * i + 1;
    printf("realloc: kept %ld, %ld\n", kept, fill_sum(a, 2 * N));
    omp_free(a, omp_null_allocator); /* the block knows its allocator */
    omp_free(b, omp_large_cap_mem_alloc);
    omp_free(c, omp_const_mem_alloc);
    omp_free(d, omp_null_allocator);

    /* traits */
    omp_alloctrait_t at[] = {{omp_atk_alignment, 4096}};
    omp_allocator_handle_t al = omp_init_allocator(omp_default_mem_space, 1, at);
    long *e = omp_alloc(N * sizeof(long), al);
    printf("alignment trait: %d %ld\n", !misaligned(e, 4096), fill_sum(e, N));

    omp_alloctrait_t pt[] = {{omp_atk_pool_size, 3 * N},
                             {omp_atk_fallback, omp_atv_null_fb}};
    omp_allocator_handle_t pool = omp_init_allocator(omp_default_mem_space, 2, pt);
    char *p1 = omp_alloc(2 * N, pool), *p2 = omp_alloc(2 * N, pool);
    omp_free(p1, pool);
    char *p3 = omp_alloc(2 * N, pool);
    printf("pool, null fallback: %d %d %d\n", p1 != NULL, p2 == NULL,
           p3 != NULL);
    omp_alloctrait_t ft[] = {{omp_atk_pool_size, N},
                             {omp_atk_fallback, omp_atv_allocator_fb},
                             {omp_atk_fb_data, (omp_uintptr_t)al}};
    omp_allocator_handle_t fb = omp_init_allocator(omp_default_mem_space, 3, ft);
    long *f = omp_alloc(N * sizeof(long), fb); /* too big: al's block */
    printf("pool, allocator fallback: %d %ld\n", !misaligned(f, 4096),
           fill_sum(f, N));
    omp_alloctrait_t hb[] = {{omp_atk_pinned, omp_atv_true},
                             {omp_atk_partition, omp_atv_interleaved},
                             {omp_atk_access, omp_atv_all}};
    omp_allocator_handle_t other = omp_init_allocator(omp_default_mem_space, 3, hb);
    long *g = omp_alloc(N * sizeof(long), other);
    printf("pinned, interleaved: %ld; size 0 gives %s\n", fill_sum(g, N),
           omp_alloc(0, omp_default_mem_alloc) ? "memory" : "NULL");

    /* blocks allocated inside a region, one per thread, with the head's
     * allocator; each thread's block is read by the next thread */
    long *blk[MAXT] = {0}, sum = 0;
    int T = 0;
#pragma omp parallel shared(blk, T) reduction(+ : sum)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp single
        T = n;
        blk[t] = omp_alloc(256 * sizeof(long), al);
        for (int i = 0; i < 256; i++)
            blk[t][i] = t * 1000 + i;
#pragma omp barrier
        long *next = blk[(t + 1) % n];
        for (int i = 0; i < 256; i++)
            sum += next[i] - i;
        sum += misaligned(next, 4096) * 1000000;
#pragma omp barrier
        omp_free(blk[t], al);
    }
    printf("in-region blocks: %ld (of %d threads)\n",
           sum - 256L * 1000 * (T * (T - 1) / 2), T);
    omp_free(e, al);
    omp_free(f, fb);
    omp_free(g, other);
    omp_free(p2, pool);
    omp_free(p3, pool);
    omp_destroy_allocator(al);
    omp_destroy_allocator(pool);
    omp_destroy_allocator(fb);
    omp_destroy_allocator(other);

    /* allocate directive and clause */
    long v[N];
#pragma omp allocate(v) allocator(omp_large_cap_mem_alloc)
    long s2 = fill_sum(v, N);
    long priv = 5, ps = 0;
#pragma omp parallel for firstprivate(priv) allocate(omp_low_lat_mem_alloc : priv) reduction(+ : ps)
    for (int i = 0; i < N; i++) {
        priv += 1;
        ps += v[i] + 0 * priv;
    }
    printf("allocate: %ld %ld\n", s2, ps);
    return 0;
}
