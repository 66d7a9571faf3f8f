// A task's private array passed down to the tasks it creates as a pointer
// argument (the pattern of BOTS floorplan): each child shares the pointer
// variable, whose value points into libomp's task block on the parent's
// node, not into DSM memory. Such a child must stay on that node (the
// check of its shared variables' first words); taken by another node it
// read that node's own memory at the same address (floorplan: a segfault
// at 2 and 4 ranks, or a wrong count where the address was mapped).
// HCRT_TASKS_FACTOR=0 lets every eligible task travel. The children of
// the top level, whose board is a global, still travel.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --env HCRT_TASKS_FACTOR=0 --stats "head's tasks run by other nodes [1-9]" %s %t
#include <stdio.h>
#include <string.h>

#define SIDE 24
#define DEPTH 4
#define WAYS 5

typedef char board_t[SIDE][SIDE];

static board_t start;
static long found[WAYS];

static long spin(long x, int n)
{
    for (int i = 0; i < n; i++)
        x = (x * 1103515245 + 12345) % 1000003L;
    return x;
}

/* Places piece `level` on a copy of BOARD in each of WAYS spots; counts
 * the boards that reach DEPTH, with a checksum of their cells. */
static long place(board_t BOARD, int level, int way0)
{
    long sum = 0;
    board_t board;

    for (int w = 0; w < WAYS; w++) {
#pragma omp task private(board) firstprivate(w, level) shared(BOARD, sum)
        {
            /* board: the private copy in the task's own block */
            memcpy(board, BOARD, sizeof(board_t));
            board[(level * 7 + w) % SIDE][(w * 5 + level) % SIDE] +=
                (char)(level + w + 1);
            long s = 0;
            if (level + 1 < DEPTH) {
                s = place(board, level + 1, way0 < 0 ? w : way0);
            } else {
                for (int i = 0; i < SIDE; i++)
                    for (int j = 0; j < SIDE; j++)
                        s += board[i][j] * (i + 1) * (j + 3);
                s = spin(s, 20000) % 1000 + s;
            }
#pragma omp atomic
            sum += s;
        }
    }
#pragma omp taskwait
    if (way0 >= 0 && level == 1)
#pragma omp atomic
        found[way0] += sum;
    return sum;
}

int main(void)
{
    long total = 0;

    for (int i = 0; i < SIDE; i++)
        for (int j = 0; j < SIDE; j++)
            start[i][j] = (char)((i * 3 + j) % 5);
#pragma omp parallel
#pragma omp single
    total = place(start, 0, -1);
    printf("total %ld\n", total);
    for (int w = 0; w < WAYS; w++)
        printf("way %d: %ld\n", w, found[w]);
    return 0;
}
