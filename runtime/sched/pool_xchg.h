/*
 * pool_xchg.h - the transport of HetProbe's probe exchanges (internal;
 * pool_xchg.c): MPI messages on a communicator of their own. The window
 * protocol (hp_*.c) reaches it through pool_int.h's hcrt__cl_xchg_*
 * calls, without MPI types; only the start-up needs this header.
 */
#ifndef HCRT_POOL_XCHG_H
#define HCRT_POOL_XCHG_H

#include <mpi.h>

/* Start-up (cluster mode, every rank, before the first loop): the
 * communicator of the probe exchanges, owned by the caller. */
void hcrt__cl_xchg_init(MPI_Comm comm);

#endif /* HCRT_POOL_XCHG_H */
