/*
 * test_memory.c - the per-thread stack arena (__hcrt_stack_*) and the heap
 * entries, including pointers that came from the C library directly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "rt_test.h"

#define ALIGNED(p, a) (((uintptr_t)(p) & ((a) - 1)) == 0)

static void test_stack_basic(void)
{
    void *m0 = __hcrt_stack_save();
    char *p = __hcrt_stack_alloc(100, 8);
    char *q = __hcrt_stack_alloc(10, 64);
    char *z1 = __hcrt_stack_alloc(0, 1), *z2 = __hcrt_stack_alloc(0, 1);

    CHECK(p && q && z1 && z2 && z1 != z2);
    CHECK(ALIGNED(p, 16) && ALIGNED(q, 64));
    CHECK(q >= p + 100);
    memset(p, 1, 100);
    memset(q, 2, 10);
    CHECK_EQ(p[99], 1);
    __hcrt_stack_restore(m0);
    CHECK(__hcrt_stack_save() == m0);
    CHECK(__hcrt_stack_alloc(100, 8) == p); /* LIFO: the space is reused */
    __hcrt_stack_restore(m0);
}

/* A VLA much larger than a chunk, and frames straddling chunk ends. */
static void test_stack_large(void)
{
    void *m0 = __hcrt_stack_save();
    char *small = __hcrt_stack_alloc(64, 16);
    void *m1 = __hcrt_stack_save();
    char *big = __hcrt_stack_alloc((size_t)8 << 20, 4096);

    CHECK(big && ALIGNED(big, 4096));
    memset(big, 7, (size_t)8 << 20);
    CHECK_EQ(big[(8 << 20) - 1], 7);
    __hcrt_stack_restore(m1);
    CHECK(__hcrt_stack_save() == m1);
    /* Back in the first chunk: the next slot is right after `small`. */
    CHECK(__hcrt_stack_alloc(16, 16) == (char *)m1);
    CHECK((char *)m1 == small + 64);
    __hcrt_stack_restore(m1);
    for (int i = 0; i < 2000; i++) {
        void *m = __hcrt_stack_save();
        char *a = __hcrt_stack_alloc(300000, 32);
        char *b = __hcrt_stack_alloc(300000, 32);
        a[0] = b[299999] = (char)i;
        __hcrt_stack_restore(m);
        if (__hcrt_stack_save() != m) {
            CHECK(__hcrt_stack_save() == m);
            break;
        }
    }
    __hcrt_stack_restore(m0);
}

RT_REGION(stacks, 0x5001, 1);
static void stacks_body(int32_t gtid, int32_t btid, void **args)
{
    char **areas = args[0];
    void *m = __hcrt_stack_save();
    char *mine = __hcrt_stack_alloc(4096, 64);

    memset(mine, 'a' + btid, 4096);
    areas[btid] = mine;
    __hcrt_barrier(&rt_loc, gtid);
    for (int i = 0; i < 4096; i++)
        if (mine[i] != 'a' + btid) {
            CHECK_EQ(mine[i], 'a' + btid);
            break;
        }
    __hcrt_barrier(&rt_loc, gtid);
    __hcrt_stack_restore(m);
}

static void test_stack_threads(void)
{
    char *areas[3] = {0};
    void *args[1] = {areas};

    rt_fork(&stacks_region, 3, args);
    CHECK(areas[0] && areas[1] && areas[2]);
    CHECK(areas[0] != areas[1] && areas[1] != areas[2]);
}

static void test_heap(void)
{
    char *p = __hcrt_malloc(100);
    int *z = __hcrt_calloc(100, sizeof(int));
    void *a = NULL;

    CHECK(p && z);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(z[i], 0);
    memset(p, 'x', 100);
    p = __hcrt_realloc(p, 100000);
    CHECK(p && p[0] == 'x' && p[99] == 'x');
    __hcrt_free(p);
    __hcrt_free(z);
    __hcrt_free(NULL);

    /* Pointers from the C library itself. */
    char *s = strdup("from libc");
    s = __hcrt_realloc(s, 64);
    CHECK(s && strcmp(s, "from libc") == 0);
    __hcrt_free(s);
    __hcrt_free(strdup("again"));

    a = __hcrt_aligned_alloc(64, 128);
    CHECK(a && ALIGNED(a, 64));
    __hcrt_free(a);
    CHECK_EQ(__hcrt_posix_memalign(&a, 256, 1000), 0);
    CHECK(a && ALIGNED(a, 256));
    __hcrt_free(a);
    CHECK_EQ(__hcrt_posix_memalign(&a, 3, 10), EINVAL);
    a = __hcrt_memalign(4096, 10);
    CHECK(a && ALIGNED(a, 4096));
    __hcrt_free(a);
    a = __hcrt_memalign(2, 10);
    CHECK(a != NULL);
    __hcrt_free(a);
}

int main(void)
{
    test_stack_basic();
    test_stack_large();
    test_stack_threads();
    test_heap();
    return rt_report("test_memory");
}
