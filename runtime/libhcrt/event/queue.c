/*
 * queue.c - the EXEC and DATA queues and their handler threads.
 *
 * A handler pops an event, advances it one step (nonblocking MPI tests,
 * or a callback) and, if it is still waiting for MPI, puts it back at the
 * tail. When a whole pass over the queue made no progress, the thread
 * sleeps with an exponential backoff (woken early by a new event), so
 * thousands of waiting events cost a few polls per millisecond, not a
 * thread each and not a busy core.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <time.h>

#include "libhcrt/event/event_int.h"

void hcrt__ev_queue_init(ev_queue_t *q, const char *name)
{
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->cond, NULL);
    q->head = q->tail = NULL;
    q->len = 0;
    q->stop = 0;
    q->name = name;
    q->waiters = q->nappers = 0;
    q->nap_until = 0;
}

void hcrt__ev_queue_destroy(ev_queue_t *q)
{
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->cond);
}

void hcrt__ev_push(hcrt__event_t *ev, int queue)
{
    ev_queue_t *q = &hcrt__ev.q[queue];

    if (ev->origin_side) /* a waiter may complete it while it is queued */
        atomic_fetch_add(&ev->refs, 1);
    ev->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->tail)
        q->tail->next = ev;
    else
        q->head = ev;
    q->tail = ev;
    q->len++;
    /* No wake-up when the only sleeping handler naps until before the
     * event can have news: on a busy core a wake-up preempts the pusher. */
    int wake = q->waiters > 0 || q->nappers != 1 || !ev->origin_side ||
               ev->quiet_until < q->nap_until;
    pthread_mutex_unlock(&q->lock);
    if (!wake)
        return;
    /* After the unlock: a handler woken while the lock is still held
     * blocks on it at once and needs a second wake-up, and on a busy core
     * each wake-up preempts the pusher (measured: two switches per event
     * on the head, the sending thread off the core until the reply). */
    pthread_cond_signal(&q->cond);
}

/* Next sleep after a poll: none after progress and for HCRT_EVENT_SPIN_US
 * after it (traffic comes in bursts, and on a busy machine every sleep
 * risks losing the core for a whole time slice); then a sched_yield
 * (sleep_us 1: a real 1 us sleep costs 50+ us on a loaded VM, and once
 * both ends of a ping-pong fall into such sleeps they never leave them)
 * for EV_BUSY_POLLS empty polls; then doubling up to the cap, so an idle
 * rank costs almost no CPU. */
void hcrt__ev_backoff(ev_backoff_t *b, int progress, int cap)
{
    double now = MPI_Wtime();

    /* No spin window while this rank's threads compute outside events (a
     * spread TASKS region, hcrt__event_compute_busy): spinning took their
     * core for the window after every request (2000 tasks at 2 ranks
     * bound one core each: 1.12 s against 0.75 s without). */
    if (progress || (now - b->last < hcrt__ev.opts.spin_us * 1e-6 &&
                     !atomic_load(&hcrt__ev.compute_busy))) {
        if (progress)
            b->last = now;
        b->sleep_us = 0;
        b->empty = 0;
        return;
    }
    /* After a long quiet spell the cap grows to 1% of its length (at most
     * 8x): each wake-up costs ~15 us of a core on this kind of VM, taken
     * from the computation that made the rank quiet. */
    double quiet_us = (now - b->last) * 1e6;
    if (quiet_us > 100.0 * cap)
        cap = quiet_us > 800.0 * cap ? 8 * cap : (int)(quiet_us / 100);
    if (++b->empty <= EV_BUSY_POLLS)
        b->sleep_us = 1;
    else if (b->sleep_us < cap)
        b->sleep_us *= 2;
    if (b->sleep_us > cap)
        b->sleep_us = cap;
}

static void timed_wait(ev_queue_t *q, int us)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)us * 1000;
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_cond_timedwait(&q->cond, &q->lock, &ts);
}

/* Pops the next event, first sleeping sleep_us if the last pass was idle
 * (a push wakes it early); NULL when told to stop. */
static hcrt__event_t *pop(ev_queue_t *q, int idle, int sleep_us)
{
    hcrt__event_t *ev;

    if (idle && sleep_us == 1)
        sched_yield();
    pthread_mutex_lock(&q->lock);
    if (idle && sleep_us > 1 && !q->stop) {
        q->nappers++;
        q->nap_until = MPI_Wtime() + sleep_us * 1e-6;
        timed_wait(q, sleep_us);
        q->nappers--;
    }
    while (!q->head && !q->stop) {
        q->waiters++;
        pthread_cond_wait(&q->cond, &q->lock);
        q->waiters--;
    }
    if (q->stop) {
        pthread_mutex_unlock(&q->lock);
        return NULL;
    }
    ev = q->head;
    q->head = ev->next;
    if (!q->head)
        q->tail = NULL;
    q->len--;
    pthread_mutex_unlock(&q->lock);
    return ev;
}

void *hcrt__ev_handler_main(void *arg)
{
    ev_queue_t *q = arg;
    int streak = 0, pass_progress = 0, idle = 0;
    ev_backoff_t bo = {0, 0, MPI_Wtime()};
    hcrt__event_t *ev;

    /* A pass is as many pops as the queue holds; after a pass without
     * progress, the next pop sleeps (backoff), or, when every event of the
     * pass expects no reply for a while yet (quiet_until), until the
     * earliest of them may come (at most 1 s at a time). */
    double quiet = HUGE_VAL; /* earliest quiet_until of the pass; 0: due */
    while ((ev = pop(q, idle, bo.sleep_us)) != NULL) {
        double qu = ev->origin_side ? ev->quiet_until : 0;
        if (qu < quiet)
            quiet = qu;
        pass_progress |=
            ev->origin_side ? hcrt__ev_origin_step(ev) : hcrt__ev_dest_step(ev);
        pthread_mutex_lock(&q->lock);
        int len = q->len;
        pthread_mutex_unlock(&q->lock);
        idle = 0;
        if (++streak > len) {
            hcrt__ev_backoff(&bo, pass_progress, hcrt__ev.opts.poll_max_us);
            idle = !pass_progress;
            double wait_us = idle ? (quiet - MPI_Wtime()) * 1e6 : 0;
            if (wait_us > bo.sleep_us && quiet < HUGE_VAL)
                bo.sleep_us = wait_us > 1e6 ? 1000000 : (int)wait_us;
            streak = pass_progress = 0;
            quiet = HUGE_VAL;
        }
    }
    return NULL;
}
