// MPI ranks through the launcher (Debian OpenMPI, 2 ranks on localhost), a
// rank that dies, and `rprof merge` of profiles gathered from several runs.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "integration/harness.h"

using namespace rprof::test;
namespace fs = std::filesystem;

namespace {

// Timing only: these tests are about ranks and merging, not counts.
std::vector<std::string> mpirun(const std::vector<std::string>& app) {
  std::vector<std::string> a = {"--backend=time", "--"};
  for (std::string& s : mpirun_np2(app)) a.push_back(std::move(s));
  return a;
}

void require_mpi() {
  if (!fs::exists(sample("mpi_ranks")) || std::system("command -v mpirun >/dev/null") != 0) {
    WARN("SKIP: OpenMPI not installed (scripts/install-deps.sh installs openmpi-bin, "
         "libopenmpi-dev)");
    std::exit(RPROF_SKIP_CODE);
  }
}

}  // namespace

TEST_CASE("2 MPI ranks: one raw profile per rank, merged with exact summed calls") {
  require_mpi();
  auto r = run_rprof_mpi(mpirun({sample("mpi_ranks")}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::vector<std::string> raws;
  for (const auto& e : fs::directory_iterator(r.dir + "/raw")) {
    raws.push_back(e.path().filename().string());
  }
  REQUIRE(raws.size() == 2);
  std::sort(raws.begin(), raws.end());
  CHECK_THAT(raws[0], Catch::EndsWith(".r0.json"));
  CHECK_THAT(raws[1], Catch::EndsWith(".r1.json"));
  auto p = load_json(r.dir + "/profile.json");
  CHECK(p["run"]["processes"] == 2);
  CHECK(p["run"]["world_size"] == 2);
  CHECK(p["run"]["missing_ranks"].empty());
  auto compute = find_region(p, "compute");
  REQUIRE(compute.is_object());
  CHECK(compute["calls"] == 3);  // rank 0: 1 call, rank 1: 2 calls
  CHECK(find_region(p, "compute/exchange")["calls"] == 3);
  auto spread = compute["process_spread"];
  CHECK(spread["processes"] == 2);
  CHECK(spread["min_time_s"].get<double>() <= spread["mean_time_s"].get<double>());
  CHECK(spread["mean_time_s"].get<double>() <= spread["max_time_s"].get<double>());
  CHECK(spread["max_time_s"].get<double>() == compute["time_s"].get<double>());
  std::set<int> ranks;
  for (const auto& rank : compute["threads"]["rank"]) ranks.insert(rank.get<int>());
  CHECK(ranks == std::set<int>{0, 1});
  // Rank 1 computes twice, rank 0 once: imbalanced between ranks, said of
  // ranks (kind rank-imbalance), with the ranks counted.
  const double waits = (spread["max_time_s"].get<double>() - spread["min_time_s"].get<double>()) /
                       spread["max_time_s"].get<double>();
  if (waits > 0.2) {
    bool found = false;
    for (const auto& f : compute["verdict"]["flags"]) {
      if (f["name"] != "load-imbalance") continue;
      found = true;
      CHECK(f["kind"] == "rank-imbalance");
      CHECK(f["numbers"]["processes"] == 2);
      CHECK(f["numbers"]["threads"] == 2);
    }
    CHECK(found);
  }
}

TEST_CASE("a rank killed by SIGKILL: its completed regions kept from the shared tables") {
  require_mpi();
  auto r = run_rprof_mpi(mpirun({sample("mpi_ranks"), "1"}));
  INFO(r.err);
  CHECK(r.status != 0);  // mpirun reports the dead rank
  auto p = load_json(r.dir + "/profile.json");
  // Rank 1 wrote no raw profile, but what it completed survives (issue 16):
  // no rank is missing, and the calls are rank 0's one plus rank 1's two.
  CHECK(p["run"]["world_size"] == 2);
  CHECK(p["run"]["missing_ranks"].empty());
  auto compute = find_region(p, "compute");
  REQUIRE(compute.is_object());
  CHECK(compute["calls"] == 3);
  CHECK(compute["process_spread"]["processes"] == 2);
  CHECK(find_region(p, "compute/exchange")["calls"] == 3);
  CHECK_THAT(unwrapped(r.out), Catch::Contains("ended by _exit(), exec() or a signal (SIGKILL included) "
                                    "without writing its raw profile: 2 regions (4 calls) kept "
                                    "from the shared tables"));
}

TEST_CASE("rprof merge: profiles of several runs, summed -- duplicates refused") {
  auto a = run_rprof({"--backend=time", sample("daxpy"), "1000", "3"});
  auto b = run_rprof({"--backend=time", sample("daxpy"), "1000", "4"});
  REQUIRE((a.status == 0 && b.status == 0));
  const std::string out = fresh_path("merged");
  auto m = run_command({RPROF_BIN, "merge", "-o", out, "--format", "json", a.dir, b.dir});
  INFO(m.err);
  REQUIRE(m.status == 0);
  auto p = load_json(out + "/profile.json");
  CHECK(p["run"]["processes"] == 2);
  CHECK(find_region(p, "daxpy")["calls"] == 7);
  CHECK(find_region(p, "daxpy")["process_spread"]["processes"] == 2);
  CHECK(nlohmann::json::parse(m.out) == p);
  // The same directory twice counts once; the same process from two copies
  // of its file is refused.
  m = run_command({RPROF_BIN, "merge", "--format", "json", a.dir, a.dir});
  REQUIRE(m.status == 0);
  CHECK(find_region(nlohmann::json::parse(m.out), "daxpy")["calls"] == 3);
  const std::string copy = fresh_dir("copy");
  for (const auto& e : fs::directory_iterator(a.dir + "/raw")) {
    fs::copy(e.path(), copy + "/" + e.path().filename().string());
  }
  m = run_command({RPROF_BIN, "merge", a.dir, copy});
  CHECK(m.status == 1);
  CHECK_THAT(m.err, Catch::Contains("a second profile of process"));
  m = run_command({RPROF_BIN, "merge", fresh_dir("empty")});
  CHECK(m.status == 1);
  CHECK_THAT(m.err, Catch::Contains("no raw profiles"));
}
