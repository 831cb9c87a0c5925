// The machine file: JSON, format "rprof-machine", versioned, documented in
// docs/machine-file.md. Cached per CPU and thread count under
// $XDG_CACHE_HOME/rprof (default ~/.cache/rprof).
#ifndef RPROF_MACHINE_MACHINE_FILE_H_
#define RPROF_MACHINE_MACHINE_FILE_H_

#include <nlohmann/json.hpp>
#include <string>

#include "common/json_out.h"
#include "machine/machine.h"

namespace rprof {

// The machine file's one writer (streamed, indent 2, keys sorted), its text,
// and that text parsed (tests and tools that edit a machine file's DOM).
void write_machine_json(json_out::Writer& w, const Machine& m);
std::string machine_json_text(const Machine& m);
nlohmann::json machine_to_json(const Machine& m);
// Throws Error("<file>: not a valid rprof machine file: <why>; recalibrate
// with: rprof machine ...") on anything malformed, truncated or foreign.
Machine machine_from_json(const nlohmann::json& doc, const std::string& file);

Machine load_machine_file(const std::string& path);
void save_machine_file(const Machine& m, const std::string& path);

// The command that rewrites `path` with fresh measurements.
std::string recalibrate_command(const std::string& path);

// $XDG_CACHE_HOME/rprof, or $HOME/.cache/rprof.
std::string machine_cache_dir();
// <cache dir>/machine-<cpu key>-<threads>t.json
std::string machine_cache_path(const CpuId& cpu, int threads);
// vendor, family, model, stepping and a hash of the model name, file-name safe.
std::string cpu_key(const CpuId& cpu);

// Empty when a file measured on `measured` applies to `here`; otherwise why not.
std::string cpu_mismatch(const CpuId& measured, const CpuId& here);

}  // namespace rprof

#endif  // RPROF_MACHINE_MACHINE_FILE_H_
