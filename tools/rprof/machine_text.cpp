#include "tools/rprof/machine_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cmath>
#include <ctime>
#include <map>

#include "machine/measure.h"
#include "report/table.h"

namespace rprof {

std::string binary_size(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.4g} {}", v, units[u]);
}

uint64_t parse_size(const std::string& text) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    return 0;
  }
  std::string unit = text.substr(pos);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, double> kUnits = {
      {"", 1},         {"b", 1},          {"kb", 1e3},           {"mb", 1e6},
      {"gb", 1e9},     {"kib", 1024.0},   {"mib", 1048576.0},    {"gib", 1073741824.0},
      {"k", 1024.0},   {"m", 1048576.0},  {"g", 1073741824.0}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end() || !(v > 0) || !std::isfinite(v)) return 0;
  return static_cast<uint64_t>(v * it->second);
}

namespace {

std::string spread(double s) { return fmt::format("±{:.0f}%", 100 * s); }

std::string utc_time(int64_t unix_s) {
  char when[64] = "?";
  const std::time_t t = static_cast<std::time_t>(unix_s);
  if (std::tm tm{}; gmtime_r(&t, &tm) != nullptr) {
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
  }
  return when;
}

void print_identity(const Machine& m, const std::string& file, std::ostream& out) {
  const std::string when = utc_time(m.created_unix_s);
  out << fmt::format("Machine file {} (rprof-machine v{}, {} calibration, {}{}{})\n", file,
                     m.schema_version, m.mode, when, m.host.empty() ? "" : " on ", m.host);
  const CpuId& c = m.cpu;
  std::string isa;
  for (auto [on, name] : {std::pair{c.sse2, "SSE2"}, {c.avx, "AVX"}, {c.avx2, "AVX2"},
                          {c.fma, "FMA"}, {c.avx512f, "AVX-512F"}}) {
    if (on) isa += std::string(isa.empty() ? "" : " ") + name;
  }
  out << fmt::format("CPU: {} ({} family {} model {} stepping {}), {} logical CPU{}; {}\n",
                     c.model_name, c.vendor, c.family, c.model, c.stepping, m.logical_cpus,
                     m.logical_cpus == 1 ? "" : "s", isa);
  if (!m.pages.empty()) out << "Memory pages: " << m.pages << "\n";
  if (m.clock_ghz > 0) {
    out << fmt::format("Core clock while measuring: {:.2f} GHz (dependent integer adds)\n",
                       m.clock_ghz);
  }
}

void print_caches(const Machine& m, std::ostream& out) {
  out << fmt::format(
      "\nCaches (per instance; effective = largest working set before load bandwidth "
      "drops in the sweep; used = what working sets and the sim backend take: the "
      "reported size unless the effective one differs by more than {:.0f}x):\n",
      kCacheContradictionFactor);
  TextTable caches(
      {"Level", "Reported", "Effective", "Used", "Ways", "Line [B]", "Shared by [CPUs]"});
  std::vector<std::string> why;
  for (const CacheInfo& k : m.caches) {
    const CacheSizeChoice used = chosen_cache_size(k);
    if (used.replaced) why.push_back(used.why);
    caches.add_row({fmt::format("L{}", k.level), binary_size(k.reported_bytes),
                    k.effective_bytes ? binary_size(k.effective_bytes) : "not found",
                    binary_size(used.bytes) + (used.replaced ? " (effective)" : " (reported)"),
                    fmt::format("{}", k.associativity), fmt::format("{}", k.line_bytes),
                    fmt::format("{}", k.shared_cpus)});
  }
  out << caches.render();
  for (const std::string& w : why) out << "  " << w << "\n";
}

void print_peaks(const Machine& m, std::ostream& out) {
  out << "\nPeak [GFLOP/s; FMA = 2 FLOPs; best of the repetitions, ± = spread]:\n";
  TextTable peaks({"Threads", "Precision", "Width [bit]", "ISA", "FMA", "add/mul",
                   "FMA + add"});
  for (const CeilingSet& s : m.ceilings) {
    for (Precision p : {Precision::kDP, Precision::kSP}) {
      for (Width w : kWidths) {
        if (!s.peak(p, w)) continue;
        std::vector<std::string> row = {fmt::format("{}", s.threads), precision_name(p),
                                        width_name(w), s.peak(p, w)->isa};
        for (FlopMix x : {FlopMix::kFma, FlopMix::kAddMul, FlopMix::kFmaAdd}) {
          const PeakCeiling* pc = s.peak(p, w, x);
          row.push_back(pc ? fmt::format("{:.1f} {}", pc->gflops, spread(pc->how.spread)) : "-");
        }
        peaks.add_row(std::move(row));
      }
    }
  }
  out << peaks.render();
}

void print_bandwidth(const Machine& m, std::ostream& out) {
  out << fmt::format(
      "\nBandwidth [GB/s, GB = 1e9 bytes; the kernel's loads + stores, no write-allocate "
      "read; (in brackets) with it; the best of the repetitions, at DRAM their median; "
      "± = spread (best - worst) / best, expected within {:.0f}% on a quiet machine]:\n",
      100 * kStableSpread);
  TextTable bw({"Threads", "Boundary", "Working set", "load", "copy", "triad"});
  for (const CeilingSet& s : m.ceilings) {
    for (Boundary b : kBoundaries) {
      const BandwidthCeiling* any = s.roof_bandwidth(b);
      if (!any) continue;
      std::vector<std::string> row = {fmt::format("{}", s.threads), boundary_name(b),
                                      binary_size(any->how.working_set_bytes)};
      for (StreamMix x : kStreamMixes) {
        const BandwidthCeiling* bc = s.bandwidth_of(b, x);
        if (!bc) {
          row.push_back("-");
        } else if (bc->traffic_gbs > bc->gbs * 1.001) {
          row.push_back(fmt::format("{:.1f} ({:.1f}) {}", bc->gbs, bc->traffic_gbs,
                                    spread(bc->how.spread)));
        } else {
          row.push_back(fmt::format("{:.1f} {}", bc->gbs, spread(bc->how.spread)));
        }
      }
      bw.add_row(std::move(row));
    }
  }
  out << bw.render();
  out << "Boundaries: L1 = core<->L1 (working set in L1), L2 = L1<->L2, LLC = L2<->LLC, "
         "DRAM = LLC<->DRAM.\n";
}

void print_latency(const Machine& m, std::ostream& out) {
  bool any_latency = false;
  for (const CeilingSet& s : m.ceilings) any_latency |= !s.latency.empty();
  if (!any_latency) return;
  out << "\nLoad-to-use latency [ns (core cycles)], random pointer chase:\n";
  TextTable lat({"Threads", "Level", "Working set", "Latency"});
  for (const CeilingSet& s : m.ceilings) {
    for (const LatencyCeiling& l : s.latency) {
      lat.add_row({fmt::format("{}", s.threads), l.level, binary_size(l.how.working_set_bytes),
                   l.cycles > 0 ? fmt::format("{:.2f} ns ({:.0f} cycles)", l.ns, l.cycles)
                                : fmt::format("{:.2f} ns", l.ns)});
    }
  }
  out << lat.render();
}

void print_sweeps(const Machine& m, std::ostream& out) {
  for (const Sweep& sw : m.sweeps) {
    if (sw.points.empty()) continue;
    out << fmt::format("\n{}: {} bandwidth by total working set, {} thread{} [GB/s]:\n",
                       sw.purpose == "sizes" ? "Requested sizes" : "Sweep", stream_key(sw.mix),
                       sw.threads, sw.threads == 1 ? "" : "s");
    std::string line;
    for (const SweepPoint& p : sw.points) {
      line += fmt::format("  {}: {:.1f}", binary_size(p.bytes), p.gbs);
      if (line.size() > 70) {
        out << line << "\n";
        line.clear();
      }
    }
    if (!line.empty()) out << line << "\n";
  }
}

}  // namespace

