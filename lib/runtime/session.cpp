#include "runtime/session.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <memory>
#include <string>

#include "runtime/backend.h"
#include "runtime/quiet.h"
#include "runtime/clock.h"
#include "runtime/raw_writer.h"
#include "runtime/region_table.h"
#include "runtime/handshake.h"
#include "runtime/shared_tables.h"
#include "runtime/signals.h"
#include "runtime/thread_registry.h"

namespace rprof::runtime {

std::atomic<bool> g_active{false};

namespace {

struct Session {
  std::unique_ptr<Backend> backend;
  int num_counters = 0;
  const char* counter_names[kMaxCounters] = {};
  char dir[PATH_MAX] = {};
  char host[256] = {};
  int pid = 0;
  int parent_pid = 0;
  int rank = -1;        // from the environment; counted in an MPI job only
  int world_size = -1;
  bool mpi_job = false;  // RPROF_MPI_JOB=1: the launcher ran mpirun & co
  int (*mpi_initialized)(int*) = nullptr;  // MPI_Initialized, when linked
  uint64_t start_ticks = 0;
  int64_t start_unix_s = 0;
  std::atomic<ThreadState*> threads{nullptr};
  std::atomic<uint32_t> thread_count{0};
  std::atomic<bool> flushing{false};
};

Session* g_session = nullptr;  // set once in init(), never freed

__attribute__((tls_model("initial-exec"))) thread_local ThreadState* t_state = nullptr;

ThreadList thread_list(Session& s) {
  // The backend's counters: each thread state adds the CPU time itself.
  return ThreadList{s.threads, s.thread_count, s.backend.get(), s.backend->num_counters(),
                    s.num_counters > s.backend->num_counters()};
}

// At thread end: its state is kept whole or folded and released
// (runtime/thread_registry.h); none of it is the program's work.
struct ThreadExit {
  ~ThreadExit() {
    if (t_state == nullptr) return;
    const Quiet quiet;
    if (release_thread(thread_list(*g_session), t_state)) t_state = nullptr;
  }
};
thread_local ThreadExit t_exit;

bool verbose() {
  const char* v = std::getenv(RPROF_ENV_VERBOSE);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}

void say(const char* what) {
  std::fprintf(stderr, "rprof: %s\n", what);
}

// The first of these variables that holds a non-negative integer; *var_out
// names it.
int int_from_env(std::initializer_list<const char*> vars, const char** var_out) {
  for (const char* var : vars) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') {
      char* end = nullptr;
      errno = 0;
      const long r = std::strtol(v, &end, 10);
      if (*end == '\0' && errno == 0 && r >= 0 && r < INT_MAX) {
        *var_out = var;
        return static_cast<int>(r);
      }
    }
  }
  return -1;
}

int detect_rank() {
  const char* var = nullptr;
  return int_from_env({RPROF_ENV_RANK_VARS}, &var);
}

// The job's world size, refused above RPROF_MAX_WORLD_SIZE (nothing is sized
// from an absurd value).
int detect_world_size() {
  const char* var = nullptr;
  const int n = int_from_env({RPROF_ENV_WORLD_SIZE_VARS}, &var);
  if (n > RPROF_MAX_WORLD_SIZE) {
    std::fprintf(stderr,
                 "rprof: %s=%d is above the limit of %d MPI ranks; the world size is "
                 "not recorded\n",
                 var, n, RPROF_MAX_WORLD_SIZE);
    return -1;
  }
  return n;
}

// Rank variables count only in an MPI job: the launcher ran one (mpirun,
// srun ... on its command line), or this program initialised MPI. A plain
// run inside a batch job (SLURM_PROCID=0 SLURM_NTASKS=512) is one process.
// In a signal handler MPI is not asked (not async-signal-safe): a program
// linked with MPI counts then.
bool in_mpi_job(const Session& s, bool in_signal) {
  if (s.mpi_job) return true;
  if (s.mpi_initialized == nullptr) return false;
  if (in_signal) return true;
  int flag = 0;
  return s.mpi_initialized(&flag) == 0 && flag != 0;
}

void at_exit() { flush_profile("exit", 0); }

// fork(): the child keeps the forking thread's open regions only (the other
// threads do not exist there; their states may be mid-update), saved before
// the fork, so nothing the parent does meanwhile shows, and rebuilt in a new
// tables file of the child's: a fork costs the child its open path, not a
// copy of the parent's tables. Runtime locks another thread may hold are
// free again in the child. One registration for the runtime's parts: the
// registry's fold lock, then the tables' lock (the order a fold takes them
// in); g_fork_path is the forking thread's, under the fold lock.
OpenPath g_fork_path;

