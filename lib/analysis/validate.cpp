#include "analysis/validate.h"

#include "analysis/analysis.h"
#include "common/kinds.h"

namespace rprof {
namespace {

std::string path_of(const Region& r) {
  std::string s;
  for (const std::string& p : r.path) s += (s.empty() ? "" : " > ") + p;
  return s;
}

struct Relation {
  const char* text;
  double low, high, min_exact;
};

void compare(Validation& v, const std::string& region, const std::string& quantity,
             std::optional<double> hw, std::optional<double> exact, const Relation& rel,
             const std::string& missing_hw) {
  ValidationRow row;
  row.region = region;
  row.quantity = quantity;
  row.relation = rel.text;
  row.low = rel.low;
  row.high = rel.high;
  if (!hw) {
    row.why = missing_hw;
  } else if (!exact) {
    row.why = "no exact count";
  } else {
    row.hardware = *hw;
    row.exact = *exact;
    if (*exact < rel.min_exact) {
      row.why = "too small to compare (exact count below the comparison's floor)";
    } else {
      row.ratio = *hw / *exact;
      row.state = *row.ratio >= rel.low && *row.ratio <= rel.high ? ValidationState::kAgrees
                                                                    : ValidationState::kDisagrees;
    }
  }
  if (row.state == ValidationState::kAgrees) ++v.agreements;
  if (row.state == ValidationState::kDisagrees) ++v.disagreements;
  v.rows.push_back(std::move(row));
}

std::optional<double> flops(const Metrics& m) {
  if (!m.has_flops) return std::nullopt;
  return m.flops_total();
}

std::optional<double> read_bytes(const Metrics& m, Boundary b) {
  if (!m.at(b).measured) return std::nullopt;
  return m.at(b).read_bytes;
}

}  // namespace

Validation validate_profiles(const Profile& hardware, const Profile& exact) {
  static const Relation kFlops{"equal within 2%", 0.98, 1.02, 1e4};
  static const Relation kL2{"within 25%", 0.75, 1.25, 64e3};
  static const Relation kLlc{"from -25% to +50% (L2 prefetch)", 0.75, 1.5, 64e3};
  static const Relation kDram{"at least 90% of the model's, at most 2x (prefetch)", 0.9, 2.0,
                              64e3};
  Validation v;
  for (const Region& h : hardware.regions) {
    if (h.is_program()) continue;
    const Region* e = exact.find(h.path);
    const std::string name = path_of(h);
    const Metrics hm = region_metrics(h.counters);
    if (e == nullptr) {
      ValidationRow row;
      row.region = name;
      row.quantity = "region";
      row.why = "not in the exact profile";
      v.rows.push_back(row);
      continue;
    }
    const Metrics em = region_metrics(e->counters);
    compare(v, name, "FLOPs", flops(hm), flops(em), kFlops, "no FLOP event in this table");
    const std::pair<Boundary, const Relation*> at[] = {
        {Boundary::kL2, &kL2}, {Boundary::kLLC, &kLlc}, {Boundary::kDRAM, &kDram}};
    for (const auto& [b, rel] : at) {
      compare(v, name, std::string("bytes ") + boundary_name(b) + " read", read_bytes(hm, b),
              read_bytes(em, b), *rel, "not counted by this table");
    }
  }
  return v;
}

}  // namespace rprof
