#include "run/driver.h"

#include <filesystem>

#include "common/error.h"
#include "profile/run_layout.h"

namespace rprof {

namespace fs = std::filesystem;

void create_raw_dir(const std::string& dir) {
  const fs::path parent = fs::path(dir).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::exists(parent, ec)) create_raw_dir(parent.string());
  if (!fs::create_directory(dir, ec)) throw Error("cannot create " + dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
}

// The defaults of the driver interface.
std::optional<std::string> BackendDriver::auto_refusal(const RunRequest&) const {
  return std::nullopt;
}

std::string BackendDriver::auto_notice(const std::vector<AutoRefusal>&) const { return ""; }

void BackendDriver::prepare(RunPlan&, const std::string&) {}

void BackendDriver::before_pass(RunPlan& plan, size_t i, const std::string& out_dir) {
  create_raw_dir(out_dir + "/" + plan.passes[i].raw_dir);
}

Profile BackendDriver::merge_saved(SavedPasses saved) const {
  return merge_single_pass(std::move(saved), name());
}

Profile merge_single_pass(SavedPasses saved, const std::string& backend) {
  auto raw = saved.passes.find(layout::kRawDir);
  if (raw == saved.passes.end() || saved.passes.size() != 1) {
    std::string found;
    for (const auto& [rel, p] : saved.passes) found += (found.empty() ? "" : ", ") + rel + "/";
    throw Error("rprof merge: a run of the " + backend + " backend saves raw/ only, these hold " +
                found);
  }
  Profile p = std::move(raw->second);
  if (saved.inputs > 1) p.notes.push_back(saved.from() + "counts summed per region over their processes");
  return p;
}

bool BackendDriver::keep_going(const RunPlan&, const std::vector<PassResult>&) {
  return true;
}

}  // namespace rprof
