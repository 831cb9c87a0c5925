// rprof diff math on synthetic profiles: the fused/unfused pair of
// samples/fusion.c (same FLOPs, 4/7 of the DRAM bytes), regions matched by
// path, regions in one run only, ratios and differences, and the writers.
#include <catch2/catch.hpp>
#include <sstream>

#include "machine_fixture.h"
#include "report/diff_report.h"
#include "report/profile_diff.h"
#include "report_fixture.h"

using namespace rprof;
using rprof::test::Bytes;
using rprof::test::counted_region;

namespace {

constexpr double kN = 1e8;  // elements per sweep

// samples/fusion.c's counts per sweep: unfused 40n bytes at L1 and 56n at
// DRAM (write-allocate), fused 24n and 32n; both 2n FLOPs.
Profile unfused() {
  Profile p = rprof::test::profile_of(
      {counted_region({"sweep"}, 1.0, 2 * kN, "scalar", {40 * kN, 0, 0, 56 * kN}),
       counted_region({"sweep", "scale"}, 0.45, kN, "scalar", {16 * kN, 0, 0, 24 * kN}),
       counted_region({"sweep", "add"}, 0.55, kN, "scalar", {24 * kN, 0, 0, 32 * kN})},
      1.2);
  p.regions[0].work_calls = 1;
  p.regions[0].work_flops = 2 * kN;
  p.regions[0].work_bytes = 24 * kN;
  return p;
}

Profile fused() {
  Profile p = rprof::test::profile_of(
      {counted_region({"sweep"}, 0.6, 2 * kN, "scalar", {24 * kN, 0, 0, 32 * kN}),
       counted_region({"sweep", "scale_add"}, 0.6, 2 * kN, "scalar", {24 * kN, 0, 0, 32 * kN})},
      0.8);
  p.regions[0].work_calls = 1;
  p.regions[0].work_flops = 2 * kN;
  p.regions[0].work_bytes = 24 * kN;
  return p;
}

const RegionDiff* find(const ProfileDiff& d, const std::string& path) {
  for (const RegionDiff& r : d.regions) {
    if (path_string(r.path) == path) return &r;
  }
  return nullptr;
}

const BoundaryDiff* at(const RegionDiff& r, Boundary b) {
  for (const BoundaryDiff& x : r.boundaries) {
    if (x.boundary == b) return &x;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("change: difference and ratio, only when both sides are known") {
  const Change c{4.0, 3.0};
  CHECK(*c.delta() == Approx(-1));
  CHECK(*c.ratio() == Approx(0.75));
  CHECK_FALSE(Change{0.0, 3.0}.ratio().has_value());  // no ratio to zero
  CHECK(*Change{0.0, 3.0}.delta() == Approx(3));
  CHECK_FALSE(Change{std::nullopt, 3.0}.delta().has_value());
  CHECK(Change{std::nullopt, 3.0}.any());
  CHECK_FALSE(Change{}.any());
}

TEST_CASE("diff: fused vs unfused, same work, 4/7 of the DRAM bytes") {
  const Profile before = unfused(), after = fused();
  const ProfileDiff d = diff_profiles(measured_only(before), measured_only(after));
  CHECK(*d.wall_time_s.ratio() == Approx(0.8 / 1.2));
  const RegionDiff* sweep = find(d, "sweep");
  REQUIRE(sweep != nullptr);
  CHECK(sweep->presence == Presence::kBoth);
  CHECK(*sweep->flops.ratio() == Approx(1));
  CHECK(*sweep->time_s.delta() == Approx(-0.4));
  CHECK(*sweep->gflops.before == Approx(2 * kN / 1.0 / 1e9));
  CHECK(*sweep->gflops.ratio() == Approx(1.0 / 0.6));
  const BoundaryDiff* dram = at(*sweep, Boundary::kDRAM);
  REQUIRE(dram != nullptr);
  CHECK(*dram->bytes.before == Approx(56 * kN));
  CHECK(*dram->bytes.ratio() == Approx(32.0 / 56));
  CHECK(*dram->bytes.delta() == Approx(-24 * kN));
  CHECK(*dram->intensity.before == Approx(2.0 / 56));
  CHECK(*dram->intensity.ratio() == Approx(56.0 / 32));
  CHECK(*at(*sweep, Boundary::kL1)->bytes.ratio() == Approx(24.0 / 40));
  CHECK(at(*sweep, Boundary::kL2) == nullptr);  // not counted in either run
  CHECK(*sweep->declared_bytes.ratio() == Approx(1));
  CHECK_FALSE(sweep->bound_gflops.any());  // no machine, no bounds

  // Matched by path; the rest listed on their side, after's order first.
  REQUIRE(d.regions.size() == 4);
  CHECK(path_string(d.regions[1].path) == "sweep/scale_add");
  CHECK(d.regions[1].presence == Presence::kAfterOnly);
  CHECK(d.regions[2].presence == Presence::kBeforeOnly);
  CHECK(path_string(d.regions[2].path) == "sweep/scale");
  CHECK(path_string(d.regions[3].path) == "sweep/add");
  CHECK_FALSE(d.regions[2].time_s.after.has_value());
  CHECK(*d.regions[2].time_s.before == Approx(0.45));
}

TEST_CASE("diff: bounds and verdicts from the two analyses") {
  const Machine m = rprof::test::synthetic_machine();
  const Profile u = unfused(), f = fused();
  Analysis before = analyze(u, {&m, "", {}}), after = analyze(f, {&m, "", {}});
  for (Analysis* a : {&before, &after}) {
    for (RegionAnalysis& ra : a->regions) {
      Verdict v;  // a bound, so the verdict is shown
      v.bound = Bound::kMemory;
      v.kind = VerdictKind::kNoRoofline;  // its words: "no roofline: " and why
      v.numbers = NoRooflineEvidence{SharedText(ra.region->time_s > 0.8 ? "slow" : "fast")};
      ra.verdict = v;
    }
  }
  const ProfileDiff d = diff_profiles(before, after);
  const RegionDiff* sweep = find(d, "sweep");
  REQUIRE(sweep != nullptr);
  // Scalar DP, DRAM-bound: the bound scales with the DRAM intensity.
  CHECK(*sweep->bound_gflops.ratio() == Approx(56.0 / 32));
  CHECK(sweep->limited_before == std::optional<std::string>("memory (DRAM)"));
  CHECK(sweep->verdict_before->as<NoRooflineEvidence>().why_not == "slow");
  CHECK(sweep->verdict_after->as<NoRooflineEvidence>().why_not == "fast");
  std::ostringstream text;
  const Profile b = unfused(), a = fused();
  write_diff_text(d, {"u", &b}, {"f", &a}, text);
  CHECK(text.str().find("  Verdict before: no roofline: slow\n"
                        "  Verdict after:  no roofline: fast\n") != std::string::npos);
}

TEST_CASE("diff writers: units on every number, JSON with ratios and one-sided regions") {
  const Profile before = unfused(), after = fused();
  const ProfileDiff d = diff_profiles(measured_only(before), measured_only(after));
  const DiffRun a{"unfused/profile.json", &before}, b{"fused/profile.json", &after};
  std::ostringstream text;
  write_diff_text(d, a, b, text);
  const std::string t = text.str();
  for (const char* s : {"Bytes DRAM [GB]", "Time [s]", "FLOPs [GFLOP]", "Intensity DRAM [FLOP/byte]",
                        "Performance [GFLOP/s]", "FMA = 2 FLOPs", "GB = 1e9 bytes",
                        "Only in before (matched by path):", "sweep/scale: time 0.45 s",
                        "Only in after (matched by path):", "sweep/scale_add"}) {
    INFO(s);
    CHECK(t.find(s) != std::string::npos);
  }
  // DRAM bytes 5.6 GB -> 3.2 GB: -2.4 GB, x0.5714 (-42.9%).
  CHECK(t.find("-2.4 GB") != std::string::npos);
  CHECK(t.find("x0.5714 (-42.9%)") != std::string::npos);
  const nlohmann::json j = diff_to_json(d, a, b);
  CHECK(j["format"] == "rprof-diff");
  CHECK(j["before"]["file"] == "unfused/profile.json");
  CHECK(j["regions"][0]["bytes"]["dram"]["ratio"].get<double>() == Approx(32.0 / 56));
  CHECK(j["regions"][0]["intensity"]["dram"]["after"].get<double>() == Approx(2.0 / 32));
  CHECK(j["only_before"] == nlohmann::json({"sweep/scale", "sweep/add"}));
  CHECK(j["only_after"] == nlohmann::json({"sweep/scale_add"}));
  CHECK(j["regions"][1]["time_s"]["before"].is_null());
  CHECK(j["regions"][0]["verdict"]["before"].is_null());
}
