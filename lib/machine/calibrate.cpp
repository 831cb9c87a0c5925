#include "machine/calibrate.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iterator>
#include <fmt/format.h>

#include "machine/buffer.h"
#include "machine/calibrate_plan.h"
#include "machine/chase.h"
#include "machine/measure.h"
#include "machine/sweep.h"
#include "machine/thread_team.h"

namespace rprof {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kPadBytes = 320;  // between arrays: breaks 4 KiB aliasing
constexpr int kPlacements = 3;       // buffers tried for cache-sized working sets

Provenance provenance(const std::string& kernel, uint64_t ws, int threads, const Stat& s,
                      double scale) {
  Provenance p;
  p.kernel = kernel;
  p.working_set_bytes = ws;
  p.threads = threads;
  p.repetitions = s.reps;
  p.seconds_per_rep = s.seconds_per_rep;
  p.best = s.best * scale;
  p.median = s.median * scale;
  p.worst = s.worst * scale;
  p.spread = s.spread();
  p.disturbed = s.disturbed;
  return p;
}

const char* level_label(Boundary b, int llc_level) {
  switch (b) {
    case Boundary::kL1: return "L1";
    case Boundary::kL2: return "L2";
    case Boundary::kLLC: return llc_level == 3 ? "L3" : "LLC";
    default: return "DRAM";
  }
}

class Calibrator {
 public:
  explicit Calibrator(const CalibrationOptions& opt) : opt_(opt), plan_(plan_for(opt.mode)) {}
  Machine run();

 private:
  void progress(const std::string& what) {
    if (opt_.progress) {
      opt_.progress(total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 0, what);
    }
    ++done_;
  }
  void init_buffers(ThreadTeam& team, uint64_t bytes_per_thread, Pages pages);
  // The pages the buffers got, for the machine file: "4 KiB", "2 MiB", or
  // what the kernel gave where huge pages were asked for and few came.
  std::string pages_label() const;
  // Every kernel's bandwidth at boundary b on the current buffers.
  void measure_bandwidths(ThreadTeam& team, CeilingSet& set, Boundary b);
  // Bandwidth of one mix at a working set per thread; `placements`: in
  // several buffers when the working set is near a private cache's size.
  Stat stream(ThreadTeam& team, StreamMix mix, uint64_t ws_per_thread, const RepeatPlan& rp,
              uint64_t* ws_used, bool placements);
  void measure_set(int threads);
  // The dependency-chain ceilings: one chain of each FP operation.
  void measure_fp_latency(ThreadTeam& one);
  void measure_latency(ThreadTeam& team, CeilingSet& set);
  // One level's chase at `ws` bytes per thread, warmed up (`settled`: its
  // warm-up settled), timed.
  LatencyCeiling chase_latency(ThreadTeam& team, Boundary b, uint64_t ws, bool* settled);
  // Untimed chasing until the chase's level is filled (measure_latency).
  // The LLC chase again at half its working set where the LLC held less
  // (measure_latency); `settled` follows the figure kept.
  void halve_llc_chase(ThreadTeam& team, CeilingSet& set, size_t llc_at, bool* settled);
  // Returns whether it settled (always true for DRAM, which has no pass).
  bool warm_chase(ThreadTeam& team, std::vector<void*>& pos, Boundary b, uint64_t lines);
  std::vector<Boundary> boundaries() const;

