/*
 * task_sites.c - the task sites of every module (__hcrt_register_tasks)
 * and the check that a task's data is valid on every node.
 *
 * Sites are found by entry (on the creating node) and by id (on the node
 * that runs a task taken from another one), in bucket lists that are only
 * prepended to with a CAS, so lookups take no lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/hash.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/core.h"
#include "libhcrt/task_share.h"

#define NBUCKETS 1024 /* power of two */

typedef struct site_node {
    hcrt_ts_site_t site;
    struct site_node *by_entry, *by_id;
} site_node_t;

static site_node_t *entries[NBUCKETS], *ids[NBUCKETS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bucket_of(uint64_t key)
{
    return hcrt__hash_bucket(key, NBUCKETS);
}

hcrt_ts_site_t *hcrt__ts_site_of_entry(hcrt_task_entry_t entry)
{
    site_node_t *n = __atomic_load_n(
        &entries[bucket_of((uint64_t)(uintptr_t)entry)], __ATOMIC_ACQUIRE);

    for (; n; n = n->by_entry)
        if (n->site.desc->entry == entry)
            return &n->site;
    return NULL;
}

hcrt_ts_site_t *hcrt__ts_site_of_id(uint64_t id)
{
    site_node_t *n = __atomic_load_n(&ids[bucket_of(id)], __ATOMIC_ACQUIRE);

    for (; n; n = n->by_id)
        if (n->site.desc->id == id)
            return &n->site;
    return NULL;
}

static void site_add(const hcrt_task_site_t *d)
{
    if (hcrt__ts_site_of_id(d->id))
        return; /* the same module registered twice */
    site_node_t *n = calloc(1, sizeof(*n));
    if (!n)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory registering a task site");
    n->site.desc = d;
    hcrt__tp_site_init(&n->site.tp);
    size_t be = bucket_of((uint64_t)(uintptr_t)d->entry), bi = bucket_of(d->id);
    n->by_entry = entries[be];
    n->by_id = ids[bi];
    __atomic_store_n(&entries[be], n, __ATOMIC_RELEASE);
    __atomic_store_n(&ids[bi], n, __ATOMIC_RELEASE);
}

HCRT_ABI_EXPORT void __hcrt_register_tasks(const hcrt_module_desc_t *m,
                                           const hcrt_task_site_t *sites,
                                           uint32_t nsites)
{
    (void)m;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < nsites; i++)
        if (sites[i].entry)
            site_add(&sites[i]);
    pthread_mutex_unlock(&lock);
}

/* Calls fn for every registered site (the statistics). */
void hcrt__ts_sites_each(void (*fn)(hcrt_ts_site_t *, void *), void *arg)
{
    for (size_t b = 0; b < NBUCKETS; b++)
        for (site_node_t *n = __atomic_load_n(&ids[b], __ATOMIC_ACQUIRE); n;
             n = n->by_id)
            fn(&n->site, arg);
}

/* ---- does a task's data travel? ------------------------------------------
 * A task's privates and shareds are copied to the node that runs it; every
 * word in them that may be a pointer must point to memory that is the same
 * on every node: DSM memory, or memory nobody writes (code, constants; the
 * ranks run one binary at one address). A word pointing into this process's
 * own writable memory (a thread's stack outside the DSM, libc's heap)
 * keeps the task home. The mappings come from /proc/self/maps, read again
 * when a word lies in a page that is mapped (mincore) but was not when they
 * were read; a word in no mapped page is no pointer. Only a file's
 * read-only mapping counts as the same everywhere: an anonymous one that
 * is not writable is typically a reservation that grows writable later
 * (glibc reserves 64 MiB for a thread's arena and opens it as it grows,
 * so a table read earlier showed libomp's newer task blocks there as
 * inaccessible, and a task pointing at its parent's private array
 * travelled). */
#define MAX_MAPS 4096

typedef struct map_range {
    uintptr_t lo, hi;
    int priv; /* writable, or anonymous (see above) */
} map_range_t;

static map_range_t maps[MAX_MAPS];
static int nmaps, maps_full;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

static void maps_read(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perm[8];
    unsigned long lo, hi, inode;

    nmaps = 0;
    maps_full = 0;
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perm, &inode) ==
            4) {
            if (nmaps == MAX_MAPS) {
                maps_full = 1;
                break;
            }
            maps[nmaps++] = (map_range_t){lo, hi, perm[1] == 'w' || !inode};
        }
    fclose(f);
}

/* 1 private (writable or anonymous), 0 a file's read-only mapping, -1 not
 * in the table (maps_lock held). */
static int maps_find(uintptr_t w)
{
    int lo = 0, hi = nmaps - 1;

    while (lo <= hi) { /* /proc/self/maps is sorted by address */
        int mid = (lo + hi) / 2;
        if (w < maps[mid].lo)
            hi = mid - 1;
        else if (w >= maps[mid].hi)
            lo = mid + 1;
        else
            return maps[mid].priv;
    }
    return -1;
}

static int page_mapped(uintptr_t w)
{
    unsigned char v;
    return mincore((void *)(w & ~(uintptr_t)4095), 4096, &v) == 0 ||
           errno != ENOMEM;
}

static int word_private(uintptr_t w)
{
    if (w < 0x10000 || w >= (1ULL << 47) || hcrt__dsm_contains((void *)w))
        return 0;
    int k = maps_find(w);
    if (k >= 0)
        return k;
    if (!page_mapped(w))
        return 0; /* no pointer (or one nobody can follow) */
    maps_read();  /* mapped since the table was read: a new stack, heap */
    k = maps_find(w);
    return k != 0 || maps_full; /* cannot tell: keep the task home */
}

int hcrt__ts_words_travel(const void *p, size_t len)
{
    const char *c = p;
    int ok = 1;

    pthread_mutex_lock(&maps_lock);
    if (!nmaps)
        maps_read();
    for (size_t i = 0; ok && i + sizeof(uintptr_t) <= len;
         i += sizeof(uintptr_t)) {
        uintptr_t w;
        memcpy(&w, c + i, sizeof w);
        ok = !word_private(w);
    }
    pthread_mutex_unlock(&maps_lock);
    return ok;
}

int hcrt__ts_shareds_travel(const void *p, size_t len)
{
    const char *c = p;

    if (!hcrt__ts_words_travel(p, len))
        return 0;
    for (size_t i = 0; i + sizeof(uintptr_t) <= len; i += sizeof(uintptr_t)) {
        uintptr_t w;
        memcpy(&w, c + i, sizeof w);
        if (w < 0x10000 || !hcrt__dsm_contains((void *)w))
            continue;
        /* Read outside the maps lock: the words may need a DSM fault. */
        uintptr_t lo = w & ~(uintptr_t)(sizeof(uintptr_t) - 1);
        uintptr_t end = (w | 4095) + 1;
        size_t n =
            end - lo < HCRT_TS_SHARED_PEEK ? end - lo : HCRT_TS_SHARED_PEEK;
        char peek[HCRT_TS_SHARED_PEEK];
        memcpy(peek, (const void *)lo, n);
        if (!hcrt__ts_words_travel(peek, n))
            return 0;
    }
    return 1;
}
