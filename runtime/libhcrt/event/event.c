/*
 * event.c - start-up and shutdown of the event system, the type registry
 * and the gate thread.
 *
 * The gate thread keeps one MPI_Irecv posted for notices on the control
 * communicator and polls it with MPI_Test plus a short backoff sleep: a
 * blocking MPI_Wait would spin a core inside Open MPI on an idle rank.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/wait.h"
#include "libhcrt/event/event_int.h"

ev_global_t hcrt__ev;
static atomic_int gate_stop;

void hcrt__event_opts_default(hcrt__event_opts_t *o)
{
    o->exec_threads = 1;
    o->data_threads = 1;
    o->comms = 4;
    o->frag_size = 1 << 20;
    o->window = 4;
    o->timeout = 60.0;
    o->drain_timeout = 10.0;
    o->idle_max_us = 1000;
    o->poll_max_us = 50;
    o->spin_us = 1000;
    o->bell = HCRT_BELL_AUTO;
}

void hcrt__event_opts_from_settings(hcrt__event_opts_t *o)
{
    o->exec_threads = (int)hcrt__config_int("HCRT_EVENT_EXEC_THREADS");
    o->data_threads = (int)hcrt__config_int("HCRT_EVENT_DATA_THREADS");
    o->comms = (int)hcrt__config_int("HCRT_EVENT_COMMS");
    o->frag_size = (size_t)hcrt__config_int("HCRT_EVENT_FRAG_SIZE");
    o->window = (int)hcrt__config_int("HCRT_EVENT_WINDOW");
    o->timeout = hcrt__config_double("HCRT_EVENT_TIMEOUT");
    o->drain_timeout = hcrt__config_double("HCRT_EVENT_DRAIN_TIMEOUT");
    o->idle_max_us = (int)hcrt__config_int("HCRT_EVENT_IDLE_MAX_US");
    o->poll_max_us = (int)hcrt__config_int("HCRT_EVENT_POLL_MAX_US");
    o->spin_us = (int)hcrt__config_int("HCRT_EVENT_SPIN_US");
    o->bell = hcrt__config_enum("HCRT_EVENT_BELL"); /* auto|0|1, in order */
}

hcrt_status_t hcrt__event_register(int id, const hcrt__event_type_ops_t *ops)
{
    if (id <= 0 || id >= HCRT_EVENT_MAX_TYPES || !ops || !ops->run ||
        (ops->queue != HCRT_EVENT_QUEUE_EXEC &&
         ops->queue != HCRT_EVENT_QUEUE_DATA)) {
        hcrt_error(HCRT_MOD_EVENT,
                   "cannot register event type %d: the id "
                   "must be 1..%d and ops need a run callback and a queue "
                   "(EXEC or DATA)",
                   id, HCRT_EVENT_MAX_TYPES - 1);
        return HCRT_ERR_INVALID;
    }
    hcrt__ev.types[id] = *ops;
    __atomic_store_n(&hcrt__ev.registered[id], 1, __ATOMIC_RELEASE);
    return HCRT_OK;
}

int hcrt__event_is_up(void)
{
    return hcrt__ev.ready;
}

void hcrt__event_set_peer_hook(hcrt__event_peer_cb cb, void *arg)
{
    hcrt__ev.hook_arg = arg;
    hcrt__ev.hook = cb;
}

void hcrt__event_get_stats(hcrt__event_stats_t *out)
{
    out->sent = atomic_load(&hcrt__ev.sent);
    out->served = atomic_load(&hcrt__ev.served);
    out->timeouts = atomic_load(&hcrt__ev.timeouts);
    out->bytes_sent = atomic_load(&hcrt__ev.bytes_sent);
    out->bytes_recv = atomic_load(&hcrt__ev.bytes_recv);
    out->bell_wakeups = hcrt__bell_wakeups(&hcrt__ev.bell);
    pthread_mutex_lock(&hcrt__ev.lock);
    out->inflight = (uint64_t)hcrt__ev.nlive_origin;
    pthread_mutex_unlock(&hcrt__ev.lock);
}

static void sleep_us(int us)
{
    struct timespec ts = {0, (long)us * 1000};
    if (us > 1)
        nanosleep(&ts, NULL);
    else
        sched_yield(); /* see hcrt__ev_backoff */
}

