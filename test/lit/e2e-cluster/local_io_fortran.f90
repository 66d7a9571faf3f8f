! A Fortran region that writes a unit the program opened runs on the head
! alone (region kind LOCAL_IO, docs/compiler.md): on a worker the unit does
! not exist, and flang's runtime would open a file of its own there
! (fort.10) and the head's file would miss the worker's lines. Output to
! the standard output (write(*,*)) stays on every node.
! REQUIRES: flang
! RUN: %hcc -O1 %s -o %t
! RUN: cd %T && env HCRT_STATS=1 timeout -k 5 120 %hcrun -n 2 --threads 1 %t > %t.out 2> %t.err
! RUN: FileCheck %s < %t.out
! RUN: FileCheck --check-prefix=STATS %s < %t.err
! CHECK: lines 200 sum 19900
! CHECK: total 20100
! STATS: cluster regions {{[1-9][0-9]*}} on 2 nodes
! STATS-SAME: 1 for streams only the head has
program local_io
  implicit none
  integer :: i, n, v, ios
  integer(8) :: s, t
  character(len=64) :: path

  write(path, '(a,i0,a)') 'local_io_f.', getpid(), '.txt'
  open(unit=10, file=trim(path), status='replace', action='write')
  !$omp parallel do schedule(static)
  do i = 0, 199
    !$omp critical
    write(10, *) i
    !$omp end critical
  end do
  !$omp end parallel do
  close(10)

  open(unit=11, file=trim(path), status='old', action='read')
  n = 0
  s = 0
  do
    read(11, *, iostat=ios) v
    if (ios /= 0) exit
    n = n + 1
    s = s + v
  end do
  close(11, status='delete')
  write(*, '(a,i0,a,i0)') 'lines ', n, ' sum ', s

  t = 0
  !$omp parallel do reduction(+:t) schedule(static)
  do i = 1, 200
    t = t + i
  end do
  !$omp end parallel do
  write(*, '(a,i0)') 'total ', t
end program local_io
