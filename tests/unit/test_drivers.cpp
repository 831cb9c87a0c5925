// The backend registry and its drivers: every backend listed once (doctor and
// --help iterate the same list), probes that say why not and what to do,
// --backend resolution, plans, and the pipeline on a real (tiny) program.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "common/error.h"
#include "run/pipeline.h"
#include "run/registry.h"
#include "runtime/handshake.h"
#include "unit/error_code.h"

using namespace rprof;

using rprof::test::error_code;

namespace {

RunRequest request_for(std::vector<std::string> app) {
  RunRequest r;
  r.program = app.front();
  r.app = std::move(app);
  return r;
}

std::string fresh_dir(const std::string& name) {
  std::filesystem::remove_all(name);
  std::filesystem::create_directory(name);
  return std::filesystem::absolute(name).string();
}

}  // namespace

TEST_CASE("registry: every backend once, in order, and fake only for tests") {
  std::vector<std::string> listed;
  for (const auto& d : listed_drivers()) listed.push_back(d->name());
  CHECK(listed == std::vector<std::string>{"time", "sim", "inst", "perf", "papi", "likwid"});
  std::set<std::string> all;
  for (const auto& d : all_drivers()) CHECK(all.insert(d->name()).second);
  CHECK(all.count("fake") == 1);
  CHECK(std::string(make_driver("fake")->name()) == "fake");
  std::string what;
  CHECK(error_code([] { make_driver("cuda"); }, &what) == 2);
  CHECK(what == "unknown backend 'cuda' (use auto, time, sim, inst, perf, papi or likwid)");
}

TEST_CASE("registry: --help describes every listed backend") {
  const std::string help = backend_help();
  for (const auto& d : listed_drivers()) {
    INFO(d->name());
    CHECK(help.find(std::string(d->name()) + ": " + d->summary()) != std::string::npos);
  }
  CHECK(help.find("fake") == std::string::npos);
  CHECK(help.find("auto (default)") != std::string::npos);
}

TEST_CASE("probes: works, or why not and what to do") {
  for (const auto& d : listed_drivers()) {
    INFO(d->name());
    const DriverProbe p = d->probe();
    CHECK_FALSE(p.why.empty());
    if (!p.works) CHECK_FALSE(p.fix.empty());
  }
  CHECK(make_driver("time")->probe().works);
}

TEST_CASE("auto: picks a backend that counts here, and says why when it is not perf") {
  const RunRequest r = request_for({"/bin/true"});
  const DriverChoice c = choose_driver("auto", r);
  const std::string name = c.driver->name();
  CHECK((name == "perf" || name == "sim" || name == "time"));
  if (name != "perf") CHECK_FALSE(c.notice.empty());
  if (name == "time") CHECK(c.notice.find("timing only") != std::string::npos);
  CHECK(choose_driver("time", r).notice.empty());
}

TEST_CASE("plans: options of other backends are usage errors, before anything runs") {
  RunRequest r = request_for({"/bin/true"});
  r.sim_only = true;
  std::string what;
  CHECK(error_code([&] { make_driver("time")->plan(r); }, &what) == 2);
  CHECK(what == "--sim-only needs --backend=sim (or auto)");
  r.sim_only = false;
  r.events = "page-faults";
  CHECK(error_code([&] { make_driver("fake")->plan(r); }, &what) == 2);
  CHECK(what == "--events and --perf-multiplex need --backend=perf, papi or likwid");
  r.events.clear();
  r.sim_cache = "llc=1M";
  CHECK(error_code([&] { make_driver("time")->plan(r); }, &what) == 2);
  CHECK(what == "--sim-cache applies to --backend=sim and --backend=inst (and to perf's cache "
                 "model for a program built with rprof cc)");
  r.sim_cache.clear();
  r.multiplex = true;
  r.events = "page-faults";
  CHECK(error_code([&] { make_driver("papi")->plan(r); }, &what) == 2);
  CHECK(what == "--perf-multiplex needs --backend=perf");
}

