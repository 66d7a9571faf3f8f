! A Fortran program built with flang -fopenmp (the reference) and with hcc:
! parallel do with reduction(+), reduction(max), reduction(min), several
! schedules, collapse(2), lastprivate, and an allocatable array captured by
! the regions. Outputs must be identical at 1, 2 and 3 threads.
! REQUIRES: flang
! RUN: %e2e --O0 %s %t
program e2e_parallel_do
  implicit none
  integer, parameter :: n = 100003
  integer(8) :: isum, isum2, want
  integer :: imax, imin, i, j, last, fails
  real(8) :: dsum, dmax
  integer, allocatable :: a(:)
  integer :: grid(60, 70)

  allocate(a(n))
  fails = 0

  !$omp parallel do schedule(static)
  do i = 1, n
    a(i) = mod(i * 7919, 10007) - 5000
  end do
  !$omp end parallel do

  isum = 0
  imax = -huge(imax)
  imin = huge(imin)
  !$omp parallel do reduction(+:isum) reduction(max:imax) reduction(min:imin) schedule(dynamic, 64)
  do i = 1, n
    isum = isum + a(i)
    imax = max(imax, a(i))
    imin = min(imin, a(i))
  end do
  !$omp end parallel do

  want = 0
  do i = 1, n
    want = want + a(i)
  end do
  if (isum /= want) fails = fails + 1

  ! integer-valued doubles: every combining order gives the same bits
  dsum = 0
  dmax = -1.0d300
  !$omp parallel do reduction(+:dsum) reduction(max:dmax) schedule(guided)
  do i = 1, n
    dsum = dsum + dble(a(i)) * 0.5d0
    dmax = max(dmax, dble(a(i)))
  end do
  !$omp end parallel do
  if (dsum /= dble(want) * 0.5d0 .or. dmax /= dble(imax)) fails = fails + 1

  isum2 = 0
  !$omp parallel do collapse(2) reduction(+:isum2)
  do j = 1, 70
    do i = 1, 60
      grid(i, j) = i * 100 + j
      isum2 = isum2 + grid(i, j)
    end do
  end do
  !$omp end parallel do
  if (isum2 /= sum(int(grid, 8))) fails = fails + 1

  last = -1
  !$omp parallel do lastprivate(last) schedule(static, 3)
  do i = 1, n
    last = i * 2
  end do
  !$omp end parallel do
  if (last /= 2 * n) fails = fails + 1

  print '(A,I0,A,I0,A,I0,A,F0.1,A,F0.1)', 'sum=', isum, ' max=', imax, &
        ' min=', imin, ' dsum=', dsum, ' dmax=', dmax
  print '(A,I0,A,I0,A,I0)', 'grid=', isum2, ' last=', last, ' fails=', fails
  deallocate(a)
  if (fails /= 0) stop 1
end program e2e_parallel_do
