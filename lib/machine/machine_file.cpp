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
#include "common/json_out.h"
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

// Keys sorted (the order machine files have always had).
void write_provenance(json_out::Writer& w, const Provenance& p) {
  w.begin_object();
  w.member("best", p.best);
  w.member("disturbed_repetitions", p.disturbed);
  w.member("kernel", p.kernel);
  w.member("median", p.median);
  w.member("repetitions", p.repetitions);
  w.member("seconds_per_repetition", p.seconds_per_rep);
  w.member("spread", p.spread);
  w.member("threads", p.threads);
  w.member("working_set_bytes", p.working_set_bytes);
  w.member("worst", p.worst);
  w.end_object();
}

void write_machine_json(json_out::Writer& w, const Machine& m) {
  w.begin_object();
  w.key("caches").begin_array();
  for (const CacheInfo& k : m.caches) {
    w.begin_object();
    w.member("associativity", k.associativity);
    w.member("effective_bytes", k.effective_bytes);
    w.member("level", k.level);
    w.member("line_bytes", k.line_bytes);
    w.member("reported_bytes", k.reported_bytes);
    w.member("shared_cpus", k.shared_cpus);
    w.end_object();
  }
  w.end_array();
  w.key("ceilings").begin_array();
  for (const CeilingSet& s : m.ceilings) {
    w.begin_object();
    w.key("bandwidth").begin_array();
    for (const BandwidthCeiling& b : s.bandwidth) {
      w.begin_object();
      w.member("boundary", boundary_key(b.boundary));
      w.member("gbs", b.gbs);
      w.member("kernel", stream_key(b.mix));
      if (!b.pages.empty()) w.member("pages", b.pages);
      w.key("provenance");
      write_provenance(w, b.how);
      w.member("traffic_gbs", b.traffic_gbs);
      w.end_object();
    }
    w.end_array();
    w.key("cpus").array(s.cpus);
    w.key("latency").begin_array();
    for (const LatencyCeiling& l : s.latency) {
      w.begin_object();
      w.member("cycles", l.cycles);
      w.member("level", l.level);
      w.member("ns", l.ns);
      if (!l.pages.empty()) w.member("pages", l.pages);
      w.key("provenance");
      write_provenance(w, l.how);
      w.end_object();
    }
    w.end_array();
    w.key("peaks").begin_array();
    for (const PeakCeiling& p : s.peaks) {
      w.begin_object();
      w.member("gflops", p.gflops);
      w.member("isa", p.isa);
      w.member("mix", mix_key(p.mix));
      w.member("precision", p.precision == Precision::kDP ? "dp" : "sp");
      w.key("provenance");
      write_provenance(w, p.how);
      w.member("width", width_name(p.width));
      w.end_object();
    }
    w.end_array();
    w.member("pinned", s.pinned);
    w.member("threads", s.threads);
    w.end_object();
  }
  w.end_array();
  w.member("clock_ghz", m.clock_ghz);
  w.key("conventions").begin_object();
  w.member("bandwidth",
           "GB/s, GB = 1e9 bytes. gbs counts the kernel's loads and stores only "
           "(no write-allocate read, as likwid-bench and STREAM); traffic_gbs adds "
           "the write-allocate read of every line stored without being read first "
           "(copy, triad; not update, daxpy or non-temporal stores); pages: the page size "
           "the kernel's buffers had");
  w.member("boundaries",
           "l1 = core<->L1 (working set in L1), l2 = L1<->L2, llc = L2<->LLC, "
           "dram = LLC<->DRAM; the roofline uses gbs at l1 and traffic_gbs below: for a "
           "region whose bytes at a boundary are a share w written, min(the best kernel, "
           "the best read rate / (1 - w))");
  w.member("ceiling", "best of the repetitions; spread = (best - worst) / best");
  w.member("flops", "GFLOP/s = 1e9 FLOP/s; an FMA counts 2 FLOPs per lane");
  w.member("fp_latency",
           "ns (and cycles at clock_ghz) per dependent scalar FP operation: a chain of adds, "
           "multiplies or FMAs, each waiting for the one before; 1 thread");
  w.member("latency", "ns per dependent load through a random cyclic permutation of lines");
  w.member("threads", "each ceiling set was measured with this many threads pinned one per CPU");
  w.end_object();
  const CpuId& c = m.cpu;
  w.key("cpu").begin_object();
  w.member("family", c.family);
  w.key("isa").begin_object();
  w.member("avx", c.avx);
  w.member("avx2", c.avx2);
  w.member("avx512f", c.avx512f);
  w.member("fma", c.fma);
  w.member("sse2", c.sse2);
  w.end_object();
  w.member("key", cpu_key(c));
  w.member("model", c.model);
  w.member("model_name", c.model_name);
  w.member("stepping", c.stepping);
  w.member("vendor", c.vendor);
  w.end_object();
  w.member("created_unix_s", m.created_unix_s);
  w.member("format", kFormat);
  w.key("fp_latency").begin_array();
  for (const FpLatency& l : m.fp_latency) {
    w.begin_object();
    w.member("cycles", l.cycles);
    w.member("ns", l.ns);
    w.member("op", fp_op_key(l.op));
    w.member("precision", l.precision == Precision::kDP ? "dp" : "sp");
    w.key("provenance");
    write_provenance(w, l.how);
    w.end_object();
  }
  w.end_array();
  w.member("host", m.host);
  w.member("logical_cpus", m.logical_cpus);
  w.member("mode", m.mode);
  w.key("notes").array(m.notes);
  w.member("pages", m.pages);
  w.member("rprof_version", m.rprof_version);
  w.member("schema_version", m.schema_version);
  w.key("sweeps").begin_array();
  for (const Sweep& sw : m.sweeps) {
    w.begin_object();
    w.member("kernel", stream_key(sw.mix));
    w.key("points").begin_array();
    for (const SweepPoint& p : sw.points) {
      w.begin_object();
      w.member("bytes", p.bytes);
      w.member("gbs", p.gbs);
      w.member("spread", p.spread);
      w.end_object();
    }
    w.end_array();
    w.member("purpose", sw.purpose);
    w.member("threads", sw.threads);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

std::string machine_json_text(const Machine& m) {
  std::string text;
  json_out::Writer w(text, 2);
  write_machine_json(w, m);
  return text + "\n";
}

json machine_to_json(const Machine& m) {
  return json_out::parsed([&](json_out::Writer& w) { write_machine_json(w, m); });
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
      if (b.contains("pages")) bc.pages = e.get<std::string>(b, "pages");
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
      if (l.contains("pages")) lc.pages = e.get<std::string>(l, "pages");
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
  const json& fp = doc.contains("fp_latency")
                       ? array_of(r, doc, "fp_latency", limits::kCeilings)
                       : kNoEntries;
  const JsonReader fp_reader = this_reader.at("fp_latency");
  for (size_t i = 0; i < fp.size(); ++i) {
    const JsonReader e = fp_reader.at(i);
    FpLatency l;
    l.precision = parse_enum<Precision>(e.get<std::string>(fp[i], "precision"), "precision", e,
                                        parse_precision);
    l.op = parse_enum<FpOp>(e.get<std::string>(fp[i], "op"), "op", e, parse_fp_op);
    l.ns = positive(e, fp[i], "ns", kMaxLatencyNs, "ns");
    l.cycles = fp[i].contains("cycles") ? e.nonneg(fp[i], "cycles") : 0;
    l.how = provenance_from(e.object(fp[i], "provenance"), e.at("provenance"));
    m.fp_latency.push_back(l);
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
  write_file_atomic(path, machine_json_text(m));
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