static void *gate_main(void *unused)
{
    ev_notice_t *n = malloc(sizeof(*n));
    MPI_Request req;
    MPI_Status status;
    int flag;
    ev_backoff_t idle = {0, 0, MPI_Wtime()};

    (void)unused;
    hcrt__helper_thread_start("hcrt-gate", 1);
    if (!n)
        hcrt_fatal(HCRT_MOD_EVENT, "out of memory for the gate thread");
    MPI_Irecv(n, sizeof(*n), MPI_BYTE, MPI_ANY_SOURCE, EV_CTRL_TAG,
              hcrt__ev.ctrl, &req);
    while (!atomic_load(&gate_stop)) {
        MPI_Test(&req, &flag, &status);
        if (!flag) {
            hcrt__ev_backoff(&idle, 0, hcrt__ev.opts.idle_max_us);
            int us = idle.sleep_us;
            /* A kernel is queued or running here: a spinning gate would
             * take a core from it whenever the node's cores are all busy
             * (measured: half of one on a 2-core node, and a woken EXEC
             * thread waiting ~0.7 ms for the spinning gate's time slice),
             * and what arrives meanwhile mostly waits for it anyway; poll
             * between short naps. */
            if (us < hcrt__ev.opts.poll_max_us &&
                (atomic_load(&hcrt__ev.exec_busy) > 0 ||
                 atomic_load(&hcrt__ev.compute_busy) > 0))
                us = hcrt__ev.opts.poll_max_us;
            /* A spread TASKS region computes on every rank, and origins
             * then ring for every notice (origin.c): wait on the bell
             * instead of waking after 50, 100, 200 ... us. Those naps
             * after each steal request woke the gate every ~250 us in a
             * tree of tiny tasks at 2 ranks, each time taking the core
             * from the rank's computing thread. */
            if (us > 1 && atomic_load(&hcrt__ev.compute_busy) > 0 &&
                !atomic_load(&hcrt__ev.exec_busy) &&
                hcrt__bell_inbound_ok(&hcrt__ev.bell))
                us = hcrt__ev.opts.idle_max_us;
            /* Origins ring this rank's bell after sending it a notice:
             * block until then instead of napping (an idle gate naps up
             * to idle_max_us, and 8x that after a long quiet spell, and
             * that was the latency of the next kernel sent here). After
             * a bell, poll a few times at once and then with short naps
             * (the notice may land just after its bell), but do not spin
             * a whole spin window: a bell left over from a burst the gate
             * already served would take the core from the kernels. */
            if (us > 1 && hcrt__bell_inbound_ok(&hcrt__ev.bell)) {
                if (hcrt__bell_wait(&hcrt__ev.bell, us * 1000L))
                    idle.empty = 0, idle.sleep_us = 0;
            } else if (us == 1) {
                /* A yield that took over 1 ms gave the core to another
                 * thread for its time slice: the core is contended, and
                 * 256 such yields kept the gate from its bell for up to
                 * ~0.7 s (event_bell: a peer never woken by its bells in
                 * 20 calls 30 ms apart). After 10 ms without a notice,
                 * wait on the bell from then on, as the DSM service
                 * thread does (service.c). Not sooner: in a stream of
                 * short tasks a gate that blocked after each lost yield
                 * needed a bell per task (METG(50%) 25-27 -> 29-32 us). */
                double t = MPI_Wtime();
                sched_yield();
                double t1 = MPI_Wtime();
                if (t1 - t > 1e-3 && t1 - idle.last > 10e-3 &&
                    hcrt__bell_inbound_ok(&hcrt__ev.bell))
                    idle.empty = EV_BUSY_POLLS;
            } else if (us)
                sleep_us(us);
            continue;
        }
        int bytes;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        atomic_fetch_add(&hcrt__ev.bytes_recv, (uint64_t)bytes);
        if (bytes < (int)offsetof(ev_notice_t, hdr) || n->magic != EV_MAGIC ||
            n->hdr_len > HCRT_EVENT_HDR_MAX)
            hcrt_fatal(HCRT_MOD_EVENT,
                       "corrupt event notice (%d bytes) from "
                       "rank %d",
                       bytes, status.MPI_SOURCE);
        hcrt__ev_dest_start(n, status.MPI_SOURCE);
        hcrt__ev_backoff(&idle, 1, hcrt__ev.opts.idle_max_us);
        MPI_Irecv(n, sizeof(*n), MPI_BYTE, MPI_ANY_SOURCE, EV_CTRL_TAG,
                  hcrt__ev.ctrl, &req);
    }
    hcrt__ev_req_abort(&req);
    free(n);
    return NULL;
}

