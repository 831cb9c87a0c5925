// The one list of backend drivers (run/driver.h). `rprof` resolves
// --backend (auto included) here, `rprof doctor` probes every listed driver,
// and `rprof --help` describes them. The list is generated from each backend
// folder's rprof_backend() declaration (run/driver_table.h); a new backend is
// its folder under lib/backends/ and its name in that folder list.
#ifndef RPROF_RUN_REGISTRY_H_
#define RPROF_RUN_REGISTRY_H_

#include <memory>
#include <string>
#include <vector>

#include "run/driver.h"

namespace rprof {

// Every driver, in registry order (listed and test-only ones).
std::vector<std::unique_ptr<BackendDriver>> all_drivers();
// The drivers --help and doctor show, in registry order.
std::vector<std::unique_ptr<BackendDriver>> listed_drivers();
// The driver of that name; throws Error (exit code 2) naming the choices.
std::unique_ptr<BackendDriver> make_driver(const std::string& name);

struct DriverChoice {
  std::unique_ptr<BackendDriver> driver;
  std::string notice;  // for --backend=auto: what was chosen, and why
};

// --backend=NAME, or auto: the best backend that can count this run.
DriverChoice choose_driver(const std::string& backend, const RunRequest& request);

// The listed backends that count per function, as options for people
// ("--backend=sim"; "none in this build" when there is none).
std::string function_backends();

// The --backend option's description for --help.
std::string backend_help();

}  // namespace rprof

#endif  // RPROF_RUN_REGISTRY_H_
