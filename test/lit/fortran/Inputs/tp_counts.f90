! The module of threadprivate_other_file.f90, in a file of its own: its
! functions ask libomp's threadprivate_cached for the copies (flang), and
! no region of this file calls them.
module tp_counts
  implicit none
  integer :: hits = 100
  integer :: seen(4) = (/1, 2, 3, 4/)
!$omp threadprivate(hits, seen)
contains
  subroutine bump(i)
    integer, intent(in) :: i
    hits = hits + 1
    seen(mod(i, 4) + 1) = seen(mod(i, 4) + 1) + 1
  end subroutine
  integer function my_hits()
    my_hits = hits
  end function
  integer function my_seen()
    my_seen = sum(seen)
  end function
end module tp_counts
