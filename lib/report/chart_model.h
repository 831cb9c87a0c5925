// What the roofline chart shows, computed from a profile and the machine's
// ceilings, before any drawing: compute roofs, a bandwidth line per
// boundary, ridge points, and each region as one point per boundary (a
// hierarchical roofline: same GFLOP/s, one intensity per boundary).
// Units: FLOP/byte, GFLOP/s (1e9 FLOP/s, FMA = 2 FLOPs), GB/s (1e9 bytes/s).
#ifndef RPROF_REPORT_CHART_MODEL_H_
#define RPROF_REPORT_CHART_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "report/chart_scale.h"
#include "report/reporter.h"
#include "analysis/shown_regions.h"
#include "roofline/roofline.h"

namespace rprof {

struct ChartRoof {
  ComputeRoof roof;
  bool applied = false;  // some region is held against it
  std::string how;       // how it was measured (kernel, threads, repetitions)
};

struct ChartBandwidth {
  Boundary boundary = Boundary::kDRAM;
  double gbs = 0;  // bytes crossing the boundary per second, GB = 1e9 bytes
  StreamMix kernel = StreamMix::kLoad;
  std::string how;
};

struct ChartRidge {
  Boundary boundary = Boundary::kDRAM;
  std::string roof_label;  // the compute roof it meets
  double intensity = 0;    // FLOP/byte = roof / bandwidth
  double gflops = 0;       // the roof
};

struct ChartPoint {
  Boundary boundary = Boundary::kDRAM;
  double intensity = 0;  // FLOP/byte at this boundary
  double bytes = 0;      // crossing it, all threads
  bool approximate = false;
  bool limiting = false;  // the region's limiting boundary
  // A sampled boundary (the analysis' SampledBoundary): the 95% interval of
  // its intensity, FLOP/byte, drawn as a horizontal error bar; no upper end
  // (intensity_high_unbounded) when the interval's bytes reach 0.
  bool sampled = false;
  double intensity_low = 0, intensity_high = 0;
  bool intensity_high_unbounded = false;
  double ci95_bytes = 0, sampling_units = 0;
  // Far outside the other points (shown_span): -1 left of the x axis, +1
  // right of it, drawn at the plot's edge with its value; 0 on the axis.
  int off_scale = 0;
};

struct ChartRegion {
  int number = 0;  // 1-based, in profile order
  std::string path, name;
  // The name the chart writes: the name, told apart from another charted
  // region of the same name by its parent ("loop a.c:42 in matmul()"), then
  // by its parent's path ("... in dot_l1/dot()"), then by its number.
  std::string label;
  int threads = 1;
  double time_s = 0;
  double share = 0;  // of the run's time (0..1), sets the dot's area
  double flops = 0, gflops = 0;
  int gflops_off_scale = 0;  // as ChartPoint::off_scale, on the y axis
  std::vector<ChartPoint> points;  // ascending intensity
  // From the roofline, when there are ceilings.
  bool has_roofline = false;
  std::string roof_label;
  double roof_gflops = 0, bound = 0, fraction = 0;
  std::string limited_by;  // "compute" or "memory (DRAM)"
  std::optional<Verdict> verdict;
  std::vector<std::string> notes;
  // A function region: its symbol (demangled) and "file:line", for the
  // tooltip and the data attributes.
  bool is_function = false;
  std::string symbol, source, object;
  // A function no sample hit: time_s is an upper bound, gflops a lower
  // bound (the analysis' TimeBound); drawn hollow with an arrow up.
  bool lower_bound = false;
  // A function time of too few cpu-clock samples (the analysis' SampleStats):
  // drawn, never judged; the tooltip says so.
  bool uncertain = false;
  uint64_t samples = 0;
  // --repeat N: the rate over the timed runs, FLOPs / max time to FLOPs / min
  // time (GFLOP/s, FMA = 2 FLOPs), drawn as an error bar; runs == 0: none.
  size_t repeat_runs = 0;
  double gflops_low = 0, gflops_high = 0;
  double repeat_spread = 0;  // (max - min) / median time
};

struct ChartModel {
  std::string title;
  std::string subtitle;
  std::vector<std::string> conventions;  // footer lines
  std::vector<ChartRoof> roofs;          // highest first
  std::vector<ChartBandwidth> bandwidths;  // L1 first
  std::vector<ChartRidge> ridges;
  std::vector<ChartRegion> regions;      // those with FLOPs and bytes or a roofline
  std::vector<std::string> missing;      // what keeps the chart from being complete
  bool any_sampled = false;              // some point has an intensity interval
  int ceiling_threads = 0;               // 0 = no ceilings
  ShownRegions shown;                    // the regions the human reports show
  LogAxis x, y;                          // data domains; pixels set when drawing
  size_t off_scale = 0;                  // points (and rates) drawn at an edge
};

// How far (decades) a value lies from the others before it no longer sets
// the axis (shown_span): intensities, rates.
inline constexpr double kOffScaleGapX = 3, kOffScaleGapY = 4;

// The chart of an analysis; without a machine, points without roofs.
ChartModel build_chart_model(const Analysis& a);

// Radius in pixels of a region's dots: area grows with its share of time.
double dot_radius(double share);

// The boundary's colour on the chart and in the HTML report ("#rrggbb").
const char* boundary_colour(Boundary b);

}  // namespace rprof

#endif  // RPROF_REPORT_CHART_MODEL_H_
