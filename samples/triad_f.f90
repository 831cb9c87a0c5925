! STREAM triad in Fortran with the rprof module: a(i) = b(i) + s*c(i).
!
! Usage: triad_f [n] [reps]   (defaults: n = 2000000, reps = 10)
! Build: gfortran -O2 triad_f.f90 $(pkg-config --cflags --libs rprof-fortran)
!        (or link the CMake target rprof::fortran); run: rprof ./triad_f
! Expect: one region "triad" with exactly `reps` calls. With a counting
! backend: 2n FLOPs per call (FMA = 2 FLOPs); 24n bytes per call at L1
! (b and c loaded, a stored); at DRAM 32n bytes per call when the arrays are
! far larger than the last-level cache (the store to `a` first reads its
! line: write-allocate). Verdict: memory-bound, limited by DRAM bandwidth
! (2n / 32n = 0.0625 FLOP/byte, far left of any ridge point).
program triad_f
  use rprof
  implicit none
  integer :: n, reps, r
  double precision, allocatable :: a(:), b(:), c(:)
  double precision :: ideal_flops, ideal_bytes
  character(len=32) :: arg

  n = 2000000
  reps = 10
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) reps
  end if
  allocate (a(n), b(n), c(n))
  a = 0d0
  b = 1d0
  c = 2d0
  ! The ideal work: 2 FLOPs and 24 bytes (two loads, one store) per element,
  ! computed outside the region so that counted FLOPs are the kernel's only.
  ideal_flops = 2d0 * n
  ideal_bytes = 24d0 * n
  do r = 1, reps
    call rprof_begin("triad")
    call rprof_work(ideal_flops, ideal_bytes)
    call triad(n, 3d0, a, b, c)
    call rprof_end("triad")
  end do
  print '(a,i0,a,i0,a,f0.1)', "triad_f: n=", n, " reps=", reps, " a(1)=", a(1)

contains

  subroutine triad(m, s, x, y, z)
    integer, intent(in) :: m
    double precision, intent(in) :: s, y(m), z(m)
    double precision, intent(out) :: x(m)
    integer :: i
    do i = 1, m
      x(i) = y(i) + s * z(i)
    end do
  end subroutine triad

end program triad_f