static void *handler_main(void *q)
{
    /* the EXEC handler runs kernels: the default slice, as computation */
    int exec = q == &hcrt__ev.q[0];
    hcrt__helper_thread_start(exec ? "hcrt-exec" : "hcrt-data", !exec);
    return hcrt__ev_handler_main(q);
}

static hcrt_status_t check_opts(const hcrt__event_opts_t *o, MPI_Comm comm)
{
    if (o->exec_threads < 1 || o->data_threads < 1 || o->comms < 1 ||
        o->frag_size < 1 || o->frag_size > (size_t)1 << 30 || o->window < 1 ||
        o->window > EV_WINDOW_MAX || o->idle_max_us < 1 || o->poll_max_us < 1 ||
        o->spin_us < 0) {
        hcrt_error(HCRT_MOD_EVENT,
                   "bad event settings: threads, comms and "
                   "window must be >= 1 (window <= %d), the fragment size "
                   "1 B..1 GiB, the sleeps >= 1 us",
                   EV_WINDOW_MAX);
        return HCRT_ERR_INVALID;
    }
    /* Both ends of an event must cut chunks and pick communicators alike. */
    long long v[4] = {o->comms, (long long)o->frag_size, -o->comms,
                      -(long long)o->frag_size},
              m[4];
    MPI_Allreduce(v, m, 4, MPI_LONG_LONG, MPI_MAX, comm);
    if (m[0] != -m[2] || m[1] != -m[3]) {
        hcrt_error(HCRT_MOD_EVENT,
                   "HCRT_EVENT_COMMS and HCRT_EVENT_FRAG_SIZE "
                   "differ between ranks (comms %lld..%lld, fragment "
                   "%lld..%lld): set them the same everywhere",
                   -m[2], m[0], -m[3], m[1]);
        return HCRT_ERR_INVALID;
    }
    return HCRT_OK;
}

