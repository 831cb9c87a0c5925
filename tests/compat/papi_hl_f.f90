! A PAPI high-level API Fortran program (papif_hl_*), built unchanged
! against the real libpapi and against rprof-papi.
!
! Usage: papi_hl_f n reps
! Regions: "compute" (reps calls) holds one daxpy and "kernel" (2 calls per
! compute call), each daxpy 2n FLOPs. Prints the sum of the return codes.
program papi_hl_f
  implicit none
  integer :: n, reps, r, k, check, rc
  double precision, allocatable :: x(:), y(:)
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) reps
  allocate (x(n), y(n))
  x = 1d0
  y = 2d0
  rc = 0
  do r = 1, reps
    call papif_hl_region_begin("compute", check)
    rc = rc + abs(check)
    call daxpy(n, 0.5d0, x, y)
    do k = 1, 2
      call papif_hl_region_begin("kernel", check)
      rc = rc + abs(check)
      call daxpy(n, 0.25d0, x, y)
      call papif_hl_read("kernel", check)
      rc = rc + abs(check)
      call papif_hl_region_end("kernel", check)
      rc = rc + abs(check)
    end do
    call papif_hl_region_end("compute", check)
    rc = rc + abs(check)
  end do
  call papif_hl_stop(check)
  print '(a,i0,a,i0)', "regions rc=", rc, " stop=", check
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

end program papi_hl_f
