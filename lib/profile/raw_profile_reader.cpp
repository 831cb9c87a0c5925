// Reading a raw profile as a stream: nlohmann's parser calls back at every
// value, and the reader converts each counter name, region name, node and
// thread as soon as it ends and drops it. What is built as JSON at any time
// is the file's scalars, one node (its counts at most limits::kCounters) and
// one thread's open and error lists (capped while they grow), so memory is
// the RawProfile (and a piece of the file's text, JsonText), whatever the
// file holds: a member nobody
// reads is never built, nor anything inside an array or object that stands
// where a number or a string belongs (it is kept empty, for its type error).
//
// Files are read in any member order. The runtime writes the header first,
// then counters, regions and threads: nodes are checked against the
// counters and regions when those came first, and at the end otherwise.
// Until "format" and "schema_version" have said which file this is, the
// first defect of an element is kept, not thrown, so that a foreign file or
// another version is named as such rather than by its first odd node.
#include "profile/raw_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "common/json_reader.h"
#include "common/limits.h"

namespace rprof {
namespace {

using nlohmann::json;
namespace lim = limits;

// What the parser is inside of.
enum class In : uint8_t {
  kRoot,
  kClock,
  kCounters,  // the lists: each element is converted, or checked, as it ends
  kRegions,
  kThreads,
  kNodes,
  kCounts,  // a node's incl or excl
  kOpen,
  kErrors,
  kRegion,  // the objects, elements of the lists
  kThread,
  kNode,
  kOpenEntry,
  kErrorEntry,
  kValue,    // an array or object where a number or a string belongs: kept empty
  kSkipped,  // inside a member nobody reads or inside kValue: never built
};

bool is_list(In in) { return in >= In::kCounters && in <= In::kErrors; }

size_t max_entries(In in) {
  switch (in) {
    case In::kCounters: return lim::kCounters;
    case In::kRegions: return lim::kRegions;
    case In::kThreads: return lim::kThreads;
    case In::kNodes: return lim::kNodes;
    case In::kCounts: return lim::kCounters;
    case In::kOpen: return lim::kPathDepth;
    case In::kErrors: return lim::kErrors;
    default: return 0;
  }
}

// The members the format has; any other is skipped unbuilt.
bool known(In in, const std::string& k) {
  auto any = [&k](std::initializer_list<const char*> names) {
    return std::any_of(names.begin(), names.end(), [&k](const char* n) { return k == n; });
  };
  switch (in) {
    case In::kRoot:
      return any({"format", "schema_version", "host", "pid", "parent_pid", "world_size", "rank",
                  "backend", "start_unix_s", "duration_ns", "clock", "reason", "signal",
                  "counters", "regions", "threads"});
    case In::kClock: return any({"source", "ticks_per_s"});
    case In::kRegion: return any({"id", "name"});
    case In::kThread: return any({"index", "tid", "exited", "nodes", "open", "errors"});
    case In::kNode:
      return any({"id", "parent", "region", "calls", "incl_ns", "excl_ns", "work_calls",
                  "work_flops", "work_bytes", "incl", "excl"});
    case In::kOpenEntry: return any({"node", "elapsed_ns"});
    case In::kErrorEntry: return any({"kind", "expected", "got", "count"});
    default: return false;
  }
}

struct Frame {
  In in = In::kSkipped;
  bool object = false;
  std::string key;     // the member being parsed (objects)
  size_t entries = 0;  // elements begun so far (arrays)
};

// What an array or object is, from where it stands.
In child(const Frame& parent, bool object) {
  const std::string& k = parent.key;
  switch (parent.in) {
    case In::kRoot:
      if (k == "clock" && object) return In::kClock;
      if (k == "counters" && !object) return In::kCounters;
      if (k == "regions" && !object) return In::kRegions;
      if (k == "threads" && !object) return In::kThreads;
      return known(parent.in, k) ? In::kValue : In::kSkipped;
    case In::kRegions: return object ? In::kRegion : In::kValue;
    case In::kThreads: return object ? In::kThread : In::kValue;
    case In::kNodes: return object ? In::kNode : In::kValue;
    case In::kOpen: return object ? In::kOpenEntry : In::kValue;
    case In::kErrors: return object ? In::kErrorEntry : In::kValue;
    case In::kThread:
      if (!object && k == "nodes") return In::kNodes;
      if (!object && k == "open") return In::kOpen;
      if (!object && k == "errors") return In::kErrors;
      return In::kValue;
    case In::kNode:
      return !object && (k == "incl" || k == "excl") ? In::kCounts : In::kValue;
    case In::kValue:
    case In::kSkipped: return In::kSkipped;
    default: return In::kValue;  // in a counter list, a region, an open or error entry
  }
}

class RawStream {
 public:
  explicit RawStream(const std::string& file) : r_(file, "rprof raw profile") { p_.file = file; }

