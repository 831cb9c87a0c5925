! rprof's inst backend with gfortran and OpenMP (tests/integration/test_inst.cpp):
! a triad in an OpenMP parallel loop, the marker outside the parallel region.
! Expect, for n and reps: region "triad" with reps calls and 2n FLOPs per call
! over all threads (FMA = 2), 16n bytes loaded and 8n stored at L1.
!
! Usage: omp_triad_f n reps
program omp_triad_f
  use rprof
  implicit none
  integer :: n, reps, r, i
  double precision, allocatable :: a(:), b(:), c(:)
  character(len=32) :: arg

  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) reps
  allocate (a(n), b(n), c(n))
  a = 0d0
  b = 1d0
  c = 2d0
  do r = 1, reps
    call rprof_begin("triad")
    !$omp parallel do schedule(static)
    do i = 1, n
      a(i) = b(i) + 3d0 * c(i)
    end do
    !$omp end parallel do
    call rprof_end("triad")
  end do
  print '(a,f0.1)', "omp_triad_f: a(1)=", a(1)
end program omp_triad_f