  CalibrationOptions opt_;
  Plan plan_;
  Machine m_;
  LevelSizes sizes_;
  uint64_t dram_total_ = 0;
  uint64_t placement_limit_ = 0;  // bytes per thread: 2 x the largest private cache
  int llc_level_ = 0;
  std::vector<Buffer> bufs_;
  Pages pages_ = Pages::kSmall;
  size_t done_ = 0, total_ = 0;
};

void Calibrator::init_buffers(ThreadTeam& team, uint64_t bytes_per_thread, Pages pages) {
  bufs_.clear();
  pages_ = pages;
  bufs_.resize(static_cast<size_t>(team.size()));
  for (Buffer& b : bufs_) b = Buffer(bytes_per_thread, pages);
  // First touch by the owning worker: pages land on its memory node.
  team.run([&](int w) {
    Buffer& b = bufs_[static_cast<size_t>(w)];
    std::fill(b.doubles(), b.doubles() + b.bytes() / 8, 1.0);
  });
}

Stat Calibrator::stream(ThreadTeam& team, StreamMix mix, uint64_t ws_per_thread,
                        const RepeatPlan& rp, uint64_t* ws_used, bool placements) {
  const StreamKernel k = stream_kernel(mix);
  const uint64_t arrays = static_cast<uint64_t>(k.arrays);
  const uint64_t cap = bufs_.front().bytes() / 8;
  uint64_t n = ws_per_thread / (8 * arrays) / k.granule * k.granule;
  n = std::max<uint64_t>(n, k.granule);
  while (n > k.granule && arrays * (n + kPadBytes / 8) > cap) n -= k.granule;
  const uint64_t bytes_per_thread = arrays * (n + kPadBytes / 8) * 8;
  *ws_used = n * 8 * arrays * static_cast<uint64_t>(team.size());
  const double work = static_cast<double>(n) * k.explicit_bytes_per_elem();

  // Physically indexed caches place a 4 KiB page by its physical address:
  // whether a working set near a private cache's size fits or conflicts with
  // itself depends on the pages it got (15-20 % at 1 MB in a 1 MiB L2).
  // Such working sets are measured in kPlacements buffers allocated side by
  // side (distinct pages) and the best is kept, as a best of separate runs
  // (likwid-bench's) does; each placement gets half the repetitions.
  std::vector<std::vector<Buffer>> extra;
  const int count = placements && bytes_per_thread <= placement_limit_ ? kPlacements : 1;
  for (int c = 1; c < count; ++c) {
    std::vector<Buffer> set(bufs_.size());
    for (Buffer& b : set) b = Buffer(bytes_per_thread + 4096, pages_);
    team.run([&](int w) {
      Buffer& b = set[static_cast<size_t>(w)];
      std::fill(b.doubles(), b.doubles() + b.bytes() / 8, 1.0);
    });
    extra.push_back(std::move(set));
  }
  RepeatPlan each = rp;
  // Beyond the LLC: this thread's share of its LLC (the threads sharing one
  // split it) is below its working set.
  const uint64_t sharing = std::clamp<uint64_t>(static_cast<uint64_t>(sizes_.llc_shared_cpus), 1,
                                                static_cast<uint64_t>(team.size()));
  if (sharing * ws_per_thread > std::max(sizes_.llc, sizes_.l2)) each.warm_s = plan_.dram_warm_s;
  if (count > 1) {
    each.reps = std::max(2, (rp.reps + 1) / 2);
    each.max_tries = rp.max_tries > 0 ? std::max(3 * each.reps, (rp.max_tries + 1) / 2) : 0;
  }
  Samples samples;
  for (int c = 0; c < count; ++c) {
    std::vector<std::array<double*, 8>> ptr(bufs_.size());
    for (size_t w = 0; w < bufs_.size(); ++w) {
      double* base = c == 0 ? bufs_[w].doubles() : extra[static_cast<size_t>(c - 1)][w].doubles();
      for (uint64_t a = 0; a < arrays; ++a) ptr[w][a] = base + a * (n + kPadBytes / 8);
    }
    const auto body = [&](int w, uint64_t units) {
      k.run(ptr[static_cast<size_t>(w)].data(), n, units);
    };
    sample_rate(team, body, work, each, samples);
  }
  return summarize(samples);
}

std::vector<Boundary> Calibrator::boundaries() const {
  std::vector<Boundary> out = {Boundary::kL1};
  if (sizes_.has_l2) out.push_back(Boundary::kL2);
  if (sizes_.has_llc) out.push_back(Boundary::kLLC);
  out.push_back(Boundary::kDRAM);
  return out;
}

bool Calibrator::warm_chase(ThreadTeam& team, std::vector<void*>& pos, Boundary b, uint64_t lines) {
  // The first traversals of a chase do not measure its level: they fill it.
  // Measured on a Zen 5 VM (victim L3: a line enters it only when it leaves
  // L2), an 8 MiB chase ran 60-115 ns per load for its first pass and settled
  // at 12-13 ns after about ten; timed from the start, the quick calibration's
  // "L3" latency read 15 to 139 ns from one run to the next. So the chase runs
  // untimed in chunks of about a quarter repetition until its working set went
  // round twice (cache levels) and two successive chunks agree (settle), or
  // for plan_.chase_warm_max_s at most. A cache level's chunk is a whole pass
  // where one fits 8 times in that time: parts of a pass still settling can
  // agree by chance.
  uint64_t chunk = 4096;
  const auto task = [&](int w) {
    pos[static_cast<size_t>(w)] = run_chase(pos[static_cast<size_t>(w)], chunk);
  };
  double t = 0;
  while ((t = team.run(task)) < plan_.lat.target_s / 4 && chunk < (uint64_t{1} << 34)) chunk *= 2;
  const double per_load = t / static_cast<double>(chunk);
  if (b != Boundary::kDRAM && lines > chunk &&
      per_load * static_cast<double>(lines) <= plan_.chase_warm_max_s / 8) {
    chunk = lines;
  }
  // DRAM: no pass (seconds at 4 KiB pages), the streams' warm-up time instead.
  const double min_s =
      b == Boundary::kDRAM ? plan_.dram_warm_s : 2.0 * static_cast<double>(lines) * per_load;
  // The minimum at most half the cap: the cold first chunks overstate a
  // pass's time, and a minimum at the cap would leave one chance to agree.
  const double cap = plan_.chase_warm_max_s;
  return settle(team, task, std::min(min_s, cap / 2), cap) || b == Boundary::kDRAM;
}

LatencyCeiling Calibrator::chase_latency(ThreadTeam& team, Boundary b, uint64_t ws, bool* settled) {
  const int t = team.size();
  const size_t line = 64;
  std::vector<void*> pos(static_cast<size_t>(t));
  team.run([&](int w) {
    void* base = bufs_[static_cast<size_t>(w)].data();
    build_chase(base, ws, line, 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(w));
    pos[static_cast<size_t>(w)] = base;
  });
  *settled = warm_chase(team, pos, b, ws / line);
  constexpr uint64_t kChunk = 256;
  const Stat s = measure_rate(
      team,
      [&](int w, uint64_t units) {
        pos[static_cast<size_t>(w)] = run_chase(pos[static_cast<size_t>(w)], units * kChunk);
      },
      kChunk, plan_.lat);
  LatencyCeiling l;
  l.level = level_label(b, llc_level_);
  // s is loads per second over all threads; each thread waits on its own.
  l.ns = s.best > 0 ? 1e9 * t / s.best : 0;
  l.cycles = l.ns * m_.clock_ghz;
  Stat inv = s;  // provenance in ns: best latency is the best rate
  l.pages = pages_label();
  l.how = provenance("pointer chase, random cyclic permutation of 64-byte lines, " + l.pages +
                         " pages",
                     ws * static_cast<uint64_t>(t), t, inv, 1);
  l.how.best = l.ns;
  l.how.median = s.median > 0 ? 1e9 * t / s.median : 0;
  l.how.worst = s.worst > 0 ? 1e9 * t / s.worst : 0;
  return l;
}

void Calibrator::measure_latency(ThreadTeam& team, CeilingSet& set) {
  const int t = team.size();
  const size_t line = 64;
  const size_t from = set.latency.size();
  std::vector<bool> settled;
  uint64_t llc_ws = 0;
  size_t llc_at = 0;
  for (Boundary b : boundaries()) {
    uint64_t ws = latency_working_set_per_thread(sizes_, b, t, dram_total_);
    if (ws == 0) continue;  // no working set inside the LLC for these threads
    if (b == Boundary::kDRAM) {
      const uint64_t chase = std::clamp<uint64_t>(8 * sizes_.llc, 64 * kMiB, plan_.chase_max);
      ws = std::min<uint64_t>(chase / static_cast<uint64_t>(t), bufs_.front().bytes());
    }
    ws = std::min<uint64_t>(ws, bufs_.front().bytes()) / line * line;
    progress(fmt::format("latency {} ({} thread{})", level_label(b, llc_level_), t,
                         t == 1 ? "" : "s"));
    if (b == Boundary::kLLC) llc_ws = ws, llc_at = set.latency.size();
    bool ok = true;
    set.latency.push_back(chase_latency(team, b, ws, &ok));
    settled.push_back(ok);
  }
  if (llc_ws > 0) {
    bool ok = settled[llc_at - from];
    halve_llc_chase(team, set, llc_at, &ok);
    settled[llc_at - from] = ok;
  }
  for (size_t i = from; i < set.latency.size(); ++i) {
    if (settled[i - from]) continue;
    m_.notes.push_back(fmt::format(
        "latency {} ({} thread{}): the chase's time per load still changed by more than {:.0f} % "
        "between its warm-up chunks after {:.2g} s; the latency may be high",
        set.latency[i].level, t, t == 1 ? "" : "s", 100 * kSettled, plan_.chase_warm_max_s));
  }
}

void Calibrator::halve_llc_chase(ThreadTeam& team, CeilingSet& set, size_t llc_at, bool* settled) {
  // An LLC shared with other programs (a cloud VM's neighbours on the same
  // L3) may hold less of the chase than its size: on a Zen 5 VM an 8 MiB
  // chase in a 32 MiB L3 ran at 58-141 ns for seconds while 4 MiB ran at
  // 12-40 ns. Within one level, halving the working set changes a chase's
  // latency little (8 -> 4 MiB in that L3 when it held both: 12.8 -> 11.5
  // ns); so the chase is also measured at half the working set, and the half
  // is taken where it is faster and the larger one costs over kLatencyStep
  // times the half's or over kLlcDramLatencyRatio of a DRAM load (not an LLC
  // hit: 10-35 ns against 80-150 on the machines we know); and halved again,
  // down to 4 times the largest private cache (a faster level then serves at
  // most a quarter of the loads). The note says which and why.
  const uint64_t t = static_cast<uint64_t>(team.size());
  const size_t line = 64;
  double dram_ns = 0;
  for (const LatencyCeiling& l : set.latency) {
    if (l.level == "DRAM") dram_ns = l.ns;
  }
  const uint64_t floor = std::max<uint64_t>(4 * std::max(sizes_.l2, sizes_.l1), 64 * 1024);
  const LatencyCeiling first = set.latency[llc_at];
  LatencyCeiling& cur = set.latency[llc_at];
  std::string why;
  while (cur.how.working_set_bytes / t / 2 >= floor) {
    const uint64_t half_ws = cur.how.working_set_bytes / t / 2 / line * line;
    bool half_settled = true;
    LatencyCeiling half = chase_latency(team, Boundary::kLLC, half_ws, &half_settled);
    const bool not_llc = dram_ns > 0 && cur.ns > kLlcDramLatencyRatio * dram_ns;
    const bool step = cur.ns > kLatencyStep * half.ns;
    if (!(half.ns < cur.ns) || !(not_llc || step)) break;
    why =
        step ? fmt::format("over {:.3g} times the {:.3g} ns at {} KiB", kLatencyStep, half.ns,
                           half.how.working_set_bytes >> 10)
             : fmt::format("over {:.0f}% of DRAM's {:.3g} ns", 100 * kLlcDramLatencyRatio, dram_ns);
    cur = half;
    *settled = half_settled;
  }
  if (!why.empty()) {
    m_.notes.push_back(fmt::format(
        "latency {} ({} thread{}): {:.3g} ns at {} KiB, {}: the LLC held less than that working "
        "set (other programs sharing it); taken at {} KiB: {:.3g} ns",
        cur.level, t, t == 1 ? "" : "s", first.ns, first.how.working_set_bytes >> 10, why,
        cur.how.working_set_bytes >> 10, cur.ns));
  }
  if (dram_ns > 0 && cur.ns > kLlcDramLatencyRatio * dram_ns) {
    // Measured with a stream on the other CPU of a 2-vCPU VM: 150 ns at
    // 8 MiB and no faster at 4 MiB, DRAM 196 ns.
    m_.notes.push_back(fmt::format(
        "latency {} ({} thread{}): {:.3g} ns at {} KiB is over {:.0f}% of DRAM's {:.3g} ns, not "
        "an LLC hit, and halving the working set (down to 4 times the largest private cache) "
        "did not bring it under: other programs sharing the LLC left this one less room; the "
        "figure is doubtful, and so are the lines in flight read with it (recalibrate when the "
        "machine is quiet)",
        cur.level, t, t == 1 ? "" : "s", cur.ns, cur.how.working_set_bytes >> 10,
        100 * kLlcDramLatencyRatio, dram_ns));
  }
}

void Calibrator::measure_set(int threads) {
  const std::vector<int> all = allowed_cpus();
  std::vector<int> cpus(all.begin(), all.begin() + threads);
  ThreadTeam team(cpus);
  CeilingSet set;
  set.threads = threads;
  set.cpus = cpus;
  set.pinned = team.pinned();
  const uint64_t t = static_cast<uint64_t>(threads);
  uint64_t per_thread = dram_total_ / t;
  for (uint64_t s : opt_.sizes) per_thread = std::max(per_thread, s / t);

  std::vector<double> sink(static_cast<size_t>(threads));
  for (const FlopKernel& k : flop_kernels()) {
    progress(fmt::format("peak {} {} {} ({} thread{})", precision_name(k.precision),
                         width_name(k.width), mix_key(k.mix), threads, threads == 1 ? "" : "s"));
    constexpr uint64_t kIters = 256;
    const Stat s = measure_rate(
        team,
        [&](int w, uint64_t units) {
          sink[static_cast<size_t>(w)] += k.run(units * kIters, 1.0 + 0.001 * w);
        },
        k.flops_per_iter * kIters, plan_.peak);
    PeakCeiling p{k.precision, k.width, k.mix, k.isa, s.best / 1e9, {}};
    p.how = provenance(fmt::format("{} {} {} ({}): {}", mix_key(k.mix),
                                   precision_name(k.precision), width_name(k.width), k.isa,
                                   k.description),
                       0, threads, s, 1e-9);
    set.peaks.push_back(p);
  }
  // Every kernel on 4 KiB pages, then, where the kernel allows transparent
  // huge pages, again on them (at the LLC and DRAM only in quick mode: a
  // working set in L1 or L2 spans too few pages for the TLB to matter), so
  // a roof is what plain code reaches on either. The latency chases run on
  // the last pages: huge where allowed, so a DRAM latency holds no page walk.
  std::vector<Pages> modes = {Pages::kSmall};
  if (opt_.huge_pages) modes = {Pages::kHuge};
  else if (thp_policy() != "never") modes.push_back(Pages::kHuge);
  for (size_t i = 0; i < modes.size(); ++i) {
    init_buffers(team, per_thread + 4 * kPadBytes + 4096, modes[i]);
    for (Boundary b : boundaries()) {
      const bool cache_level = b == Boundary::kL1 || b == Boundary::kL2;
      if (i > 0 && cache_level && opt_.mode != CalibrationMode::kFull) continue;
      measure_bandwidths(team, set, b);
    }
  }
  for (StreamMix mix : kStreamMixes) {
    Sweep sw{mix, threads, "sizes", {}};
    for (uint64_t size : opt_.sizes) {
      progress(fmt::format("{} at {} KiB ({} thread{})", stream_key(mix), size >> 10, threads,
                           threads == 1 ? "" : "s"));
      uint64_t used = 0;
      const Stat s = stream(team, mix, size / t, plan_.bw, &used, true);
      sw.points.push_back({used, s.best / 1e9, s.spread()});
    }
    if (!sw.points.empty()) m_.sweeps.push_back(std::move(sw));
  }
  if (threads == 1 || plan_.latency_all_sets) measure_latency(team, set);
  bufs_.clear();
  m_.ceilings.push_back(std::move(set));
}

void Calibrator::measure_fp_latency(ThreadTeam& one) {
  for (const FpChainKernel& k : fp_chain_kernels()) {
    progress(fmt::format("latency of a dependent {} {}", precision_name(k.precision),
                         fp_op_key(k.op)));
    constexpr uint64_t kIters = 256;
    const Stat s = measure_rate(
        one, [&](int, uint64_t units) { k.run(units * kIters); },
        static_cast<double>(kIters * FpChainKernel::kOpsPerIter), plan_.clock);
    FpLatency l;
    l.precision = k.precision;
    l.op = k.op;
    l.ns = s.best > 0 ? 1e9 / s.best : 0;
    l.cycles = l.ns * m_.clock_ghz;
    l.how = provenance(fmt::format("a chain of dependent scalar {} {}s ({})",
                                   precision_name(k.precision), fp_op_key(k.op), k.isa),
                       0, 1, s, 1);
    l.how.best = l.ns;
    l.how.median = s.median > 0 ? 1e9 / s.median : 0;
    l.how.worst = s.worst > 0 ? 1e9 / s.worst : 0;
    m_.fp_latency.push_back(l);
  }
}

std::string Calibrator::pages_label() const {
  if (pages_ != Pages::kHuge) return "4 KiB";
  double share = 1;
  for (const Buffer& b : bufs_) {
    const double h = b.huge_share();
    if (h >= 0) share = std::min(share, h);
  }
  if (share >= 0.9) return "2 MiB";
  return fmt::format("4 KiB and 2 MiB (huge pages asked for; {:.0f}% given)", 100 * share);
}

void Calibrator::measure_bandwidths(ThreadTeam& team, CeilingSet& set, Boundary b) {
  const int threads = team.size();
  const uint64_t ws = working_set_per_thread(sizes_, b, threads, dram_total_);
  if (ws == 0) {
    if (pages_ == Pages::kHuge && opt_.huge_pages == false) return;  // said once
    m_.notes.push_back(fmt::format(
        "{} bandwidth with {} threads not measured: their L2 caches together hold "
        "as much as the LLC, so no working set lies between them",
        boundary_name(b), threads));
    return;
  }
  const std::string pages = pages_label();
  for (StreamMix mix : kStreamMixes) {
    if (bypasses_caches(mix) && b != Boundary::kDRAM) continue;
    progress(fmt::format("bandwidth {} {} ({} thread{}, {} pages)", boundary_name(b),
                         stream_key(mix), threads, threads == 1 ? "" : "s", pages));
    uint64_t used = 0;
    const Stat s = stream(team, mix, ws, plan_.bw, &used, true);
    const StreamKernel k = stream_kernel(mix);
    BandwidthCeiling c;
    c.boundary = b;
    c.mix = mix;
    c.pages = pages;
    // Every ceiling, DRAM's too, is the best repetition: a roof is an upper
    // bound of what plain code reaches, and a median sits below what the
    // kernel reached in half its repetitions. The DRAM figure's stability
    // comes from its warm-up (streamed until two runs agree) and from the
    // roof being the best of every kernel on both page sizes.
    c.gbs = s.best / 1e9;
    c.traffic_gbs = c.gbs * k.traffic_bytes_per_elem() / k.explicit_bytes_per_elem();
    c.how = provenance(fmt::format("{} ({}, {} pages): {}", stream_key(mix), k.isa, pages,
                                   k.description),
                       used, threads, s, 1e-9);
    set.bandwidth.push_back(c);
  }
}

Machine Calibrator::run() {
  const Topology topo = detect_topology("/");  // the hardware measured, never RPROF_SYSROOT
  m_.mode = mode_name(opt_.mode);
  m_.pages = opt_.huge_pages
                 ? "huge pages requested (MADV_HUGEPAGE)"
                 : thp_policy() == "never"
                       ? "4 KiB (transparent huge pages: never)"
                       : "each kernel on 4 KiB pages and on transparent huge pages (policy: " +
                             thp_policy() + "); latencies on huge pages";
  m_.rprof_version = opt_.rprof_version;
  m_.created_unix_s = static_cast<int64_t>(std::time(nullptr));
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) m_.host = host;
  m_.cpu = topo.cpu;
  const std::vector<int> cpus = allowed_cpus();
  m_.logical_cpus = static_cast<int>(cpus.size());
  for (const CacheLevel& c : topo.caches) {
    m_.caches.push_back({c.level, c.size_bytes, 0, c.associativity, c.line_bytes, c.shared_cpus});
  }