  RawProfile parse(JsonText& text) {
    const json doc = r_.parse(text, [this](int depth, json::parse_event_t event, json& v) {
      return on_event(static_cast<size_t>(depth), event, v);
    });
    header(doc);
    if (!first_error_.empty()) throw Error(first_error_);
    check_references();
    std::sort(p_.threads.begin(), p_.threads.end(),
              [](const RawThread& a, const RawThread& b) { return a.index < b.index; });
    return std::move(p_);
  }

 private:
  using E = json::parse_event_t;

  bool on_event(size_t depth, E event, json& v) {
    switch (event) {
      case E::object_start:
      case E::array_start: {
        const bool object = event == E::object_start;
        stack_.resize(depth);
        Frame f;
        f.object = object;
        if (depth == 0) {
          f.in = object ? In::kRoot : In::kValue;
          stack_.push_back(std::move(f));
          return true;
        }
        const Frame& parent = stack_[depth - 1];
        f.in = child(parent, object);
        if (is_list(parent.in)) begin_entry(depth - 1);
        if (f.in == In::kThread) begin_thread(parent.entries - 1);
        // In an object the member's key decided; in an array nothing below
        // a skipped or emptied value is built.
        const bool build =
            parent.object || (parent.in != In::kValue && parent.in != In::kSkipped);
        stack_.push_back(std::move(f));  // (parent may move)
        return build;
      }
      case E::key: {
        Frame& parent = stack_[depth - 1];
        parent.key = v.get<std::string>();
        return known(parent.in, parent.key);
      }
      case E::value: {
        if (depth == 0) return true;
        Frame& parent = stack_[depth - 1];
        if (parent.object) {
          if (parent.in == In::kRoot) header_member(parent.key, v);
          return true;
        }
        if (!is_list(parent.in)) return false;
        begin_entry(depth - 1);
        return entry_ended(depth - 1, v);
      }
      case E::object_end:
      case E::array_end: {
        const In in = stack_[depth].in;  // the frame that ends
        if (in == In::kCounters) counters_done_ = true;
        if (in == In::kRegions) regions_done_ = true;
        stack_.resize(depth);
        return depth == 0 || !is_list(stack_[depth - 1].in) || entry_ended(depth - 1, v);
      }
    }
    return true;
  }

  // A list gains an element: refused beyond its cap before it is built.
  void begin_entry(size_t list_depth) {
    Frame& list = stack_[list_depth];
    if (++list.entries <= max_entries(list.in)) return;
    reader_of(list_depth - 1).fail_at(
        stack_[list_depth - 1].key,
        fmt::format("more than {} entries (the limit)", max_entries(list.in)));
  }

  // The reader of the element or member at `depth` (its failures name its
  // path). The readers live in readers_, one per level.
  const JsonReader& reader_of(size_t depth) {
    readers_.clear();
    readers_.reserve(depth + 1);
    readers_.push_back(r_);
    for (size_t d = 1; d <= depth; ++d) {
      const Frame& up = stack_[d - 1];
      readers_.push_back(up.object ? readers_.back().at(up.key.c_str())
                                   : readers_.back().at(up.entries - 1));
    }
    return readers_.back();
  }

  // An element of a list has ended: converted and dropped (false), or kept
  // for its node or thread (true).
  bool entry_ended(size_t list_depth, const json& v) {
    const In in = stack_[list_depth].in;
    if (in == In::kCounts || in == In::kOpen || in == In::kErrors) return true;
    const size_t index = stack_[list_depth].entries - 1;
    try {
      const JsonReader& list = reader_of(list_depth);
      if (in == In::kCounters) {
        add_counter(list.at(index), v);
      } else if (in == In::kRegions) {
        add_region(list.at(index), v);
      } else if (in == In::kNodes) {
        add_node(list.at(index), v);
      } else if (in == In::kThreads) {
        end_thread(list.at(index), v);
      }
    } catch (const Error& e) {
      if (first_error_.empty()) first_error_ = e.what();
      if (format_ok_ && version_ok_) throw Error(first_error_);
    }
    return false;
  }

  // "format" and "schema_version" as they come: a foreign file is refused
  // at once.
  void header_member(const std::string& key, const json& v) {
    if (key == "format") {
      format_ok_ = v == "rprof-raw";
      if (!format_ok_) r_.fail("missing \"format\": \"rprof-raw\" (a foreign file?)");
    } else if (key == "schema_version") {
      version_ok_ = v.is_number_integer() && v == kRawSchemaVersion;
    }
  }

  void add_counter(const JsonReader& rc, const json& c) {
    if (!c.is_string()) rc.fail("expected a counter name (a string)");
    if (c.get_ref<const std::string&>().size() > lim::kCounterNameBytes) {
      rc.fail(fmt::format("a counter name is at most {} bytes", lim::kCounterNameBytes));
    }
    p_.counters.push_back(c.get<std::string>());
  }

