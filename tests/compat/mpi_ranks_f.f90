! MPI in Fortran with the rprof module: rank r runs "compute" r + 1 times,
! each with one "exchange" (an MPI_Allreduce) nested in it; every rank makes
! the same number of Allreduce calls (collectives must match).
!
! Usage: mpirun -np N mpi_ranks_f
! Expect (N ranks), summed over ranks: compute N(N+1)/2 calls,
! compute/exchange N(N+1)/2 calls; one raw profile per rank.
program mpi_ranks_f
  use mpi
  use rprof
  implicit none
  integer :: rank, nranks, ierr, c
  double precision :: local, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  total = 0d0
  do c = 0, nranks - 1
    local = dble(rank + c)
    if (c <= rank) then
      call rprof_begin("compute")
      call rprof_begin("exchange")
      call MPI_Allreduce(MPI_IN_PLACE, local, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                         MPI_COMM_WORLD, ierr)
      call rprof_end("exchange")
      call rprof_end("compute")
    else
      call MPI_Allreduce(MPI_IN_PLACE, local, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                         MPI_COMM_WORLD, ierr)
    end if
    total = total + local
  end do
  if (rank == 0) print '(a,i0,a,f0.1)', "mpi_ranks_f: ", nranks, " ranks, total ", total
  call MPI_Finalize(ierr)
end program mpi_ranks_f
