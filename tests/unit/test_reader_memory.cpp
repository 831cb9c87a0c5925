// The readers' memory (issue 16: no input grows the tool past a few hundred
// MB): a raw profile is read node by node and profile.json region by region,
// and what either holds as JSON at once is capped, so a file within every
// cap (a 64 MB array of zeros, just under the 33,554,432 values) is read, or
// refused with one line, without building it, from the file as it is parsed
// (no copy of its text). In builds without ASan each file is read in a child
// limited to 128 MiB of address space (setrlimit(RLIMIT_AS)): a reader that
// builds the file (1.1 GB for the zeros), holds its text or lets a piece
// grow past its cap fails there for sure, whatever the machine.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "profile_dom.h"
#include "common/error.h"
#include "common/json_reader.h"
#include "profile/profile.h"
#include "profile/profile_json.h"
#include "profile/raw_profile.h"

using namespace rprof;
namespace fs = std::filesystem;

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif
#else
constexpr bool kAsan = false;
#endif

// The child's address space: the binary, its libraries and the reader's
// 1 MiB piece of text and at most 64 MiB of JSON (limits::kJsonKeptBytes,
// counted as allocated). Calibrated: the reader of this commit passes down
// to 60 MiB and fails at 50; the reader before it (the whole text, 64 MB,
// plus the piece, up to 3 times its estimate) takes over 160 MB for the
// zeros in a region.
constexpr rlim_t kAddressSpace = 128ull << 20;

// Zeros of an array: 32 million (64 MB) where the address space can be
// limited, fewer under ASan (which reserves terabytes and is slow).
const size_t kZeros = kAsan ? 2000000 : 32000000;

std::string zeros(size_t n) {
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) s += i ? ",0" : "0";
  return s;
}

// A valid raw profile of two nodes with `extra` inserted after its header and
// `in_node` at the start of its first node.
std::string raw_text(const std::string& extra, const std::string& in_node) {
  return R"({"format":"rprof-raw","schema_version":)" + std::to_string(kRawSchemaVersion) +
         R"(,"host":"h","pid":7,"parent_pid":1,"rank":-1,"backend":"time",)" + extra +
         R"("start_unix_s":0,"duration_ns":1000,"reason":"exit","signal":0,"counters":["c"],
    "regions":[{"id":1,"name":"a"},{"id":2,"name":"b"}],
    "threads":[{"index":0,"tid":7,"exited":false,"open":[],"errors":[],
      "nodes":[{)" + in_node +
         R"("id":0,"parent":-1,"region":1,"calls":1,"incl_ns":10,"excl_ns":5,
                 "incl":[4],"excl":[2]},
               {"id":1,"parent":0,"region":2,"calls":2,"incl_ns":5,"excl_ns":5,
                 "incl":[2],"excl":[2]}]}]})";
}

// Runs `reader` in a child (address space limited to kAddressSpace without ASan) and
// returns "ok", its one-line error, or what became of it.
std::string in_child(const std::function<void()>& reader) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    if (!kAsan) {
      const rlimit as{kAddressSpace, kAddressSpace};
      if (setrlimit(RLIMIT_AS, &as) != 0) _exit(3);
    }
    std::string out;
    int code = 0;
    try {
      reader();
      out = "ok";
    } catch (const Error& e) {
      out = e.what();
      code = 1;
    } catch (const std::bad_alloc&) {
      out = "out of memory (more than 128 MiB)";
      code = 2;
    }
    const ssize_t n = write(fds[1], out.data(), out.size());
    _exit(n == static_cast<ssize_t>(out.size()) ? code : 4);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (got.empty()) return "exit " + std::to_string(WEXITSTATUS(status)) + " and no message";
  return got;
}

std::string scratch_file(const std::string& name, const std::string& text) {
  const fs::path d = fs::path("test_reader_memory_scratch");
  fs::create_directories(d);
  const fs::path p = d / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

}  // namespace

