! Open MPI's `mpi` module for flang-new-19: Debian ships only gfortran's
! compiled mpi.mod, which flang cannot read. Like Open MPI's own module
! without "ignore TKR" it is mpif.h's constants and the Fortran bindings
! of libmpi_mpifh (mpi_init_ & co., called as external procedures).
module mpi
  include 'mpif.h'
end module mpi
