// rprof's cache model for a run of a program built with `rprof cc`, tool
// side: what the inst driver sets up, shared with the hardware drivers,
// which run the same model where the PMU counts no traffic at a boundary
// below L1 (docs/inst-backend.md, "The cache model beside hardware counters").
#ifndef RPROF_BACKENDS_INST_INST_MODEL_H_
#define RPROF_BACKENDS_INST_INST_MODEL_H_

#include <map>
#include <string>
#include <vector>

#include "backends/sim/sim_config.h"
#include "run/driver.h"

namespace rprof {

// The program built with rprof cc: the program itself, or the program a
// launcher runs (`rprof mpirun -np 4 ./app`); "" with *why (the program's
// own reason) when there is none.
// A plain program that loads a library built with rprof cc (inst_libraries)
// is one too: its runtime reads the library's counts.
std::string instrumented_program(const RunRequest& request, std::string* why);

// The ELF files of `program` built with rprof cc: itself, when it is, and
// the libraries it loads at start that are (inst_libraries).
std::vector<std::string> inst_objects(const std::string& program);

// The model's run: its environment (inst_sample.h: RPROF_INST_SAMPLE and
// RPROF_INST_CACHES) and, for the report, what it simulated.
struct InstModelRun {
  bool on = false;  // false: --sample off (env says so)
  bool sampled = false;
  // Counters a backend beside the model adds for it: the model's, and in
  // sampled mode the program's L1 bytes (the perf runtime's model.*).
  int counters_beside_hardware = 0;
  std::map<std::string, std::string> env;
  std::string note;  // "traffic below L1 (L2, LLC, DRAM): ..." for the profile's notes
  SimCaches caches;  // what it simulates (when on)
};

// --sample (request.cache_sample: "" = the default rate) and --sim-cache on
// the geometry of the sim backend (this machine's caches, the machine file's
// effective sizes, then --sim-cache). Throws Error (exit code 2) for a bad
// --sample or --sim-cache.
InstModelRun inst_model_run(const RunRequest& request);
// The same, with the geometry left out (plan time: validates the options).
void check_inst_model_options(const RunRequest& request);

// Whether `program` links librprof (its markers call it).
bool links_librprof(const std::string& program);

// Preloads librprof into `target` when it does not link it (a program
// without markers), for that program only (RPROF_PRELOAD_PROGRAM), ahead of
// the user's own preloads; env: the run's environment.
void preload_librprof_into(const std::string& target, std::map<std::string, std::string>& env);

}  // namespace rprof

#endif  // RPROF_BACKENDS_INST_INST_MODEL_H_
