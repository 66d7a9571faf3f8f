/*
 * cluster_place.c - region placement glue (cluster_place.h,
 * docs/placement.md): the policy is sched/placement.c; here are the
 * clock, the head-alone fork, the statistics and trace, and the moves of
 * threadprivate data.
 *
 * Team: a call on the head alone runs the whole logical team (the size
 * omp_get_max_threads() announced, numbered 0..total-1 as on all nodes), so
 * a program that sized per-thread arrays in sequential code finds every
 * slot used, and omp_get_num_threads() is the same wherever the call ran.
 *
 * threadprivate: OpenMP keeps a thread's threadprivate values between
 * regions of equal team size (dyn-var false), so logical thread k must
 * find its values whichever node runs it. The executable's TLS block
 * (threadprivate variables, C11 _Thread_local) of the threads the head
 * does not run on all nodes (k >= the head's share) comes to the head
 * before the first head-alone call after calls on all nodes, is kept in
 * images there (each head-alone call installs image k in the thread
 * running k and saves it back at the end), and goes back with the next
 * fork to all nodes. When the images are small (EAGER_BYTES a node),
 * every worker sends its threads' images at the end of each call on all
 * nodes and the head takes them in at its next fork, so a switch to the
 * head alone does not wait for a napping worker; larger ones are fetched
 * when needed (CMD_TLS). A runtime linked statically into the executable
 * shares that block, so such programs keep every region on all nodes.
 */
#include <inttypes.h>
#include <link.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/trace.h"
#include "base/wait.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/runtime.h"

#define TAG_TLS 0x7c5   /* on the fork communicator */
#define TAG_EAGER 0x7c6 /* images sent at the end of each call */
#define EAGER_BYTES (256u << 10)
#define PLACE_SLOTS 1024

static hcrt__place_table_t tab;
static int place_on;
static struct {
    hcrt__place_region_t *r;
    const hcrt_region_desc_t *desc;
    uint64_t t0;
} open_call; /* the call whose cycle runs until the next fork */
static const hcrt_region_desc_t *descs[PLACE_SLOTS]; /* per table slot */

/* threadprivate images */
static size_t tls_len;       /* bytes of the executable's TLS block */
static size_t exe_tls;       /* the same, also when images cannot move */
static size_t tls_modid;     /* its module id (1) */
static const char *tls_init; /* its initial image (.tdata; .tbss: zeros) */
static size_t tls_init_len;
static char *img; /* head: total x tls_len; worker: its threads' */
static size_t img_cap;
static int img_total; /* team size the head's images are for */
/* the head holds the images of every thread (atomic: FT mode's loss
 * callback reads it on the detector's thread) */
static _Atomic int tls_on_head;
static int tls_pending; /* worker: install the received images */
static int eager;       /* images travel after every call on all nodes */
static int due_total;   /* head: a call on all nodes sent images (total) */
static int img_fresh;   /* head: img holds every worker thread's image */
static uint64_t tls_moves;
static _Thread_local char tls_probe; /* in libhcrt's own TLS */

typedef struct {
    unsigned long ti_module, ti_offset;
} tls_index_t;
extern void *__tls_get_addr(tls_index_t *ti);

static char *tls_block(void)
{
    tls_index_t ti = {tls_modid, 0};
    return __tls_get_addr(&ti);
}

static int find_exe_tls(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS) {
            tls_len = info->dlpi_phdr[i].p_memsz;
            tls_modid = info->dlpi_tls_modid;
            tls_init =
                (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            tls_init_len = info->dlpi_phdr[i].p_filesz;
        }
    return 1; /* the executable comes first */
}

static int print_place(FILE *out, void *arg);