void before_fork() {
  thread_registry_before_fork();
  tables_before_fork();
  g_fork_path.depth = 0;
  if (t_state != nullptr) t_state->save_open_path(&g_fork_path);
}

void after_fork_in_parent() {
  tables_after_fork_parent();
  thread_registry_after_fork_parent();
}

void after_fork_in_child() {
  const Quiet quiet;
  signals_after_fork_child();
  thread_registry_after_fork_child();
  region_table_after_fork();
  Session& s = *g_session;
  s.parent_pid = s.pid;
  s.pid = static_cast<int>(getpid());
  tables_after_fork(s.parent_pid);
  const uint64_t now = now_ticks();
  s.start_ticks = now;
  s.flushing.store(false);
  ThreadState* self = t_state;
  if (self != nullptr) {
    self->next = nullptr;
    self->restart_after_fork(g_fork_path, static_cast<int>(syscall(SYS_gettid)), now);
  }
  tables_drop_parent();
  s.threads.store(self, std::memory_order_release);
}

// RPROF_PRELOAD_PROGRAM: the launcher preloaded a drop-in (librprof-likwid,
// librprof-papi) for this program; other processes that inherit LD_PRELOAD
// (mpirun, a shell the program starts) load the runtime too but stay out.
bool is_preload_target() {
  const char* want = std::getenv(RPROF_ENV_PRELOAD_PROGRAM);
  if (want == nullptr || *want == '\0') return true;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return true;  // cannot tell: record, as without a drop-in
  exe[n] = '\0';
  char resolved[PATH_MAX];
  const char* self = realpath(exe, resolved) != nullptr ? resolved : exe;
  if (std::strcmp(self, want) == 0) return true;
  if (verbose()) {
    std::string msg = std::string("markers inactive in ") + self +
                      ": the launcher's drop-in is for " + want;
    say(msg.c_str());
  }
  return false;
}

// The launcher pads its directory paths with trailing slashes (a fixed
// initial stack under the sim backend, run/launcher.h): the runtime names
// its files from the path without them.
void trim_trailing_slashes(char* path) {
  size_t n = std::strlen(path);
  while (n > 1 && path[n - 1] == '/') path[--n] = '\0';
}

// The shared tables in the launcher's private directory (RPROF_TABLES_DIR);
// without them the tables stay on the heap and only a flushed raw profile
// keeps them.
void open_tables(const Session& s) {
  const char* env = std::getenv(RPROF_ENV_TABLES_DIR);
  if (env == nullptr || *env == '\0') return;
  char dir[PATH_MAX];
  if (std::strlen(env) >= sizeof(dir)) return;
  std::strcpy(dir, env);
  trim_trailing_slashes(dir);
  const bool mpi = in_mpi_job(s, /*in_signal=*/true);
  TablesInfo info{};
  info.host = s.host;
  info.backend = s.backend->name();
  info.counter_names = s.counter_names;
  info.num_counters = s.num_counters;
  info.rank = mpi ? s.rank : -1;
  info.world_size = mpi ? s.world_size : -1;
  info.start_ticks = s.start_ticks;
  info.start_unix_s = s.start_unix_s;
  if (!tables_open(dir, info) && verbose()) {
    say("shared region tables unavailable: regions are kept only if the raw "
        "profile is written");
  }
}

