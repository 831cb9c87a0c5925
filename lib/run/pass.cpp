#include "run/pass.h"

namespace rprof {
namespace {

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

}  // namespace

PassResult run_pass(const LaunchSpec& spec, const std::string& raw_dir,
                    const std::string& run_backend, const std::string& runtime_backend) {
  PassResult pass;
  pass.launch = launch(spec);
  // A missing or unreadable raw file becomes a note, never a lost report.
  std::vector<std::string> errors;
  const std::vector<RawProfile> raws = read_raw_profiles(list_raw_profiles(raw_dir), &errors);
  pass.profile = aggregate(raws, run_info(spec.argv, run_backend, pass.launch));
  std::vector<std::string> notes;
  for (const std::string& e : errors) notes.push_back("skipped " + e);
  pass.profile.notes.insert(pass.profile.notes.begin(), notes.begin(), notes.end());
  for (const RawProfile& raw : raws) pass.counters_off |= raw.backend != runtime_backend;
  if (raws.empty()) {
    pass.profile.notes.push_back(
        "no marker data: the program has no rprof markers, is not linked with "
        "the rprof runtime, or died before writing its profile; only the whole "
        "program was measured");
  }
  return pass;
}

void add_signal_note(Profile& p, const LaunchResult& r) {
  if (r.signal != 0) {
    p.notes.push_back("the app was killed by signal " + std::to_string(r.signal) +
                      "; regions it completed are kept, open ones are marked incomplete");
  }
}

std::string outcome_phrase(const LaunchResult& r) {
  return r.signal != 0 ? "was killed by signal " + std::to_string(r.signal)
                       : "exited with status " + std::to_string(r.exit_code);
}

}  // namespace rprof
