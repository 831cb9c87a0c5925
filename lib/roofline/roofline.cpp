#include "roofline/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace rprof {
namespace {

bool usable(double v) { return std::isfinite(v) && v > 0; }

ComputeRoof roof_of(const PeakCeiling& p) { return {p.precision, p.width, p.mix, p.gflops}; }

}  // namespace

double attainable_gflops(double peak_gflops, double bandwidth_gbs, double intensity) {
  return std::min(peak_gflops, bandwidth_gbs * intensity);
}

double ridge_intensity(double peak_gflops, double bandwidth_gbs) {
  return peak_gflops / bandwidth_gbs;
}

LabPoint lab_point(double peak_gflops, double bandwidth_gbs, double intensity) {
  auto check = [](double v, const char* what, const char* unit) {
    if (!usable(v)) {
      throw Error(fmt::format("{} must be a positive number of {}, got {}", what, unit, v), 2);
    }
  };
  check(intensity, "--intensity", "FLOP/byte");
  check(bandwidth_gbs, "--bandwidth", "GB/s");
  check(peak_gflops, "--peak", "GFLOP/s");
  LabPoint p;
  p.peak_gflops = peak_gflops;
  p.bandwidth_gbs = bandwidth_gbs;
  p.intensity = intensity;
  p.bandwidth_roof = bandwidth_gbs * intensity;
  p.bound = attainable_gflops(peak_gflops, bandwidth_gbs, intensity);
  p.ridge = ridge_intensity(peak_gflops, bandwidth_gbs);
  p.memory_limited = intensity < p.ridge;
  p.fraction_of_peak = p.bound / peak_gflops;
  return p;
}

std::optional<double> fma_share(const Metrics& m, Precision p, Width w) {
  const int pi = static_cast<int>(p), wi = static_cast<int>(w);
  const double ins = m.fp_instructions[pi][wi];
  if (!m.has_fp_instructions || !(ins > 0)) return std::nullopt;
  const double ratio = m.flops[pi][wi] / (ins * lanes(p, w));
  return std::clamp(ratio - 1, 0.0, 1.0);
}

std::string ComputeRoof::label() const {
  const std::string w = width == Width::kScalar ? "scalar" : std::string(width_name(width)) + "-bit";
  return fmt::format("{} {} {}", precision_name(precision), w, mix_key(mix));
}

const BoundaryRoof* RegionRoofline::at(Boundary b) const {
  for (const BoundaryRoof& r : boundaries) {
    if (r.boundary == b) return &r;
  }
  return nullptr;
}

