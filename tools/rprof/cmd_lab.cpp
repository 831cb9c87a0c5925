// rprof lab: the seeds' Roofline lab as a command. A fixed compute ceiling
// (1000 GFLOP/s unless --peak, or this machine's with --machine), one
// bandwidth and one intensity give the bound, the ridge and which roof limits.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "roofline/roofline.h"
#include "tools/rprof/cli.h"
#include "tools/rprof/commands.h"
#include "tools/rprof/machine_access.h"

namespace rprof {
namespace {

constexpr double kLabPeak = 1000;  // GFLOP/s, the lab's fixed compute ceiling

// Numbers as text, so "abc", "nan" and "-4" all reach one clear check.
double number(const std::string& text, const char* option, const char* unit) {
  size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || pos != text.size() || !std::isfinite(v) || v <= 0) {
    throw Error(fmt::format("{} must be a positive number of {}, got '{}'", option, unit, text),
                2);
  }
  return v;
}

std::string ratio(double fraction) {
  if (fraction >= 1) return "the peak";
  return fmt::format("{:.3g} % of peak, 1/{:.4g}", 100 * fraction, 1 / fraction);
}

// The compute ceiling and bandwidth the lab uses, and where each came from.
struct LabCeilings {
  double peak = kLabPeak, bandwidth = 0;
  std::string peak_source = "the lab's fixed compute ceiling";
  std::string bandwidth_source = "given";
};

// This machine's ceilings (--machine): the widest peak of a precision and the
// bandwidth roof at a boundary, for the nearest thread count.
LabCeilings machine_ceilings(const std::string& machine_file, int threads,
                             const std::string& precision, const std::string& boundary) {
  MachineChoice mc = find_machine(machine_file, /*may_calibrate=*/true);
  const Machine& m = *mc.machine;
  const CeilingSet* set = m.nearest(threads);
  const Precision prec = precision == "sp" ? Precision::kSP : Precision::kDP;
  const PeakCeiling* pk = set ? set->top_peak(prec) : nullptr;
  const BandwidthCeiling* bw = set ? set->roof_bandwidth(*parse_boundary(boundary)) : nullptr;
  if (!pk || !bw) throw Error(mc.file + ": no " + precision + " peak or no " + boundary +
                              " bandwidth in it; recalibrate with: rprof machine");
  LabCeilings c;
  c.peak = pk->gflops;
  c.bandwidth = bw->boundary_gbs();
  c.peak_source = fmt::format("this machine, {} {}-bit {}, {} thread{} ({})",
                              precision_name(prec), width_name(pk->width), mix_key(pk->mix),
                              set->threads, set->threads == 1 ? "" : "s", mc.file);
  c.bandwidth_source = fmt::format("this machine at {}, {} kernel, {} thread{}",
                                   boundary_name(bw->boundary), stream_key(bw->mix),
                                   set->threads, set->threads == 1 ? "" : "s");
  return c;
}

void print_lab_json(const LabPoint& r, const LabCeilings& c) {
  nlohmann::json j = {
      {"conventions", "FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes"},
      {"peak_gflops", r.peak_gflops},       {"bandwidth_gbs", r.bandwidth_gbs},
      {"intensity", r.intensity},           {"bandwidth_roof_gflops", r.bandwidth_roof},
      {"bound_gflops", r.bound},            {"ridge", r.ridge},
      {"limited_by", r.memory_limited ? "memory" : "compute"},
      {"fraction_of_peak", r.fraction_of_peak},
      {"peak_source", c.peak_source},       {"bandwidth_source", c.bandwidth_source}};
  std::cout << j.dump(2) << "\n";
}

void print_lab_text(const LabPoint& r, const LabCeilings& c) {
  const char* limit = r.memory_limited ? "memory bandwidth (I < I*)" : "compute (I >= I*)";
  std::cout << fmt::format(
      "Roofline lab (FMA = 2 FLOPs; GFLOP/s = 1e9 FLOP/s; GB = 1e9 bytes)\n"
      "  compute ceiling P      {:.6g} GFLOP/s ({})\n"
      "  bandwidth B            {:.6g} GB/s ({})\n"
      "  intensity I            {:.6g} FLOP/byte\n"
      "  bandwidth roof B*I     {:.6g} GFLOP/s\n"
      "  ridge I* = P/B         {:.6g} FLOP/byte\n"
      "  bound min(P, B*I)      {:.6g} GFLOP/s ({})\n"
      "  limited by             {}\n"
      "  what if                2*P -> {:.6g} GFLOP/s; 2*B -> {:.6g} GFLOP/s\n",
      r.peak_gflops, c.peak_source, r.bandwidth_gbs, c.bandwidth_source, r.intensity,
      r.bandwidth_roof, r.ridge, r.bound, ratio(r.fraction_of_peak), limit,
      attainable_gflops(2 * c.peak, c.bandwidth, r.intensity),
      attainable_gflops(c.peak, 2 * c.bandwidth, r.intensity));
}

}  // namespace