  std::vector<int> counts = opt_.threads;
  if (counts.empty()) {
    counts.push_back(1);
    if (opt_.mode == CalibrationMode::kFull) {
      for (int t = 2; t < m_.logical_cpus; t *= 2) counts.push_back(t);
    }
    if (m_.logical_cpus > 1) counts.push_back(m_.logical_cpus);
  }
  for (int& c : counts) c = std::clamp(c, 1, m_.logical_cpus);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());

  // Sizes from sysfs; the sweep replaces one only where it contradicts it.
  const CacheLevel* l1 = topo.level(1);
  const CacheLevel* l2 = topo.level(2);
  const CacheLevel* llc = topo.last_level();
  sizes_.l1 = l1 ? l1->size_bytes : 32 * 1024;
  sizes_.has_l2 = l2 != nullptr;
  sizes_.l2 = l2 ? l2->size_bytes : 0;
  sizes_.has_llc = llc != nullptr && llc->level >= 3;
  sizes_.llc = sizes_.has_llc ? llc->size_bytes : sizes_.l2;
  sizes_.llc_shared_cpus = sizes_.has_llc ? llc->shared_cpus : 1;
  placement_limit_ = 2 * (l2 ? l2->size_bytes : sizes_.l1);
  llc_level_ = sizes_.has_llc ? llc->level : 0;
  const uint64_t llc_bytes = std::max(sizes_.llc, sizes_.l2);
  const int instances = sizes_.has_llc
      ? (m_.logical_cpus + sizes_.llc_shared_cpus - 1) / sizes_.llc_shared_cpus : 1;
  const uint64_t phys = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                        static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  dram_total_ = std::clamp<uint64_t>(4 * llc_bytes * static_cast<uint64_t>(instances),
                                     plan_.dram_min, plan_.dram_max);
  if (phys > 0) dram_total_ = std::min(dram_total_, phys / 4);

  const std::vector<uint64_t> sweep =
      sweep_sizes(4096, dram_total_, plan_.per_octave, 256);
  const size_t kernels = flop_kernels().size();
  const size_t levels = boundaries().size();
  total_ = 1 + sweep.size() + fp_chain_kernels().size();
  const size_t page_modes = !opt_.huge_pages && thp_policy() != "never" ? 2 : 1;
  for (int c : counts) {
    total_ += kernels + page_modes * std::size(kStreamMixes) * levels +
              std::size(kStreamMixes) * opt_.sizes.size();
    if (c == 1 || plan_.latency_all_sets) total_ += levels;
  }

  {  // Clock and sweep: one thread.
    ThreadTeam one({cpus.front()});
    progress("core clock");
    constexpr uint64_t kChunk = 1024;
    const Stat s = measure_rate(one, [](int, uint64_t u) { run_add_chain(u * kChunk); },
                                8.0 * kChunk, plan_.clock);
    m_.clock_ghz = s.best / 1e9;
    measure_fp_latency(one);
    // Huge pages where allowed: a sweep on 4 KiB pages sees the TLB's reach
    // as a drop of its own and takes it for a cache's capacity.
    init_buffers(one, dram_total_ + 4096,
                 opt_.huge_pages || thp_policy() != "never" ? Pages::kHuge : Pages::kSmall);
    Sweep sw{StreamMix::kLoad, 1, "capacity", {}};
    for (uint64_t size : sweep) {
      progress(fmt::format("sweep: load at {} KiB", size >> 10));
      uint64_t used = 0;
      const Stat st = stream(one, StreamMix::kLoad, size, plan_.sweep, &used, false);
      sw.points.push_back({used, st.best / 1e9, st.spread()});
    }
    bufs_.clear();
    std::vector<uint64_t> reported;
    for (const CacheInfo& c : m_.caches) reported.push_back(c.reported_bytes);
    const std::vector<uint64_t> eff = effective_capacities(reported, sw.points);
    for (size_t i = 0; i < m_.caches.size(); ++i) {
      CacheInfo& c = m_.caches[i];
      c.effective_bytes = eff[i];
      if (eff[i] == 0) {
        m_.notes.push_back(fmt::format(
            "L{} effective size not found in the sweep (no clear bandwidth drop); "
            "working sets use the reported size", c.level));
      }
      // Working sets follow the reported size unless the sweep contradicts it.
      const CacheSizeChoice choice = chosen_cache_size(c);
      if (choice.replaced) {
        m_.notes.push_back(choice.why + ": the working sets of that level, and the sim "
                           "backend's simulated cache, use the measured size");
      }
      const uint64_t use = choice.bytes;
      if (c.level == 1) sizes_.l1 = use;
      if (c.level == 2) sizes_.l2 = use;
      if (sizes_.has_llc && c.level == llc_level_) sizes_.llc = use;
    }
    m_.sweeps.push_back(std::move(sw));
  }
  for (int c : counts) measure_set(c);
  const std::string raised = keep_ceilings_monotonic(m_);
  if (!raised.empty()) m_.notes.push_back(raised);

  double worst = 0;
  int disturbed = 0;
  std::string unstable;  // bandwidths whose repetitions spread beyond kStableSpread
  for (const CeilingSet& s : m_.ceilings) {
    for (const PeakCeiling& p : s.peaks) {
      worst = std::max(worst, p.how.spread);
      disturbed += p.how.disturbed;
    }
    for (const BandwidthCeiling& b : s.bandwidth) {
      worst = std::max(worst, b.how.spread);
      disturbed += b.how.disturbed;
      if (b.how.spread > kStableSpread) {
        unstable += fmt::format("{}{} {} ({} thread{}, {} pages) {:.0f} %",
                                unstable.empty() ? "" : ", ", boundary_name(b.boundary),
                                stream_key(b.mix), s.threads, s.threads == 1 ? "" : "s",
                                b.pages, 100 * b.how.spread);
      }
    }
    if (!s.pinned) {
      m_.notes.push_back(fmt::format("{} threads could not all be pinned (ran unpinned)",
                                     s.threads));
    }
  }
  if (disturbed > 0) {
    m_.notes.push_back(fmt::format(
        "busy machine: {} repetitions were discarded and repeated because another "
        "process took a CPU while they ran", disturbed));
  }
  if (!unstable.empty()) {
    m_.notes.push_back(fmt::format(
        "unstable bandwidths: the repetitions of {} spread more than {:.0f} % "
        "((best - worst) / best); a recalibration may move these roofs by as much",
        unstable, 100 * kStableSpread));
  }
  if (worst > 0.1) {
    m_.notes.push_back(fmt::format(
        "noisy machine: some figures varied by up to {:.0f} % between repetitions "
        "(other processes running?); each ceiling is the best repetition",
        100 * worst));
  }
  if (opt_.progress) opt_.progress(1.0, "done");
  return m_;
}

}  // namespace

