// Every raw code of every event table with a Linux perf pmu-events folder,
// recomputed from that JSON (tests/fixtures/pmu-events/<perf_arch>/): the
// unit masks of the row's perf names OR-ed, with the event code, counter
// mask, invert and edge bits, in PERF_TYPE_RAW config layout (AMD: event
// bits 11:8 at config bits 35:32). A difference fails unless
// known-differences.txt lists it, and a listed difference must still occur.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hwcounters/event_tables.h"

using namespace rprof;
namespace fs = std::filesystem;

namespace {

const std::string kDir = std::string(RPROF_SOURCE_DIR) + "/tests/fixtures/pmu-events/";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

uint64_t num(const nlohmann::json& e, const char* field) {
  if (!e.contains(field)) return 0;
  const nlohmann::json& v = e[field];
  if (v.is_number()) return v.get<uint64_t>();
  return std::stoull(v.get<std::string>(), nullptr, 0);
}

// Lower-cased event name -> entry, over every file of one folder (Linux's
// top-level array or Intel perfmon's {"Events": [...]}).
std::map<std::string, nlohmann::json> load_arch(const std::string& arch) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& f : fs::directory_iterator(kDir + arch)) {
    if (f.path().extension() != ".json") continue;
    std::ifstream in(f.path());
    const nlohmann::json doc = nlohmann::json::parse(in);
    const nlohmann::json& events = doc.is_array() ? doc : doc.at("Events");
    for (const nlohmann::json& e : events) out[lower(e.at("EventName").get<std::string>())] = e;
  }
  return out;
}

struct Expected {
  bool ok = false;
  uint64_t config = 0;
  std::string why;
};

Expected from_json(const std::map<std::string, nlohmann::json>& arch, const std::string& names,
                   bool amd) {
  Expected x;
  std::stringstream ss(names);
  std::string name;
  bool first = true;
  uint64_t code = 0, rest = 0, umask = 0;
  while (std::getline(ss, name, '+')) {
    auto it = arch.find(lower(name));
    if (it == arch.end()) {
      x.why = "no event '" + name + "' in the pmu-events data";
      return x;
    }
    const nlohmann::json& e = it->second;
    const uint64_t c = num(e, "EventCode");
    const uint64_t r = (num(e, "CounterMask") << 24) | (num(e, "Invert") << 23) |
                       (num(e, "EdgeDetect") << 18);
    if (!first && (c != code || r != rest)) {
      x.why = "'" + name + "' is not the same event as the row's first name";
      return x;
    }
    code = c;
    rest = r;
    umask |= num(e, "UMask");
    first = false;
  }
  x.ok = true;
  x.config = (code & 0xff) | umask << 8 | rest;
  if (amd) x.config |= ((code >> 8) & 0xf) << 32;
  return x;
}

std::string hex(uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

}  // namespace

TEST_CASE("event tables: raw codes equal Linux perf pmu-events JSON") {
  // "table key json table" -> reason
  std::map<std::string, std::string> known;
  {
    std::ifstream in(kDir + "known-differences.txt");
    REQUIRE(in.good());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto colon = line.find(':');
      REQUIRE(colon != std::string::npos);
      known[line.substr(0, colon)] = line.substr(colon + 1);
    }
  }
  std::set<std::string> seen;
  int checked = 0, tables = 0, unlisted = 0;
  for (const CpuTable& t : cpu_tables()) {
    if (t.perf_arch.empty()) continue;
    INFO("table " << t.id << " (" << t.perf_arch << ")");
    REQUIRE(fs::is_directory(kDir + t.perf_arch));
    const auto arch = load_arch(t.perf_arch);
    const bool amd = t.perf_arch.rfind("amd", 0) == 0;
    ++tables;
    for (const TableEvent& e : t.events) {
      INFO(e.key);
      if (e.type != 4) {  // kernel generic events have no pmu-events entry
        CHECK(e.perf_json.empty());
        continue;
      }
      if (e.perf_json.empty()) {  // only events neither libpfm4 nor perf list (LIKWID's)
        CHECK(e.pfm.empty());
        CHECK(e.source.find("likwid") != std::string::npos);
        ++unlisted;
        continue;
      }
      const Expected x = from_json(arch, e.perf_json, amd);
      INFO(x.why);
      REQUIRE(x.ok);
      ++checked;
      if (x.config == e.raw) continue;
      const std::string id = t.id + " " + e.key + " " + hex(x.config) + " " + hex(e.raw);
      INFO("perf " << e.perf_json << " -> " << hex(x.config) << ", table " << hex(e.raw));
      CHECK(known.count(id) == 1);
      seen.insert(id);
    }
  }
  for (const auto& [id, why] : known) {
    INFO("known difference no longer occurs: " << id);
    CHECK(seen.count(id) == 1);
  }
  // Every table but generic has JSON data: the four of issue 32 (zen2 6 raw
  // rows, zen5 6, gnr 14, adl 12), zen3 6, zen4 6, and skx 15, skl 13, icx
  // 15, icl 15, spr 14, less the LIKWID-only rows (L1D.M_EVICT on skx/skl,
  // L2_TRANS.L1D_WB on icx/icl).
  CHECK(tables == 11);
  CHECK(checked == 6 + 6 + 14 + 12 + 6 + 6 + 14 + 12 + 14 + 14 + 14);
  CHECK(unlisted == 4);
}

TEST_CASE("pmu-events comparison fails on a wrong code (the check can fail)") {
  const auto arch = load_arch("amdzen5");
  const Expected all = from_json(arch, "fp_ret_sse_avx_ops.all", true);
  REQUIRE(all.ok);
  CHECK(all.config == 0x0f03);
  // Zen 4's libpfm4 ANY (0x1f) would count an undefined Zen 5 bit: caught.
  CHECK(all.config != 0x1f03);
  const Expected parts = from_json(
      arch, "fp_ret_sse_avx_ops.add_sub_flops+fp_ret_sse_avx_ops.mac_flops", true);
  CHECK(parts.config == 0x0903);
  CHECK_FALSE(from_json(arch, "no_such_event", true).ok);
  CHECK_FALSE(from_json(arch, "fp_ret_sse_avx_ops.all+l2_request_g1.all_dc", true).ok);
  // Intel layout: counter mask at bits 31:24.
  const auto gnr = load_arch("graniterapids");
  CHECK(from_json(gnr, "L1D_PEND_MISS.PENDING_CYCLES", false).config == 0x01000148);
}
