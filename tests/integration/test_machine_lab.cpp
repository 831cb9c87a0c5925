// `rprof lab`, `rprof machine` and the roofline in `rprof report`, driven
// through the built binary. Calibration runs once, in --tiny mode (a few
// seconds; its figures are rough and only their order is checked).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "integration/harness.h"

using namespace rprof::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json lab(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"lab", "--json"};
  a.insert(a.end(), args.begin(), args.end());
  const RunResult r = run_tool(a);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

// This machine itself, for the calibration tests (no recorded machine, no
// machine file; the cache is the test's own HOME).
RunResult run_real(const std::vector<std::string>& args) {
  return run_tool(args, real_machine_env());
}

// One tiny calibration of this machine, per test case that needs it.
const std::string& tiny_machine() {
  static const std::string path = [] {
    const std::string p = fresh_dir("machine") + "/machine.json";
    const RunResult r = run_real({"machine", "--tiny", "--output", p});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return p;
  }();
  return path;
}

// A line "  <kind>: K of N within 5%, ..." for N figures (K: what this host gave).
bool has_count(const std::string& out, const std::string& kind, size_t n) {
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  " + kind + ": ", 0) == 0 &&
        line.find(" of " + std::to_string(n) + " within 5%") != std::string::npos) {
      return true;
    }
  }
  return false;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("lab: the seed's numbers") {
  json a = lab({"--intensity", "4", "--bandwidth", "80"});
  CHECK(a["peak_gflops"].get<double>() == Approx(1000));
  CHECK(a["bound_gflops"].get<double>() == Approx(320));
  CHECK(a["ridge"].get<double>() == Approx(12.5));
  CHECK(a["limited_by"] == "memory");
  json b = lab({"--intensity", "16", "--bandwidth", "80"});
  CHECK(b["bound_gflops"].get<double>() == Approx(1000));
  CHECK(b["bandwidth_roof_gflops"].get<double>() == Approx(1280));
  CHECK(b["limited_by"] == "compute");
  const std::string daxpy = std::to_string(2.0 / 24);
  json c = lab({"-I", daxpy, "-B", "100", "-P", "1000"});
  CHECK(c["bound_gflops"].get<double>() == Approx(8.333).epsilon(1e-3));
  CHECK(1 / c["fraction_of_peak"].get<double>() == Approx(120).epsilon(1e-3));
  CHECK(lab({"-I", daxpy, "-B", "100", "-P", "2000"})["bound_gflops"].get<double>() ==
        Approx(c["bound_gflops"].get<double>()));
  CHECK(lab({"-I", daxpy, "-B", "200", "-P", "1000"})["bound_gflops"].get<double>() ==
        Approx(2 * c["bound_gflops"].get<double>()));
}

