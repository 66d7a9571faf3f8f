subroutine fsum(n, s) bind(c)
  use iso_c_binding
  integer(c_int), value :: n
  integer(c_long) :: s
  integer :: i
  s = 0
  !$omp parallel do reduction(+:s)
  do i = 1, n
    s = s + i
  end do
  !$omp end parallel do
end subroutine
