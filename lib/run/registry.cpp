#include "run/registry.h"

#include <algorithm>

#include "common/error.h"

namespace rprof {

// Each backend's folder defines its factory.
std::unique_ptr<BackendDriver> make_time_driver();
std::unique_ptr<BackendDriver> make_sim_driver();
std::unique_ptr<BackendDriver> make_perf_driver();
std::unique_ptr<BackendDriver> make_papi_driver();
std::unique_ptr<BackendDriver> make_likwid_driver();
std::unique_ptr<BackendDriver> make_fake_driver();

namespace {

using Factory = std::unique_ptr<BackendDriver> (*)();

// The registry: the order in which --help, doctor and error messages list them.
constexpr Factory kDrivers[] = {
    make_time_driver,  // lib/backends/time
    make_sim_driver,   // lib/backends/sim
    make_perf_driver,  // lib/backends/perf
    make_papi_driver,  // lib/backends/papi
    make_likwid_driver,  // lib/backends/likwid
    make_fake_driver,  // lib/backends/fake (tests)
};

}  // namespace

std::vector<std::unique_ptr<BackendDriver>> all_drivers() {
  std::vector<std::unique_ptr<BackendDriver>> all;
  for (Factory make : kDrivers) all.push_back(make());
  return all;
}

std::vector<std::unique_ptr<BackendDriver>> listed_drivers() {
  std::vector<std::unique_ptr<BackendDriver>> listed;
  for (auto& d : all_drivers()) {
    if (d->listed()) listed.push_back(std::move(d));
  }
  return listed;
}

std::unique_ptr<BackendDriver> make_driver(const std::string& name) {
  for (auto& d : all_drivers()) {
    if (name == d->name()) return std::move(d);
  }
  std::vector<std::string> names = {"auto"};
  for (const auto& d : listed_drivers()) names.push_back(d->name());
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  throw Error("unknown backend '" + name + "' (use " + list + ")", 2);
}

DriverChoice choose_driver(const std::string& backend, const RunRequest& request) {
  if (backend != "auto") return {make_driver(backend), ""};
  std::vector<std::unique_ptr<BackendDriver>> drivers = all_drivers();
  std::stable_sort(drivers.begin(), drivers.end(),
                   [](const auto& a, const auto& b) { return a->rank() > b->rank(); });
  std::vector<AutoRefusal> refused;
  for (auto& d : drivers) {
    const std::optional<std::string> refusal = d->auto_refusal(request);
    if (!refusal) continue;
    if (!refusal->empty()) {
      refused.push_back({d->name(), *refusal});
      continue;
    }
    if (request.sim_only && std::string(d->name()) != "sim") {
      for (const AutoRefusal& r : refused) {
        if (r.backend == "sim") throw Error("--sim-only: " + r.reason, 2);
      }
    }
    std::string notice = d->auto_notice(refused);
    return {std::move(d), notice};
  }
  throw Error("--backend=auto: no backend can run here", 1);
}

std::string backend_help() {
  std::string text;
  for (const auto& d : listed_drivers()) {
    text += std::string(d->name()) + ": " + d->summary() + "; ";
  }
  return text + "auto (default): hardware counters where they work, else sim, else time "
                "(`rprof doctor` says which work here)";
}

}  // namespace rprof
