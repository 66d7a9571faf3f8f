/*
 * proc.h - this process in the job (internal): its rank, the job's size
 * and the runtime's communicator (its host: node.h).
 *
 * Owned here, below every layer that asks, and set once by the start-up
 * (libhcrt's init.c) after MPI is up; before that the process is rank 0 of
 * a job of 1 with no communicator (MPI_COMM_NULL).
 *
 * A process started without a launcher (`./prog`) stays that way: the
 * runtime runs as a job of one rank without MPI (init.c, docs/runtime.md
 * "Start-up"). Code that would talk to other ranks asks
 * hcrt__proc_has_mpi() and takes its local path when it is 0.
 */
#ifndef HCRT_PROC_H
#define HCRT_PROC_H

#include <mpi.h>

/* Records the runtime's communicator (a dup of MPI_COMM_WORLD) and this
 * process's place in it. */
void hcrt__proc_set(MPI_Comm comm, int rank, int size);

MPI_Comm hcrt__comm_world(void);

/* 1 while the runtime has a communicator (MPI is up and the runtime may
 * call it); 0 in a job of one rank without MPI, and after shutdown. */
int hcrt__proc_has_mpi(void);
int hcrt__rank(void);
int hcrt__size(void);

#endif /* HCRT_PROC_H */
