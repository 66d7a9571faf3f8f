/*
 * cluster.c - cluster execution of parallel regions: start-up checks, the
 * fork/join protocol and cluster-wide team numbering.
 *
 * Fork: the head releases its DSM writes, then broadcasts a fixed-size
 * command {region id, args, team size} with MPI_Ibcast on a communicator of
 * its own; workers wait for it in a command loop (spin, then nap) and
 * acquire on receipt. Every rank then forks its local libomp team running
 * the region's trampoline, and numbers its threads from the node's first
 * cluster thread. Join: every rank leaves its local team and meets the
 * others in a DSM barrier (release, barrier, acquire).
 *
 * Regions stay local (as on one node) when they are HEAD regions, nested,
 * forked by a worker, or carry more arguments than a command holds. The
 * others run on all nodes or on the head alone, as region placement
 * chooses per call (cluster_place.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/bell.h"
#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/stats.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/heap.h"
#include "libhcrt/observe.h"
#include "libhcrt/runtime.h"
#include "libhcrt/task_share.h"
#include "sched/pool_xchg.h"

#define CMD_MAX_ARGS 64
#define NSLOTS 4096 /* per-construct DSM words (dynamic loops) */

enum { CMD_FORK = 1, CMD_EXIT = 2, CMD_TLS = 3 };

typedef struct fork_cmd {
    int32_t op;
    int32_t nargs;
    int32_t total; /* threads in the cluster team */
    int32_t status;
    int32_t sched_kind, sched_chunk; /* the head's run-sched ICV */
    int32_t hint_kind, hint_pct;     /* schedule hint for the team (loops.c) */
    hcrt_cluster_icv_t icv;          /* the head's task's ICVs */
    uint32_t payload; /* bytes of head TLS that follow in a second bcast */
    int32_t tls_push; /* the threads' threadprivate images follow */
    int32_t tasks;    /* a spread TASKS region (task_share.h) */
    uint64_t region_id;
    hcrt_ident_t *loc; /* same address in every rank (same binary, no ASLR) */
    void *args[CMD_MAX_ARGS];
    uint32_t tls_off[CMD_MAX_ARGS]; /* 1 + offset in the payload, or 0 */
    uint32_t tls_len[CMD_MAX_ARGS];
    uint64_t lost; /* CMD_EXIT under FT mode: the head's lost ranks */
} fork_cmd_t;

int hcrt__cluster_on;
uintptr_t hcrt__cluster_heap_lo, hcrt__cluster_heap_hi;
hcrt_cluster_team_t hcrt__cluster_team;

static MPI_Comm fork_comm = MPI_COMM_NULL;
/* Workers block on it between forks; the head rings them with a command
 * sent after they stopped spinning (wait_cmd, bcast_cmd). */
static hcrt_bell_t fork_bell = {.efd = -1, .sfd = -1};
static uint64_t cmd_idle_since; /* head: end of the last command's work */

static MPI_Comm reduce_comm = MPI_COMM_NULL;
static MPI_Comm sched_comm = MPI_COMM_NULL;
static int *node_default; /* each rank's default team size */
static int default_total;
static int req_total;   /* omp_set_num_threads on the head (0: none) */
static uint64_t *slots; /* NSLOTS words of DSM memory */
static uint32_t max_ws; /* constructs used by the last region */
static _Thread_local int32_t pending_nt;
static _Thread_local int main_thread;  /* the head's thread running main */
static int teams_active;               /* teams constructs running (head) */
static hcrt_cluster_icv_t region_icv;  /* of the running cluster region */
static volatile int region_active;     /* this rank runs a cluster region */
volatile int hcrt__cluster_head_alone; /* cluster.h */
static int worker_done;                /* the head told this worker to leave */
static _Thread_local uint32_t ws_seq;

static struct {
    uint64_t forks, head_only, placed_head, local_io, fork_ns, join_ns;
} counters;

/* "file:line (function)" from clang's ";file;function;line;col;;", or
 * "an unknown place" (clang leaves some constructs without a location). */
static const char *loc_str(const hcrt_ident_t *loc, char *buf, size_t len)
{
    char file[256], func[128];
    int line = 0;
    if (!loc || !loc->psource ||
        sscanf(loc->psource, ";%255[^;];%127[^;];%d", file, func, &line) != 3 ||
        line <= 0 || !strcmp(file, "unknown"))
        return "an unknown place (compile with -g for one)";
    snprintf(buf, len, "%s:%d (%s)", file, line, func);
    return buf;
}