  void add_region(const JsonReader& ri, const json& reg) {
    const uint64_t id = ri.get<uint64_t>(reg, "id");
    if (id == 0 || id > UINT32_MAX) ri.fail_at("id", "out of range (1 to 4294967295)");
    p_.region_names[static_cast<uint32_t>(id)] = ri.str(reg, "name", lim::kNameBytes);
  }

  void begin_thread(size_t index) {
    thread_ = RawThread{};
    thread_index_ = index;
    depth_.clear();
  }

  void add_node(const JsonReader& rni, const json& n) {
    RawThread& t = thread_;
    RawNode node;
    const int64_t id = rni.get<int64_t>(n, "id");
    if (id != static_cast<int64_t>(t.nodes.size())) {
      rni.fail_at("id", fmt::format("{} is out of order (expected {})", id, t.nodes.size()));
    }
    node.parent = rni.get<int64_t>(n, "parent");
    if (node.parent < -1 || node.parent >= id) {
      rni.fail_at("parent", fmt::format("{} is out of range (-1 to {})", node.parent, id - 1));
    }
    const uint32_t depth = node.parent < 0 ? 1 : depth_[static_cast<size_t>(node.parent)] + 1;
    if (depth > lim::kPathDepth) {
      rni.fail(fmt::format("regions nested deeper than {} levels (the limit)", lim::kPathDepth));
    }
    const uint64_t region = rni.get<uint64_t>(n, "region");
    if (region > UINT32_MAX ||
        (regions_done_ && !p_.region_names.count(static_cast<uint32_t>(region)))) {
      rni.fail_at("region", "refers to unknown region " + std::to_string(region));
    }
    node.region = static_cast<uint32_t>(region);
    node.calls = rni.get<uint64_t>(n, "calls");
    node.incl_ns = rni.get<uint64_t>(n, "incl_ns");
    node.excl_ns = rni.get<uint64_t>(n, "excl_ns");
    // A region's exclusive time is part of its inclusive time (recursion
    // included: the outermost call's inclusive time holds every instance's).
    if (node.excl_ns > node.incl_ns) {
      rni.fail_at("excl_ns", fmt::format("exclusive time {} ns above the inclusive time {} ns",
                                         node.excl_ns, node.incl_ns));
    }
    if (n.contains("work_calls")) {
      node.work_calls = rni.get<uint64_t>(n, "work_calls");
      // Integers; above 2^64 written as <digits>e<exponent>.
      node.work_flops = std::round(rni.nonneg(n, "work_flops"));
      node.work_bytes = std::round(rni.nonneg(n, "work_bytes"));
    }
    // Before the counters, any number of counts (checked at the end).
    const auto counts = [&](const char* key) {
      if (counters_done_) return rni.counts(n, key, p_.counters.size());
      return n.contains(key) ? rni.counts(n, key, rni.member(n, key).size())
                             : std::vector<uint64_t>{};
    };
    node.incl = counts("incl");
    node.excl = counts("excl");
    depth_.push_back(depth);
    t.nodes.push_back(std::move(node));
  }

  // The thread's members but its nodes, which are already in thread_.
  void end_thread(const JsonReader& rth, const json& th) {
    RawThread t = std::move(thread_);
    thread_ = RawThread{};
    t.index = rth.get<uint32_t>(th, "index");
    t.tid = rth.get<int64_t>(th, "tid");
    t.exited = rth.get<bool>(th, "exited");
    (void)rth.array(th, "nodes", lim::kNodes);
    const json& open = rth.array(th, "open", lim::kPathDepth);
    const JsonReader ro = rth.at("open");
    for (size_t oi = 0; oi < open.size(); ++oi) {
      const JsonReader roi = ro.at(oi);
      const int64_t id = roi.get<int64_t>(open[oi], "node");
      if (id < 0 || id >= static_cast<int64_t>(t.nodes.size())) {
        roi.fail_at("node", fmt::format("{} is out of range (0 to {})", id,
                                        static_cast<int64_t>(t.nodes.size()) - 1));
      }
      RawNode& node = t.nodes[static_cast<size_t>(id)];
      node.open_calls += 1;
      // Recursive instances share a node: count the outermost's time once.
      node.open_ns = std::max(node.open_ns, roi.get<uint64_t>(open[oi], "elapsed_ns"));
    }
    const json& errors = rth.array(th, "errors", lim::kErrors);
    const JsonReader re = rth.at("errors");
    for (size_t ei = 0; ei < errors.size(); ++ei) {
      const JsonReader rei = re.at(ei);
      const json& e = errors[ei];
      RawError err;
      err.kind = rei.str(e, "kind", 64);
      err.expected = rei.get<uint32_t>(e, "expected");
      err.got = rei.get<uint32_t>(e, "got");
      err.count = rei.get<uint64_t>(e, "count");
      t.errors.push_back(std::move(err));
    }
    thread_file_index_.push_back(thread_index_);
    p_.threads.push_back(std::move(t));
  }

