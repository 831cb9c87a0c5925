#include "common/kinds.h"

#include <utility>

namespace rprof {

const char* boundary_name(Boundary b) {
  static const char* n[] = {"L1", "L2", "LLC", "DRAM"};
  return n[static_cast<int>(b)];
}

const char* boundary_key(Boundary b) {
  static const char* n[] = {"l1", "l2", "llc", "dram"};
  return n[static_cast<int>(b)];
}

const char* width_name(Width w) {
  static const char* n[] = {"scalar", "128", "256", "512"};
  return n[static_cast<int>(w)];
}

const char* precision_name(Precision p) { return p == Precision::kSP ? "SP" : "DP"; }

std::optional<Boundary> parse_boundary(const std::string& s) {
  for (Boundary b : kBoundaries) {
    if (s == boundary_key(b) || s == boundary_name(b)) return b;
  }
  return std::nullopt;
}

int lanes(Precision p, Width w) {
  static const int kBits[] = {0, 128, 256, 512};
  if (w == Width::kScalar) return 1;
  return kBits[static_cast<int>(w)] / (p == Precision::kSP ? 32 : 64);
}

const char* bound_key(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kWaiting: return "waiting";
    case Bound::kBelowRoofs: return "below-roofs";
    case Bound::kDependencyChain: return "dependency-chain";
    case Bound::kUnknown: break;
  }
  return "unknown";
}

const char* flag_key(Flag f) {
  switch (f) {
    case Flag::kLatencyBound: return "latency-bound";
    case Flag::kLowVectorization: return "low-vectorization";
    case Flag::kUnderutilized: return "underutilized";
    case Flag::kTrafficAboveIdeal: return "traffic-above-ideal";
    case Flag::kAboveRoof: return "above-roof";
    case Flag::kLoadImbalance: return "load-imbalance";
    case Flag::kTooShort: return "too-short";
    case Flag::kImplausibleLatency: return "implausible-latency";
    case Flag::kBusyMachine: return "busy-machine";
    case Flag::kOwnCache: return "own-cache";
  }
  return "unknown";
}

std::optional<MarkerErrorKind> parse_marker_error_kind(const std::string& s) {
  static const std::pair<const char*, MarkerErrorKind> kinds[] = {
      {"mismatched_end", MarkerErrorKind::kMismatchedEnd},
      {"end_without_begin", MarkerErrorKind::kEndWithoutBegin},
      {"empty_name", MarkerErrorKind::kEmptyName},
      {"too_deep", MarkerErrorKind::kTooDeep},
      {"too_many_regions", MarkerErrorKind::kTooManyRegions},
      {"work_outside_region", MarkerErrorKind::kWorkOutsideRegion},
      {"bad_work", MarkerErrorKind::kBadWork},
      {"in_signal_handler", MarkerErrorKind::kInSignalHandler},
      {"too_many_paths", MarkerErrorKind::kTooManyPaths},
      {"name_too_long", MarkerErrorKind::kNameTooLong},
      {"reserved_name", MarkerErrorKind::kReservedName}};
  for (const auto& [key, kind] : kinds) {
    if (s == key) return kind;
  }
  return std::nullopt;
}

}  // namespace rprof
