#include "machine/ert_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <optional>
#include <utility>
#include <vector>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/limits.h"

namespace rprof {
namespace {

using nlohmann::json;

constexpr double kMaxGflops = 1e7;  // the machine file's limits
constexpr double kMaxGbs = 1e6;
constexpr size_t kMaxEntries = 64;

const char* kErtKernel =
    "ERT roofline.json (the Empirical Roofline Toolkit's kernels; width and operation mix "
    "not recorded)";

// The name of the llc boundary: its cache level ("L3"), or "LLC" when the
// last cache is L2 or none is known.
std::string llc_name(const Machine& m) {
  int top = 0;
  for (const CacheInfo& c : m.caches) top = std::max(top, c.level);
  return top >= 3 ? "L" + std::to_string(top) : "LLC";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::optional<Boundary> boundary_of_level(const std::string& name) {
  const std::string n = upper(name);
  if (n == "L1") return Boundary::kL1;
  if (n == "L2") return Boundary::kL2;
  if (n == "L3" || n == "L4" || n == "LLC") return Boundary::kLLC;
  if (n == "DRAM" || n == "HBM" || n == "MCDRAM" || n == "MEM" || n == "MEMORY") {
    return Boundary::kDRAM;
  }
  return std::nullopt;
}

std::optional<Precision> precision_of(const std::string& name) {
  const std::string n = upper(name);
  if (n == "FP64 GFLOPS" || n == "GFLOPS" || n == "DP GFLOPS") return Precision::kDP;
  if (n == "FP32 GFLOPS" || n == "SP GFLOPS") return Precision::kSP;
  return std::nullopt;
}

// The widest vector width this CPU runs: the width an imported peak is filed
// under (ERT does not record one; the roofline falls back to the widest peak
// for any width without its own).
Width widest_width(const CpuId& c) {
  if (c.avx512f) return Width::k512;
  if (c.avx) return Width::k256;
  if (c.sse2) return Width::k128;
  return Width::kScalar;
}

// data: [[name, value], ...] of `section`.
std::vector<std::pair<std::string, double>> entries(const JsonReader& r, const json& section,
                                                    double max, const char* unit) {
  const json& data = r.array(section, "data", kMaxEntries);
  if (!data.is_array()) r.fail_at("data", "expected an array of [name, value] pairs");
  const JsonReader rd = r.at("data");
  std::vector<std::pair<std::string, double>> out;
  for (size_t i = 0; i < data.size(); ++i) {
    const json& e = data[i];
    const JsonReader re = rd.at(i);
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
      re.fail("expected [name, value], got " + e.dump());
    }
    const double v = e[1].get<double>();
    if (!(v > 0) || v > max) {
      re.fail(fmt::format("{:g} {} is not a ceiling (above 0, at most {:g})", v, unit, max));
    }
    out.emplace_back(e[0].get<std::string>(), v);
  }
  return out;
}

// An integer metadata entry ("OPENMP_THREADS": 4, or ERT's list of them).
int metadata_int(const json& meta, const char* key) {
  if (!meta.is_object() || !meta.contains(key)) return 0;
  json v = meta[key];
  if (v.is_array() && !v.empty()) v = v.back();
  if (v.is_number_integer() && v.get<int64_t>() >= 1 && v.get<int64_t>() <= limits::kLogicalCpus) {
    return static_cast<int>(v.get<int64_t>());
  }
  return 0;
}

}  // namespace

json machine_to_ert(const Machine& m, int threads) {
  const CeilingSet* set = threads > 0 ? m.nearest(threads) : m.nearest(m.max_threads());
  if (set == nullptr) throw Error("the machine file has no ceilings to export");
  json gflops = json::array();
  for (Precision p : {Precision::kDP, Precision::kSP}) {
    const PeakCeiling* best = nullptr;
    for (const PeakCeiling& c : set->peaks) {
      if (c.precision == p && (best == nullptr || c.gflops > best->gflops)) best = &c;
    }
    if (best != nullptr) {
      gflops.push_back({p == Precision::kDP ? "FP64 GFLOPs" : "FP32 GFLOPs", best->gflops});
    }
  }
  json gbytes = json::array();
  for (Boundary b : {Boundary::kL1, Boundary::kL2, Boundary::kLLC, Boundary::kDRAM}) {
    const BandwidthCeiling* c = set->roof_bandwidth(b);
    if (c == nullptr) continue;
    const std::string name = b == Boundary::kLLC ? llc_name(m) : boundary_name(b);
    gbytes.push_back({name, c->boundary_gbs()});
  }
  const json meta = {{"OPENMP_THREADS", set->threads},
                     {"MPI_PROCS", 1},
                     {"rprof.cpu", m.cpu.model_name},
                     {"rprof.host", m.host},
                     {"rprof.machine_mode", m.mode},
                     {"rprof.created_unix_s", m.created_unix_s},
                     {"rprof.conventions",
                      "GFLOP/s with FMA = 2 FLOPs, the best peak of the precision over vector "
                      "widths and operation mixes; GB/s with GB = 1e9 bytes, the bytes that "
                      "cross the boundary (write-allocate counted below L1), the best of "
                      "rprof's load, copy and triad kernels; L1 = core<->L1, L2 = L1<->L2, "
                      "L3/LLC = L2<->LLC, DRAM = LLC<->DRAM"}};
  return {{"empirical",
           {{"metadata", meta},
            {"gflops", {{"data", gflops}, {"metadata", json::object()}}},
            {"gbytes", {{"data", gbytes}, {"metadata", json::object()}}}}},
          {"spec",
           {{"gflops", {{"data", json::array()}}}, {"gbytes", {{"data", json::array()}}}}}};
}

Machine machine_from_ert(const std::string& path, const Topology& topo, int threads) {
  const std::string text = read_input_file(path, limits::kMachineFileBytes, "ERT roofline.json");
  JsonLimits lim;
  lim.values = limits::kMachineJsonValues;
  return machine_from_ert_json(JsonReader(path, "ERT roofline.json").parse(text, lim), path, topo,
                               threads);
}

Machine machine_from_ert_json(const json& doc, const std::string& path, const Topology& topo,
                              int threads) {
  const JsonReader r(path, "ERT roofline.json");
  if (!doc.is_object()) r.fail("expected an object with \"empirical\"");
  const json& emp = r.object(doc, "empirical");
  const JsonReader re = r.at("empirical");
  const json& gflops_sec = re.object(emp, "gflops");
  const json& gbytes_sec = re.object(emp, "gbytes");
  // Readers refer to their parents: each one named, so it outlives its children.
  const JsonReader rf = re.at("gflops");
  const JsonReader rfd = rf.at("data");
  const JsonReader rg = re.at("gbytes");
  const JsonReader rgd = rg.at("data");
  const auto peaks = entries(rf, gflops_sec, kMaxGflops, "GFLOP/s");
  const auto bands = entries(rg, gbytes_sec, kMaxGbs, "GB/s");

  Machine m;
  m.mode = "ert";
  m.pages = "as ERT ran";
  m.rprof_version = "";
  m.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  m.cpu = topo.cpu;
  m.logical_cpus = topo.logical_cpus;
  for (const CacheLevel& c : topo.caches) {
    m.caches.push_back({c.level, c.size_bytes, 0, c.associativity, c.line_bytes, c.shared_cpus});
  }
  CeilingSet set;
  if (threads > limits::kLogicalCpus) {
    throw Error(fmt::format("--threads {}: at most {} threads", threads, limits::kLogicalCpus), 2);
  }
  std::string threads_from = "--threads";
  if (threads <= 0) {
    const json meta = emp.contains("metadata") ? emp["metadata"] : json::object();
    const int omp = std::max(metadata_int(meta, "OPENMP_THREADS"),
                             metadata_int(gbytes_sec.value("metadata", json::object()),
                                          "OPENMP_THREADS"));
    const int mpi = std::max(1, metadata_int(meta, "MPI_PROCS"));
    threads = omp > 0 ? static_cast<int>(std::min<int64_t>(int64_t{omp} * mpi,
                                                           limits::kLogicalCpus))
                      : 0;
    threads_from = "the file's OPENMP_THREADS x MPI_PROCS";
  }
  if (threads <= 0) {
    threads = topo.logical_cpus;
    threads_from = "this machine's CPU count (the file does not say; pass --threads)";
  }
  set.threads = threads;
  set.pinned = false;
  Provenance how;
  how.kernel = kErtKernel;
  how.threads = threads;
  for (size_t i = 0; i < peaks.size(); ++i) {
    const std::optional<Precision> p = precision_of(peaks[i].first);
    if (!p) {
      m.notes.push_back(fmt::format("{}: empirical.gflops.data[{}] \"{}\" skipped (rprof models "
                                    "FP64 and FP32 GFLOP/s)",
                                    path, i, peaks[i].first));
      continue;
    }
    for (const PeakCeiling& c : set.peaks) {
      if (c.precision == *p) {
        rfd.at(i).fail("a second " + std::string(precision_name(*p)) + " peak");
      }
    }
    PeakCeiling c;
    c.precision = *p;
    c.width = widest_width(m.cpu);
    c.mix = m.cpu.fma ? FlopMix::kFma : FlopMix::kAddMul;
    c.isa = "ert";
    c.gflops = peaks[i].second;
    c.how = how;
    c.how.best = c.how.median = c.how.worst = c.gflops;
    set.peaks.push_back(c);
  }
  if (set.peaks.empty()) rf.fail_at("data", "no FP64 or FP32 GFLOP/s ceiling");
  for (size_t i = 0; i < bands.size(); ++i) {
    const std::optional<Boundary> b = boundary_of_level(bands[i].first);
    const JsonReader rb = rgd.at(i);
    if (!b) {
      rb.fail("level \"" + bands[i].first +
              "\" is none of L1, L2, L3, L4, LLC, DRAM, HBM, MCDRAM, MEM");
    }
    for (const BandwidthCeiling& c : set.bandwidth) {
      if (c.boundary == *b) {
        rb.fail("a second level for the " + std::string(boundary_name(*b)) + " boundary");
      }
    }
    BandwidthCeiling c;
    c.boundary = *b;
    c.mix = StreamMix::kLoad;
    // ERT's kernels load and store the same lines: the bytes they count are
    // the bytes that cross the boundary, with and without write-allocate.
    c.gbs = c.traffic_gbs = bands[i].second;
    c.how = how;
    c.how.best = c.how.median = c.how.worst = c.gbs;
    set.bandwidth.push_back(c);
  }
  if (set.bandwidth.empty()) rg.fail_at("data", "no bandwidth ceiling");
  m.ceilings.push_back(std::move(set));
  m.notes.push_back(fmt::format(
      "ceilings imported from ERT's {} ({} thread{}, from {}); ERT records neither vector width "
      "nor operation mix: each peak is filed under this CPU's widest width and holds every "
      "region of its precision",
      path, threads, threads == 1 ? "" : "s", threads_from));
  return m;
}

}  // namespace rprof