TEST_CASE("plans: perf software events, one run per group, handshake per run") {
  RunRequest r = request_for({"/bin/true"});
  r.events = "page-faults;task-clock";
  auto perf = make_driver("perf");
  const RunPlan plan = perf->plan(r);
  CHECK(plan.backend == "perf");
  REQUIRE(plan.passes.size() == 2);
  CHECK(plan.announce_passes);
  CHECK(plan.passes[0].raw_dir == "raw/pass1");
  CHECK(plan.passes[1].raw_dir == "raw/pass2");
  CHECK(plan.passes[0].runtime_backend == "perf");
  CHECK(plan.passes[0].spec.env.at(RPROF_ENV_BACKEND) == "perf");
  CHECK(plan.passes[1].spec.env.at(RPROF_ENV_PERF_GROUP_BASE) != "");
  CHECK(plan.passes[0].spec.argv == r.app);

  // The first run failed: the second is not run, and the notes say so.
  PassResult failed;
  failed.launch.exit_code = 3;
  std::vector<PassResult> done = {failed};
  CHECK_FALSE(perf->keep_going(plan, done));
  const RunOutcome out = perf->finish(plan, done);
  CHECK(out.result.exit_code == 3);
  bool said = false;
  for (const std::string& n : out.profile.notes) {
    said |= n == "run 1 of 2 failed, so the remaining event groups were not counted";
  }
  CHECK(said);
}

TEST_CASE("pipeline: one native run, its exit status and handshake environment") {
  const std::string out_dir = fresh_dir("test_drivers_run");
  const RunRequest r = request_for({"/bin/sh", "-c",
                                    "test -d \"$RPROF_OUTPUT_DIR\" && "
                                    "test \"$RPROF_BACKEND\" = time && test \"$EXTRA\" = 1 && "
                                    "exit 7"});
  auto time = make_driver("time");
  RunPlan plan = time->plan(r);
  plan.env["EXTRA"] = "1";  // a launch-environment addition reaches every pass
  std::vector<std::string> said;
  const RunOutcome out =
      run_plan(*time, plan, out_dir, [&](const std::string& m) { said.push_back(m); });
  std::filesystem::remove_all(out_dir);
  CHECK(said.empty());
  CHECK(out.result.exit_code == 7);
  CHECK(out.profile.run.backend == "time");
  CHECK(out.profile.run.exit_code == 7);
  CHECK(out.problem.empty());
  REQUIRE_FALSE(out.profile.notes.empty());
  CHECK(out.profile.notes.back().rfind("no marker data", 0) == 0);
}

TEST_CASE("sim: doctor and the run find the tool with one search, and agree why not") {
  const char* old = std::getenv(RPROF_ENV_SIM_LIBDIR);
  const std::string saved = old ? old : "";
  setenv(RPROF_ENV_SIM_LIBDIR, "/nonexistent/rprof-sim-dir", 1);
  const DriverProbe p = make_driver("sim")->probe();
  std::string what;
  const int code = error_code([] { make_driver("sim")->plan(request_for({"/bin/true"})); }, &what);
  if (old) {
    setenv(RPROF_ENV_SIM_LIBDIR, saved.c_str(), 1);
  } else {
    unsetenv(RPROF_ENV_SIM_LIBDIR);
  }
  CHECK_FALSE(p.works);
  CHECK_FALSE(p.fix.empty());
  CHECK(code == 2);
  CHECK(what == "--backend=sim: " + p.why);
  // Built with the sim backend and Valgrind installed: the reason names the
  // directory it looked in.
  if (p.why.find("rprof-sim Valgrind tool") != std::string::npos) {
    CHECK(p.why.find("/nonexistent/rprof-sim-dir") != std::string::npos);
    CHECK(p.fix.find(RPROF_ENV_SIM_LIBDIR) != std::string::npos);
  }
}