int cmd_lab(const Args& args) {
  CLI::App app(
      "The Roofline lab: bound = min(P, B * I), ridge I* = P / B. Units: GFLOP/s "
      "(FMA = 2 FLOPs), GB/s (GB = 1e9 bytes), FLOP/byte.",
      "rprof lab");
  std::string intensity, bandwidth, peak, machine_file, boundary = "dram", precision = "dp";
  bool use_machine = false, json = false;
  int threads = 1;
  app.add_option("-I,--intensity", intensity, "arithmetic intensity [FLOP/byte]")->required();
  app.add_option("-B,--bandwidth", bandwidth,
                 "bandwidth [GB/s] (default with --machine: this machine's, at --boundary)");
  app.add_option("-P,--peak", peak, "compute ceiling [GFLOP/s] (default 1000, the lab's fixed "
                                    "ceiling; with --machine: this machine's peak)");
  app.add_flag("--machine", use_machine, "use this machine's measured ceilings");
  app.add_option("--machine-file", machine_file, "machine file for --machine");
  app.add_option("--boundary", boundary, "with --machine: l1, l2, llc or dram (default dram)")
      ->check(CLI::IsMember({"l1", "l2", "llc", "dram"}));
  app.add_option("--precision", precision, "with --machine: dp or sp (default dp)")
      ->check(CLI::IsMember({"dp", "sp"}));
  app.add_option("--threads", threads, "with --machine: ceilings for this many threads");
  app.add_flag("--json", json, "print the result as JSON");
  // Values go through number() so that negative numbers are not taken for options.
  app.allow_extras(false);
  if (!parse_cli(app, args)) return 0;

  const double i = number(intensity, "--intensity", "FLOP/byte");
  if (threads < 1) throw Error("--threads must be at least 1, got " + std::to_string(threads), 2);
  LabCeilings c;
  if (use_machine || !machine_file.empty()) {
    c = machine_ceilings(machine_file, threads, precision, boundary);
  }
  if (!peak.empty()) {
    c.peak = number(peak, "--peak", "GFLOP/s");
    c.peak_source = "given";
  }
  if (!bandwidth.empty()) {
    c.bandwidth = number(bandwidth, "--bandwidth", "GB/s");
    c.bandwidth_source = "given";
  }
  if (c.bandwidth == 0) {
    throw Error("--bandwidth is required (or --machine to use this machine's)", 2);
  }
  const LabPoint r = lab_point(c.peak, c.bandwidth, i);
  // Every figure printed must be a number: inputs near the ends of a double's
  // range give an infinite or zero ridge, roof or ratio, refused as such.
  for (double v : {r.bandwidth_roof, r.ridge, r.bound, r.fraction_of_peak, 1 / r.fraction_of_peak,
                   2 * c.peak, 2 * c.bandwidth,
                   attainable_gflops(2 * c.peak, c.bandwidth, i),
                   attainable_gflops(c.peak, 2 * c.bandwidth, i)}) {
    if (!std::isfinite(v) || v <= 0) {
      throw Error(fmt::format("these values are beyond what the lab computes: peak {:g} GFLOP/s, "
                              "bandwidth {:g} GB/s and intensity {:g} FLOP/byte give a figure "
                              "that is not a finite positive number",
                              c.peak, c.bandwidth, i),
                  2);
    }
  }
  if (json) {
    print_lab_json(r, c);
  } else {
    print_lab_text(r, c);
  }
  return 0;
}

}  // namespace rprof
