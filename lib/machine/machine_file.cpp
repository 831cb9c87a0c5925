#include "machine/machine_file.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"
#include "common/limits.h"

namespace rprof {
namespace {

using nlohmann::json;

const char* kFormat = "rprof-machine";

// The checks of every machine file read, and the advice its errors end with.
JsonReader machine_reader(const std::string& file) {
  return JsonReader(file, "rprof machine file", "; recalibrate with: " + recalibrate_command(file));
}

// Plausible ceilings for one machine: a figure beyond these comes from a
// corrupt or hand-edited file and is refused before any arithmetic (a chart
// axis up to 1e308 GFLOP/s would never end).
constexpr double kMaxGflops = 1e7;     // 10 PFLOP/s
constexpr double kMaxGbs = 1e6;        // 1 PB/s
constexpr double kMaxLatencyNs = 1e6;  // 1 ms

double positive(const JsonReader& r, const json& obj, const char* key, double max,
                const char* unit) {
  const double v = r.get<double>(obj, key);
  if (v <= 0) r.fail_at(key, fmt::format("{:g} {} must be > 0", v, unit));
  if (v > max) {
    r.fail_at(key, fmt::format("{:g} {} is beyond any machine (at most {:g} {})", v, unit, max,
                               unit));
  }
  return v;
}

const json& array_of(const JsonReader& r, const json& obj, const char* key, size_t max) {
  return r.array(obj, key, max);
}

json provenance_json(const Provenance& p) {
  return {{"kernel", p.kernel},
          {"working_set_bytes", p.working_set_bytes},
          {"threads", p.threads},
          {"repetitions", p.repetitions},
          {"seconds_per_repetition", p.seconds_per_rep},
          {"best", p.best},
          {"median", p.median},
          {"worst", p.worst},
          {"spread", p.spread},
          {"disturbed_repetitions", p.disturbed}};
}

Provenance provenance_from(const json& j, const JsonReader& r) {
  Provenance p;
  p.kernel = r.get<std::string>(j, "kernel");
  p.working_set_bytes = r.get<uint64_t>(j, "working_set_bytes");
  p.threads = static_cast<int>(r.in_range(j, "threads", 0, limits::kLogicalCpus));
  p.repetitions = static_cast<int>(r.in_range(j, "repetitions", 0, 1 << 20));
  p.seconds_per_rep =
      j.contains("seconds_per_repetition") ? r.nonneg(j, "seconds_per_repetition") : 0;
  p.best = r.nonneg(j, "best");
  p.median = r.nonneg(j, "median");
  p.worst = r.nonneg(j, "worst");
  p.spread = r.get<double>(j, "spread");
  p.disturbed = r.get_or<int>(j, "disturbed_repetitions", 0);
  return p;
}

template <class E>
E parse_enum(const std::string& s, const std::string& what, const JsonReader& r,
             const std::function<bool(const std::string&, E&)>& parse) {
  E e{};
  if (!parse(s, e)) r.fail("unknown " + what + " '" + s + "'");
  return e;
}

bool parse_precision(const std::string& s, Precision& p) {
  if (s == "dp") p = Precision::kDP;
  else if (s == "sp") p = Precision::kSP;
  else return false;
  return true;
}

bool parse_width(const std::string& s, Width& w) {
  for (Width x : kWidths) {
    if (s == width_name(x)) {
      w = x;
      return true;
    }
  }
  return false;
}

bool parse_boundary_key(const std::string& s, Boundary& b) {
  auto r = parse_boundary(s);
  if (r) b = *r;
  return r.has_value();
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace

std::string recalibrate_command(const std::string& path) {
  return "rprof machine --output " + path;
}

json machine_to_json(const Machine& m) {
  json doc;
  doc["format"] = kFormat;
  doc["schema_version"] = m.schema_version;
  doc["conventions"] = {
      {"flops", "GFLOP/s = 1e9 FLOP/s; an FMA counts 2 FLOPs per lane"},
      {"bandwidth",
       "GB/s, GB = 1e9 bytes. gbs counts the kernel's loads and stores only "
       "(no write-allocate read, as likwid-bench and STREAM); traffic_gbs adds "
       "the write-allocate read of every stored line"},
      {"boundaries",
       "l1 = core<->L1 (working set in L1), l2 = L1<->L2, llc = L2<->LLC, "
       "dram = LLC<->DRAM; the roofline uses gbs at l1 and traffic_gbs below"},
      {"ceiling", "best of the repetitions; spread = (best - worst) / best"},
      {"latency", "ns per dependent load through a random cyclic permutation of lines"},
      {"threads", "each ceiling set was measured with this many threads pinned one per CPU"},
  };
  doc["mode"] = m.mode;
  doc["pages"] = m.pages;
  doc["rprof_version"] = m.rprof_version;
  doc["created_unix_s"] = m.created_unix_s;
  doc["host"] = m.host;
  const CpuId& c = m.cpu;
  doc["cpu"] = {{"vendor", c.vendor},         {"family", c.family},
                {"model", c.model},           {"stepping", c.stepping},
                {"model_name", c.model_name}, {"key", cpu_key(c)},
                {"isa",
                 {{"sse2", c.sse2},
                  {"avx", c.avx},
                  {"avx2", c.avx2},
                  {"fma", c.fma},
                  {"avx512f", c.avx512f}}}};
  doc["logical_cpus"] = m.logical_cpus;
  doc["clock_ghz"] = m.clock_ghz;
  json caches = json::array();
  for (const CacheInfo& k : m.caches) {
    caches.push_back({{"level", k.level},
                      {"reported_bytes", k.reported_bytes},
                      {"effective_bytes", k.effective_bytes},
                      {"associativity", k.associativity},
                      {"line_bytes", k.line_bytes},
                      {"shared_cpus", k.shared_cpus}});
  }
  doc["caches"] = std::move(caches);
  json sets = json::array();
  for (const CeilingSet& s : m.ceilings) {
    json peaks = json::array(), bw = json::array(), lat = json::array();
    for (const PeakCeiling& p : s.peaks) {
      peaks.push_back({{"precision", p.precision == Precision::kDP ? "dp" : "sp"},
                       {"width", width_name(p.width)},
                       {"mix", mix_key(p.mix)},
                       {"isa", p.isa},
                       {"gflops", p.gflops},
                       {"provenance", provenance_json(p.how)}});
    }
    for (const BandwidthCeiling& b : s.bandwidth) {
      bw.push_back({{"boundary", boundary_key(b.boundary)},
                    {"kernel", stream_key(b.mix)},
                    {"gbs", b.gbs},
                    {"traffic_gbs", b.traffic_gbs},
                    {"provenance", provenance_json(b.how)}});
    }
    for (const LatencyCeiling& l : s.latency) {
      lat.push_back({{"level", l.level},
                     {"ns", l.ns},
                     {"cycles", l.cycles},
                     {"provenance", provenance_json(l.how)}});
    }
    sets.push_back({{"threads", s.threads},
                    {"cpus", s.cpus},
                    {"pinned", s.pinned},
                    {"peaks", std::move(peaks)},
                    {"bandwidth", std::move(bw)},
                    {"latency", std::move(lat)}});
  }
  doc["ceilings"] = std::move(sets);
  json sweeps = json::array();
  for (const Sweep& sw : m.sweeps) {
    json pts = json::array();
    for (const SweepPoint& p : sw.points) {
      pts.push_back({{"bytes", p.bytes}, {"gbs", p.gbs}, {"spread", p.spread}});
    }
    sweeps.push_back(
        {{"kernel", stream_key(sw.mix)}, {"threads", sw.threads}, {"purpose", sw.purpose},
         {"points", std::move(pts)}});
  }
  doc["sweeps"] = std::move(sweeps);
  doc["notes"] = m.notes;
  return doc;
}

Machine machine_from_json(const json& doc, const std::string& file) {
  const JsonReader this_reader = machine_reader(file);
  const JsonReader& r = this_reader;
  static const json kNoEntries = json::array();
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kFormat) {
    r.fail("missing \"format\": \"rprof-machine\" (a foreign file?)");
  }
  Machine m;
  m.schema_version = r.get<int>(doc, "schema_version");
  if (m.schema_version != kMachineSchemaVersion) {
    r.fail("schema_version " + std::to_string(m.schema_version) +
                  " is not supported (this rprof reads version " +
                  std::to_string(kMachineSchemaVersion) + ")");
  }
  m.mode = r.get<std::string>(doc, "mode");
  m.pages = r.get_or<std::string>(doc, "pages", "");
  m.rprof_version = r.get_or<std::string>(doc, "rprof_version", "");
  m.created_unix_s = r.get<int64_t>(doc, "created_unix_s");
  m.host = r.get_or<std::string>(doc, "host", "");
  const json& c = r.object(doc, "cpu");
  m.cpu.vendor = r.get<std::string>(c, "vendor");
  m.cpu.family = r.get<int>(c, "family");
  m.cpu.model = r.get<int>(c, "model");
  m.cpu.stepping = r.get<int>(c, "stepping");
  m.cpu.model_name = r.get<std::string>(c, "model_name");
  const json& isa = r.get<json>(c, "isa");
  m.cpu.sse2 = r.get_or<bool>(isa, "sse2", false);
  m.cpu.avx = r.get_or<bool>(isa, "avx", false);
  m.cpu.avx2 = r.get_or<bool>(isa, "avx2", false);
  m.cpu.fma = r.get_or<bool>(isa, "fma", false);
  m.cpu.avx512f = r.get_or<bool>(isa, "avx512f", false);
  m.logical_cpus = static_cast<int>(r.in_range(doc, "logical_cpus", 1, limits::kLogicalCpus));
  m.clock_ghz = doc.contains("clock_ghz") ? r.nonneg(doc, "clock_ghz") : 0;
  const json& caches = array_of(r, doc, "caches", 16);
  const JsonReader caches_reader = this_reader.at("caches");
  for (size_t i = 0; i < caches.size(); ++i) {
    const json& k = caches[i];
    const JsonReader e = caches_reader.at(i);
    CacheInfo ci;
    ci.level = e.get<int>(k, "level");
    ci.reported_bytes = e.get<uint64_t>(k, "reported_bytes");
    ci.effective_bytes = e.get<uint64_t>(k, "effective_bytes");
    ci.associativity = e.get_or<int>(k, "associativity", 0);
    ci.line_bytes = e.get_or<int>(k, "line_bytes", 64);
    ci.shared_cpus = e.get_or<int>(k, "shared_cpus", 1);
    m.caches.push_back(ci);
  }
  const json& ceilings = array_of(r, doc, "ceilings", limits::kCeilingSets);
  const JsonReader rcs = r.at("ceilings");
  for (size_t si = 0; si < ceilings.size(); ++si) {
    const json& s = ceilings[si];
    const JsonReader rs = rcs.at(si);
    CeilingSet set;
    set.threads = static_cast<int>(rs.in_range(s, "threads", 1, limits::kLogicalCpus));
    if (s.contains("cpus")) rs.array(s, "cpus", limits::kLogicalCpus);
    set.cpus = rs.get_or<std::vector<int>>(s, "cpus", {});
    set.pinned = rs.get_or<bool>(s, "pinned", true);
    const json& peaks = array_of(rs, s, "peaks", limits::kCeilings);
    const JsonReader peaks_reader = rs.at("peaks");
    for (size_t pi = 0; pi < peaks.size(); ++pi) {
      const json& p = peaks[pi];
      const JsonReader e = peaks_reader.at(pi);
      PeakCeiling pc;
      pc.precision = parse_enum<Precision>(e.get<std::string>(p, "precision"), "precision",
                                           e, parse_precision);
      pc.width = parse_enum<Width>(e.get<std::string>(p, "width"), "width", e,
                                   parse_width);
      pc.mix = parse_enum<FlopMix>(e.get<std::string>(p, "mix"), "mix", e, parse_mix);
      pc.isa = e.get<std::string>(p, "isa");
      pc.gflops = positive(e, p, "gflops", kMaxGflops, "GFLOP/s");
      pc.how = provenance_from(e.object(p, "provenance"), e.at("provenance"));
      set.peaks.push_back(pc);
    }
    const json& bandwidth = array_of(rs, s, "bandwidth", limits::kCeilings);
    const JsonReader bandwidth_reader = rs.at("bandwidth");
    for (size_t bi = 0; bi < bandwidth.size(); ++bi) {
      const json& b = bandwidth[bi];
      const JsonReader e = bandwidth_reader.at(bi);
      BandwidthCeiling bc;
      bc.boundary = parse_enum<Boundary>(e.get<std::string>(b, "boundary"), "boundary",
                                         e, parse_boundary_key);
      bc.mix = parse_enum<StreamMix>(e.get<std::string>(b, "kernel"), "kernel", e,
                                     parse_stream_mix);
      bc.gbs = positive(e, b, "gbs", kMaxGbs, "GB/s");
      bc.traffic_gbs = positive(e, b, "traffic_gbs", kMaxGbs, "GB/s");
      bc.how = provenance_from(e.object(b, "provenance"), e.at("provenance"));
      set.bandwidth.push_back(bc);
    }
    const json& latency = s.contains("latency") ? array_of(rs, s, "latency", limits::kCeilings)
                                                : kNoEntries;
    const JsonReader latency_reader = rs.at("latency");
    for (size_t li = 0; li < latency.size(); ++li) {
      const json& l = latency[li];
      const JsonReader e = latency_reader.at(li);
      LatencyCeiling lc;
      lc.level = e.get<std::string>(l, "level");
      lc.ns = positive(e, l, "ns", kMaxLatencyNs, "ns");
      lc.cycles = l.contains("cycles") ? e.nonneg(l, "cycles") : 0;
      lc.how = provenance_from(e.object(l, "provenance"), e.at("provenance"));
      set.latency.push_back(lc);
    }
    m.ceilings.push_back(std::move(set));
  }
  if (m.ceilings.empty()) r.fail("no ceilings in it");
  const json& sweeps = doc.contains("sweeps") ? array_of(r, doc, "sweeps", limits::kCeilings)
                                              : kNoEntries;
  const JsonReader sweeps_reader = this_reader.at("sweeps");
  for (size_t wi = 0; wi < sweeps.size(); ++wi) {
    const json& sw = sweeps[wi];
    const JsonReader e = sweeps_reader.at(wi);
    Sweep s;
    s.mix = parse_enum<StreamMix>(e.get<std::string>(sw, "kernel"), "kernel", e,
                                  parse_stream_mix);
    s.threads = static_cast<int>(e.in_range(sw, "threads", 1, limits::kLogicalCpus));
    s.purpose = e.get_or<std::string>(sw, "purpose", "capacity");
    const json& points = sw.contains("points") ? array_of(e, sw, "points", limits::kCeilings)
                                               : kNoEntries;
    const JsonReader points_reader = e.at("points");
    for (size_t pi = 0; pi < points.size(); ++pi) {
      const JsonReader rp = points_reader.at(pi);
      s.points.push_back({rp.get<uint64_t>(points[pi], "bytes"),
                          positive(rp, points[pi], "gbs", kMaxGbs, "GB/s"),
                          points[pi].contains("spread") ? rp.nonneg(points[pi], "spread") : 0});
    }
    m.sweeps.push_back(std::move(s));
  }
  m.notes = r.get_or<std::vector<std::string>>(doc, "notes", {});
  return m;
}

Machine load_machine_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(path + ": no such machine file; create it with: " + recalibrate_command(path));
  }
  const std::string text = read_input_file(path, limits::kMachineFileBytes, "rprof machine file");
  JsonLimits lim;
  lim.values = limits::kMachineJsonValues;
  return machine_from_json(machine_reader(path).parse(text, lim), path);
}

