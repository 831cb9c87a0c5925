#include "hwcounters/hw_metrics.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <vector>

#include "hwcounters/event_tables.h"

namespace rprof {
namespace {

struct GroupValues {
  std::map<std::string, uint64_t> raw;
  uint64_t enabled = 0, running = 0;
  bool has_times = false;
};

// "hw.g12.L1D.REPLACEMENT" -> group 12, key "L1D.REPLACEMENT".
bool split_name(const std::string& name, int* group, std::string* key) {
  if (name.rfind("hw.g", 0) != 0) return false;
  size_t i = 4, digits = 0;
  int g = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 6) {
    g = g * 10 + (name[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || i >= name.size() || name[i] != '.') return false;
  *group = g;
  *key = name.substr(i + 1);
  return !key->empty();
}

void add_note(Traffic& t, const std::string& note) {
  if (note.empty() || t.note.find(note) != std::string::npos) return;
  t.note = t.note.empty() ? note : t.note + "; " + note;
}

}  // namespace

ScaledCounts scale_hw_counters(const CounterMap& counters) {
  std::map<int, GroupValues> groups;
  for (const auto& [name, value] : counters) {
    int g = 0;
    std::string key;
    if (!split_name(name, &g, &key)) continue;
    GroupValues& gv = groups[g];
    if (key == "enabled_ns") {
      gv.enabled = value;
      gv.has_times = true;
    } else if (key == "running_ns") {
      gv.running = value;
      gv.has_times = true;
    } else {
      gv.raw[key] = value;
    }
  }
  ScaledCounts out;
  out.any = !groups.empty();
  for (const auto& [g, gv] : groups) {
    double scale = 1;
    if (gv.has_times && gv.enabled > 0) {
      if (gv.running == 0) {
        out.never_ran = true;  // counts unknown: leave them out
        out.min_ratio = 0;
        continue;
      }
      const double ratio = static_cast<double>(gv.running) / static_cast<double>(gv.enabled);
      out.min_ratio = std::min(out.min_ratio, ratio);
      scale = 1 / std::min(ratio, 1.0);
    }
    for (const auto& [key, raw] : gv.raw) {
      out.counts[key] += static_cast<double>(raw) * scale;
    }
  }
  return out;
}

bool hardware_translation(const CounterMap& counters, Metrics& m) {
  const ScaledCounts sc = scale_hw_counters(counters);
  if (!sc.any) return false;
  m.multiplex_ratio = sc.min_ratio;
  double fpins[2][4] = {}, flops_any = 0;
  bool has_fp = false, has_any = false;
  double pending = 0, pending_cycles = 0;
  bool has_pending = false, has_pending_cycles = false;
  std::optional<double> cycles, instructions;
  // Exact lines per boundary/direction, and the stand-ins for DRAM.
  double exact[4][2] = {}, approx[4][2] = {};
  bool has_exact[4][2] = {}, has_approx[4][2] = {};
  std::vector<std::string> exact_notes[4], approx_notes[4];
  std::set<std::string> exact_keys[4], approx_keys[4];  // the events behind each
  for (const auto& [key, n] : sc.counts) {
    const std::vector<EventRole>* roles = roles_of(key);
    if (roles == nullptr) continue;  // user-chosen event (--events): kept raw only
    for (const EventRole& r : *roles) {
      const int b = static_cast<int>(r.boundary), d = r.write ? 1 : 0;
      switch (r.kind) {
        case RoleKind::kCycles: cycles = cycles.value_or(0) + n; break;
        case RoleKind::kInstructions: instructions = instructions.value_or(0) + n; break;
        case RoleKind::kFpInstructions:
          fpins[static_cast<int>(r.precision)][static_cast<int>(r.width)] += n;
          has_fp = true;
          break;
        case RoleKind::kFlopsAny:
          flops_any += n;
          has_any = true;
          break;
        case RoleKind::kLines:
          exact[b][d] += n;
          has_exact[b][d] = true;
          exact_keys[b].insert(key);
          if (r.note) exact_notes[b].push_back(r.note);
          break;
        case RoleKind::kLinesApprox:
          approx[b][d] += n;
          has_approx[b][d] = true;
          approx_keys[b].insert(key);
          if (r.note) approx_notes[b].push_back(r.note);
          break;
        case RoleKind::kPendingMisses:
          pending += n;
          has_pending = true;
          break;
        case RoleKind::kPendingCycles:
          pending_cycles += n;
          has_pending_cycles = true;
          break;
      }
    }
  }
  if (has_fp && !m.has_flops) {
    m.has_flops = m.has_fp_instructions = true;
    for (int p = 0; p < 2; ++p) {
      for (int w = 0; w < 4; ++w) {
        m.fp_instructions[p][w] = fpins[p][w];
        m.flops[p][w] = fpins[p][w] * lanes(static_cast<Precision>(p), static_cast<Width>(w));
      }
    }
  } else if (has_any && !m.has_flops) {
    m.has_flops = m.precision_agnostic = true;
    m.flops_any = flops_any;
  }
  for (int b = 0; b < 4; ++b) {
    Traffic& t = m.traffic[static_cast<size_t>(b)];
    if (t.measured) continue;  // canonical counters win
    const bool use_exact = has_exact[b][0] || has_exact[b][1];
    const bool use_approx = !use_exact && (has_approx[b][0] || has_approx[b][1]);
    if (!use_exact && !use_approx) continue;
    t.measured = true;
    const double(&v)[2] = use_exact ? exact[b] : approx[b];
    const bool(&has)[2] = use_exact ? has_exact[b] : has_approx[b];
    t.read_bytes = v[0] * kLineBytes;
    t.write_bytes = v[1] * kLineBytes;
    for (const std::string& n : use_exact ? exact_notes[b] : approx_notes[b]) add_note(t, n);
    t.approximate = use_approx || !t.note.empty();
    t.stand_in = use_approx;
    std::string source = "hardware events";
    const char* sep = " ";
    for (const std::string& k : use_exact ? exact_keys[b] : approx_keys[b]) {
      source += sep + k;
      sep = ", ";
    }
    t.source = source;
    if (has[0] && !has[1] && t.note.empty()) {
      add_note(t, std::string("write-backs at ") + boundary_name(static_cast<Boundary>(b)) +
                      " not counted (no event on this CPU)");
      t.approximate = true;
    }
  }
  if (!m.cycles) m.cycles = cycles;
  if (!m.instructions) m.instructions = instructions;
  if (has_pending && has_pending_cycles && pending_cycles > 0) {
    m.miss_occupancy = pending / pending_cycles;
  }
  return true;
}

}  // namespace rprof
