/* The program's MPI_Init_thread(MPI_THREAD_FUNNELED), in a translation
 * unit of its own: only the main thread calls MPI. */
#include <mpi.h>

void hybrid_init(int *argc, char ***argv, int *level_ok)
{
    int provided = -1;
    int rc = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    *level_ok = rc == MPI_SUCCESS && provided >= MPI_THREAD_FUNNELED;
}
