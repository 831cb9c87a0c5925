// The output directory of a run (`rprof -o DIR`), named in one place: the
// drivers that create its folders, the pass runner, `rprof merge` that reads
// them back, load_profile and the output writer all spell them from here.
//
//   DIR/profile.json, report.txt, roofline.svg, report.html, ...  (the writers)
//   DIR/raw/            raw profiles of the native (timed) run
//   DIR/raw/passN/      hardware event group N (1-based), when more than one
//   DIR/raw-sim/        raw profiles of the simulated (counted) run
//   DIR/raw-counted/    raw profiles of the inst backend's counted run (its
//                       timed run, of the plain loop versions, is in raw/)
//   DIR/sim/            the simulator's totals and per-function counts
#ifndef RPROF_PROFILE_RUN_LAYOUT_H_
#define RPROF_PROFILE_RUN_LAYOUT_H_

#include <cstddef>
#include <string>

namespace rprof::layout {

inline constexpr const char* kProfileJson = "profile.json";
inline constexpr const char* kRawDir = "raw";
inline constexpr const char* kPassPrefix = "pass";  // raw/pass1, raw/pass2, ...
inline constexpr const char* kSimRawDir = "raw-sim";
inline constexpr const char* kCountedRawDir = "raw-counted";
inline constexpr const char* kSimDir = "sim";
// --repeat N: the timed pass's runs after the first, raw-repeat/run2 ... runN.
inline constexpr const char* kRepeatDir = "raw-repeat";

// The raw folder of pass `index` (0-based) of `count` hardware event groups:
// "raw" for a single group, else "raw/pass<index + 1>".
inline std::string raw_pass_dir(size_t index, size_t count) {
  return count > 1 ? std::string(kRawDir) + "/" + kPassPrefix + std::to_string(index + 1)
                   : std::string(kRawDir);
}

}  // namespace rprof::layout

#endif  // RPROF_PROFILE_RUN_LAYOUT_H_