void hcrt__cluster_place_init(void)
{
    hcrt__place_params_t p;

    dl_iterate_phdr(find_exe_tls, NULL);
    exe_tls = tls_len;
    if (tls_len) {
        char *b = tls_block();
        if (&tls_probe >= b && &tls_probe < b + tls_len) {
            hcrt_debug(HCRT_MOD_SCHED,
                       "libhcrt is linked into the executable and shares "
                       "its TLS block: regions stay on all nodes");
            tls_len = 0;
            place_on = -1;
        }
    }
    if (hcrt__cancel_on) {
        /* libomp 19 hangs a team that cancels its region after a dynamic
         * loop (clang-19 alone too): keep such teams hcc's, on all nodes */
        hcrt_debug(HCRT_MOD_SCHED, "OMP_CANCELLATION=true: regions stay on "
                                   "all nodes");
        place_on = -1;
    }
    eager =
        tls_len && (size_t)hcrt__cluster_max_threads() * tls_len <= EAGER_BYTES;
    if (hcrt__rank() != 0)
        return;
    hcrt__place_params_load(&p, hcrt__size());
    if (hcrt__cluster_cores_capacity() >= 1)
        p.capacity = hcrt__cluster_cores_capacity();
    hcrt_debug(HCRT_MOD_SCHED,
               "placement: a call on all nodes has %.2fx the cores of one on "
               "the head alone",
               p.capacity);
    if (place_on < 0)
        p.enabled = 0;
    if (hcrt__place_init(&tab, &p, PLACE_SLOTS, hcrt__now_ns()) != 0)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    place_on = p.enabled;
    hcrt__stats_register("placement", print_place, NULL);
}

static void trace_change(const hcrt_region_desc_t *d,
                         const hcrt__place_region_t *r, uint64_t now)
{
    if (!hcrt__trace_on)
        return;
    uint64_t head_us = (uint64_t)(hcrt__place_cost(r, HCRT_PLACE_HEAD) / 1e3);
    uint64_t all_us = (uint64_t)(hcrt__place_cost(r, HCRT_PLACE_ALL) / 1e3);
    hcrt__trace_add(HCRT_TEV_PLACE, d, now, now, head_us << 1 | r->choice,
                    all_us);
}

int hcrt__cluster_place_first_call(void)
{
    return open_call.r && open_call.r->calls == 1;
}

void hcrt__cluster_place_first_done(uint64_t region_ns, uint64_t wait_ns,
                                    uint64_t cpu_ns)
{
    hcrt__place_region_t *r = open_call.r;
    r->region_ns = (double)region_ns;
    r->wait_ns = (double)wait_ns;
    r->cpu_ns = (double)cpu_ns;
    hcrt_debug(HCRT_MOD_SCHED,
               "placement: first call of %s on all nodes: %.0f us, the head's "
               "main thread waited %.0f us of it and computed %.0f us",
               open_call.desc->name ? open_call.desc->name : "?",
               (double)region_ns * 1e-3, (double)wait_ns * 1e-3,
               (double)cpu_ns * 1e-3);
}

hcrt_place_t hcrt__cluster_place_choose(const hcrt_region_desc_t *region,
                                        int total, uint64_t now_ns)
{
    (void)total;
    if (place_on <= 0)
        return HCRT_PLACE_ALL;
    hcrt__place_region_t *r = hcrt__place_region(&tab, region->id);
    if (!r)
        return HCRT_PLACE_ALL;
    descs[r - tab.slots] = region;
    r->shared_data = !(region->flags & HCRT_REGION_OWN_DATA);
    open_call.r = r, open_call.desc = region, open_call.t0 = now_ns;
    return hcrt__place_choose(&tab, r, now_ns);
}

void hcrt__cluster_place_cycle(uint64_t now_ns)
{
    hcrt__place_region_t *r = open_call.r;

    if (!r)
        return;
    uint8_t before = r->choice, where = r->last;
    uint32_t trying = r->trying;
    hcrt__place_record(&tab, r, now_ns - open_call.t0);
    if (r->choice != before)
        trace_change(open_call.desc, r, now_ns);
    if (where != before && !trying) /* a try ended */
        hcrt_debug(HCRT_MOD_SCHED,
                   "placement: %s after a try of %s: %.0f us/call on the "
                   "head alone, %.0f on all nodes (call %" PRIu64 ")",
                   open_call.desc->name ? open_call.desc->name : "?",
                   where == HCRT_PLACE_HEAD ? "the head alone" : "all nodes",
                   hcrt__place_cost(r, HCRT_PLACE_HEAD) * 1e-3,
                   hcrt__place_cost(r, HCRT_PLACE_ALL) * 1e-3, r->calls);
    open_call.r = NULL;
}

