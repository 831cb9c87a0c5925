#include "run/merge_dirs.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/fs.h"
#include "profile/join.h"
#include "profile/merge_runs.h"
#include "profile/profile_json.h"
#include "run/pass.h"
#include "run/registry.h"
#include "profile/run_layout.h"

namespace rprof {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTimed = layout::kRawDir;
constexpr const char* kCounted = layout::kSimRawDir;

// What one input holds: raw profiles by pass (its folder relative to the
// output directory), the simulator's totals folder, and its profile.json.
struct Input {
  std::string arg;
  std::map<std::string, std::vector<std::string>> passes;
  std::string dir;           // the output directory ("" for raw profiles)
  std::string profile_json;  // "" when it has none
};

// The hardware backends' passes: raw/pass1 .. raw/passN, in number order.
std::vector<std::pair<int, std::string>> numbered_passes(const fs::path& raw) {
  std::vector<std::pair<int, std::string>> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(raw, ec)) {
    const std::string n = e.path().filename().string();
    const size_t p = std::char_traits<char>::length(layout::kPassPrefix);
    if (!e.is_directory(ec) || n.rfind(layout::kPassPrefix, 0) != 0 || n.size() == p ||
        n.find_first_not_of("0123456789", p) != std::string::npos || n.size() > p + 4) {
      continue;
    }
    out.emplace_back(std::stoi(n.substr(p)), std::string(kTimed) + "/" + n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Input read_input(const std::string& arg) {
  Input in;
  in.arg = arg;
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) {
    in.passes[kTimed] = {arg};
    return in;
  }
  if (!fs::is_directory(arg, ec)) {
    const std::string problem = not_regular_file(arg);  // a device or FIFO: never read
    if (!problem.empty()) {
      throw Error(arg + ": " + problem + ", not an rprof output directory or raw profile");
    }
    throw Error(arg + ": no such file or directory");
  }
  const fs::path dir(arg);
  if (std::vector<std::string> own = list_raw_profiles(arg); !own.empty()) {
    in.passes[kTimed] = std::move(own);  // a directory of raw profiles
    return in;
  }
  auto add = [&](const std::string& rel) {
    if (!fs::is_directory(dir / rel, ec)) return;
    std::vector<std::string> files = list_raw_profiles((dir / rel).string());
    if (!files.empty()) in.passes[rel] = std::move(files);
  };
  add(kTimed);
  for (const auto& [n, rel] : numbered_passes(dir / kTimed)) add(rel);
  add(kCounted);
  add(layout::kCountedRawDir);
  in.dir = arg;
  if (fs::is_regular_file(dir / layout::kProfileJson, ec)) {
    in.profile_json = (dir / layout::kProfileJson).string();
  }
  if (in.passes.empty()) {
    throw Error(arg + ": no raw profiles (rprof-raw.*.json) in it, its raw/ folder, raw/pass*/ "
                      "or raw-sim/");
  }
  return in;
}

std::string layout_of(const Input& in) {
  std::string s;
  for (const auto& [rel, files] : in.passes) s += (s.empty() ? "" : " + ") + rel + "/";
  return s;
}

// The run facts of the inputs' profile.json files: the first one's command
// and backend, the longest wall time (the inputs ran side by side), CPU times
// summed, the first failure's exit status or signal. An unreadable one is a
// note: the raw profiles are what is merged.
RunInfo run_facts(const std::vector<Input>& inputs, std::vector<std::string>* notes) {
  RunInfo run;
  bool first = true;
  for (const Input& in : inputs) {
    if (in.profile_json.empty()) continue;
    RunInfo r;
    try {
      r = read_profile_run(in.profile_json);
    } catch (const Error& e) {
      notes->push_back(std::string("run facts (command, wall time) not read: ") + e.what());
      continue;
    }
    if (first) {
      run.command = r.command;
      run.backend = r.backend;
      first = false;
    }
    run.wall_time_s = std::max(run.wall_time_s, r.wall_time_s);
    run.user_time_s += r.user_time_s;
    run.system_time_s += r.system_time_s;
    if (run.exit_code == 0 && run.signal == 0) {
      run.exit_code = r.exit_code;
      run.signal = r.signal;
    }
  }
  return run;
}

// One pass over every input: its raw profiles aggregated over processes.
Profile aggregate_pass(const std::vector<Input>& inputs, const std::string& rel,
                       const RunInfo& run) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (const Input& in : inputs) {
    for (const std::string& f : in.passes.at(rel)) {
      if (seen.insert(fs::weakly_canonical(f).string()).second) files.push_back(f);
    }
  }
  std::vector<RawProfile> raws = read_raw_profiles(files, nullptr);
  // A process's final raw profile replaces the copy its run saved from the
  // shared tables while it still ran (a daemon that outlived the program).
  std::set<std::pair<std::string, int64_t>> finals;
  for (const RawProfile& r : raws) {
    if (!is_tables_copy(r.file)) finals.insert({r.host, r.pid});
  }
  std::vector<RawProfile> kept;
  for (RawProfile& r : raws) {
    const bool running_copy = r.file.size() > std::strlen(kRunningTablesSuffix) &&
                              r.file.compare(r.file.size() - std::strlen(kRunningTablesSuffix),
                                             std::string::npos, kRunningTablesSuffix) == 0;
    if (!(running_copy && finals.count({r.host, r.pid}))) kept.push_back(std::move(r));
  }
  raws = std::move(kept);
  // Two final profiles from the same host and pid would double count one
  // process (the tables copies are the earlier images of an exec()).
  std::set<std::pair<std::string, int64_t>> processes;
  for (const RawProfile& r : raws) {
    if (!is_tables_copy(r.file) && !processes.insert({r.host, r.pid}).second) {
      throw Error(r.file + ": a second profile of process " + std::to_string(r.pid) +
                  " on " + r.host + "; merge each run's profiles once");
    }
  }
  return aggregate(raws, run);
}

// The inputs' passes (all have ref's) merged by the driver of the backend
// that counted them (BackendDriver::merge_saved, as its finish() merged them):
// the one profile.json names, else the one the counting pass's raw profiles
// name (raw-sim/ or raw/passN/ before raw/).
Profile merge_passes_of(const std::vector<Input>& inputs, const Input& ref, RunInfo run) {
  SavedPasses saved;
  saved.inputs = inputs.size();
  for (const Input& in : inputs) saved.dirs.push_back(in.dir);
  for (const auto& [rel, files] : ref.passes) saved.passes[rel] = aggregate_pass(inputs, rel, run);
  std::string backend = run.backend;
  for (const auto& [rel, p] : saved.passes) {
    if (backend.empty() || (run.backend.empty() && rel != kTimed)) backend = p.run.backend;
  }
  // Raw profiles given as files or folders of them: their own counts.
  if (std::all_of(inputs.begin(), inputs.end(), [](const Input& in) { return in.dir.empty(); })) {
    return merge_single_pass(std::move(saved), backend);
  }
  std::unique_ptr<BackendDriver> driver;
  try {
    driver = make_driver(backend);
  } catch (const Error&) {
    throw Error("rprof merge: " + ref.arg + " was counted by '" + backend +
                "', a backend this rprof does not have");
  }
  Profile p = driver->merge_saved(std::move(saved));
  p.run.backend = driver->name();
  return p;
}

}  // namespace

