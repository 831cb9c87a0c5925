#include "run/registry.h"

#include <algorithm>

#include "common/error.h"
#include "run/driver_table.h"

namespace rprof {

std::vector<std::unique_ptr<BackendDriver>> all_drivers() {
  std::vector<std::unique_ptr<BackendDriver>> all;
  for (size_t i = 0; i < kNumDriverFactories; ++i) all.push_back(kDriverFactories[i]());
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
      refused.push_back({d->name(), *refusal, d->source(), d->counts_without_native_run()});
      continue;
    }
    if (request.sim_only && !d->counts_without_native_run()) {
      for (const AutoRefusal& r : refused) {
        if (r.without_native_run) throw Error("--sim-only: " + r.reason, 2);
      }
    }
    std::string notice = d->auto_notice(refused);
    return {std::move(d), notice};
  }
  throw Error("--backend=auto: no backend can run here", 1);
}

std::string function_backends() {
  std::string list;
  for (const auto& d : listed_drivers()) {
    if (!d->counts_functions()) continue;
    list += (list.empty() ? "" : " or ") + std::string("--backend=") + d->name();
  }
  return list.empty() ? "none in this build" : list;
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