void init() {
  if (!is_preload_target()) return;
  const char* dir = std::getenv(RPROF_ENV_OUTPUT_DIR);
  if (dir == nullptr || *dir == '\0') {
    if (verbose()) {
      say("markers inactive: " RPROF_ENV_OUTPUT_DIR " is not set (run the program "
          "under `rprof ./app` to profile it)");
    }
    return;
  }
  struct stat st{};
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
    std::string msg = "markers inactive: output directory '" + std::string(dir) +
                      "' is not a writable directory";
    say(msg.c_str());
    return;
  }
  size_t dir_len = std::strlen(dir);
  while (dir_len > 1 && dir[dir_len - 1] == '/') --dir_len;
  if (dir_len >= PATH_MAX - 128) {
    say("markers inactive: " RPROF_ENV_OUTPUT_DIR " is too long");
    return;
  }
  auto* s = new (std::nothrow) Session;
  if (s == nullptr) return;
  const char* backend = std::getenv(RPROF_ENV_BACKEND);
  std::string why;
  s->backend = make_runtime_backend(backend ? backend : "time", &why);
  if (!s->backend) {
    std::string msg = "counters off, timing only: " + why;
    say(msg.c_str());
    s->backend = make_runtime_backend("time", &why);
  }
  const int backend_counters = s->backend->num_counters();
  for (int k = 0; k < backend_counters; ++k) {
    s->counter_names[k] = s->backend->counter_name(k);
  }
  s->num_counters = s->backend->thread_cpu_time() ? counters_with_cpu_time(backend_counters)
                                                  : backend_counters;
  if (s->num_counters > backend_counters) s->counter_names[backend_counters] = kCpuTimeCounter;
  if (s->num_counters > backend_counters + 1) {
    s->counter_names[backend_counters + 1] = kRunDelayCounter;
  }
  std::memcpy(s->dir, dir, dir_len);
  s->dir[dir_len] = '\0';
  if (gethostname(s->host, sizeof(s->host) - 1) != 0) std::strcpy(s->host, "host");
  for (char* c = s->host; *c; ++c) {
    if (*c == '/' || *c == '.') *c = '_';  // keep the file name parseable
  }
  s->pid = static_cast<int>(getpid());
  s->rank = detect_rank();
  s->world_size = detect_world_size();
  const char* mpi_job = std::getenv(RPROF_ENV_MPI_JOB);
  s->mpi_job = mpi_job != nullptr && std::strcmp(mpi_job, "1") == 0;
  s->mpi_initialized =
      reinterpret_cast<int (*)(int*)>(dlsym(RTLD_DEFAULT, "MPI_Initialized"));
  init_clock(std::getenv(RPROF_ENV_CLOCK));
  s->start_ticks = now_ticks();
  s->start_unix_s = static_cast<int64_t>(std::time(nullptr));
  open_tables(*s);
  g_session = s;
  std::atexit(at_exit);
  // No signal handler and no alternate stack: the program sees its signals
  // as without rprof. A process that dies of a signal (or _exit, exec) keeps
  // what it completed in the shared tables, which the launcher reads.
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
  g_active.store(true, std::memory_order_release);
  // The main thread's state now: a marker refused in a signal handler before
  // the thread's first marker is then still counted (a handler cannot
  // allocate it; signals.h).
  (void)current_thread();
}

// Runs when the runtime is loaded, before main(). Nothing it does is the
// program's work, so the simulator counts none of it.
__attribute__((constructor)) void rprof_runtime_init() {
  const Quiet quiet;
  resolve_signal_functions();
  init();
}

}  // namespace

ThreadState* current_thread() {
  ThreadState* t = t_state;
  if (t != nullptr) return t;
  const Quiet quiet;  // once per thread: allocation, exit-hook registration
  Session& s = *g_session;
  t = acquire_thread(thread_list(s), static_cast<int>(syscall(SYS_gettid)));
  if (t == nullptr) return nullptr;
  (void)&t_exit;  // touch: registers the exit hook of this thread
  t_state = t;
  return t;
}

ThreadState* existing_thread() { return t_state; }

const char* session_counter_name(int k) {
  // The backend's counters only: the thread CPU time and run delay the
  // runtime adds after them are not (they become cpu_time_s, run_delay_s).
  if (g_session == nullptr || k < 0 || k >= g_session->backend->num_counters()) return nullptr;
  return g_session->counter_names[k];
}

int flush_profile(const char* reason, int signal) {
  if (g_session == nullptr) return 1;
  const Quiet quiet;  // the writer's formatting, open, write, rename
  Session& s = *g_session;
  bool expected = false;
  if (!s.flushing.compare_exchange_strong(expected, true)) return 0;
  RawRunInfo info{};
  info.dir = s.dir;
  info.host = s.host;
  info.backend = s.backend->name();
  info.counter_names = s.counter_names;
  info.num_counters = s.num_counters;
  info.pid = s.pid;
  info.parent_pid = s.parent_pid;
  const bool mpi = in_mpi_job(s, signal != 0);
  info.rank = mpi ? s.rank : -1;
  info.world_size = mpi ? s.world_size : -1;
  info.start_ticks = s.start_ticks;
  info.end_ticks = now_ticks();
  info.start_unix_s = s.start_unix_s;
  info.reason = reason;
  info.signal = signal;
  const int rc = write_raw_profile(info, s.threads.load(std::memory_order_acquire));
  // The launcher reads the shared tables of an image whose raw profile is not
  // final (explicit flush, failed write, or none).
  if (rc != 0) {
    tables_note_raw(RawState::kFailed, -rc);
  } else {
    tables_note_raw(std::strcmp(reason, "explicit") == 0 ? RawState::kExplicit : RawState::kFinal,
                    0);
  }
  if (rc != 0 && signal == 0) {
    std::fprintf(stderr, "rprof: could not write the raw profile to %s: %s\n",
                 s.dir, std::strerror(-rc));
  }
  s.flushing.store(false);
  return rc;
}

}  // namespace rprof::runtime