  // The file's members but its lists, which are already in p_.
  void header(const json& doc) {
    const JsonReader& r = r_;
    const auto format = doc.is_object() ? doc.find("format") : doc.end();
    if (!doc.is_object() || format == doc.end() || *format != "rprof-raw") {
      r.fail("missing \"format\": \"rprof-raw\" (a foreign file?)");
    }
    p_.schema_version = r.get<int>(doc, "schema_version");
    if (p_.schema_version != kRawSchemaVersion) {
      r.fail("schema_version " + std::to_string(p_.schema_version) +
             " is not supported (this rprof reads version " + std::to_string(kRawSchemaVersion) +
             ")");
    }
    p_.host = r.str(doc, "host", 255);
    p_.pid = r.get<int64_t>(doc, "pid");
    p_.parent_pid = r.get<int64_t>(doc, "parent_pid");
    // -1 when not MPI (0 from an empty launcher variable means the same).
    if (doc.contains("world_size")) {
      p_.world_size = r.in_range(doc, "world_size", -1, lim::kWorldSize);
      if (p_.world_size == 0) p_.world_size = -1;
    }
    p_.rank = r.in_range(doc, "rank", -1, lim::kWorldSize - 1);
    p_.backend = r.str(doc, "backend", 64);
    p_.start_unix_s = r.get<int64_t>(doc, "start_unix_s");
    p_.duration_ns = r.get<uint64_t>(doc, "duration_ns");
    if (doc.contains("clock")) {
      const json& clock = r.object(doc, "clock");
      const JsonReader rc = r.at("clock");
      p_.clock_source = rc.str(clock, "source", 64);
      p_.clock_ticks_per_s = rc.get<uint64_t>(clock, "ticks_per_s");
      if (p_.clock_source != "tsc" && p_.clock_source != "monotonic") {
        rc.fail_at("source", "'" + p_.clock_source + "' is neither tsc nor monotonic");
      }
      if (p_.clock_ticks_per_s == 0) rc.fail_at("ticks_per_s", "0 ticks per second");
    }
    p_.reason = r.str(doc, "reason", 64);
    p_.signal = static_cast<int>(r.in_range(doc, "signal", 0, 128));
    (void)r.array(doc, "counters", lim::kCounters);
    (void)r.array(doc, "regions", lim::kRegions);
    (void)r.array(doc, "threads", lim::kThreads);
  }

  // What nodes read before the counters or the regions could not check.
  void check_references() const {
    const size_t nc = p_.counters.size();
    const JsonReader rt = r_.at("threads");
    for (size_t ti = 0; ti < p_.threads.size(); ++ti) {
      // Each reader refers to the one it came from: all named, all alive.
      const JsonReader rth = rt.at(thread_file_index_[ti]);
      const JsonReader rn = rth.at("nodes");
      const std::vector<RawNode>& nodes = p_.threads[ti].nodes;
      for (size_t ni = 0; ni < nodes.size(); ++ni) {
        const RawNode& n = nodes[ni];
        if (!p_.region_names.count(n.region)) {
          rn.at(ni).fail_at("region", "refers to unknown region " + std::to_string(n.region));
        }
        for (const auto& [key, counts] : {std::pair{"incl", &n.incl}, std::pair{"excl", &n.excl}}) {
          if (counts->size() != nc) {
            rn.at(ni).fail_at(key, fmt::format("{} counts, but the profile names {} counters",
                                               counts->size(), nc));
          }
        }
      }
    }
  }

  const JsonReader r_;
  RawProfile p_;
  std::vector<Frame> stack_;          // the arrays and objects the parser is in
  std::vector<JsonReader> readers_;   // reader_of's
  RawThread thread_;                  // the thread being read: its nodes so far
  size_t thread_index_ = 0;           // its place in "threads"
  std::vector<uint32_t> depth_;       // of each of its nodes: its path's length
  std::vector<size_t> thread_file_index_;  // of each of p_.threads
  bool format_ok_ = false, version_ok_ = false;
  bool counters_done_ = false, regions_done_ = false;
  std::string first_error_;  // of an element, before the header said what the file is
};

}  // namespace

RawProfile parse_raw_profile(JsonText& text, const std::string& file) {
  return RawStream(file).parse(text);
}

RawProfile parse_raw_profile(const std::string& text, const std::string& file) {
  JsonText in(text);
  return parse_raw_profile(in, file);
}

}  // namespace rprof
