/*
 * home.c - which rank is a page's home, and the home's directory.
 *
 * The heap range is cut into one slice per rank; a rank allocates from its
 * own slice, so the slice owner of an address needs no lookup. The owner is
 * also the directory for its slice under the policies whose homes are not a
 * function of the address (block: assigned per allocation; first-touch:
 * claimed by the first rank that asks). Homes change only at a barrier
 * every rank takes part in (HCRT_DSM_MIGRATE, migrate.c: dsm.moved, looked
 * up first), so other ranks cache them in dsm.pages[].home.
 */
#include "base/log.h"
#include "dsm/dsm_int.h"

/* pages[].home holds rank + 1, so the zero-filled (never committed) table
 * reads as "unknown" without initialising it. */
static int home_get(size_t idx)
{
    return atomic_load_explicit(&dsm.pages[idx].home, memory_order_acquire) - 1;
}

/* Sets the home if still unknown; returns the home in force. */
static int home_claim(size_t idx, int rank)
{
    int16_t expect = 0;
    atomic_compare_exchange_strong(&dsm.pages[idx].home, &expect,
                                   (int16_t)(rank + 1));
    return home_get(idx);
}

void hcrt__dsm_home_set(size_t idx, int rank)
{
    atomic_store(&dsm.pages[idx].home, (int16_t)(rank + 1));
}

int hcrt__dsm_slice_owner(size_t idx)
{
    size_t o = idx / dsm.slice_pages;
    return o >= (size_t)dsm.size ? dsm.size - 1 : (int)o;
}

int hcrt__dsm_home_known(size_t idx)
{
    if (dsm.moved) { /* migrate.c: a home that followed its writer */
        int16_t m = atomic_load_explicit(&dsm.moved[idx], memory_order_acquire);
        if (m)
            return m - 1;
    }
    if (idx >= dsm.areas[0].len / DSM_PAGE)
        return 0; /* added areas (globals) are homed on the head */
    if (hcrt__dsm_in_stacks(idx)) /* stacks.c: the rank that runs there */
        return hcrt__dsm_slice_owner(idx);
    switch (dsm.home_policy) {
    case HOME_ALLOC:
        return hcrt__dsm_slice_owner(idx);
    case HOME_CYCLIC: { /* round robin from the allocating rank */
        size_t owner = (size_t)hcrt__dsm_slice_owner(idx);
        size_t rel = idx - owner * dsm.slice_pages;
        return (int)((rel / dsm.block_pages + owner) % (size_t)dsm.size);
    }
    default:
        return home_get(idx);
    }
}

/* Async-signal-safe: the directory query goes through the service thread. */
int hcrt__dsm_home(size_t idx)
{
    int h = hcrt__dsm_home_known(idx);
    if (h != DSM_NO_HOME)
        return h;
    int owner = hcrt__dsm_slice_owner(idx);
    int claim = dsm.home_policy == HOME_FIRST_TOUCH;
    if (owner == dsm.rank) /* unassigned page of my slice: mine */
        return home_claim(idx, dsm.rank);
    h = (int)hcrt__dsm_call(owner, M_HOME, idx, (uint64_t)claim, 0, 0);
    hcrt__dsm_home_set(idx, h);
    return h;
}

/* Block policy: the allocation's fresh pages are split into size
 * contiguous blocks, one per rank. Pages already homed keep their home. */
void hcrt__dsm_home_assign_block(size_t first, size_t n)
{
    if (dsm.home_policy != HOME_BLOCK || n == 0)
        return;
    size_t per = (n + (size_t)dsm.size - 1) / (size_t)dsm.size;
    for (size_t i = 0; i < n; i++)
        home_claim(first + i, (int)(i / per));
}

/* Runs on the owner's service thread. */
uint64_t hcrt__dsm_home_serve(size_t idx, int requester, int claim)
{
    return (uint64_t)home_claim(idx, claim ? requester : dsm.rank);
}

static uint64_t bit(int r)
{
    return 1ULL << r;
}

/* Records `rank` as holding a copy; returns whether its copy may survive
 * self-invalidation (nobody else writes the page). The seq_cst order
 * pairs with add_writer: either the writer sees this reader and notifies
 * it, or this reader sees the writer and is not exempt. */
int hcrt__dsm_dir_add_reader_at(dsm_dir_t *d, int rank)
{
    if (!dsm.classify)
        return 0;
    atomic_fetch_or(&d->readers, bit(rank));
    uint64_t w = atomic_load(&d->writers);
    return (w & ~bit(rank)) == 0;
}

int hcrt__dsm_dir_add_reader(size_t idx, int rank)
{
    return hcrt__dsm_dir_add_reader_at(&dsm.dir[idx], rank);
}

/* Records `who` (a rank or DSM_ATOMIC_WRITER) as writing a page homed at
 * `home`; returns the ranks whose exempt copies just became stale-able and
 * must be told (never the home: its copy is the master). */
uint64_t hcrt__dsm_dir_add_writer_at(dsm_dir_t *d, int home, int who)
{
    if (!dsm.classify)
        return 0;
    /* Registered already (every atomic on the page asks): a load, not a
     * locked read-modify-write of the entry. A clear racing it (a
     * migration's) ends as it would after the fetch_or below. */
    if (atomic_load(&d->writers) & bit(who))
        return 0;
    uint64_t old = atomic_fetch_or(&d->writers, bit(who));
    if (old & bit(who))
        return 0;
    uint64_t readers = atomic_load(&d->readers);
    uint64_t tell = 0;
    for (int x = 0; x < dsm.size; x++) {
        if (x == who || x == home || !(readers & bit(x)))
            continue;
        if ((old & ~bit(x)) == 0) /* x was exempt until now */
            tell |= bit(x);
    }
    return tell;
}

uint64_t hcrt__dsm_dir_add_writer(size_t idx, int who)
{
    return hcrt__dsm_dir_add_writer_at(&dsm.dir[idx], dsm.rank, who);
}

void hcrt__dsm_check_home(size_t idx, int src, const char *what)
{
    if (!dsm.migrate)
        return;
    int h = hcrt__dsm_home_known(idx);
    if (h >= 0 && h != dsm.rank)
        hcrt_fatal(HCRT_MOD_DSM,
                   "DSM protocol error: rank %d sent rank %d a %s of page "
                   "%zu, whose home is rank %d (a request older than the "
                   "page's move). Run with HCRT_DSM_MIGRATE=0 and report it",
                   src, dsm.rank, what, idx, h);
}