TEST_CASE("lab: the text output states bound, ridge, limit and units") {
  const RunResult r = run_tool({"lab", "--intensity", "4", "--bandwidth", "80"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("320 GFLOP/s") != std::string::npos);
  CHECK(r.out.find("12.5 FLOP/byte") != std::string::npos);
  CHECK(r.out.find("memory bandwidth") != std::string::npos);
  CHECK(r.out.find("FMA = 2 FLOPs") != std::string::npos);
  CHECK(r.out.find("GB = 1e9 bytes") != std::string::npos);
  const RunResult s = run_tool({"lab", "-I", "0.0833333333", "-B", "100"});
  CHECK(s.out.find("1/120") != std::string::npos);
}

TEST_CASE("lab: nonsense values give one line and a non-zero exit") {
  const std::vector<std::vector<std::string>> bad = {
      {"--intensity", "-4", "--bandwidth", "80"},
      {"--intensity=-4", "--bandwidth", "80"},
      {"--intensity", "0", "--bandwidth", "80"},
      {"--intensity", "nan", "--bandwidth", "80"},
      {"--intensity", "abc", "--bandwidth", "80"},
      {"--intensity", "4", "--bandwidth", "inf"},
      {"--intensity", "4", "--bandwidth", "80", "--peak", "-1000"},
      {"--intensity", "4", "--bandwidth", "80", "--threads", "-3"},
      {"--intensity", "4"},
      {"--bandwidth", "80"},
      // Finite inputs whose figures are not: 2 * P, B * I or 1 / fraction
      // beyond a double (never printed as "inf").
      {"--intensity", "4", "--bandwidth", "80", "--peak", "1e308"},
      {"--intensity", "1e300", "--bandwidth", "1e300"},
      {"--intensity", "1e-300", "--bandwidth", "1e-300", "--peak", "1e300"},
  };
  for (const auto& args : bad) {
    std::vector<std::string> a = {"lab"};
    a.insert(a.end(), args.begin(), args.end());
    const RunResult r = run_tool(a);
    INFO(args.front() << " " << args.back() << ": " << r.err);
    CHECK(r.status != 0);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("rprof: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    // "inf" only where the message quotes what was given.
    if (std::find(args.begin(), args.end(), "inf") == args.end()) {
      CHECK(r.err.find("inf") == std::string::npos);
    }
  }
}

TEST_CASE("machine --tiny writes a valid file with sane ceilings") {
  const json m = load_json(tiny_machine());
  CHECK(m["format"] == "rprof-machine");
  CHECK(m["schema_version"] == 1);
  CHECK(m["mode"] == "tiny");
  REQUIRE(m["ceilings"].size() >= 1);
  const json& one = m["ceilings"][0];
  CHECK(one["threads"] == 1);
  auto peak = [&](const char* prec, const char* width, const char* mix) {
    for (const json& p : one["peaks"]) {
      if (p["precision"] == prec && p["width"] == width && p["mix"] == mix) {
        return p["gflops"].get<double>();
      }
    }
    return 0.0;
  };
  auto bw = [&](const char* boundary, const char* kernel) {
    for (const json& b : one["bandwidth"]) {
      if (b["boundary"] == boundary && b["kernel"] == kernel) return b["gbs"].get<double>();
    }
    return 0.0;
  };
  for (const json& p : one["peaks"]) {
    CHECK(p["gflops"].get<double>() > 0);
    // 2 planned; a repetition another process disturbed is repeated and kept
    // apart (disturbed_repetitions), so under load fewer may be used.
    CHECK(p["provenance"]["repetitions"].get<int>() >= 1);
    CHECK(p["provenance"]["repetitions"].get<int>() +
              p["provenance"]["disturbed_repetitions"].get<int>() >= 2);
    CHECK(p["provenance"]["threads"] == 1);
  }
  for (const json& b : one["bandwidth"]) {
    CHECK(b["gbs"].get<double>() > 0);
    CHECK(b["provenance"]["working_set_bytes"].get<double>() > 0);
  }
  CHECK(peak("dp", "scalar", "addmul") > 0);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    CHECK(peak("dp", "256", "fma") > 1.5 * peak("dp", "scalar", "fma"));
    CHECK(peak("sp", "256", "fma") > 1.5 * peak("dp", "256", "fma") * 0.66);
  }
  CHECK(bw("l1", "load") > bw("dram", "load"));
  CHECK(bw("l1", "triad") > bw("dram", "triad"));
  for (const json& l : one["latency"]) CHECK(l["ns"].get<double>() > 0);
  REQUIRE(one["latency"].size() >= 2);
  CHECK(one["latency"].front()["ns"].get<double>() < one["latency"].back()["ns"].get<double>());
  for (const json& c : m["caches"]) CHECK(c["reported_bytes"].get<double>() > 0);
  CHECK(m["sweeps"][0]["points"].size() > 5);
  CHECK(m["conventions"]["flops"].get<std::string>().find("FMA") != std::string::npos);
}

TEST_CASE("machine --show prints the file with units -- lab --machine uses it") {
  const RunResult r = run_real({"machine", "--show", "--machine", tiny_machine()});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("GFLOP/s; FMA = 2 FLOPs") != std::string::npos);
  CHECK(r.out.find("GB/s, GB = 1e9 bytes") != std::string::npos);
  CHECK(r.out.find("Effective") != std::string::npos);
  const RunResult l = run_real({"lab", "--machine", "--machine-file", tiny_machine(), "-I", "1000",
                             "--json"});
  INFO(l.err);
  REQUIRE(l.status == 0);
  const json j = json::parse(l.out);
  CHECK(j["limited_by"] == "compute");
  CHECK(j["bound_gflops"].get<double>() == Approx(j["peak_gflops"].get<double>()));
  CHECK(j["peak_source"].get<std::string>().find("this machine") != std::string::npos);
}