static hcrt_status_t setup_comms(MPI_Comm comm)
{
    void *ub;
    int flag;

    MPI_Comm_rank(comm, &hcrt__ev.rank);
    MPI_Comm_size(comm, &hcrt__ev.size);
    hcrt__ev.pool = calloc((size_t)hcrt__ev.opts.comms, sizeof(MPI_Comm));
    if (!hcrt__ev.pool)
        return HCRT_ERR_NOMEM;
    if (MPI_Comm_dup(comm, &hcrt__ev.ctrl) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    for (int i = 0; i < hcrt__ev.opts.comms; i++)
        if (MPI_Comm_dup(comm, &hcrt__ev.pool[i]) != MPI_SUCCESS)
            return HCRT_ERR_MPI;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    long long tag_ub = flag ? *(int *)ub : 32767;
    long long avail = (tag_ub - EV_TAG_BASE + 1) / 2; /* half for replies */
    hcrt__ev.ntags = (int)(avail < EV_MAX_TAGS ? avail : EV_MAX_TAGS);
    hcrt__ev.tag_used = calloc((size_t)hcrt__ev.ntags, 1);
    hcrt__ev.tag_next = 0;
    return hcrt__ev.tag_used ? HCRT_OK : HCRT_ERR_NOMEM;
}

static hcrt_status_t start_threads(void)
{
    const hcrt__event_opts_t *o = &hcrt__ev.opts;

    hcrt__ev.nhandlers = o->exec_threads + o->data_threads;
    hcrt__ev.handlers = calloc((size_t)hcrt__ev.nhandlers, sizeof(pthread_t));
    if (!hcrt__ev.handlers)
        return HCRT_ERR_NOMEM;
    for (int i = 0; i < hcrt__ev.nhandlers; i++) {
        ev_queue_t *q = &hcrt__ev.q[i < o->exec_threads ? 0 : 1];
        if (pthread_create(&hcrt__ev.handlers[i], NULL, handler_main, q))
            hcrt_fatal(HCRT_MOD_EVENT, "cannot start event handler thread");
    }
    atomic_store(&gate_stop, 0);
    if (pthread_create(&hcrt__ev.gate, NULL, gate_main, NULL))
        hcrt_fatal(HCRT_MOD_EVENT, "cannot start the event gate thread");
    return HCRT_OK;
}

hcrt_status_t hcrt__event_init(MPI_Comm comm, const hcrt__event_opts_t *opts)
{
    int provided = 0;
    hcrt_status_t st;

    if (hcrt__ev.ready) {
        hcrt_error(HCRT_MOD_EVENT, "hcrt__event_init called twice");
        return HCRT_ERR_INVALID;
    }
    MPI_Query_thread(&provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        hcrt_error(HCRT_MOD_EVENT,
                   "the event system needs MPI initialised "
                   "with MPI_THREAD_MULTIPLE (got level %d)",
                   provided);
        return HCRT_ERR_UNSUPPORTED;
    }
    if (opts)
        hcrt__ev.opts = *opts;
    else
        hcrt__event_opts_from_settings(&hcrt__ev.opts);
    if ((st = check_opts(&hcrt__ev.opts, comm)) != HCRT_OK)
        return st;
    pthread_mutex_init(&hcrt__ev.lock, NULL);
    pthread_cond_init(&hcrt__ev.done_cv, NULL);
    hcrt__ev.live.live_next = hcrt__ev.live.live_prev = &hcrt__ev.live;
    hcrt__ev.nlive_origin = hcrt__ev.nlive_dest = 0;
    hcrt__ev.stopping = 0;
    hcrt__ev_queue_init(&hcrt__ev.q[0], "exec");
    hcrt__ev_queue_init(&hcrt__ev.q[1], "data");
    if ((st = setup_comms(comm)) != HCRT_OK) {
        hcrt_error(HCRT_MOD_EVENT,
                   "cannot set up the event communicators: "
                   "%s",
                   hcrt_strerror(st));
        return st;
    }
    /* collective, like setup_comms; fails only for HCRT_EVENT_BELL=1 */
    if ((st = hcrt__bell_init(&hcrt__ev.bell, hcrt__ev.ctrl, hcrt__ev.opts.bell,
                              HCRT_MOD_EVENT, "event", "HCRT_EVENT_BELL")) !=
        HCRT_OK)
        return st;
    hcrt__ev_forward_register();
    hcrt__ev.ready = 1;
    start_threads();
    hcrt_info(HCRT_MOD_EVENT,
              "event system up: %d exec + %d data threads, "
              "%d communicators, %zu-byte fragments, %d tags",
              hcrt__ev.opts.exec_threads, hcrt__ev.opts.data_threads,
              hcrt__ev.opts.comms, hcrt__ev.opts.frag_size, hcrt__ev.ntags);
    return HCRT_OK;
}

/* Waits on done_cv until `what` holds or MPI_Wtime() passes `deadline`. */
static int wait_until(int (*what)(void), double deadline)
{
    int ok;

    pthread_mutex_lock(&hcrt__ev.lock);
    while (!(ok = what()) && MPI_Wtime() < deadline) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * 1000000L;
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&hcrt__ev.done_cv, &hcrt__ev.lock, &ts);
    }
    pthread_mutex_unlock(&hcrt__ev.lock);
    return ok;
}

static int no_origin(void)
{
    return hcrt__ev.nlive_origin == 0;
}

static int none_live(void)
{
    return hcrt__ev.nlive_origin == 0 && hcrt__ev.nlive_dest == 0;
}

/* Every rank has finished originating once all reach this barrier; a dead
 * or stuck rank only costs the drain deadline. */
static int shutdown_barrier(double deadline)
{
    MPI_Request req;
    int flag = 0;
    /* FT mode after a loss: the survivors (base/wait.h) */
    MPI_Comm c = hcrt__wait_live_comm(hcrt__ev.ctrl);

    MPI_Ibarrier(c, &req);
    while (!flag) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (!flag && MPI_Wtime() > deadline)
            break;
        if (!flag)
            sleep_us(200);
    }
    if (!flag)
        hcrt_error(HCRT_MOD_EVENT,
                   "some rank did not reach the event system's "
                   "shutdown within twice HCRT_EVENT_DRAIN_TIMEOUT=%g s (dead, "
                   "or still busy); shutting down without it",
                   hcrt__ev.opts.drain_timeout);
    if (flag && c != hcrt__ev.ctrl)
        MPI_Comm_free(&c);
    return flag; /* an unfinished barrier request is leaked on purpose */
}

