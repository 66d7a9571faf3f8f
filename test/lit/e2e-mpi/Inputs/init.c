/* The program's MPI_Init, in a translation unit of its own. */
#include <mpi.h>

void hybrid_init(int *argc, char ***argv, int *level_ok)
{
    *level_ok = MPI_Init(argc, argv) == MPI_SUCCESS;
}
