#include "run/pass.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <map>
#include <set>

#include "common/error.h"
#include "common/fs.h"
#include "profile/shared_tables_reader.h"
#include "run/private_dir.h"
#include "runtime/handshake.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

RunInfo run_info(const std::vector<std::string>& command, const std::string& backend,
                 const LaunchResult& r) {
  RunInfo run;
  run.command = command;
  run.backend = backend;
  run.wall_time_s = r.wall_time_s;
  run.user_time_s = r.user_time_s;
  run.system_time_s = r.system_time_s;
  run.exit_code = r.exit_code;
  run.signal = r.signal;
  return run;
}

// Job launchers whose command line makes the run an MPI job: the rank
// variables they set count (RPROF_MPI_JOB).
bool is_mpi_launcher(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string base = fs::path(argv.front()).filename().string();
  for (const char* name : {"mpirun", "mpiexec", "mpiexec.hydra", "orterun", "srun", "prun",
                           "aprun", "jsrun"}) {
    if (base == name) return true;
  }
  return false;
}

uint64_t monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string signal_phrase(int sig) {
  const char* name = strsignal(sig);
  return "signal " + std::to_string(sig) + (name != nullptr ? std::string(" (") + name + ")" : "");
}

// True while process pid runs (a zombie has ended).
bool running(long pid) {
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// What the launcher can say of how an image without a final raw profile
// ended.
std::string how_it_ended(const TablesImage& img, bool replaced_by_exec, const LaunchResult& r,
                         bool top, bool still_running) {
  if (still_running) {
    // A daemon, or a child the program did not wait for: it writes its own
    // raw profile when it ends, after this report.
    return "is still running (it outlived the program; its raw profile, written when it "
           "ends, replaces these regions in rprof merge)";
  }
  if (img.raw_state == runtime::RawState::kFailed) {
    return "could not write its raw profile (" + std::string(std::strerror(img.raw_errno)) +
           ")";
  }
  std::string how;
  if (replaced_by_exec) {
    how = "was replaced by exec()";
  } else if (top && r.signal != 0) {
    how = "was killed by " + signal_phrase(r.signal);
  } else if (top) {
    how = "ended by _exit() or exec() with status " + std::to_string(r.exit_code);
  } else {
    how = "ended by _exit(), exec() or a signal (SIGKILL included)";
  }
  if (img.raw_state == runtime::RawState::kExplicit) how += " after its last rprof_flush()";
  return how + " without writing its raw profile";
}

// The note for one image read from the shared tables: what was kept and what
// was still open.
std::string tables_note(const TablesImage& img, const std::string& how, const char* kept) {
  uint64_t regions = 0, calls = 0;
  for (const RawThread& t : img.raw.threads) {
    for (const RawNode& n : t.nodes) {
      if (n.calls > 0) ++regions;
      calls += n.calls;
    }
  }
  std::string note = "process " + std::to_string(img.raw.pid) + " " + how + ": " +
                     std::to_string(regions) + " region" + (regions == 1 ? "" : "s") + " (" +
                     std::to_string(calls) + " call" + (calls == 1 ? "" : "s") +
                     ") " + kept + " from the shared tables";
  if (!img.open.empty()) {
    note += "; " + std::to_string(img.open.size()) + " still open:";
    for (size_t i = 0; i < img.open.size(); ++i) {
      char secs[32];
      std::snprintf(secs, sizeof(secs), "%.2f", img.open[i].open_s);
      note += std::string(i ? "," : "") + " " + img.open[i].name + " (open " + secs + " s)";
    }
  }
  if (img.incomplete) {
    note += std::string("; the tables stopped growing (") +
            (img.grow_errno == EFBIG ? "their limit of " + std::to_string(kMaxTablesBytes >> 20) +
                                           " MiB"
             : img.grow_errno != 0   ? std::strerror(img.grow_errno)
                                     : "no memory") +
            (img.grow_errno == ENOMEM ? ", the address-space limit (ulimit -v)?" : "") +
            "): regions recorded after that are missing";
  }
  return note;
}

// Adds to raws what the shared tables hold that no raw profile does. Per
// process image: a final raw profile (written at exit or on a fatal signal)
// wins; an image without one (_exit, exec, an uncaught signal, SIGKILL, an
// explicit rprof_flush() followed by more work, a failed write) is read from
// its tables, and a stale explicit raw profile of that pid is dropped.
// What the tables gave is saved in raw_dir as a raw profile
// (rprof-raw.<host>.<pid>.tables<n>.json; a dropped stale one is renamed
// *.superseded), so `rprof merge` of the output directory reads what this
// run reported.
void add_shared_tables(const std::string& dir, const std::string& raw_dir,
                       const LaunchResult& launch, uint64_t now_ns,
                       std::vector<RawProfile>& raws, std::vector<std::string>& notes) {
  std::vector<TablesImage> images;
  const std::vector<std::string> files = list_shared_tables(dir);
  if (files.size() > kMaxTablesFiles) {
    notes.push_back("the app left " + std::to_string(files.size()) +
                    " shared region tables, above the limit of " +
                    std::to_string(kMaxTablesFiles) + "; only the first are read");
  }
  for (size_t i = 0; i < files.size() && i < kMaxTablesFiles; ++i) {
    const std::string& file = files[i];
    try {
      images.push_back(read_shared_tables(file, now_ns));
    } catch (const std::exception& e) {
      notes.push_back(std::string("skipped ") + e.what());
    }
  }
  std::set<int64_t> final_pids, table_pids;
  std::map<int64_t, int> images_per_pid;
  for (const TablesImage& img : images) {
    table_pids.insert(img.raw.pid);
    ++images_per_pid[img.raw.pid];
    if (img.raw_state == runtime::RawState::kFinal) final_pids.insert(img.raw.pid);
  }
  const std::string host = images.empty() ? "" : images.front().raw.host;
  std::vector<RawProfile> kept;
  for (RawProfile& raw : raws) {
    const bool stale = raw.host == host && table_pids.count(raw.pid) && !final_pids.count(raw.pid);
    if (!stale) {
      kept.push_back(std::move(raw));
    } else if (!raw.file.empty()) {
      std::error_code ec;
      fs::rename(raw.file, raw.file + ".superseded", ec);
    }
  }
  raws = std::move(kept);
  std::map<int64_t, int> seen;
  for (TablesImage& img : images) {
    const int nth = seen[img.raw.pid]++;
    if (img.raw_state == runtime::RawState::kFinal) continue;
    const bool replaced = nth + 1 < images_per_pid[img.raw.pid];
    const bool top = img.raw.pid == launch.pid;
    const bool still_running = !replaced && !top && running(img.raw.pid);
    const std::string how = how_it_ended(img, replaced, launch, top, still_running);
    notes.push_back(still_running ? tables_note(img, how, "so far kept")
                                  : tables_note(img, how, "kept"));
    // A still-running image's copy is marked: its own final raw profile,
    // when it comes, is the one rprof merge reads (run/merge_dirs.cpp).
    const std::string saved = raw_dir + "/rprof-raw." + img.raw.host + "." +
                              std::to_string(img.raw.pid) + ".tables" + std::to_string(nth) +
                              (still_running ? kRunningTablesSuffix : ".json");
    try {
      write_file_atomic(saved, raw_profile_to_json(img.raw));
    } catch (const std::exception& e) {
      notes.push_back(std::string("the regions recovered from the shared tables were not "
                                  "saved in raw/ (rprof merge will not see them): ") + e.what());
    }
    raws.push_back(std::move(img.raw));
  }
}

// Processes of the app that outlive it (a child still flushing after a
// signal to the whole group) get up to 1 s to finish, so their raw profile,
// not a half-written table, is what is read.
void wait_for_stragglers(const std::string& dir) {
  std::vector<long> pids;
  for (const std::string& file : list_shared_tables(dir)) {
    long pid = 0, seq = 0;
    if (std::sscanf(fs::path(file).filename().c_str(), "rprof-tables.%ld.%ld", &pid, &seq) == 2) {
      pids.push_back(pid);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (long pid : pids) {
    while (running(pid) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

}  // namespace

PassResult run_pass(const LaunchSpec& spec_in, const std::string& raw_dir,
                    const std::string& run_backend, const std::string& runtime_backend) {
  PassResult pass;
  LaunchSpec spec = spec_in;
  // The shared region tables (runtime/shared_tables.h), in a private
  // directory removed when the pass is over; without it (cannot be made)
  // only flushed raw profiles count.
  const PrivateDir tables("tables", raw_dir);
  if (!tables.path().empty()) spec.env[RPROF_ENV_TABLES_DIR] = tables.path();
  spec.env[RPROF_ENV_MPI_JOB] = is_mpi_launcher(spec.argv) ? "1" : "0";
  pass.launch = launch(spec);
  const uint64_t ended_ns = monotonic_now_ns();
  if (!tables.path().empty()) wait_for_stragglers(tables.path());
  // A missing or unreadable raw file becomes a note, never a lost report.
  std::vector<std::string> errors;
  std::vector<std::string> notes;
  if (!tables.warning().empty()) notes.push_back(tables.warning());
  std::vector<std::string> raw_files;
  try {
    raw_files = list_raw_profiles(raw_dir);
  } catch (const std::exception& e) {  // removed or made unreadable while the app ran
    notes.push_back(std::string("no raw profile could be read: ") + e.what());
  }
  std::vector<RawProfile> raws = read_raw_profiles(raw_files, &errors);
  for (const std::string& e : errors) notes.push_back("skipped " + e);
  if (!tables.path().empty()) {
    add_shared_tables(tables.path(), raw_dir, pass.launch, ended_ns, raws, notes);
  }
  pass.profile = aggregate(raws, run_info(spec.argv, run_backend, pass.launch));
  pass.profile.notes.insert(pass.profile.notes.begin(), notes.begin(), notes.end());
  for (const RawProfile& raw : raws) pass.counters_off |= raw.backend != runtime_backend;
  // Threads that called a marker (the runtime creates the main thread's
  // tables at start-up, before any marker).
  size_t threads = 0;
  for (const RawProfile& raw : raws) {
    for (const RawThread& t : raw.threads) threads += !t.nodes.empty() || !t.errors.empty();
  }
  if (raws.empty()) {
    pass.profile.notes.push_back(
        tables.path().empty()
            ? "no marker data: the program has no rprof markers, is not linked with "
              "the rprof runtime, or died before writing its profile; only the whole "
              "program was measured"
            : "no marker data: the program is not linked with the rprof runtime (or its "
              "markers were inactive); only the whole program was measured");
  } else if (threads == 0) {
    pass.profile.notes.push_back(
        "no marker data: the program ran with the rprof runtime but called no marker; "
        "only the whole program was measured");
  }
  return pass;
}

bool is_tables_copy(const std::string& file) {
  const std::string name = fs::path(file).filename().string();
  const size_t at = name.rfind(".tables");
  if (at == std::string::npos) return false;
  size_t i = at + 7;
  const size_t digits = i;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
  if (i == digits) return false;
  const std::string rest = name.substr(i);
  return rest == ".json" || rest == kRunningTablesSuffix;
}

void add_signal_note(Profile& p, const LaunchResult& r) {
  if (r.signal == 0) return;
  bool regions = false;
  for (const Region& reg : p.regions) regions |= !reg.is_program();
  p.notes.push_back("the app was killed by " + signal_phrase(r.signal) +
                    (regions ? "; regions it completed are kept, open ones are marked incomplete"
                             : "; no region was recorded"));
}

std::string outcome_phrase(const LaunchResult& r) {
  return r.signal != 0 ? "was killed by signal " + std::to_string(r.signal)
                       : "exited with status " + std::to_string(r.exit_code);
}

// A timed run stopped from outside (Ctrl-C, a batch system's SIGTERM, sent
// to rprof or to the program) means stop: no second, far slower run.
bool interrupted(const LaunchResult& r) {
  return r.stopped_by != 0 || r.signal == SIGINT || r.signal == SIGTERM ||
         r.signal == SIGHUP || r.signal == SIGQUIT || r.signal == SIGKILL;
}

// The signal that stopped a run from outside, 0 when none did.
int stop_signal(const LaunchResult& r) {
  if (r.stopped_by != 0) return r.stopped_by;
  return interrupted(r) ? r.signal : 0;
}

std::string signal_name(int sig) {
  const char* name = sigabbrev_np(sig);
  return std::to_string(sig) + (name != nullptr ? std::string(" (SIG") + name + ")" : "");
}

}  // namespace rprof