/* ---- threadprivate images ------------------------------------------------ */

static void img_reserve(size_t bytes)
{
    if (bytes <= img_cap)
        return;
    free(img);
    img_fresh = 0;
    img = malloc(bytes);
    img_cap = img ? bytes : 0;
    if (!img)
        hcrt_fatal(HCRT_MOD_CORE,
                   "out of memory for %zu bytes of threadprivate data", bytes);
}

/* Images move point to point on the fork communicator; their waits go
 * through base/wait.h, so the fault detector wakes them when the peer
 * fails (docs/faults.md). Busy, as the MPI_Send / MPI_Recv they replace. */
static void img_xfer(void *buf, size_t bytes, int peer, int tag, int send)
{
    MPI_Request req;
    hcrt_wait_t w = {.what = "threadprivate data of a placed region",
                     .peer = peer,
                     .busy = 1};

    if (send)
        MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag,
                  hcrt__cluster_fork_comm(), &req);
    else
        MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, tag,
                  hcrt__cluster_fork_comm(), &req);
    if (hcrt__wait_request(&req, &w) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE,
                   "moving threadprivate data to or from rank %d failed", peer);
}

/* Head: the images of the threads the workers run, from their nodes. */
static void tls_pull(int total)
{
    hcrt_cluster_team_t t;

    img_reserve((size_t)total * tls_len);
    hcrt__cluster_request_tls(total);
    for (int r = 1; r < hcrt__size(); r++) {
        hcrt__cluster_team_of(total, r, &t);
        img_xfer(img + (size_t)t.base * tls_len, t.local * tls_len, r, TAG_TLS,
                 0);
    }
    img_total = total;
    tls_on_head = 1;
    tls_moves++;
}

/* Head, before any call on all nodes: the workers' threads never ran the
 * program's code, so their blocks still hold the executable's initial
 * image, which the head has too (no worker is asked, and in FT mode a
 * worker lost before then has lost nothing). */
static void tls_initial(int total)
{
    img_reserve((size_t)total * tls_len);
    for (int k = 0; k < total; k++) {
        char *b = img + (size_t)k * tls_len;
        memcpy(b, tls_init, tls_init_len);
        memset(b + tls_init_len, 0, tls_len - tls_init_len);
    }
    img_total = total;
    tls_on_head = 1;
}

static void save_entry(int32_t *gtid, int32_t *btid)
{
    (void)gtid, (void)btid;
    memcpy(img + (size_t)omp_get_thread_num() * tls_len, tls_block(), tls_len);
}

void hcrt__cluster_place_tls_serve(int total)
{
    hcrt_cluster_team_t t;
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};

    hcrt__cluster_team_of(total, hcrt__rank(), &t);
    img_reserve((size_t)t.local * tls_len);
    __kmpc_push_num_threads(&loc, __kmpc_global_thread_num(&loc), t.local);
    __kmpc_fork_call(&loc, 0, (kmpc_micro_t)save_entry);
    img_xfer(img, t.local * tls_len, 0, TAG_TLS, 1);
}

int hcrt__cluster_place_tls_push(int total)
{
    if (!tls_on_head)
        return 0;
    tls_on_head = 0;
    return total == img_total; /* other sizes: no persistence to keep */
}

void hcrt__cluster_place_tls_send(int total)
{
    hcrt_cluster_team_t t;

    for (int r = 1; r < hcrt__size(); r++) {
        hcrt__cluster_team_of(total, r, &t);
        img_xfer(img + (size_t)t.base * tls_len, t.local * tls_len, r, TAG_TLS,
                 1);
    }
    tls_moves++;
}