void save_machine_file(const Machine& m, const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  write_file_atomic(path, machine_to_json(m).dump(2) + "\n");
}

std::string machine_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/rprof";
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] == '\0') {
    throw Error("cannot find a cache directory: neither XDG_CACHE_HOME nor HOME is set "
                "(set one, or pass --machine FILE)");
  }
  return std::string(home) + "/.cache/rprof";
}

std::string cpu_key(const CpuId& c) {
  std::string vendor;
  for (char ch : c.vendor) {
    if (std::isalnum(static_cast<unsigned char>(ch))) vendor += ch;
  }
  if (vendor.empty()) vendor = "unknown";
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(fnv1a(c.model_name) & 0xffffffffu));
  return vendor + "-f" + std::to_string(c.family) + "-m" + std::to_string(c.model) + "-s" +
         std::to_string(c.stepping) + "-" + hash;
}

std::string machine_cache_path(const CpuId& cpu, int threads) {
  return machine_cache_dir() + "/machine-" + cpu_key(cpu) + "-" + std::to_string(threads) +
         "t.json";
}

std::string cpu_mismatch(const CpuId& measured, const CpuId& here) {
  auto describe = [](const CpuId& c) {
    return "\"" + c.model_name + "\" (" + c.vendor + " family " + std::to_string(c.family) +
           " model " + std::to_string(c.model) + ")";
  };
  if (measured.vendor != here.vendor || measured.family != here.family ||
      measured.model != here.model || measured.model_name != here.model_name) {
    return "it was measured on " + describe(measured) + " but this CPU is " + describe(here);
  }
  if (measured.avx512f != here.avx512f || measured.avx2 != here.avx2 ||
      measured.fma != here.fma) {
    return "it was measured on the same CPU model with different instruction sets enabled "
           "(AVX2/FMA/AVX-512), so its peaks do not apply";
  }
  return "";
}

}  // namespace rprof
