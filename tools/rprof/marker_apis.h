// Programs annotated with LIKWID's marker API or PAPI's high-level API: the
// launcher sees which of those libraries a program was built against (its
// DT_NEEDED entries) and, for the real liblikwid / libpapi, preloads rprof's
// drop-in (librprof-likwid / librprof-papi, lib/compat) so that those regions
// become rprof regions without rebuilding the program. LD_PRELOAD reaches the
// program under Valgrind (--backend=sim) too. The report says which API the
// regions came from.
#ifndef RPROF_TOOLS_RPROF_MARKER_APIS_H_
#define RPROF_TOOLS_RPROF_MARKER_APIS_H_

#include <string>
#include <vector>

#include "profile/profile.h"
#include <map>

namespace rprof {

struct MarkerApiUse {
  std::string api;      // "LIKWID marker API", "PAPI high-level API"
  std::string binary;   // the file that needs the library
  std::string library;  // its DT_NEEDED entry: "liblikwid.so.5", "librprof-papi.so.0"
  std::string shim;     // the drop-in to preload; empty when the binary links it itself
  std::string problem;  // set when the drop-in to preload is missing
};

// The marker APIs of `program` (resolved argv[0]). A launcher command such as
// `mpirun -np 2 ./app` does not use them itself: then the first other
// argument that is an ELF file using one is inspected instead.
std::vector<MarkerApiUse> detect_marker_apis(const std::string& program,
                                             const std::vector<std::string>& argv);

// Adds the drop-ins to LD_PRELOAD in `env`, the launch environment of every
// pass (before the user's own LD_PRELOAD), and librprof.so beside them when
// it is there (so its signal functions come before libc's).
void preload_marker_shims(const std::vector<MarkerApiUse>& uses,
                          std::map<std::string, std::string>& env);

// One note per API for the report (and a warning on stderr per missing drop-in).
void note_marker_apis(const std::vector<MarkerApiUse>& uses, Profile& p);

// The file name of the drop-in for a DT_NEEDED entry, and the API it serves:
// {"librprof-likwid.so", "LIKWID marker API"} for "liblikwid.so.5"; empty
// strings when the entry is neither LIKWID nor PAPI.
struct ShimFor {
  std::string shim_file;
  std::string api;
  bool is_shim = false;  // the entry is rprof's drop-in itself
};
ShimFor shim_for_library(const std::string& needed);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_MARKER_APIS_H_
