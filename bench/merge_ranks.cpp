// Merging many rank files: writes R raw profiles of N regions each (one
// thread per rank, regions nested two deep: N/10 parents with 9 children
// each), then runs `rprof merge` on them and reports its wall time and peak
// resident memory. Target (issue 8): 256 ranks x 1000 regions in under 2 s.
//
// Usage: merge_ranks <path-to-rprof> [ranks=256] [regions=1000]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

void write_rank(const fs::path& dir, int rank, int ranks, int regions) {
  const int parents = regions / 10;
  std::string s = "{\"format\":\"rprof-raw\",\"schema_version\":1,\"host\":\"node" +
                  std::to_string(rank / 64) + "\",\"pid\":" + std::to_string(1000 + rank) +
                  ",\"parent_pid\":0,\"rank\":" + std::to_string(rank) +
                  ",\"world_size\":" + std::to_string(ranks) +
                  ",\"backend\":\"time\",\"start_unix_s\":0,\"duration_ns\":1000000000,"
                  "\"reason\":\"exit\",\"signal\":0,\"counters\":[],\"regions\":[";
  for (int i = 0; i < regions; ++i) {
    s += (i ? "," : "") + std::string("{\"id\":") + std::to_string(i + 1) +
         ",\"name\":\"region_" + std::to_string(i) + "\"}";
  }
  s += "],\"threads\":[{\"index\":0,\"tid\":1,\"exited\":false,\"open\":[],\"nodes\":[";
  int id = 0;
  for (int p = 0; p < parents; ++p) {
    const int parent_id = id;
    for (int c = 0; c < 10; ++c, ++id) {
      const int region = p * 10 + c + 1;
      s += (id ? "," : "") + std::string("{\"id\":") + std::to_string(id) +
           ",\"parent\":" + std::to_string(c == 0 ? -1 : parent_id) +
           ",\"region\":" + std::to_string(region) + ",\"calls\":" +
           std::to_string(10 + rank) + ",\"incl_ns\":" + std::to_string(1000 * (rank + 1)) +
           ",\"excl_ns\":" + std::to_string(500 * (rank + 1)) + "}";
    }
  }
  s += "],\"errors\":[]}]}\n";
  std::ofstream(dir / ("rprof-raw.node" + std::to_string(rank / 64) + "." +
                       std::to_string(1000 + rank) + ".r" + std::to_string(rank) + ".json"))
      << s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: merge_ranks <rprof> [ranks] [regions]\n");
    return 2;
  }
  const int ranks = argc > 2 ? std::atoi(argv[2]) : 256;
  const int regions = argc > 3 ? std::atoi(argv[3]) : 1000;
  char tmpl[] = "/tmp/rprof-merge-bench-XXXXXX";
  const fs::path dir = mkdtemp(tmpl);
  for (int r = 0; r < ranks; ++r) write_rank(dir / "", r, ranks, regions);
  uintmax_t bytes = 0;
  for (const auto& e : fs::directory_iterator(dir)) bytes += e.file_size();

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = (dir / "merged").string();
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    if (freopen("/dev/null", "w", stderr) == nullptr) _exit(127);
    execl(argv[1], argv[1], "merge", "-o", out.c_str(), "--format", "csv", dir.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "rprof merge: %d rank files x %d regions (%.1f MB of raw JSON, 1 thread per rank)\n"
      "  wall time %.2f s (target < 2 s: %s), peak RSS %.0f MB, exit %d\n"
      "  (rprof merge reads files on all cores; writes profile.json and report.txt)\n",
      ranks, regions, static_cast<double>(bytes) / 1e6, secs, secs < 2 ? "met" : "NOT met",
      static_cast<double>(ru.ru_maxrss) / 1024.0,
      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  fs::remove_all(dir);
  return 0;
}