static void stop_threads(void)
{
    atomic_store(&gate_stop, 1);
    hcrt__bell_local(&hcrt__ev.bell); /* a gate blocked on its bells */
    pthread_join(hcrt__ev.gate, NULL);
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&hcrt__ev.q[i].lock);
        hcrt__ev.q[i].stop = 1;
        pthread_cond_broadcast(&hcrt__ev.q[i].cond);
        pthread_mutex_unlock(&hcrt__ev.q[i].lock);
    }
    for (int i = 0; i < hcrt__ev.nhandlers; i++)
        pthread_join(hcrt__ev.handlers[i], NULL);
    free(hcrt__ev.handlers);
    hcrt__ev.handlers = NULL;
}

/* Empties the queues (threads are stopped): origin events drop the
 * queue's reference; every live event is then ended by report_leftovers. */
static void drain_queues(void)
{
    for (int i = 0; i < 2; i++) {
        hcrt__event_t *ev = hcrt__ev.q[i].head;
        while (ev) {
            hcrt__event_t *next = ev->next;
            if (ev->origin_side)
                hcrt__ev_unref(ev);
            ev = next;
        }
        hcrt__ev.q[i].head = hcrt__ev.q[i].tail = NULL;
        hcrt__ev.q[i].len = 0;
    }
}

/* Names every event still in flight, then ends it. */
static int report_leftovers(void)
{
    int n = 0;
    double now = MPI_Wtime();

    while (hcrt__ev.live.live_next != &hcrt__ev.live) {
        hcrt__event_t *ev = hcrt__ev.live.live_next;
        static const char *const states[] = {"waiting for the reply",
                                             "receiving the reply",
                                             "preparing",
                                             "receiving data",
                                             "queued to run",
                                             "waiting for its handler's "
                                             "deferred reply",
                                             "sending the reply",
                                             "done"};
        if (n++ < 16)
            hcrt_error(HCRT_MOD_EVENT,
                       "event type %d (%s) %s rank %d (tag "
                       "%d, %s) still in flight at shutdown after %.3f s",
                       ev->type,
                       hcrt__ev.types[ev->type].name
                           ? hcrt__ev.types[ev->type].name
                           : "?",
                       ev->origin_side ? "to" : "from", ev->peer, ev->tag,
                       states[ev->state], now - ev->start);
        hcrt__ev_abandon(ev);
    }
    if (n)
        hcrt_error(HCRT_MOD_EVENT,
                   "%d event(s) were still in flight at "
                   "shutdown: a peer did not answer, or a handler never "
                   "replied",
                   n);
    return n;
}

hcrt_status_t hcrt__event_fini(void)
{
    if (!hcrt__ev.ready)
        return HCRT_OK;
    double t0 = MPI_Wtime(), drain = hcrt__ev.opts.drain_timeout;
    int ok = wait_until(no_origin, t0 + drain);
    /* Twice the drain time: a rank that spent its whole drain time waiting
     * for its own stuck events must still find the others there. */
    int all_there = shutdown_barrier(t0 + 2 * drain);
    ok &= all_there;
    ok &= wait_until(none_live, MPI_Wtime() + (all_there ? drain : 0));
    hcrt__ev.stopping = 1;
    stop_threads();
    drain_queues();
    hcrt__bell_fini(&hcrt__ev.bell);
    ok &= report_leftovers() == 0;
    MPI_Comm_free(&hcrt__ev.ctrl);
    for (int i = 0; i < hcrt__ev.opts.comms; i++)
        MPI_Comm_free(&hcrt__ev.pool[i]);
    free(hcrt__ev.pool);
    free(hcrt__ev.tag_used);
    hcrt__ev_queue_destroy(&hcrt__ev.q[0]);
    hcrt__ev_queue_destroy(&hcrt__ev.q[1]);
    hcrt__ev.ready = 0;
    hcrt_info(HCRT_MOD_EVENT, "event system down%s",
              ok ? "" : " (with events lost, see above)");
    return ok ? HCRT_OK : HCRT_ERR_TIMEOUT;
}

void hcrt__event_compute_busy(int delta)
{
    atomic_fetch_add(&hcrt__ev.compute_busy, delta);
}
