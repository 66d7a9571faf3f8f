/*
 * dsm_large.c - a large array: >= 1 GiB reserved, 256 MiB touched, streamed
 * by every rank from remote homes, written across homes; the number of
 * memory mappings must stay far below vm.max_map_count.
 */
#include "dsm/dsm_int.h" /* M_COMPACT: what running out of mappings does */
#include "dsm_test.h"

#define TOTAL (256UL << 20)

static long count_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    CHECK(hcrt__dsm_size() >= (1UL << 30));
    size_t per = TOTAL / (size_t)nranks / sizeof(uint64_t);
    uint64_t **part = calloc((size_t)nranks, sizeof *part);
    uint64_t *mine = hcrt__dsm_malloc(per * sizeof(uint64_t));
    CHECK(mine != NULL);
    for (size_t i = 0; i < per; i++) /* home writes: no messages */
        mine[i] = (uint64_t)me * per + i;
    for (int r = 0; r < nranks; r++)
        part[r] = dsm_test_share(mine, r);
    hcrt__dsm_barrier();
    /* Every rank streams the whole array (remote parts by prefetch). */
    uint64_t bad = 0;
    for (int r = 0; r < nranks; r++)
        for (size_t i = 0; i < per; i += 7)
            if (part[r][i] != (uint64_t)r * per + i && bad++ < 3)
                fprintf(stderr, "rank %d: part %d [%zu] (page %zu) is %llu\n",
                        me, r, i, i / 512, (unsigned long long)part[r][i]);
    CHECK_EQ(bad, 0);
    long maps = count_maps();
    CHECK(maps < 20000);
    hcrt__dsm_barrier(); /* invalidates: the next reads fetch again */
    /* Random single pages (no prefetch) of a remote part, each isolated
     * between invalid pages: one mapping each. Far more of them than
     * vm.max_map_count / 2 make the DSM drop cached copies (compaction);
     * RAND_PAGES (environment) sets how many, 1500 by default. Compaction
     * is also run here directly, as when mprotect/mmap hit the limit: a
     * first one drops what the stream left valid (same-host pages mapped
     * live survive barriers), so the random pages are isolated; a second
     * one must merge their mappings back (with the default home policy,
     * where their neighbours are all invalid), and reading them again
     * must fault the right bytes back in. With userfaultfd minor faults
     * (shm.c) same-host read misses split no mapping at all: then the
     * random pages must leave the count where it was. */
    if (nranks > 1) {
        const char *e = getenv("RAND_PAGES");
        size_t pages = per * sizeof(uint64_t) / 4096;
        size_t want = e ? (size_t)atol(e) : 1500;
        int other = (me + 1) % nranks;
        hcrt__dsm_call(me, M_COMPACT, 0, 0, 0, 0);
        long start = count_maps();
        for (int pass = 0; pass < 2; pass++) {
            uint64_t s = 99 + (uint64_t)me;
            for (size_t k = 0; k < want; k++) {
                size_t pg = 2 * (dsm_test_rand(&s) % (pages / 2));
                size_t i = pg * 512;
                bad += part[other][i] != (uint64_t)other * per + i;
            }
            CHECK_EQ(bad, 0);
            if (pass)
                break;
            long before = count_maps();
            hcrt__dsm_call(me, M_COMPACT, 0, 0, 0, 0);
            long after = count_maps();
            if (dsm.uffd >= 0) {
                if (before > start + 8)
                    fprintf(stderr,
                            "rank %d: %ld mappings before the random "
                            "reads, %ld after (userfaultfd on)\n",
                            me, start, before);
                CHECK(before <= start + 8);
                continue;
            }
            if (!getenv("HCRT_DSM_HOME") && after > before - (long)want / 2)
                fprintf(stderr,
                        "rank %d: %ld mappings before compaction, %ld "
                        "after\n",
                        me, before, after);
            CHECK(getenv("HCRT_DSM_HOME") || after <= before - (long)want / 2);
        }
    }
    hcrt__dsm_barrier(); /* everyone has read before anyone rewrites */
    /* Each rank rewrites one stripe of its right neighbour's part. */
    int right = (me + 1) % nranks;
    size_t stripe = per / 4;
    for (size_t i = 0; i < stripe; i++)
        part[right][i] = ~((uint64_t)right * per + i);
    hcrt__dsm_barrier();
    bad = 0;
    for (size_t i = 0; i < per; i += 5)
        bad += mine[i] != (i < stripe ? ~((uint64_t)me * per + i)
                                      : (uint64_t)me * per + i);
    CHECK_EQ(bad, 0);
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    if (me == 0)
        printf("large: %zu MiB touched, %llu MiB fetched by rank 0, %ld "
               "mappings, %llu read faults\n",
               TOTAL >> 20, (unsigned long long)(c.bytes_fetched >> 20), maps,
               (unsigned long long)c.read_faults);
    CHECK(nranks == 1 ||
          c.bytes_fetched >= (TOTAL / nranks) * (nranks - 1) / 2);
    hcrt__dsm_barrier();
    hcrt__dsm_free(mine);
    return dsm_test_finish("dsm_large");
}