_Noreturn void hcrt__cluster_unsupported_fix(hcrt_ident_t *loc,
                                             const char *what, const char *fix)
{
    char where[420];
    hcrt_fatal(HCRT_MOD_CORE,
               "%s at %s is not supported across nodes by this version of "
               "the cluster runtime; %s",
               what, loc_str(loc, where, sizeof where), fix);
}

_Noreturn void hcrt__cluster_unsupported(hcrt_ident_t *loc, const char *what)
{
    hcrt__cluster_unsupported_fix(loc, what,
                                  "run with HCRT_CLUSTER=0 (the program then "
                                  "runs on the head node only)");
}

int hcrt__cluster_here(void)
{
    return hcrt__cluster_nest.total && omp_get_level() == 1;
}

int hcrt__cluster_tid(void)
{
    return hcrt__cluster_team.base + omp_get_thread_num();
}

int hcrt__cluster_max_threads(void)
{
    return req_total ? req_total : default_total;
}

int hcrt__cluster_region_active(void)
{
    return region_active;
}

int hcrt__cluster_default_threads(void)
{
    return default_total;
}

void hcrt__cluster_set_num_threads(int n)
{
    if (n >= 0) /* 0: back to the nodes' default teams */
        req_total = n;
}

void hcrt__cluster_push_num_threads(int32_t n)
{
    pending_nt = n;
}

/* The head's main thread: its stack and static TLS (threadprivate data,
 * copyin sources) are private to the head, so a fork whose arguments point
 * there cannot run on the other nodes. */
static uintptr_t stack_lo, stack_hi, tls_at;

int hcrt__cluster_is_main_thread(void)
{
    return main_thread;
}

void hcrt__cluster_set_main_thread(void)
{
    pthread_attr_t a;
    void *lo;
    size_t len;

    main_thread = 1;
    tls_at = (uintptr_t)__builtin_thread_pointer();
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &lo, &len) == 0)
            stack_lo = (uintptr_t)lo, stack_hi = (uintptr_t)lo + len;
        pthread_attr_destroy(&a);
    }
}

static int in_head_stack(uintptr_t v)
{
    return v >= stack_lo && v < stack_hi;
}

/* Static TLS of the head's main thread lies below its thread pointer (the
 * executable's block first): copyin sources and other threadprivate data. */
#define TLS_WINDOW (1u << 20)

static int in_head_tls(uintptr_t v)
{
    return v >= tls_at - TLS_WINDOW && v < tls_at;
}

/* The bytes of the head's TLS that a fork's arguments point to travel with
 * the command (from each pointer up to the end of the static TLS block), so
 * that copyin can broadcast the master's threadprivate values to every node.
 * Returns 0 when the region cannot leave the head (head stack, or more than
 * the payload holds). */
static int args_shareable(const hcrt_region_desc_t *region, void **args,
                          fork_cmd_t *cmd)
{
    uint32_t used = 0;

    for (int i = 0; i < region->nargs; i++) {
        uintptr_t v = (uintptr_t)args[i];
        if (in_head_stack(v))
            return 0;
        if (!in_head_tls(v))
            continue;
        uint32_t len = (uint32_t)(tls_at - v);
        if (used + len > TLS_WINDOW)
            return 0;
        cmd->tls_off[i] = used + 1; /* 0: not a TLS argument */
        cmd->tls_len[i] = len;
        used += len;
    }
    cmd->payload = used;
    return 1;
}

void hcrt__cluster_teams(int delta)
{
    __atomic_fetch_add(&teams_active, delta, __ATOMIC_RELAXED);
}

int32_t hcrt__cluster_take_push(void)
{
    int32_t n = pending_nt;

    pending_nt = 0;
    return n;
}

/* Cluster lock and unlock for the whole runtime. Unlocks of one rank are
 * serialised: two threads releasing the same dirty page at once could let
 * one unlock notice overtake the other thread's diff (seen as lost updates
 * under contention). */
pthread_mutex_t hcrt__cluster_unlock_mutex = PTHREAD_MUTEX_INITIALIZER;

void hcrt__cluster_lock(uint64_t id)
{
    if (hcrt__dsm_lock(id) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM cluster lock %#llx failed",
                   (unsigned long long)id);
}

void hcrt__cluster_unlock(uint64_t id)
{
    pthread_mutex_lock(&hcrt__cluster_unlock_mutex);
    hcrt_status_t st = hcrt__dsm_unlock(id);
    pthread_mutex_unlock(&hcrt__cluster_unlock_mutex);
    if (st != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM cluster unlock %#llx failed",
                   (unsigned long long)id);
}

