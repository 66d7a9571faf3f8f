! Two idioms of the NAS Parallel Benchmarks' Fortran (NPB 3.4-OMP) that
! went wrong across nodes:
! - `external omp_get_thread_num` & co. instead of `use omp_lib`: flang
!   calls libomp's Fortran entry points (omp_get_thread_num_), which
!   answered for one node (thread 0 of 1 on every rank: MG's zran3 failed
!   its verification), and omp_set_lock_ took each node's own lock;
! - a `parallel do` that runs no iteration because its step passes the
!   bound (UA: `do iel = n1, nelt, n1` with n1 > nelt): flang hands libomp
!   lb 0, ub 0xffffffff (its trip count less one, wrapped), which libomp's
!   32-bit count makes 0, and the cluster loop ran 2^32 / nodes iterations
!   off the array.
! The output does not depend on the team size.
! REQUIRES: flang
! RUN: %e2e %s %t
subroutine add_every(nelt, n1, f)
  implicit none
  integer nelt, n1, iel, f(*)
!$omp parallel do
  do iel = n1, nelt, n1
    f(iel) = f(iel) + 1
  end do
!$omp end parallel do
end subroutine

program e2e_npb_idioms
  implicit none
  integer, external :: omp_get_max_threads, omp_get_num_threads, &
                       omp_get_thread_num
  external omp_init_lock, omp_set_lock, omp_unset_lock, omp_destroy_lock
  integer, parameter :: nelt = 50
  integer(8) :: lck
  integer :: f(nelt), ids(0:63), nt, i, n, bad, total, k

  f = 0
  call add_every(nelt, 7, f)    ! 7 iterations
  call add_every(nelt, 60, f)   ! none: the step passes the bound
  call add_every(nelt, 51, f)   ! none
  call add_every(0, 1, f)       ! none: an empty range
  print '(a, i0)', 'iterations run: ', sum(f)

  nt = omp_get_max_threads()
  ids = -1
  n = 0
!$omp parallel shared(ids, n)
!$omp atomic
  n = n + 1
  ids(omp_get_thread_num()) = omp_get_num_threads()
!$omp end parallel
  bad = 0
  do i = 0, nt - 1
    if (ids(i) /= nt) bad = bad + 1
  end do
  if (n /= nt) bad = bad + 1
  print '(a, a)', 'every thread number once, team = max threads: ', &
    merge('yes', 'no ', bad == 0)

  call omp_init_lock(lck)
  total = 0
!$omp parallel do private(k)
  do i = 1, 2000
    call omp_set_lock(lck)
    k = total
    total = k + 1
    call omp_unset_lock(lck)
  end do
!$omp end parallel do
  call omp_destroy_lock(lck)
  print '(a, i0)', 'lock-protected count: ', total
end program
