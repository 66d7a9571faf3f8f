/*
 * proc.c - this process in the job: rank, size, communicator.
 */
#include "base/proc.h"

static MPI_Comm comm = MPI_COMM_NULL;
static int rank = 0, size = 1;

void hcrt__proc_set(MPI_Comm c, int r, int s)
{
    comm = c, rank = r, size = s;
}

MPI_Comm hcrt__comm_world(void)
{
    return comm;
}

int hcrt__proc_has_mpi(void)
{
    return comm != MPI_COMM_NULL;
}

int hcrt__rank(void)
{
    return rank;
}

int hcrt__size(void)
{
    return size;
}
