// The roofline chart's ceilings, chosen once from the machine for the regions
// the chart draws (analysis.h: ChartCeilings).
#include <algorithm>
#include <set>

#include "analysis/analysis.h"

namespace rprof {
namespace {

void add_roof(std::vector<ChartCeilingRoof>& roofs, const ComputeRoof& r, bool applied,
              const CeilingSet& set) {
  for (ChartCeilingRoof& c : roofs) {
    if (c.roof.label() == r.label()) {
      c.applied |= applied;
      return;
    }
  }
  // The chart's set's figure (its thread count, which the chart states), not
  // the first region's: a region on 2 threads drawn under a roof measured on
  // 1 would sit above it.
  ChartCeilingRoof c{r, applied, std::nullopt};
  if (const PeakCeiling* pk = set.peak(r.precision, r.width, r.mix)) {
    c.roof.gflops = pk->gflops;
    c.how = pk->how;
  }
  roofs.push_back(c);
}

}  // namespace

ChartCeilings chart_ceilings(const Analysis& a) {
  ChartCeilings c;
  // The rooflines the regions are held against: every shown region with a
  // valid one, charted or not.
  std::vector<const RegionRoofline*> valid;
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const RegionAnalysis& ra = a.regions[i];
    if (!ra.metrics.has_flops || !a.shown[i]) continue;
    if (const RegionRoofline* rr = ra.valid_roofline()) valid.push_back(rr);
    if (ra.charted) {
      c.region_threads =
          std::max(c.region_threads, std::max<int>(1, static_cast<int>(ra.region->threads.size())));
    }
  }
  const Machine* m = a.machine.machine;
  const CeilingSet* set = m != nullptr ? m->nearest(c.region_threads) : nullptr;
  if (set == nullptr) return c;
  c.threads = set->threads;
  c.mode = m->mode;
  c.cpu_model = m->cpu.model_name;
  c.created_unix_s = m->created_unix_s;
  std::set<Boundary> used;
  for (const RegionRoofline* rr : valid) {
    add_roof(c.roofs, rr->roof, true, *set);
    add_roof(c.roofs, rr->full_roof, false, *set);
    for (const BoundaryRoof& b : rr->boundaries) used.insert(b.boundary);
  }
  if (c.roofs.empty()) {  // nothing to hold against: the machine's DP roof
    if (const PeakCeiling* pk = set->top_peak(Precision::kDP)) {
      add_roof(c.roofs, {pk->precision, pk->width, pk->mix, pk->gflops}, false, *set);
    }
  }
  std::sort(c.roofs.begin(), c.roofs.end(), [](const ChartCeilingRoof& x, const ChartCeilingRoof& y) {
    return x.roof.gflops > y.roof.gflops;
  });
  for (Boundary b : kBoundaries) {
    if (!used.empty() && used.count(b) == 0) continue;
    const BandwidthCeiling* bw = set->roof_bandwidth(b);
    if (bw == nullptr) continue;
    ChartCeilingBandwidth line{b, bw->boundary_gbs(), bw->mix, bw->how, 0, bw->mix};
    if (b != Boundary::kL1) {
      const BandwidthCeiling* stream = bw;
      for (const BandwidthCeiling& x : set->bandwidth) {
        if (x.boundary == b && x.gbs > stream->gbs) stream = &x;
      }
      line.stream_gbs = stream->gbs;
      line.stream_kernel = stream->mix;
    }
    c.bandwidths.push_back(line);
  }
  for (const ChartCeilingRoof& r : c.roofs) {
    if (!r.applied && !(c.roofs.size() == 1)) continue;
    for (const ChartCeilingBandwidth& b : c.bandwidths) {
      c.ridges.push_back({b.boundary, r.roof, r.roof.gflops / b.gbs});
    }
  }
  return c;
}

}  // namespace rprof
