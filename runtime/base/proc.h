/*
 * proc.h - this process in the job (internal): its rank, the job's size
 * and the runtime's communicator (its host: node.h).
 *
 * Owned here, below every layer that asks, and set once by the start-up
 * (libhcrt's init.c) after MPI is up; before that the process is rank 0 of
 * a job of 1 with no communicator (MPI_COMM_NULL).
 */
#ifndef HCRT_PROC_H
#define HCRT_PROC_H

#include <mpi.h>

/* Records the runtime's communicator (a dup of MPI_COMM_WORLD) and this
 * process's place in it. */
void hcrt__proc_set(MPI_Comm comm, int rank, int size);

MPI_Comm hcrt__comm_world(void);
int hcrt__rank(void);
int hcrt__size(void);

#endif /* HCRT_PROC_H */
