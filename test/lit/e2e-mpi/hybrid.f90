! A hybrid MPI+OpenMP Fortran program (`use mpi`, MPI_Init) built with hcc
! runs as an MPI program: every rank runs the main program with its own
! OpenMP threads; output equal to flang-new-19 through mpifort, alone and at
! 1, 2 and 4 ranks (Inputs/run.sh; Inputs/mpi_module.f90 is the `mpi`
! module, as Debian's is gfortran's only).
! REQUIRES: flang
! RUN: %mpiprog --with %S/Inputs/mpi_module.f90 --build flags %s %t.flags
! RUN: %mpiprog --with %S/Inputs/mpi_module.f90 --build wrapper %s %t.wrapper
program hybrid
  use mpi
  implicit none
  integer, parameter :: n = 200000
  integer :: ierr, rank, nranks, i, token, nthr, allthr
  double precision :: s, total
  double precision, allocatable :: a(:)
  integer, allocatable :: ranks(:)
  integer :: omp_get_num_threads

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  allocate(a(n), ranks(nranks))
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, n
    a(i) = dble(mod(i * 7 + rank, 101))
    s = s + a(i)
  end do
!$omp end parallel do
  call MPI_Allreduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  token = 0
  if (rank == 0) token = 4242
  call MPI_Bcast(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  nthr = 0
!$omp parallel
!$omp single
  nthr = omp_get_num_threads()
!$omp end single
!$omp end parallel
  call MPI_Reduce(nthr, allthr, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call MPI_Gather(rank, 1, MPI_INTEGER, ranks, 1, MPI_INTEGER, 0, &
                  MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(A,F14.1,A,I0)', 'sum ', total, ' token ', token
    do i = 1, nranks
      print '(A,I0,A,I0)', 'rank ', i - 1, ': ', ranks(i)
    end do
    print '(A,I0,A,I0)', 'ranks ', nranks, ' threads ', allthr
  end if
  deallocate(a, ranks)
  call MPI_Finalize(ierr)
end program hybrid