TEST_CASE("bad machine files: corrupt gives the fix, another CPU is refused") {
  const std::string dir = fresh_dir("badmachine");
  const std::string text = read_text(tiny_machine());
  const std::string cut = dir + "/cut.json";
  write_text(cut, text.substr(0, text.size() / 3));
  RunResult r = run_real({"machine", "--show", "--machine", cut});
  CHECK(r.status != 0);
  CHECK(r.err.find("not JSON (truncated?), it ends at byte " + std::to_string(text.size() / 3)) !=
        std::string::npos);
  CHECK(r.err.find("rprof machine --output " + cut) != std::string::npos);
  json other = json::parse(text);
  other["cpu"]["model_name"] = "Some Other CPU 9000";
  other["cpu"]["model"] = other["cpu"]["model"].get<int>() + 1;
  const std::string foreign = dir + "/other.json";
  write_text(foreign, other.dump());
  r = run_real({"lab", "--machine-file", foreign, "-I", "1"});
  CHECK(r.status != 0);
  CHECK(r.err.find("refused") != std::string::npos);
  CHECK(r.err.find("Some Other CPU 9000") != std::string::npos);
}

TEST_CASE("machine: a recalibration says how far each figure moved from the file it replaced") {
  const std::string dir = fresh_dir("recalibrate");
  const std::string text = read_text(tiny_machine());
  const json before = json::parse(text);
  const std::string file = dir + "/machine.json";
  write_text(file, text);
  RunResult r = run_real({"machine", "--tiny", "--output", file});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // The figures both files hold (a sweep that finds another LLC size can
  // leave a set without an LLC working set in one of them).
  const auto keys = [](const json& m, const char* kind) {
    std::set<std::string> out;
    for (const json& set : m["ceilings"]) {
      for (const json& f : set[kind]) {
        out.insert(set["threads"].dump() + f.value("boundary", "") + f.value("kernel", "") +
                   f.value("pages", "") + f.value("precision", "") + f.value("width", "") +
                   f.value("mix", ""));
      }
    }
    return out;
  };
  const json after = load_json(file);
  const auto common = [&](const char* kind) {
    size_t n = 0;
    for (const std::string& k : keys(after, kind)) n += keys(before, kind).count(k);
    return n;
  };
  const size_t bandwidths = common("bandwidth"), peaks = common("peaks");
  REQUIRE(bandwidths > 0);
  CHECK(r.out.find("Against the previous calibration (") != std::string::npos);
  CHECK(r.out.find("new / previous - 1") != std::string::npos);
  // Every figure of both files, counted by kind (the same CPU, the same sets).
  CHECK(has_count(r.out, "bandwidths", bandwidths));
  CHECK(has_count(r.out, "peaks", peaks));
  CHECK(r.out.find("the largest move") != std::string::npos);
  // The file it replaced was unreadable or of another CPU: not compared, and why.
  write_text(file, text.substr(0, text.size() / 2));
  r = run_real({"machine", "--tiny", "--output", file});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Against the previous calibration: not compared, the file it replaced could "
                   "not be read (") != std::string::npos);
  json other = before;
  other["cpu"]["model_name"] = "Some Other CPU 9000";
  write_text(file, other.dump());
  r = run_real({"machine", "--tiny", "--output", file});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("not compared, the previous file is of another CPU (Some Other CPU 9000)") !=
        std::string::npos);
  // No file before: nothing to compare.
  fs::remove(file);
  r = run_real({"machine", "--tiny", "--output", file});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Against the previous calibration") == std::string::npos);
}

