! Fortran threadprivate variables of a module compiled in another file,
! used from regions that run on every node (NPB BT, SP and LU: their
! exact_solution `use`s a module with threadprivate work arrays). Flang
! asks __kmpc_threadprivate_cached for a thread's copy, whose table libomp
! keeps in a global of the program: a DSM word in a cluster job, where a
! worker found the head's table and crashed. Each thread's copy starts
! from the variable's initial value (the master's is the variable itself,
! which main sets first), keeps its values from one region to the next,
! and the counts add up whatever the team.
! REQUIRES: flang
! RUN: rm -rf %t && mkdir -p %t && cd %t
! RUN: %flang -fopenmp -O1 -c %S/Inputs/tp_counts.f90 -o ref_mod.o
! RUN: %flang -fopenmp -O1 %s ref_mod.o -o ref
! RUN: env OMP_NUM_THREADS=3 ./ref | FileCheck %s
! RUN: %hcc -O1 -c %S/Inputs/tp_counts.f90 -o mod.o
! RUN: %hcc -O1 %s mod.o -o hcc
! RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 ./hcc | FileCheck %s
! RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 ./hcc | FileCheck %s
! RUN: timeout -k 5 120 %hcrun -n 2 --threads 2 ./hcc | FileCheck %s
! CHECK: hits 1000 seen 1000 starts ok persisted ok
program threadprivate_other_file
  use tp_counts
  use omp_lib
  implicit none
  integer, parameter :: n = 1000
  integer :: i, t, total, totseen, bad
  integer :: start(0:63), after(0:63), sstart(0:63), safter(0:63)

  hits = 5 ! the master's copy is the variable itself
  start = -1
  sstart = -1
  !$omp parallel private(t)
  t = omp_get_thread_num()
  start(t) = my_hits()
  sstart(t) = my_seen()
  !$omp end parallel
  !$omp parallel do schedule(static)
  do i = 1, n
    call bump(i)
  end do
  !$omp end parallel do
  after = -1
  safter = -1
  !$omp parallel private(t)
  t = omp_get_thread_num()
  after(t) = my_hits()
  safter(t) = my_seen()
  !$omp end parallel
  total = 0
  totseen = 0
  bad = 0
  do t = 0, omp_get_max_threads() - 1
    if (t == 0 .and. start(t) /= 5) bad = bad + 1
    if (t > 0 .and. start(t) /= 100) bad = bad + 1
    if (sstart(t) /= 10) bad = bad + 1
    total = total + after(t) - start(t)
    totseen = totseen + safter(t) - sstart(t)
  end do
  write (*, '(a, i0, a, i0, a, a, a)') 'hits ', total, ' seen ', totseen, &
    ' starts ', merge('ok   ', 'WRONG', bad == 0), &
    ' persisted ' // merge('ok   ', 'WRONG', after(0) == 5 + count_own(0))
contains
  integer function count_own(t)
    integer, intent(in) :: t
    integer :: nt
    nt = omp_get_max_threads()
    ! schedule(static): thread 0 runs the first ceiling(n / nt) iterations
    count_own = (n + nt - 1) / nt
    if (t /= 0) count_own = 0
  end function
end program
