! A LIKWID marker-API Fortran program (module `likwid`), built unchanged
! against the real liblikwid and against rprof-likwid.
!
! Usage: likwid_markers_f n reps
! Regions: "outer" (reps calls) holds "inner" (2 calls per outer call), each
! a daxpy of 2n FLOPs; "outer" has one more daxpy of its own. Then GET
! "inner" prints its calls.
program likwid_markers_f
  use likwid
  implicit none
  integer :: n, reps, r, k, nevents, count
  double precision, allocatable :: x(:), y(:)
  double precision :: events(32), time
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) reps
  allocate (x(n), y(n))
  x = 1d0
  y = 2d0
  call likwid_markerInit()
  call likwid_markerThreadInit()
  call likwid_markerRegisterRegion("outer")
  do r = 1, reps
    call likwid_markerStartRegion("outer")
    call daxpy(n, 0.5d0, x, y)
    do k = 1, 2
      call likwid_markerStartRegion("inner")
      call daxpy(n, 0.25d0, x, y)
      call likwid_markerStopRegion("inner")
    end do
    call likwid_markerStopRegion("outer")
  end do
  nevents = 32
  call likwid_markerGetRegion("inner", nevents, events, time, count)
  print '(a,i0,a,i0)', "GET count=", count, " nevents=", nevents
  call likwid_markerClose()
  print '(a,f0.1)', "checksum ", y(1) + y(n)

contains

  subroutine daxpy(m, a, xs, ys)
    integer, intent(in) :: m
    double precision, intent(in) :: a, xs(m)
    double precision, intent(inout) :: ys(m)
    integer :: i
    do i = 1, m
      ys(i) = a * xs(i) + ys(i)
    end do
  end subroutine daxpy

end program likwid_markers_f