void print_machine(const Machine& m, const std::string& file, std::ostream& out) {
  print_identity(m, file, out);
  print_caches(m, out);
  print_peaks(m, out);
  print_bandwidth(m, out);
  print_latency(m, out);
  print_sweeps(m, out);
  if (!m.notes.empty()) {
    out << "\nNotes:\n";
    for (const std::string& n : m.notes) out << "  " << n << "\n";
  }
}

void print_recalibration(const Recalibration& r, const Machine& before, const Machine& after,
                         std::ostream& out) {
  out << "\nAgainst the previous calibration";
  if (!r.comparable) {
    out << ": not compared, " << r.why_not << "\n";
    return;
  }
  out << fmt::format(
      " ({}, {}) [how far each figure moved: new / previous - 1; the aim for two quick "
      "calibrations of one machine: bandwidths within {:.0f}%]:\n",
      utc_time(before.created_unix_s),
      before.mode == after.mode ? before.mode : before.mode + "; this one " + after.mode,
      100 * kRecalibrationSpread);
  using Kind = FigureChange::Kind;
  const auto moved = [](const FigureChange& f) {
    return fmt::format("{} {:.4g} -> {:.4g} {} ({:+.0f}%)", f.figure, f.before, f.after, f.unit,
                       100 * f.change());
  };
  for (auto [kind, name] : {std::pair{Kind::kBandwidth, "bandwidths"},
                            {Kind::kPeak, "peaks"},
                            {Kind::kLatency, "latencies"}}) {
    const int n = r.count(kind);
    if (n == 0) continue;
    std::vector<std::string> beyond;
    for (const FigureChange& f : r.figures) {
      if (f.kind == kind && !f.within_aim()) beyond.push_back(moved(f));
    }
    out << fmt::format("  {}: {} of {} within {:.0f}%, the largest move {}\n", name,
                       r.within_aim(kind), n, 100 * kRecalibrationSpread, moved(*r.largest(kind)));
    if (!beyond.empty()) {
      out << "    beyond it: " << fmt::format("{}", fmt::join(beyond, "; ")) << "\n";
    }
  }
  if (r.within_aim(Kind::kBandwidth) < r.count(Kind::kBandwidth)) {
    out << "  Every roof fraction moves with its roof: to compare runs, profile them against one "
           "machine file (rprof --machine FILE), or recalibrate when the machine is quiet\n";
  }
}

}  // namespace rprof
