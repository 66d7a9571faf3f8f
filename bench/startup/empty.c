/* An OpenMP program with one parallel region that does next to nothing:
 * what `./prog` costs before it does any work (process start, libraries,
 * the runtime's start-up, the first team, exit). The region counts its
 * threads, so that no compiler removes it (clang's OpenMPOpt deletes a
 * region without effects). */
int main(void)
{
    int n = 0;
#pragma omp parallel reduction(+ : n)
    n += 1;
    return n < 1;
}
