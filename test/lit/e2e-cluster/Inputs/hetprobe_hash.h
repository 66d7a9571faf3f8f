/* The compute-bound work of the HetProbe decision tests: an integer hash
 * per iteration, no shared data, exact (integer) results. Including file:
 * <stdint.h>. The loops themselves stay in the tests: hcc-s2s rewrites
 * schedule(hetprobe) in the file it compiles, not in its headers. */
#define HASH_ITERS 20000

static uint64_t hash_of(long i)
{
    uint64_t x = (uint64_t)i;
    for (int k = 0; k < 2000; k++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 32;
}

/* The sum of hash_of over HASH_ITERS iterations, computed serially. */
static uint64_t compute_bound_want(void)
{
    uint64_t want = 0;
    for (long i = 0; i < HASH_ITERS; i++)
        want += hash_of(i);
    return want;
}
