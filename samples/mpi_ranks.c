/* MPI: every rank runs "compute" (rank + 1 calls) and "exchange" (one
 * MPI_Allreduce per call of compute).
 *
 * Usage: mpirun -np N mpi_ranks [die_rank]
 * Expect (N ranks): per region summed call counts over ranks:
 *   compute  N(N+1)/2 calls    exchange  N(N+1)/2 calls
 * and min/mean/max time over ranks (rank r works r + 1 units: imbalanced).
 * With die_rank = k, rank k kills itself (SIGKILL, no chance to flush) after
 * the others have finished: the launcher reads what rank k completed from
 * its shared region tables (the notes say so), and keeps the other ranks'
 * results. */
#include <mpi.h>
#include <rprof/markers.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double work(int units) {
  double s = 0;
  for (long i = 0; i < 2000000L * units; ++i) s += 1.0 / (double)(i + 1);
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int die_rank = argc > 1 ? atoi(argv[1]) : -1;
  double total = 0;
  /* Every rank makes max_calls Allreduce calls (collectives must match);
   * rank r counts r + 1 of them as "compute" + "exchange" regions. */
  for (int c = 0; c < size; ++c) {
    double local = 0;
    if (c <= rank) {
      RPROF_BEGIN("compute");
      local = work(1);
      RPROF_BEGIN("exchange");
      MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      RPROF_END("exchange");
      RPROF_END("compute");
    } else {
      MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    total += local;
  }
  if (rank == 0) printf("mpi_ranks: %d ranks, total %.3f\n", size, total);
  if (die_rank >= 0) {
    /* The survivors write their profiles now; the dying rank never does
     * (its shared tables keep what it completed). */
    if (rank != die_rank) rprof_flush();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == die_rank) raise(SIGKILL);
  }
  MPI_Finalize();
  return 0;
}