void hcrt__cluster_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    uint64_t t0 = hcrt__obs_now();

    if (hcrt__ts_spread) /* and other nodes' tasks until all passed it */
        hcrt__ts_barrier(loc, gtid);
    else
        __kmpc_barrier(loc, gtid);
    hcrt__doing_set(HCRT_DOING_BARRIER, loc);
    if (hcrt__dsm_barrier_team(hcrt__cluster_team.local) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM barrier failed (%s)",
                   loc && loc->psource ? loc->psource : "?");
    hcrt__doing_set(HCRT_DOING_REGION, NULL);
    hcrt__cancel_note_barrier();
    HCRT_OBS(hcrt__obs_barrier(t0));
}

uint32_t hcrt__cluster_next_ws(void)
{
    return ++ws_seq;
}

uint64_t *hcrt__cluster_slot(uint32_t seq)
{
    return &slots[seq % NSLOTS];
}

/* ---- start-up ------------------------------------------------------------ */

typedef struct binary_id {
    uint64_t modules; /* FNV-1a over the module hashes and ABI versions */
    uint64_t exe_size, exe_hash; /* of /proc/self/exe (its whole content) */
    int32_t abi, cluster;
} binary_id_t;

/* FNV-1a of the executable's bytes: a copy of the same binary on another
 * host matches whatever its path and time stamps. */
static void exe_digest(uint64_t *size, uint64_t *hash)
{
    static unsigned char buf[1 << 16];
    uint64_t h = 0xcbf29ce484222325ULL, n = 0;
    FILE *f = fopen("/proc/self/exe", "rb");
    size_t got;

    if (!f)
        return;
    while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
        for (size_t i = 0; i < got; i++)
            h = (h ^ buf[i]) * 0x100000001b3ULL;
        n += got;
    }
    fclose(f);
    *size = n, *hash = h;
}

static void binary_id(binary_id_t *id, int cluster)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    memset(id, 0, sizeof(*id));
    for (uint32_t i = 0; i < hcrt__registry_num_modules(); i++) {
        const hcrt_module_desc_t *m = hcrt__registry_module(i);
        h = (h ^ m->hash) * 0x100000001b3ULL;
        h = (h ^ m->abi_version) * 0x100000001b3ULL;
    }
    id->modules = h;
    exe_digest(&id->exe_size, &id->exe_hash);
    id->abi = HCRT_ABI_VERSION;
    id->cluster = cluster;
}

/* Every rank must run the same program with the same cluster setting:
 * otherwise region ids, globals and the fork protocol would not match. */
void hcrt__cluster_check_binary(int cluster)
{
    MPI_Comm comm = hcrt__comm_world();
    int size = hcrt__size();
    binary_id_t mine, *all = calloc((size_t)size, sizeof(*all));

    if (!all)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    binary_id(&mine, cluster);
    MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE,
                  comm);
    for (int r = 1; r < size; r++) {
        const binary_id_t *a = &all[0], *b = &all[r];
        if (a->cluster != b->cluster && hcrt__rank() == 0)
            hcrt_fatal(HCRT_MOD_CORE,
                       "rank %d has HCRT_CLUSTER=%d but the head has %d: set "
                       "it the same for every rank (hcrun/mpirun -x)",
                       r, b->cluster, a->cluster);
        if (memcmp(a, b, sizeof(*a)) != 0 && hcrt__rank() == 0)
            hcrt_fatal(HCRT_MOD_CORE,
                       "rank %d runs a different program than the head "
                       "(modules %016" PRIx64 " vs %016" PRIx64
                       ", ABI %d vs %d, executable size %" PRIu64 " vs %" PRIu64
                       "): start every rank with the same "
                       "binary built by the same hcc",
                       r, b->modules, a->modules, b->abi, a->abi, b->exe_size,
                       a->exe_size);
    }
    int bad = memcmp(&all[0], &mine, sizeof(mine)) != 0;
    free(all);
    if (bad) /* the head aborts the job with the message */
        MPI_Barrier(comm);
}

/* The writable globals of the program (the pass's shared sections). */
static void add_global_areas(void)
{
    void *done[4] = {0};

    for (uint32_t i = 0; i < hcrt__registry_num_modules(); i++) {
        const hcrt_module_desc_t *m = hcrt__registry_module(i);
        void *ranges[2][2] = {{m->shared_begin, m->shared_end},
                              {m->shared_bss_begin, m->shared_bss_end}};
        for (int k = 0; k < 2; k++) {
            void *b = ranges[k][0], *e = ranges[k][1];
            if (!b || b >= e || done[2 * k] == b)
                continue;
            done[2 * k] = b;
            if (hcrt__dsm_add_area(b, e) != HCRT_OK)
                hcrt_fatal(HCRT_MOD_CORE,
                           "cannot make the globals at %p-%p DSM memory", b, e);
        }
    }
}