Profile merge_output_dirs(const std::vector<std::string>& args) {
  std::vector<Input> inputs;
  std::set<std::string> seen;
  for (const std::string& a : args) {
    std::error_code ec;
    if (seen.insert(fs::weakly_canonical(a, ec).string()).second) {
      inputs.push_back(read_input(a));
    }
  }
  if (inputs.empty()) throw Error("rprof merge: no inputs");
  // Every input must hold the same passes: a sim run's counts cannot be
  // summed with a timed run's nothing.
  const Input& ref = inputs.front();
  for (const Input& in : inputs) {
    for (const auto& [rel, files] : ref.passes) {
      if (!in.passes.count(rel)) {
        throw Error(in.arg + ": has " + layout_of(in) + " but " + ref.arg + " has " +
                    layout_of(ref) + " (no " + rel + "/ here); merge outputs of runs with the "
                    "same backend and options");
      }
    }
    for (const auto& [rel, files] : in.passes) {
      if (!ref.passes.count(rel)) {
        throw Error(ref.arg + ": has " + layout_of(ref) + " but " + in.arg + " has " +
                    layout_of(in) + " (no " + rel + "/ there); merge outputs of runs with "
                    "the same backend and options");
      }
    }
  }
  std::vector<std::string> fact_notes;
  RunInfo run = run_facts(inputs, &fact_notes);
  Profile p = merge_passes_of(inputs, ref, std::move(run));
  p.notes.insert(p.notes.begin(), fact_notes.begin(), fact_notes.end());
  return p;
}

}  // namespace rprof
