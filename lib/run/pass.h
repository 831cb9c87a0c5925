// One run of the program (a pass of a backend's plan): launch it with the
// handshake environment, read the raw profiles it left, and aggregate them
// with what the launcher measured. Every backend's runs go through here.
#ifndef RPROF_RUN_PASS_H_
#define RPROF_RUN_PASS_H_

#include <string>
#include <vector>

#include "profile/profile.h"
#include "run/launcher.h"

namespace rprof {

// The raw/ copy of a process image read from the shared tables while that
// process still ran (a daemon): rprof-raw.<host>.<pid>.tables<n>.running.json.
// Its own final raw profile, written later in the same folder, replaces it.
inline constexpr char kRunningTablesSuffix[] = ".running.json";

// True for a raw/ file the launcher saved from the shared tables
// (rprof-raw.<host>.<pid>.tables<n>.json, or the running form above).
bool is_tables_copy(const std::string& file);

struct PassResult {
  Profile profile;
  LaunchResult launch;
  // Some process's runtime counted with another backend than it was told
  // (it fell back to timing and said why on stderr).
  bool counters_off = false;
};

// Launches spec (its environment must hold the handshake: output directory
// raw_dir, runtime backend), then reads raw_dir. Unreadable raw files become
// notes ("skipped ..."), and a run without any a "no marker data" note.
// run_backend is the profile's run.backend.
PassResult run_pass(const LaunchSpec& spec, const std::string& raw_dir,
                    const std::string& run_backend, const std::string& runtime_backend);

// Appends the note for an app killed by a signal (none when it exited).
void add_signal_note(Profile& p, const LaunchResult& r);

// "exited with status N" / "was killed by signal N".
std::string outcome_phrase(const LaunchResult& r);

// A run stopped from outside (Ctrl-C, a batch system's SIGTERM, sent to rprof
// or to the program): a plan of several runs stops there.
bool interrupted(const LaunchResult& r);
// The signal that stopped a run from outside, 0 when none did.
int stop_signal(const LaunchResult& r);
// "15 (SIGTERM)".
std::string signal_name(int sig);

}  // namespace rprof

#endif  // RPROF_RUN_PASS_H_