static int print_cluster(FILE *out, void *arg);

void hcrt__cluster_init(void)
{
    MPI_Comm comm = hcrt__comm_world();
    int size = hcrt__size(), mine = omp_get_max_threads();

    add_global_areas();
    hcrt__arena_share(comm); /* memory allocated before main */
    hcrt__mainstack_reserve();
    if (hcrt__dsm_init(comm) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "the DSM could not start (see above)");
    hcrt__cluster_heap_lo = (uintptr_t)hcrt__dsm_base();
    hcrt__cluster_heap_hi = hcrt__cluster_heap_lo + hcrt__dsm_size();
    MPI_Comm_dup(comm, &fork_comm);
    if (hcrt__bell_init(&fork_bell, fork_comm,
                        hcrt__config_enum("HCRT_FORK_BELL"), HCRT_MOD_CORE,
                        "fork", "HCRT_FORK_BELL") != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "the fork bells could not start (see above)");
    hcrt__cluster_ft_init(fork_comm);
    MPI_Comm_dup(comm, &reduce_comm);
    MPI_Comm_dup(comm, &sched_comm);
    hcrt__cl_xchg_init(sched_comm); /* the probe exchanges (sched/) */
    node_default = calloc((size_t)size, sizeof(int));
    if (!node_default)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    MPI_Allgather(&mine, 1, MPI_INT, node_default, 1, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        default_total += node_default[r];
    if (hcrt__rank() == 0) {
        slots = hcrt__dsm_calloc(NSLOTS, sizeof(uint64_t));
        if (!slots)
            hcrt_fatal(HCRT_MOD_CORE, "out of DSM memory at start-up");
    }
    MPI_Bcast(&slots, sizeof(slots), MPI_BYTE, 0, comm);
    hcrt__cluster_icv_init();
    hcrt__cancel_init();
    hcrt__cluster_cores_init(comm);
    hcrt__cluster_place_init();
    hcrt__stats_register("cluster", print_cluster, NULL);
    hcrt__cluster_head_alone = hcrt__rank() == 0;
    hcrt__cluster_on = 1;
    hcrt__threads_init(); /* libomp's threads on DSM stacks from now on */
    hcrt_debug(HCRT_MOD_CORE, "cluster mode: %d nodes, %d threads in all", size,
               default_total);
}

void hcrt__cluster_fini(void)
{
    if (!hcrt__cluster_on)
        return;
    hcrt__cluster_on = 0;
    hcrt__heap_shutdown(); /* from here on the C library's */
    hcrt__dsm_fini();
    hcrt__bell_fini(&fork_bell);
    MPI_Comm_free(&fork_comm);
    MPI_Comm_free(&reduce_comm);
    MPI_Comm_free(&sched_comm);
}

MPI_Comm hcrt__cluster_reduce_comm(void)
{
    return reduce_comm;
}

/* ---- fork / join -----------------------------------------------------------
 */

MPI_Comm hcrt__cluster_fork_comm(void)
{
    return fork_comm;
}

/* Head: rings every worker when the command follows a quiet spell longer
 * than a worker spins (it may block on its bell), and marks the end of this
 * command's work (called again at the join). A ring is one sendto, ~1.5 us
 * a worker, paid only after a spell of at least WORKER_SPIN_NS. */
#define WORKER_SPIN_NS 200000
static void ring_workers(void)
{
    uint64_t now = hcrt__now_ns();
    if (now - cmd_idle_since > WORKER_SPIN_NS / 2)
        for (int r = 1; r < hcrt__size(); r++)
            hcrt__bell_ring(&fork_bell, r, 0);
}

/* Node `rank`'s share of a team of `total` threads. */
void hcrt__cluster_team_of(int total, int rank, hcrt_cluster_team_t *t)
{
    int size = hcrt__size(), base = 0;

    if (total == default_total) {
        for (int r = 0; r < rank; r++)
            base += node_default[r];
        *t = (hcrt_cluster_team_t){base, total, node_default[rank]};
        return;
    }
    int q = total / size, extra = total % size;
    base = rank * q + (rank < extra ? rank : extra);
    *t = (hcrt_cluster_team_t){base, total, q + (rank < extra)};
}

int hcrt__cluster_node_threads(int node)
{
    int size = hcrt__size(), total = hcrt__cluster_team.total;

    if (total == default_total)
        return node_default[node];
    return total / size + (node < total % size);
}

/* libomp gave this node fewer threads than its share (a thread limit of
 * the process, KMP_* settings): the cluster team would miss threads. */
static void check_team(hcrt_ident_t *loc)
{
    int n = omp_get_num_threads();
    char fix[256];

    if (HCRT_LIKELY(n == hcrt__cluster_team.local))
        return;
    snprintf(fix, sizeof fix,
             "rank %d got %d of its %d threads of the cluster team (set "
             "OMP_THREAD_LIMIT and KMP_DEVICE_THREAD_LIMIT to at least "
             "OMP_NUM_THREADS on every rank)",
             hcrt__rank(), n, hcrt__cluster_team.local);
    hcrt__cluster_unsupported_fix(
        loc, "a parallel region whose node team libomp could not form", fix);
}

static void cluster_entry(int32_t *gtid, int32_t *btid,
                          const hcrt_region_desc_t *region, void **args,
                          hcrt_ident_t *loc)
{
    int local = hcrt__cluster_team.local;

    check_team(loc);
    hcrt__cluster_nest = (hcrt_cluster_nest_t){
        .tid1 = hcrt__cluster_team.base + omp_get_thread_num(),
        .total = hcrt__cluster_team.total,
        .hidden = local == 1};
    hcrt__cluster_icv_enter(&region_icv);
    hcrt__cluster_cores_home();
    ws_seq = 0;
    hcrt__cancel_thread_enter();
    hcrt__cluster_place_tls_enter(omp_get_thread_num());
    if (hcrt__ts_spread)
        hcrt__ts_thread_begin();
    region->tramp(gtid, btid, args);
    if (hcrt__ts_spread) /* this node's tasks, then other nodes' */
        hcrt__ts_thread_end(*gtid);
    hcrt__cluster_place_tls_leave(omp_get_thread_num());
    uint32_t m = __atomic_load_n(&max_ws, __ATOMIC_RELAXED);
    while (ws_seq > m &&
           !__atomic_compare_exchange_n(&max_ws, &m, ws_seq, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    hcrt__cluster_nest.total = 0;
}

static void run_region(hcrt_ident_t *loc, const hcrt_region_desc_t *region,
                       void **args, int total, const hcrt_cluster_icv_t *icv,
                       int tasks)
{
    int32_t gtid = __kmpc_global_thread_num(loc);

    hcrt__cluster_team_of(total, hcrt__rank(), &hcrt__cluster_team);
    region_icv = *icv;
    region_active = 1;
    hcrt__cluster_head_alone = 0;
    if (tasks)
        hcrt__ts_region_begin();
    hcrt__doing_region(region);
    HCRT_OBS(hcrt__obs_region_begin(region));
    hcrt__dsm_region_begin(region->id);
    hcrt__cluster_icv_fork_begin(icv);
    hcrt__cancel_region_begin();
    __kmpc_push_num_threads(loc, gtid, hcrt__cluster_team.local);
    __kmpc_fork_call(loc, 3, (kmpc_micro_t)cluster_entry, region, args, loc);
    if (tasks)
        hcrt__ts_region_end();
    hcrt__cluster_icv_fork_end(icv);
    /* Join: every node's writes reach home before anyone reads them. */
    if (hcrt__dsm_barrier() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM barrier failed at the end of a region");
    hcrt__dsm_region_end(region->id);
    hcrt__cluster_place_tls_done(total);
    HCRT_OBS(hcrt__obs_region_end(region));
    hcrt__doing_region(NULL);
    region_active = 0;
    hcrt__cluster_head_alone = hcrt__rank() == 0;
}

/* Slots of the last region's constructs start the next region at zero. */
static void reset_slots(void)
{
    uint32_t n = max_ws < NSLOTS ? max_ws : NSLOTS;

    for (uint32_t i = 1; i <= n; i++) /* sequence numbers start at 1 */
        hcrt__dsm_atomic(&slots[i % NSLOTS], 8, HCRT_DSM_AT_INT,
                         HCRT_DSM_AOP_STORE, 0, 0, __ATOMIC_RELAXED);
    max_ws = 0;
}

/* Every wait below on another rank goes through base/wait.h: the fault
 * detector wakes it when that rank fails (docs/faults.md). */
static void bcast_cmd(fork_cmd_t *cmd)
{
    MPI_Request req;
    hcrt_wait_t w = {
        .what = "the fork command", .peer = HCRT_WAIT_ANY, .busy = 1};

    if (hcrt__cluster_ft_p2p()) {
        ring_workers();
        hcrt__cluster_ft_send(cmd, sizeof(*cmd), w.what);
        cmd_idle_since = hcrt__now_ns();
        return;
    }
    MPI_Ibcast(cmd, sizeof(*cmd), MPI_BYTE, 0, fork_comm, &req);
    ring_workers();
    hcrt__wait_request(&req, &w);
    cmd_idle_since = hcrt__now_ns();
}

static void bcast_payload(void *buf, uint32_t len)
{
    MPI_Request req;
    hcrt_wait_t w = {.what = "the fork's TLS payload", .peer = 0, .busy = 1};

    if (hcrt__cluster_ft_p2p()) {
        if (hcrt__rank() == 0)
            hcrt__cluster_ft_send(buf, (int)len, w.what);
        else
            hcrt__cluster_ft_recv(buf, (int)len, w.what, 0, NULL);
        return;
    }
    MPI_Ibcast(buf, (int)len, MPI_BYTE, 0, fork_comm, &req);
    hcrt__wait_request(&req, &w);
}

/* Head: packs the TLS bytes the arguments point to and broadcasts them. */
static void bcast_tls(const fork_cmd_t *cmd, void **args)
{
    char *buf = malloc(cmd->payload);

    if (!buf)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at a fork");
    for (int i = 0; i < cmd->nargs; i++)
        if (cmd->tls_off[i])
            memcpy(buf + cmd->tls_off[i] - 1, args[i], cmd->tls_len[i]);
    bcast_payload(buf, cmd->payload);
    free(buf);
}

/* Worker: receives those bytes and points the arguments at its copy, which
 * lives until the next fork (the region reads it, e.g. copyin). */
static void recv_tls(fork_cmd_t *cmd)
{
    static char *buf;
    static uint32_t cap;

    if (cmd->payload > cap) {
        free(buf);
        buf = malloc(cmd->payload);
        cap = buf ? cmd->payload : 0;
        if (!buf)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory at a fork");
    }
    bcast_payload(buf, cmd->payload);
    for (int i = 0; i < cmd->nargs; i++)
        if (cmd->tls_off[i])
            cmd->args[i] = buf + cmd->tls_off[i] - 1;
}

void hcrt__cluster_request_tls(int total)
{
    fork_cmd_t cmd = {.op = CMD_TLS, .total = total};

    bcast_cmd(&cmd);
}

/* A call of a cluster region on the head alone, with the whole logical
 * team (cluster_place.c), counted as kept on the head. */
static void run_head_alone(hcrt_ident_t *loc, const hcrt_region_desc_t *region,
                           void **args, int total, hcrt_region_stats_t *st)
{
    __atomic_fetch_add(&st->head_only, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counters.head_only, 1, __ATOMIC_RELAXED);
    hcrt__cluster_place_run_head(loc, region, args, total);
}

/* CPU time of the calling thread (a system call, ~0.5 us). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* FT mode after a loss: the whole logical team on the head, each thread
 * with the threadprivate image the head holds; 0 when the head's own
 * threads' TLS is current (the caller's local fork). */
static int ft_run_head(hcrt_ident_t *loc, const hcrt_region_desc_t *region,
                       void **args, int total, hcrt_region_stats_t *st)
{
    hcrt__ft_count_head_alone();
    if (total < hcrt__size() || !hcrt__cluster_place_tls_at_head())
        return 0;
    run_head_alone(loc, region, args, total, st);
    return 1;
}

static void count_head_only(hcrt_region_stats_t *st)
{
    __atomic_fetch_add(&st->head_only, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&counters.head_only, 1, __ATOMIC_RELAXED);
}

int hcrt__cluster_fork(hcrt_ident_t *loc, const hcrt_region_desc_t *region,
                       void **args, hcrt_region_stats_t *st)
{
    int32_t nt = pending_nt;

    pending_nt = 0;
    if (!main_thread || omp_get_level() != 0)
        goto local;
    uint64_t t0 = hcrt__now_ns();
    hcrt__cluster_place_cycle(t0); /* the last call's cycle ends here */
    hcrt__cluster_place_tls_drain();
    if ((region->kind != HCRT_REGION_CLUSTER &&
         region->kind != HCRT_REGION_TASKS &&
         region->kind != HCRT_REGION_LOCAL_IO) ||
        __atomic_load_n(&teams_active, __ATOMIC_RELAXED) > 0 ||
        omp_get_max_active_levels() < 1) /* an inactive region */
        goto local;
    int total = nt > 0 ? nt : hcrt__cluster_max_threads();
    if (total >
        omp_get_thread_limit()) /* the cluster is one contention group */
        total = omp_get_thread_limit();
    fork_cmd_t cmd = {.op = CMD_FORK,
                      .nargs = region->nargs,
                      .total = total,
                      .region_id = region->id,
                      .loc = loc};
    int ft_head = hcrt__cluster_ft_head_only(); /* FT mode, after a loss */
    if (ft_head && ft_run_head(loc, region, args, total, st))
        return 1;
    if (total < hcrt__size() || region->nargs > CMD_MAX_ARGS || ft_head ||
        region->nargs < 0 || !args_shareable(region, args, &cmd)) {
        count_head_only(st);
        nt = total; /* the team the program asked for, on the head */
        goto local;
    }
    if (region->kind == HCRT_REGION_LOCAL_IO) {
        /* its streams are the head's: the whole logical team runs there */
        counters.local_io++;
        run_head_alone(loc, region, args, total, st);
        return 1;
    }
    if (region->kind == HCRT_REGION_TASKS) {
        cmd.tasks = hcrt__ts_region_decide(region);
        if (!cmd.tasks) {
            run_head_alone(loc, region, args, total, st);
            hcrt__ts_region_done(region, 0, hcrt__now_ns() - t0);
            return 1;
        }
    } else if (hcrt__cluster_place_choose(region, total, t0) ==
               HCRT_PLACE_HEAD) {
        counters.placed_head++;
        run_head_alone(loc, region, args, total, st);
        return 1;
    }
    if (hcrt__ft_fork_gate()) { /* FT mode: lost while the fork waited */
        if (ft_run_head(loc, region, args, total, st))
            return 1;
        count_head_only(st);
        nt = total;
        goto local;
    }
    cmd.tls_push = hcrt__cluster_place_tls_push(total);
    memcpy(cmd.args, args, sizeof(void *) * (size_t)region->nargs);
    hcrt__cluster_icv_capture(&cmd.icv);
    hcrt_omp_sched_t kind;
    omp_get_schedule(&kind, &cmd.sched_chunk);
    cmd.sched_kind = kind;
    hcrt__loops_take_region_hint(&cmd.hint_kind, &cmd.hint_pct);
    hcrt__loops_set_region_hint(cmd.hint_kind, cmd.hint_pct);
    reset_slots();
    if (hcrt__dsm_release() != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "DSM release failed at a fork");
    hcrt__cluster_ft_fork(region);
    bcast_cmd(&cmd);
    if (cmd.payload)
        bcast_tls(&cmd, args);
    if (cmd.tls_push)
        hcrt__cluster_place_tls_send(total);
    uint64_t t1 = hcrt__now_ns();
    __atomic_fetch_add(&st->cluster, 1, __ATOMIC_RELAXED);
    /* placement judges a region's first call on all nodes (two system
     * calls for the CPU time: not on every fork) */
    int first = hcrt__cluster_place_first_call();
    uint64_t w0 = first ? hcrt__wait_thread_ns() : 0;
    uint64_t c0 = first ? thread_cpu_ns() : 0;
    run_region(loc, region, args, total, &cmd.icv, cmd.tasks);
    hcrt__cluster_ft_joined();
    cmd_idle_since = hcrt__now_ns(); /* the workers' spin starts about now */
    if (first)
        hcrt__cluster_place_first_done(cmd_idle_since - t0,
                                       hcrt__wait_thread_ns() - w0,
                                       thread_cpu_ns() - c0);
    counters.forks++;
    counters.fork_ns += t1 - t0;
    counters.join_ns += cmd_idle_since - t1;
    if (cmd.tasks)
        hcrt__ts_region_done(region, 1, hcrt__now_ns() - t0);
    return 1;
local:
    if (nt > 0)
        __kmpc_push_num_threads(loc, __kmpc_global_thread_num(loc), nt);
    if (hcrt__cluster_inside()) {
        hcrt__cluster_fork_nested(loc, region, args);
        return 1;
    }
    if (main_thread && omp_get_level() == 0) {
        hcrt__cluster_fork_local(loc, region, args);
        return 1;
    }
    return 0;
}

/* Waits for the next command without burning a core: MPI_Test with
 * sched_yield for a short while (a fork right after a join is quick), then
 * blocks on the fork bell, which the head rings with a later command
 * (ring_workers); without bells, naps that grow to 0.5 ms. Naps at once on
 * a contended core (bell.h). */
static void wait_cmd(fork_cmd_t *cmd)
{
    MPI_Request req;
    hcrt_wait_t w = {.what = "the next fork command",
                     .peer = 0,
                     .spin_ns = WORKER_SPIN_NS,
                     .bell = &fork_bell};

    if (hcrt__cluster_ft_p2p()) {
        hcrt__cluster_ft_recv(cmd, sizeof(*cmd), w.what, w.spin_ns, w.bell);
        return;
    }
    MPI_Ibcast(cmd, sizeof(*cmd), MPI_BYTE, 0, fork_comm, &req);
    hcrt__wait_request(&req, &w);
}

int hcrt__cluster_worker_loop(void)
{
    fork_cmd_t cmd;

    for (;;) {
        wait_cmd(&cmd);
        if (cmd.op == CMD_EXIT) {
            hcrt__cluster_ft_adopt(cmd.lost);
            worker_done = 1;
            return cmd.status;
        }
        if (cmd.op == CMD_TLS) {
            hcrt__cluster_place_tls_serve(cmd.total);
            continue;
        }
        if (cmd.payload)
            recv_tls(&cmd);
        if (cmd.tls_push)
            hcrt__cluster_place_tls_recv(cmd.total);
        hcrt__cluster_place_tls_prepare(cmd.total);
        const hcrt_region_desc_t *region =
            hcrt__registry_region_by_id(cmd.region_id);
        if (!region || region->nargs != cmd.nargs)
            hcrt_fatal(HCRT_MOD_CORE,
                       "the head forked region %016" PRIx64
                       " which this rank does not know: every rank must run "
                       "the same binary",
                       cmd.region_id);
        hcrt_region_stats_t *st = hcrt__registry_region(region);
        __atomic_fetch_add(&st->cluster, 1, __ATOMIC_RELAXED);
        if (hcrt__dsm_acquire() != HCRT_OK)
            hcrt_fatal(HCRT_MOD_CORE, "DSM acquire failed at a fork");
        omp_set_schedule(cmd.sched_kind, cmd.sched_chunk);
        hcrt__loops_set_region_hint(cmd.hint_kind, cmd.hint_pct);
        run_region(cmd.loc, region, cmd.args, cmd.total, &cmd.icv, cmd.tasks);
        counters.forks++;
    }
}

/* exit() where the normal exit protocol cannot run: on a worker (only
 * region code runs there), or on the head inside a cluster region (the
 * workers are in the region, not waiting for a command). The job ends at
 * once with that status: flushed output, then MPI_Abort. */
void hcrt__cluster_exit_check(int status)
{
    int rank = hcrt__rank();

    if (rank == 0 ? !region_active : worker_done)
        return;
    if (rank != 0)
        hcrt_error(HCRT_MOD_CORE,
                   "rank %d on host %s called exit(%d) inside a parallel "
                   "region; ending the whole job with status %d",
                   rank, hcrt__hostname(), status, status);
    fflush(NULL);
    MPI_Abort(hcrt__comm_world(), status);
    _exit(status);
}

void hcrt__cluster_head_exit(int status)
{
    fork_cmd_t cmd = {.op = CMD_EXIT, .status = status};
    if (hcrt__cluster_ft_p2p())
        cmd.lost = hcrt__cluster_ft_lost_mask();

    hcrt__cluster_place_tls_drain();
    bcast_cmd(&cmd);
}

static int print_cluster(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out,
            "cluster regions %" PRIu64 " on %d nodes (%d threads), kept on "
            "the head %" PRIu64 " (%" PRIu64 " placed there, %" PRIu64
            " for streams only the head has); "
            "fork %.1f us, run+join %.1f us on average\n",
            counters.forks, hcrt__size(), default_total, counters.head_only,
            counters.placed_head, counters.local_io,
            counters.forks
                ? (double)counters.fork_ns * 1e-3 / (double)counters.forks
                : 0.0,
            counters.forks
                ? (double)counters.join_ns * 1e-3 / (double)counters.forks
                : 0.0);
    uint64_t tree, locked;
    hcrt__cluster_reduce_counts(&tree, &locked);
    fprintf(out,
            "cluster reductions %" PRIu64 " by a cross-node tree, %" PRIu64
            " under a cluster lock (head's counts)\n",
            tree, locked);
    for (uint32_t i = 0; i < hcrt__registry_num_modules(); i++) {
        const hcrt_module_desc_t *m = hcrt__registry_module(i);
        for (uint32_t r = 0; r < m->nregions; r++) {
            hcrt_region_stats_t *s = hcrt__registry_region(&m->regions[r]);
            if (s->cluster || s->head_only)
                fprintf(out,
                        "  %016" PRIx64 " %-24.24s on all nodes %" PRIu64
                        ", on the head only %" PRIu64 "\n",
                        s->desc->id, s->desc->name ? s->desc->name : "?",
                        s->cluster, s->head_only);
        }
    }
    return counters.forks || counters.head_only || tree || locked;
}