void hcrt__cluster_place_tls_prepare(int total)
{
    hcrt_cluster_team_t t;

    if (!eager)
        return;
    hcrt__cluster_team_of(total, hcrt__rank(), &t);
    img_reserve((size_t)t.local * tls_len);
}

void hcrt__cluster_place_tls_recv(int total)
{
    hcrt_cluster_team_t t;

    hcrt__cluster_team_of(total, hcrt__rank(), &t);
    img_reserve((size_t)t.local * tls_len);
    img_xfer(img, t.local * tls_len, 0, TAG_TLS, 0);
    tls_pending = 1;
}

size_t hcrt__cluster_place_tls_bytes(void)
{
    return exe_tls;
}

int hcrt__cluster_place_tls_at_head(void)
{
    return tls_len && atomic_load(&tls_on_head);
}

void hcrt__cluster_place_tls_enter(int local_tid)
{
    if (tls_pending)
        memcpy(tls_block(), img + (size_t)local_tid * tls_len, tls_len);
}

void hcrt__cluster_place_tls_leave(int local_tid)
{
    if (eager && hcrt__rank() != 0)
        memcpy(img + (size_t)local_tid * tls_len, tls_block(), tls_len);
}

void hcrt__cluster_place_tls_done(int total)
{
    hcrt_cluster_team_t t;

    tls_pending = 0;
    if (!eager)
        return;
    if (hcrt__rank() == 0) {
        due_total = total, img_fresh = 0;
        return;
    }
    hcrt__cluster_team_of(total, hcrt__rank(), &t);
    img_xfer(img, t.local * tls_len, 0, TAG_EAGER, 1);
}

void hcrt__cluster_place_tls_drain(void)
{
    hcrt_cluster_team_t t;
    int all = 1;

    if (!due_total)
        return;
    img_reserve((size_t)due_total * tls_len);
    for (int r = 1; r < hcrt__size(); r++) {
        /* FT mode: not from a lost rank; the images are then incomplete
         * (cluster_ft.c ends the job if a later call needs them) */
        if (hcrt__ft_lost(r)) {
            all = 0;
            continue;
        }
        hcrt__cluster_team_of(due_total, r, &t);
        img_xfer(img + (size_t)t.base * tls_len, t.local * tls_len, r,
                 TAG_EAGER, 0);
    }
    img_total = due_total, img_fresh = all;
    due_total = 0;
}

/* ---- the head alone ------------------------------------------------------ */

static int head_share; /* threads the head runs of the head-alone team */

static void head_entry(int32_t *gtid, int32_t *btid,
                       const hcrt_region_desc_t *region, void **args,
                       const hcrt_cluster_icv_t *icv)
{
    int k = omp_get_thread_num();
    int moved = tls_on_head && k >= head_share;

    hcrt__cluster_icv_enter(icv); /* as in a cluster team (cluster_nest.c) */
    hcrt__cluster_cores_enter(k);
    if (moved)
        memcpy(tls_block(), img + (size_t)k * tls_len, tls_len);
    region->tramp(gtid, btid, args);
    if (moved)
        memcpy(img + (size_t)k * tls_len, tls_block(), tls_len);
}

void hcrt__cluster_place_run_head(hcrt_ident_t *loc,
                                  const hcrt_region_desc_t *region, void **args,
                                  int total)
{
    hcrt_cluster_team_t t;

    if (tls_len && !tls_on_head) {
        if (img_fresh && img_total == total) { /* sent after the last call */
            tls_on_head = 1;
            tls_moves++;
        } else if (!hcrt__cluster_ft_nforks()) /* no call on all nodes */
            tls_initial(total);
        else
            tls_pull(total);
    }
    hcrt__cluster_team_of(total, 0, &t);
    head_share = total == img_total ? t.local : total;
    hcrt__cluster_cores_plan(total);
    __kmpc_push_num_threads(loc, __kmpc_global_thread_num(loc), total);
    hcrt_cluster_icv_t icv = {.nthreads = hcrt__cluster_max_threads()};
    __kmpc_fork_call(loc, 3, (kmpc_micro_t)head_entry, region, args, &icv);
}

