#include "machine/recalibration.h"

#include <fmt/format.h>

#include <cmath>

namespace rprof {
namespace {

std::string threads_label(int t) { return fmt::format("({} thread{})", t, t == 1 ? "" : "s"); }

const CeilingSet* set_with(const Machine& m, int threads) {
  for (const CeilingSet& s : m.ceilings) {
    if (s.threads == threads) return &s;
  }
  return nullptr;
}

}  // namespace

int Recalibration::count(FigureChange::Kind k) const {
  int n = 0;
  for (const FigureChange& f : figures) n += f.kind == k;
  return n;
}

int Recalibration::within_aim(FigureChange::Kind k) const {
  int n = 0;
  for (const FigureChange& f : figures) n += f.kind == k && f.within_aim();
  return n;
}

const FigureChange* Recalibration::largest(FigureChange::Kind k) const {
  const FigureChange* out = nullptr;
  for (const FigureChange& f : figures) {
    if (f.kind == k && (out == nullptr || std::abs(f.change()) > std::abs(out->change()))) {
      out = &f;
    }
  }
  return out;
}

Recalibration compare_calibrations(const Machine& before, const Machine& after) {
  Recalibration r;
  const CpuId& a = before.cpu;
  const CpuId& b = after.cpu;
  if (a.vendor != b.vendor || a.family != b.family || a.model != b.model ||
      a.model_name != b.model_name) {
    r.why_not = fmt::format("the previous file is of another CPU ({})", a.model_name);
    return r;
  }
  if (before.logical_cpus != after.logical_cpus) {
    r.why_not = fmt::format("the previous file is of {} logical CPUs, not {}", before.logical_cpus,
                            after.logical_cpus);
    return r;
  }
  r.comparable = true;
  using Kind = FigureChange::Kind;
  for (const CeilingSet& s : after.ceilings) {
    const CeilingSet* old = set_with(before, s.threads);
    if (old == nullptr) continue;
    const std::string t = threads_label(s.threads);
    for (const PeakCeiling& p : s.peaks) {
      const PeakCeiling* o = old->peak(p.precision, p.width, p.mix);
      if (o == nullptr || !(o->gflops > 0)) continue;
      r.figures.push_back({Kind::kPeak,
                           fmt::format("peak {} {} {} {}", precision_name(p.precision),
                                       width_name(p.width), mix_key(p.mix), t),
                           "GFLOP/s", o->gflops, p.gflops});
    }
    for (const BandwidthCeiling& c : s.bandwidth) {
      // The same kernel on the same pages (a file without pages: any).
      const BandwidthCeiling* o = nullptr;
      for (const BandwidthCeiling& x : old->bandwidth) {
        if (x.boundary == c.boundary && x.mix == c.mix &&
            (x.pages == c.pages || x.pages.empty() || c.pages.empty())) {
          o = &x;
          break;
        }
      }
      if (o == nullptr || !(o->gbs > 0)) continue;
      const std::string pages = c.pages.empty() ? "" : ", " + c.pages + " pages";
      r.figures.push_back(
          {Kind::kBandwidth,
           fmt::format("{} {} ({}{})", boundary_name(c.boundary), stream_key(c.mix),
                       t.substr(1, t.size() - 2), pages),
           "GB/s", o->gbs, c.gbs});
    }
    for (const LatencyCeiling& l : s.latency) {
      for (const LatencyCeiling& o : old->latency) {
        if (o.level != l.level || !(o.ns > 0)) continue;
        r.figures.push_back(
            {Kind::kLatency, fmt::format("{} latency {}", l.level, t), "ns", o.ns, l.ns});
      }
    }
  }
  return r;
}

}  // namespace rprof