std::string keep_ceilings_monotonic(Machine& m) {
  std::string raised;
  auto note = [&](const std::string& what, int threads, double measured, int from, double kept,
                  const char* unit) {
    raised += fmt::format("{}{} ({} threads) {:.3g} {} below {:.3g} with {} thread{}",
                          raised.empty() ? "" : "; ", what, threads, measured, unit, kept, from,
                          from == 1 ? "" : "s");
  };
  std::sort(m.ceilings.begin(), m.ceilings.end(),
            [](const CeilingSet& a, const CeilingSet& b) { return a.threads < b.threads; });
  for (size_t i = 1; i < m.ceilings.size(); ++i) {
    const CeilingSet& fewer = m.ceilings[i - 1];
    CeilingSet& set = m.ceilings[i];
    if (fewer.threads >= set.threads) continue;
    for (PeakCeiling& p : set.peaks) {
      const PeakCeiling* f = fewer.peak(p.precision, p.width, p.mix);
      if (f == nullptr || !(p.gflops < f->gflops)) continue;
      note(fmt::format("{} {} {}", precision_name(p.precision), width_name(p.width),
                       mix_key(p.mix)),
           set.threads, p.gflops, fewer.threads, f->gflops, "GFLOP/s");
      p.gflops = f->gflops;
    }
    for (BandwidthCeiling& b : set.bandwidth) {
      for (const BandwidthCeiling& f : fewer.bandwidth) {
        if (f.boundary != b.boundary || f.mix != b.mix || f.pages != b.pages ||
            !(b.gbs < f.gbs)) {
          continue;
        }
        note(fmt::format("{} {}", boundary_name(b.boundary), stream_key(b.mix)), set.threads,
             b.gbs, fewer.threads, f.gbs, "GB/s");
        b.gbs = f.gbs;
        b.traffic_gbs = std::max(b.traffic_gbs, f.traffic_gbs);
      }
    }
  }
  if (raised.empty()) return raised;
  return "disturbed ceilings: " + raised +
         ": more threads can always do what fewer did, so each takes the fewer threads' "
         "figure (recalibrate on an idle machine for a measured one)";
}

std::string thp_policy() {
  // "always [madvise] never": the bracketed word is in force.
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t a = text.find('['), b = text.find(']');
  return a != std::string::npos && b > a ? text.substr(a + 1, b - a - 1) : "unknown";
}

Machine calibrate(const CalibrationOptions& opt) { return Calibrator(opt).run(); }

}  // namespace rprof