RegionRoofline region_roofline(const Metrics& m, double time_s, int threads,
                               const Machine& machine) {
  RegionRoofline r;
  r.threads = std::max(1, threads);
  r.time_s = time_s;
  if (!m.has_flops) {
    r.why_not = "no FLOP counts (a counting backend is needed)";
    return r;
  }
  r.flops = m.flops_total();
  if (!(r.flops > 0)) {
    // No arithmetic: intensity is 0 at every boundary and no roof applies.
    r.why_not = "no floating-point operations counted (0 FLOPs)";
    return r;
  }
  if (!(time_s > 0)) {
    r.why_not = "no elapsed time";
    return r;
  }
  r.gflops = r.flops / time_s / 1e9;
  const CeilingSet* set = machine.nearest(r.threads);
  if (set == nullptr) {
    r.why_not = "the machine file has no ceilings";
    return r;
  }
  r.ceiling_threads = set->threads;
  if (set->threads != r.threads) {
    r.notes.push_back(fmt::format(
        "ceilings measured with {} thread{} (the nearest to this region's {}); "
        "run rprof machine --threads {} for exact ones",
        set->threads, set->threads == 1 ? "" : "s", r.threads, r.threads));
  }
  // The compute roof follows the region's precision and vector width.
  Precision prec = m.dominant_precision().value_or(Precision::kSP);
  if (m.precision_agnostic) {
    r.notes.push_back("FLOPs without a precision split (AMD Zen 3/4 counters): held "
                      "against the single-precision roof, the higher one");
  }
  const PeakCeiling* full = set->top_peak(prec);
  if (full == nullptr) {
    r.why_not = fmt::format("the machine file has no {} peak", precision_name(prec));
    return r;
  }
  r.full_roof = roof_of(*full);
  const PeakCeiling* own = full;
  if (std::optional<Width> w = m.widest_width()) {
    if (const PeakCeiling* p = set->peak(prec, *w)) own = p;
  }
  // The operation mix follows the instructions executed: code without FMA
  // cannot reach the FMA roof, code of FMAs alone not the FMA + add one.
  // The share is read at the widest width the region used; the mix's peak
  // at the roof's width (the same one when the machine measured it).
  const Width own_width = own->width;
  const Width used_width = m.widest_width().value_or(own_width);
  r.fma_share = fma_share(m, prec, used_width);
  const PeakCeiling* mixed = nullptr;
  std::string why;
  if (r.fma_share && *r.fma_share <= kFmaShareTolerance) {
    mixed = set->peak(prec, own_width, FlopMix::kAddMul);
    why = "no FMA executed";
  } else if (r.fma_share && *r.fma_share >= 1 - kFmaShareTolerance) {
    mixed = set->peak(prec, own_width, FlopMix::kFma);
    why = "FMA only";
  } else if (r.fma_share) {
    why = fmt::format("{:.0f}% of FP instructions are FMA: the best measured mix",
                      100 * *r.fma_share);
  }
  if (mixed != nullptr) own = mixed;
  r.roof = roof_of(*own);
  if (r.fma_share) {
    r.roof_why = fmt::format(
        "{}: {} (FLOPs = {:.2f} x lanes x FP instructions at {} {}; FMA = 2 FLOPs per lane)",
        r.roof.label(), why, 1 + *r.fma_share, precision_name(prec),
        used_width == Width::kScalar ? "scalar" : std::string(width_name(used_width)) + "-bit");
  } else {
    r.roof_why = fmt::format(
        "{}: the best measured mix at the widest width used (no FP instruction counts "
        "to tell FMA from add/mul)",
        r.roof.label());
  }
  if (r.roof.gflops < r.full_roof.gflops && r.roof.width != r.full_roof.width) {
    r.notes.push_back(fmt::format(
        "held against the {} roof ({:.4g} GFLOP/s), the widest instructions it used; "
        "the full {} roof is {:.4g} GFLOP/s",
        r.roof.label(), r.roof.gflops, r.full_roof.label(), r.full_roof.gflops));
  }
  // A run that mixes the hardware's counts with rprof's cache model (an
  // instrumented program whose PMU counts no traffic at some boundary): each
  // boundary says where its number came from.
  bool with_model = false;
  for (Boundary b : kBoundaries) with_model |= m.at(b).model;
  if (with_model) {
    for (Boundary b : kBoundaries) {
      const Traffic& t = m.at(b);
      if (t.source.empty()) continue;
      std::string line = fmt::format("{} bytes: {}", boundary_name(b), t.source);
      if (t.model && t.sampled && t.measured) {
        line += fmt::format(", 95% interval +/- {:.4g} bytes", t.ci95_bytes);
      }
      if (!t.measured && !t.note.empty()) line += ": " + t.note;
      r.notes.push_back(line);
    }
  }
  // Every boundary with measured traffic and a ceiling.
  double lowest = 0;
  for (Boundary b : kBoundaries) {
    const Traffic& t = m.at(b);
    if (!t.measured) continue;
    if (t.bytes() <= 0) {
      r.notes.push_back(fmt::format("no bytes crossed {}: no bandwidth bound there",
                                    boundary_name(b)));
      continue;
    }
    const MixRoof mix = set->roof_bandwidth(b, t.write_bytes / t.bytes());
    const BandwidthCeiling* bw = mix.kernel();
    if (bw == nullptr) {
      r.notes.push_back(fmt::format("the machine file has no {} bandwidth", boundary_name(b)));
      continue;
    }
    BoundaryRoof br;
    br.boundary = b;
    br.bytes = t.bytes();
    br.approximate = t.approximate;
    br.source = t.source;
    br.intensity = r.flops / br.bytes;
    br.bandwidth_gbs = mix.gbs;
    br.kernel = bw->mix;
    br.pages = bw->pages;
    br.write_share = mix.write_share;
    br.read_limited = mix.read_limited;
    br.best_gbs = mix.best->boundary_gbs();
    br.best_kernel = mix.best->mix;
    br.bandwidth_roof = br.bandwidth_gbs * br.intensity;
    br.bound = attainable_gflops(r.roof.gflops, br.bandwidth_gbs, br.intensity);
    br.ridge = ridge_intensity(r.roof.gflops, br.bandwidth_gbs);
    br.memory_limited = br.intensity < br.ridge;
    br.fraction = r.gflops / br.bound;
    if (!r.limiting || br.bandwidth_roof < lowest) {
      r.limiting = b;
      lowest = br.bandwidth_roof;
    }
    r.boundaries.push_back(br);
  }
  r.compute_limited = !r.limiting || r.roof.gflops <= lowest;
  r.bound = r.limiting ? std::min(r.roof.gflops, lowest) : r.roof.gflops;
  r.fraction = r.gflops / r.bound;
  if (r.fraction > 1.05) {
    r.notes.push_back(fmt::format(
        "measured {:.4g} GFLOP/s is above the bound ({:.4g}): check units, the FLOP "
        "convention, the traffic counted and whether these ceilings apply",
        r.gflops, r.bound));
  }
  r.valid = true;
  return r;
}

}  // namespace rprof
