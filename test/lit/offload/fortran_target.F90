! Fortran target regions across nodes, as flang-19 lowers them (the
! shapes of OpenMP_VV's 4.5 Fortran tests):
!  - a loop index used in the region is passed as a LITERAL kernel argument
!    while flang's host function takes it by reference (the kernel got the
!    value as an address and crashed);
!  - sections of allocatable arrays: the descriptor is mapped and its
!    base address attached (it points before the section). Sections of
!    the first dimension only: flang-19 computes the first address of a
!    section like q(5:95, 2) without the first dimension's extent (its
!    IR adds the indices unscaled), so a section past column 1 maps the
!    wrong bytes under any runtime (OpenMP_VV's 2-D/3-D section tests).
! Not here: map(h, h%v) of a derived type's allocatable component, which
! flang-19 lowers to a member entry for a stack copy of the component's
! descriptor (outside its parent h) and no entry for its data; hcc stops
! with the diagnostic for a member outside its parent.
! Self-checking: plain flang-19 cannot link a target program on this
! machine (no libomptarget plugin for the host), so there is no reference
! run; every check is against a host computation.
! REQUIRES: flang
! RUN: %hcc -O1 %s -o %t
! RUN: timeout -k 5 120 %hcrun -n 1 --threads 1 %t | FileCheck %s
! RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s
! RUN: timeout -k 5 120 %hcrun -n 4 --threads 1 %t | FileCheck %s
! CHECK: index ok
! CHECK: sections ok
program fortran_target
  implicit none
  integer, parameter :: n = 100
  integer :: i, errs
  integer :: a(n), b(n), c(n)
  integer, allocatable :: p(:), q(:, :)

  ! 1. the loop index is implicitly captured (LITERAL)
  a = 10
  b = 2
  c = 0
  !$omp target map(to: a, b) map(from: c)
  do i = 1, n
    c(i) = a(i) + b(i) * i
  end do
  !$omp end target
  errs = 0
  do i = 1, n
    if (c(i) /= 10 + 2 * i) errs = errs + 1
  end do
  if (errs == 0) then
    print '(a)', 'index ok'
  else
    print '(a, i0)', 'index WRONG ', errs
  end if

  ! 2. allocatable sections, in target data and in the kernel's own map
  allocate(p(n), q(n, 4))
  p = 1
  q = 1
  !$omp target data map(tofrom: p(10:n-10))
  !$omp target map(alloc: p(10:n-10)) map(tofrom: q)
  p(10:n-10) = p(10:n-10) + 5
  q(5:n-5, 1) = 9
  q(:, 2) = 7
  !$omp end target
  !$omp end target data
  errs = 0
  do i = 1, n
    if (i >= 10 .and. i <= n - 10) then
      if (p(i) /= 6) errs = errs + 1
    else if (p(i) /= 1) then
      errs = errs + 1
    end if
    if (i >= 5 .and. i <= n - 5) then
      if (q(i, 1) /= 9) errs = errs + 1
    else if (q(i, 1) /= 1) then
      errs = errs + 1
    end if
    if (q(i, 2) /= 7) errs = errs + 1
  end do
  if (sum(q(:, 3)) + sum(q(:, 4)) /= 2 * n) errs = errs + 1
  if (errs == 0) then
    print '(a)', 'sections ok'
  else
    print '(a, i0)', 'sections WRONG ', errs
  end if

end program