TEST_CASE("report: roofline per region from counters and the machine file") {
  // A saved profile with canonical counters, as a counting backend writes them.
  const std::string dir = fresh_dir("roofreport");
  const std::string prof = dir + "/profile.json";
  {
    const RunResult run = run_rprof({"--backend=time", sample("daxpy"), "1000", "3"});
    REQUIRE(run.status == 0);
    json p = load_json(run.dir + "/profile.json");
    for (json& reg : p["regions"]) {
      if (reg["name"] == "daxpy") {
        reg["time_s"] = 0.5;
        reg["counters"] = {{"flops.dp.512", 2000000000},
                           {"bytes.l1.read", 16000000000},
                           {"bytes.l1.write", 8000000000},
                           {"bytes.dram.read", 16000000000},
                           {"bytes.dram.write", 8000000000}};
      }
    }
    write_text(prof, p.dump());
  }
  json m = load_json(machine_file(default_machine()));  // the recorded machine
  // Known ceilings, so the expected numbers are exact.
  for (json& set : m["ceilings"]) {
    for (json& pk : set["peaks"]) pk["gflops"] = pk["width"] == "512" ? 100.0 : 10.0;
    for (json& b : set["bandwidth"]) {
      const double g = b["boundary"] == "l1" ? 400.0 : b["boundary"] == "dram" ? 20.0 : 100.0;
      b["gbs"] = g;
      b["traffic_gbs"] = g;
    }
  }
  const std::string mfile = dir + "/machine.json";
  write_text(mfile, m.dump());
  RunResult r = run_tool({"report", prof, "--format", "json", "--machine", mfile});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json out = json::parse(r.out);
  CHECK(out["roofline_machine"]["file"] == mfile);
  const json reg = find_region(out, "daxpy");
  REQUIRE(reg.contains("roofline"));
  const json& rl = reg["roofline"];
  CHECK(rl["gflops"].get<double>() == Approx(4));  // 2e9 FLOPs in 0.5 s
  CHECK(rl["compute_roof"]["gflops"].get<double>() == Approx(100));
  REQUIRE(rl["boundaries"].size() == 2);
  for (const json& b : rl["boundaries"]) {
    CHECK(b["intensity"].get<double>() == Approx(2.0 / 24));
    const double bw = b["boundary"] == "l1" ? 400 : 20;
    CHECK(b["bound_gflops"].get<double>() == Approx(bw * 2.0 / 24));
    CHECK(b["ridge"].get<double>() == Approx(100 / bw));
  }
  CHECK(rl["limiting_boundary"] == "dram");
  CHECK(rl["limited_by"] == "memory");
  CHECK(rl["fraction_of_bound"].get<double>() == Approx(4 / (20 * 2.0 / 24)));
  CHECK(rl["conventions"].get<std::string>().find("FMA = 2 FLOPs") != std::string::npos);
  CHECK_FALSE(find_region(out, "init").contains("roofline"));  // no counters, no roofline

  // Text: default boundary is the limiting one; --boundary picks another or all.
  r = run_tool({"report", prof, "--machine", mfile});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Roofline (FMA = 2 FLOPs") != std::string::npos);
  // The region's row: its limiting boundary, then its bound and what sets it.
  CHECK_THAT(r.out, Catch::Matches("[\\s\\S]*\n[^\n]* DRAM [^\n]* memory +[0-9.]+\n[\\s\\S]*"));
  r = run_tool({"report", prof, "--machine", mfile, "--boundary", "all"});
  CHECK(r.out.find("memory (DRAM)") != std::string::npos);  // the Limited by column
  CHECK(r.out.find("I L1 [FLOP/B]") != std::string::npos);
  CHECK(r.out.find("Bound DRAM [GFLOP/s]") != std::string::npos);
  r = run_tool({"report", prof, "--machine", mfile, "--boundary", "l1"});
  CHECK(r.out.find("33.33") != std::string::npos);  // 400 GB/s * 1/12 FLOP/byte
  r = run_tool({"report", prof, "--machine", mfile, "--boundary", "l5"});
  CHECK(r.status == 2);

  // The environment variable is the tests' escape hatch, same result.
  r = run_tool({"report", prof, "--format", "json"}, {"RPROF_MACHINE_FILE=" + mfile});
  REQUIRE(r.status == 0);
  CHECK(find_region(json::parse(r.out), "daxpy")["roofline"]["bound_gflops"].get<double>() ==
        Approx(20 * 2.0 / 24));

  // Ceilings only for 2 threads: the nearest is used, and the report says so.
  json two = m;
  REQUIRE(m["ceilings"].size() == 1);
  two["ceilings"][0]["threads"] = 2;
  const std::string tfile = dir + "/two.json";
  write_text(tfile, two.dump());
  r = run_tool({"report", prof, "--machine", tfile});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("nearest") != std::string::npos);
  CHECK(r.out.find("(ceil. ") != std::string::npos);
  // A corrupt machine file: clear error with the command that recalibrates.
  write_text(dir + "/bad.json", "{\"format\": \"rprof-machine\"");
  r = run_tool({"report", prof, "--machine", dir + "/bad.json"});
  CHECK(r.status != 0);
  CHECK(r.err.find("rprof machine --output") != std::string::npos);
  // Without any machine file the report still renders, and says how to get one.
  // TMPDIR too: a machine measured while a cache directory was unusable is
  // kept in $TMPDIR/rprof-cache-<uid> and read from there (machine_access.cpp),
  // so the host's /tmp may hold one.
  std::vector<std::string> no_file = real_machine_env();
  no_file.push_back("XDG_CACHE_HOME=" + dir + "/empty-cache");
  fs::create_directories(dir + "/tmp");
  no_file.push_back("TMPDIR=" + dir + "/tmp");
  r = run_tool({"report", prof}, no_file);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("run rprof machine") != std::string::npos);
}
