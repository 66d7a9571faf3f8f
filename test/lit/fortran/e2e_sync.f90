! Fortran synchronisation through hcc: atomic update, critical, single,
! master, barrier, sections and a module variable shared by the team.
! REQUIRES: flang
! RUN: %e2e %s %t
module counters
  implicit none
  integer(8) :: shared_total = 0
end module counters

program e2e_sync
  use counters
  use omp_lib
  implicit none
  integer :: i, singles, masters, sec, fails
  integer(8) :: crit, at

  fails = 0
  crit = 0
  at = 0
  singles = 0
  masters = 0
  sec = 0

  !$omp parallel private(i)
  !$omp do
  do i = 1, 20000
    !$omp atomic
    at = at + i
    !$omp critical
    crit = crit + mod(i, 13)
    !$omp end critical
  end do
  !$omp end do
  !$omp single
  singles = singles + 1
  !$omp end single
  !$omp master
  masters = masters + 1
  !$omp end master
  !$omp barrier
  !$omp atomic
  shared_total = shared_total + 1
  !$omp sections reduction(+:sec)
  !$omp section
  sec = sec + 1
  !$omp section
  sec = sec + 10
  !$omp section
  sec = sec + 100
  !$omp end sections
  !$omp end parallel

  if (at /= 200010000_8) fails = fails + 1
  if (singles /= 1 .or. masters /= 1 .or. sec /= 111) fails = fails + 1
  if (shared_total < 1) fails = fails + 1
  print '(A,I0,A,I0,A,I0,A,I0,A,I0,A,I0)', 'atomic=', at, ' critical=', crit, &
        ' single=', singles, ' master=', masters, ' sections=', sec, ' fails=', fails
  if (fails /= 0) stop 1
end program e2e_sync
