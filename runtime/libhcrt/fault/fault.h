/*
 * fault.h - the fault detector of a job of several ranks (internal;
 * docs/faults.md, DESIGN.md section 10).
 *
 * Each rank runs one detector thread with its own UDP and TCP sockets
 * (outside MPI, which reports nothing about a dead peer). Ranks send
 * heartbeats around a ring and keep a TCP connection to the rank they
 * watch; symptoms go up a tree of detectors to an acting root, which
 * correlates them, confirms with probes and prints one report; without
 * recovery the job then ends with a non-zero status. Every runtime wait
 * on a peer (base/wait.h) is woken by it.
 */
#ifndef HCRT_FAULT_H
#define HCRT_FAULT_H

#include <mpi.h>
#include <stdatomic.h>

#include "hcrt/abi.h"

/* Registers the HCRT_FAULT_* settings (before the table is parsed). */
void hcrt__fault_settings_register(void);
/* Collective over comm, right after MPI is up, in a job of several
 * ranks: exchanges the detectors' addresses and starts the detector. */
void hcrt__fault_init(MPI_Comm comm);
/* After MPI_Finalize: every rank says it leaves; returns once all did (a
 * rank that fails meanwhile is reported as at any other time). */
void hcrt__fault_fini(void);
int hcrt__fault_on(void);
/* The runtime's start-up is over (the watcher hears it at once). */
void hcrt__fault_started(void);
/* The runtime starts its shutdown (injection point "shutdown"). */
void hcrt__fault_shutdown_begins(void);
/* The exit protocol begins (before the head tells the workers): in FT
 * mode a loss from now on ends the job. */
void hcrt__fault_exit_begins(void);
/* The head: the program finished with `status` (main returned or exit()
 * ran outside a parallel region). In FT mode a worker lost after this
 * ends the job with that status: the program's output is complete. */
void hcrt__fault_program_done(int status);
/* The head's process ends with `status` (FT mode: tells hcrun). */
void hcrt__fault_ft_done(int status);

/* ---- what this rank is doing, for the report --------------------------- */

typedef enum hcrt_doing_kind {
    HCRT_DOING_STARTUP = 0,
    HCRT_DOING_MAIN,      /* the head's sequential code */
    HCRT_DOING_IDLE,      /* a worker waiting for the next region */
    HCRT_DOING_REGION,    /* in a cluster region (where: its descriptor) */
    HCRT_DOING_LOOP,      /* a cluster loop (where: its hcrt_ident_t) */
    HCRT_DOING_BARRIER,   /* a cluster barrier (where: hcrt_ident_t) */
    HCRT_DOING_REDUCTION, /* a cross-node reduction (where: hcrt_ident_t) */
    HCRT_DOING_TARGET,    /* a target kernel (where: hcrt_kernel_desc_t) */
    HCRT_DOING_SHUTDOWN
} hcrt_doing_kind_t;

typedef struct hcrt_doing {
    _Atomic int kind;
    _Atomic(const void *) where;
    _Atomic(const hcrt_region_desc_t *) region;
} hcrt_doing_t;

extern hcrt_doing_t hcrt__doing;

/* Any thread: stores only on a change, so the threads of a node do not
 * pass the line between them at every loop. */
static inline void hcrt__doing_set(int kind, const void *where)
{
    if (atomic_load_explicit(&hcrt__doing.kind, memory_order_relaxed) != kind)
        atomic_store_explicit(&hcrt__doing.kind, kind, memory_order_relaxed);
    if (atomic_load_explicit(&hcrt__doing.where, memory_order_relaxed) != where)
        atomic_store_explicit(&hcrt__doing.where, where, memory_order_relaxed);
}

static inline void hcrt__doing_region(const hcrt_region_desc_t *r)
{
    atomic_store_explicit(&hcrt__doing.region, r, memory_order_relaxed);
    hcrt__doing_set(r ? HCRT_DOING_REGION : HCRT_DOING_IDLE, r);
}

/* "running the loop at ep.c:9 (region at ep.c:7)" into buf. */
void hcrt__doing_text(char *buf, size_t len);

#endif /* HCRT_FAULT_H */