TEST_CASE("a raw profile with a 64 MB array of zeros is read node by node, never built") {
  // Read from files, as the tool reads them: the text is not held either.
  const std::string junk =
      scratch_file("raw-junk.json", raw_text("\"junk\":[" + zeros(kZeros) + "],", ""));
  const std::string incl =
      scratch_file("raw-incl.json", raw_text("", "\"incl\":[" + zeros(kZeros) + "],"));
  // A member the format does not have: skipped unbuilt, the profile read.
  CHECK(in_child([&] {
          const RawProfile p = read_raw_profile(junk);
          if (p.threads.size() != 1 || p.threads[0].nodes.size() != 2 ||
              p.threads[0].nodes[1].calls != 2) {
            throw Error("read wrong");
          }
        }) == "ok");
  // In a node's counts: refused at the first count beyond the limit.
  CHECK(in_child([&] { read_raw_profile(incl); }) ==
        incl + ": not a valid rprof raw profile: threads[0].nodes[0].incl: more than 1024 "
               "entries (the limit)");
  fs::remove(junk);
  fs::remove(incl);
  // Where a string belongs: kept empty, for its type error. (A million
  // zeros: what is built does not depend on how many.)
  const std::string m = zeros(1000000);
  CHECK(in_child([&] {
          parse_raw_profile(raw_text("\"backend\":[" + m + "],", ""), "r.json");
        }) == "r.json: not a valid rprof raw profile: backend: expected a string, got an array");
  // The whole file: a foreign file, named as one.
  CHECK(in_child([&] { parse_raw_profile("[" + m + "]", "r.json"); }) ==
        "r.json: not a valid rprof raw profile: missing \"format\": \"rprof-raw\" (a foreign "
        "file?)");
}

TEST_CASE("profile.json with a 64 MB array of zeros in a region is refused at 64 MiB held") {
  // profile.json from a valid raw profile, with a region of zeros in front.
  const Profile p = aggregate({parse_raw_profile(raw_text("", ""), "r.json")}, RunInfo{});
  std::string text = rprof::test::profile_dom(p).dump();
  const size_t at = text.find("\"regions\":[");
  REQUIRE(at != std::string::npos);
  text.insert(at + 11, "{\"junk\":[" + zeros(kZeros) + "]},");
  const std::string file = scratch_file("zeros-region.json", text);
  std::string().swap(text);  // not in the child's address space
  const std::string err = in_child([&] { load_profile(file); });
  if (kAsan) {
    // Fewer zeros than the cap: the region is refused for what it lacks.
    CHECK(err == file + ": not a valid rprof profile: regions[0]: missing 'name'");
  } else {
    CHECK(err == file + ": not a valid rprof profile: more than 67108864 bytes of JSON values "
                        "held at once (the limit)");
  }
  fs::remove(file);
}

TEST_CASE("what a document read piece by piece holds at once is counted as pieces are dropped") {
  // 100,000 elements of 16 bytes each: 1.6 MB in all.
  std::string text = "[";
  for (int i = 0; i < 100000; ++i) text += i ? ",[1]" : "[1]";
  text += "]";
  JsonLimits lim;
  lim.kept_bytes = 1000000;
  const JsonReader r("t.json", "rprof profile");
  const auto keep_all = [](int, JsonReader::json::parse_event_t, JsonReader::json&) {
    return true;
  };
  try {
    r.parse(text, keep_all, lim);
    FAIL("kept 100,000 arrays within 1 MB");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "t.json: not a valid rprof profile: more than 1000000 bytes "
                                   "of JSON values held at once (the limit)");
  }
  // Each element dropped as it ends: never more than one held.
  const auto drop_elements = [](int depth, JsonReader::json::parse_event_t event,
                                JsonReader::json&) {
    return !(depth == 1 && event == JsonReader::json::parse_event_t::array_end);
  };
  CHECK(r.parse(text, drop_elements, lim) == JsonReader::json::array());
}