/* ---- statistics ---------------------------------------------------------- */

static void print_region(FILE *out, const hcrt_region_desc_t *d,
                         const hcrt__place_region_t *r)
{
    char where[300];
    double h = hcrt__place_cost(r, HCRT_PLACE_HEAD) * 1e-3;
    double a = hcrt__place_cost(r, HCRT_PLACE_ALL) * 1e-3;

    const char *name = d && d->name ? d->name : "?";
    if (d && d->file && *d->file && d->line > 0)
        snprintf(where, sizeof where, "%s:%d (%s)", d->file, d->line, name);
    else
        snprintf(where, sizeof where, "%s", name);
    fprintf(out, "  region %s ran on %s: ", where,
            r->choice == HCRT_PLACE_HEAD ? "the head alone" : "all nodes");
    if (h > 0 && a > 0 && r->choice == HCRT_PLACE_HEAD)
        fprintf(out, "%.0f us/call there vs %.0f us/call on %d nodes", h, a,
                tab.p.nodes);
    else if (h > 0 && a > 0)
        fprintf(out, "%.0f us/call there vs %.0f us/call on the head alone", a,
                h);
    else if (r->choice == HCRT_PLACE_HEAD)
        fprintf(out, "%.0f us/call, not tried on all nodes", h);
    else
        fprintf(out, "%.0f us/call, not tried on the head alone", a);
    fprintf(out,
            "; %" PRIu64 " calls: %" PRIu64 " on all nodes, %" PRIu64
            " on the head; %u tries lost %.2f ms\n",
            r->calls, r->runs[HCRT_PLACE_ALL], r->runs[HCRT_PLACE_HEAD],
            r->tries, r->lost_ns * 1e-6);
}

static int print_place(FILE *out, void *arg)
{
    (void)arg;
    /* the last call's cycle ends here (others end at the next fork): a
     * region called once last said "0 on all nodes, 0 on the head" */
    hcrt__cluster_place_cycle(hcrt__now_ns());
    int said = place_on <= 0 || tab.lost_ns > 0 || tab.budget_refused > 0 ||
               tls_moves > 0;
    double run = (double)(hcrt__now_ns() - tab.start_ns) * 1e-9;
    fprintf(out,
            "region placement %s: tries lost %.2f ms in all (%.2f %% of "
            "%.2f s; budget %.0f %% of the run, of 1 s for shorter runs), "
            "%.0f tries refused by the budget, %u ended over it, "
            "threadprivate data (%zu bytes a thread) moved %" PRIu64 " times\n",
            place_on > 0 ? "on" : "off", tab.lost_ns * 1e-6,
            run > 0 ? tab.lost_ns * 1e-7 / run : 0.0, run, tab.p.budget * 100,
            tab.budget_refused, tab.try_cut, tls_len, tls_moves);
    if (tab.groups)
        fprintf(out,
                "group tries (every region on all nodes tried on the head at "
                "once): %u, regions they moved %u\n",
                tab.groups, tab.group_switches);
    fprintf(out,
            "calls on the head alone run on %d core(s); a call on all nodes "
            "has %.2fx as many\n",
            hcrt__cluster_cores_head(), tab.p.capacity);
    if (tab.first_shared)
        fprintf(out,
                "regions that started on the head alone because they read or "
                "write shared arrays (the compiler found no sign of their "
                "threads working on their own data): %u\n",
                tab.first_shared);
    if (tab.first_head)
        fprintf(out,
                "regions that started on the head alone because an earlier "
                "region's first call on all nodes mostly waited for the "
                "other nodes: %u\n",
                tab.first_head);
    for (uint32_t i = 0; i < tab.cap; i++)
        if (tab.slots[i].used && tab.slots[i].calls) {
            print_region(out, descs[i], &tab.slots[i]);
            said = 1;
        }
    return said;
}
