/* The handshake between the `rprof` launcher and the runtime linked into the
 * program (librprof): the environment variables the launcher sets, the ones
 * the runtime reads on its own, and the version of the raw profile the runtime
 * writes. One list, so a launcher and a runtime built from different trees
 * fail loudly (schema version) instead of silently ignoring a renamed
 * variable.
 *
 * Plain C with no includes, like backends/sim/sim_protocol.h: the runtime (C
 * ABI, only libc/libstdc++) includes it, and string macros concatenate into
 * messages and "NAME=value" patterns at compile time. Set by the launcher and
 * documented for users in docs/profile-schema.md.
 */
#ifndef RPROF_RUNTIME_HANDSHAKE_H_
#define RPROF_RUNTIME_HANDSHAKE_H_

/* Version of the raw profile (rprof-raw.*.json) the runtime writes and the
 * tool reads; bump when its fields or their meaning change. */
#define RPROF_RAW_SCHEMA_VERSION 1

/* The runtime's own counter after the backend's in a raw profile: the
 * thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID), inclusive. The tool
 * moves it into the region's cpu_time_s (docs/profile-schema.md). */
#define RPROF_CPU_TIME_COUNTER "time.thread_cpu_ns"
/* After it, where a slot is left: the thread's run delay in ns, the time it
 * was runnable but waiting for a CPU (/proc/thread-self/schedstat, second
 * field), inclusive. The tool moves it into the region's run_delay_s. */
#define RPROF_RUN_DELAY_COUNTER "time.thread_run_delay_ns"

/* --- Set by the launcher for every run of the program ------------------- */
/* Directory for raw profiles; markers are inactive without it. This one and
 * RPROF_TABLES_DIR may end in padding slashes (run/launcher.h,
 * fixed_stack_environment): the runtime names files without them. */
#define RPROF_ENV_OUTPUT_DIR "RPROF_OUTPUT_DIR"
/* The runtime's counter backend: time (default), sim, perf, papi, likwid, fake. */
#define RPROF_ENV_BACKEND "RPROF_BACKEND"
/* The launcher's private directory (0700) for the shared region tables
 * (runtime/shared_tables.h): one file per process image, read by the launcher
 * after the app is gone, so regions survive _exit, exec and any signal. */
#define RPROF_ENV_TABLES_DIR "RPROF_TABLES_DIR"
/* 1 when the launcher was asked to run an MPI job (mpirun, mpiexec, srun ...
 * first on the command line): the rank variables below count then, or when
 * the program itself initialised MPI; otherwise a run is one process whatever
 * SLURM_PROCID or OMPI_COMM_WORLD_SIZE the environment holds. */
#define RPROF_ENV_MPI_JOB "RPROF_MPI_JOB"

/* --- Per backend, set by the launcher's plan of each run ----------------- */
/* perf: comma-separated event groups (hwcounters/perf_spec.h), the
 * number of the first group, and 0 to read counters without rdpmc. */
#define RPROF_ENV_PERF_EVENTS "RPROF_PERF_EVENTS"
#define RPROF_ENV_PERF_GROUP_BASE "RPROF_PERF_GROUP_BASE"
#define RPROF_ENV_PERF_RDPMC "RPROF_PERF_RDPMC"
/* papi, likwid: key=EVENT,... and the number of the first group. */
#define RPROF_ENV_PAPI_EVENTS "RPROF_PAPI_EVENTS"
#define RPROF_ENV_PAPI_GROUP_BASE "RPROF_PAPI_GROUP_BASE"
#define RPROF_ENV_LIKWID_EVENTS "RPROF_LIKWID_EVENTS"
#define RPROF_ENV_LIKWID_GROUP_BASE "RPROF_LIKWID_GROUP_BASE"
/* fake (tests): the step of the scripted counters. */
#define RPROF_ENV_FAKE_STEP "RPROF_FAKE_STEP"
/* The program a LIKWID/PAPI drop-in was preloaded for (its real path): other
 * processes that inherit LD_PRELOAD (mpirun, shells) stay inactive. */
#define RPROF_ENV_PRELOAD_PROGRAM "RPROF_PRELOAD_PROGRAM"

/* --- Read by the runtime, set by the user or the job launcher ------------ */
/* The region clock: "monotonic" forces clock_gettime(CLOCK_MONOTONIC);
 * unset or anything else takes the invariant TSC where the CPU has one. */
#define RPROF_ENV_CLOCK "RPROF_CLOCK"
/* Say on stderr why markers are inactive. */
#define RPROF_ENV_VERBOSE "RPROF_VERBOSE"
/* The MPI rank and world size, from whichever launcher started the job: the
 * first variable that holds a non-negative integer wins (initializer lists).
 * Counted only in an MPI job (RPROF_MPI_JOB, or MPI initialised); a world
 * size above RPROF_MAX_WORLD_SIZE is refused with a message. */
#define RPROF_MAX_WORLD_SIZE 1048576
#define RPROF_ENV_RANK_VARS "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"
#define RPROF_ENV_WORLD_SIZE_VARS "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"

/* --- Read by the rprof tool only, set by the user ------------------------ */
/* The VALGRIND_LIB holding the rprof-sim tool (overrides the one found next
 * to rprof), the machine file with the ceilings, and a recorded machine's
 * root for /proc and /sys (topology and CPU identity; tests). */
#define RPROF_ENV_SIM_LIBDIR "RPROF_SIM_LIBDIR"
#define RPROF_ENV_MACHINE_FILE "RPROF_MACHINE_FILE"
#define RPROF_ENV_SYSROOT "RPROF_SYSROOT"
/* The progress line while the simulated run goes: 1 forces it on, 0 off;
 * unset: on when stderr is a terminal (run/progress_line.h). */
#define RPROF_ENV_PROGRESS "RPROF_PROGRESS"

#endif /* RPROF_RUNTIME_HANDSHAKE_H_ */
