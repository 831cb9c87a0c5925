#include "common/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

#include "common/error.h"
#include "common/fs.h"

namespace rprof {
namespace {

using json = nlohmann::json;

// The DOM builder of nlohmann::json with the caps of JsonLimits checked as
// values arrive; a syntax error is kept (not thrown) with its byte offset.
// Base is the plain DOM builder, or the one that asks a callback whether to
// keep each value (a stream of regions read one at a time).
template <class Base>
class CappedSax : public Base {
 public:
  template <class... BaseArgs>
  CappedSax(const JsonLimits& lim, json& out, BaseArgs&&... args)
      : Base(out, std::forward<BaseArgs>(args)..., false), lim_(lim) {}

  bool null() { return value() && Base::null(); }
  bool boolean(bool v) { return value() && Base::boolean(v); }
  bool number_integer(json::number_integer_t v) { return value() && Base::number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) {
    return value() && Base::number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value() && Base::number_float(v, s);
  }
  bool string(json::string_t& s) { return text(s) && value() && Base::string(s); }
  bool binary(json::binary_t& b) { return value() && Base::binary(b); }
  bool key(json::string_t& s) { return text(s) && Base::key(s); }
  bool start_object(std::size_t n) { return open() && Base::start_object(n); }
  bool end_object() { return close() && Base::end_object(); }
  bool start_array(std::size_t n) { return open() && Base::start_array(n); }
  bool end_array() { return close() && Base::end_array(); }
  template <class Exception>
  bool parse_error(std::size_t byte, const std::string& token, const Exception& ex) {
    // `byte` counts the characters read (the offending one included); a
    // number too large for a double is pointed at where it starts.
    error_byte_ = byte > 0 ? byte - 1 : 0;
    if (ex.id == 406 && !token.empty() && byte >= token.size()) error_byte_ = byte - token.size();
    error_ = ex.what();
    return false;
  }

  // Why the parse stopped: a cap ("" when it was a syntax error).
  const std::string& cap() const { return cap_; }
  const std::string& error() const { return error_; }
  size_t error_byte() const { return error_byte_; }

 private:
  bool value() {
    if (++values_ <= lim_.values) return true;
    cap_ = fmt::format("more than {} JSON values (the limit)", lim_.values);
    return false;
  }
  bool text(const std::string& s) {
    if (s.size() <= lim_.string_bytes) return true;
    cap_ = fmt::format("a string of {} bytes is beyond the limit of {} bytes", s.size(),
                       lim_.string_bytes);
    return false;
  }
  bool open() {
    if (!value()) return false;
    if (++depth_ <= lim_.depth) return true;
    cap_ = fmt::format("arrays and objects nested deeper than {} levels (the limit)", lim_.depth);
    return false;
  }
  bool close() {
    --depth_;
    return true;
  }

  const JsonLimits& lim_;
  uint64_t values_ = 0;
  size_t depth_ = 0;
  std::string cap_, error_;
  size_t error_byte_ = 0;
};

// The bytes a document read with a parser callback holds, counted as the
// parser builds values and drops them: json_sax_dom_callback_parser builds a
// value only when the callback kept it, its member name and every array or
// object above it, and drops an array or object (all it held) when the
// callback refuses it at its end. The callback runs before the value is
// stored, so the cap holds before the memory is taken. Counted as libstdc++
// and glibc allocate: an array's elements by its vector's capacity (which
// doubles: while it moves, the old and the new storage are both held), a
// member by its map node, a string by its heap object and its characters.
class KeptBytes {
 public:
  struct Over {};  // thrown beyond the cap

  explicit KeptBytes(uint64_t max) : max_(max) {}

  // `kept`: what the callback answered for the event.
  void account(size_t depth, json::parse_event_t event, const json& v, bool kept) {
    using E = json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start: {
        levels_.resize(depth + 1);
        const bool built = kept && builds_child(depth);
        if (built) add_element(depth);
        levels_[depth] = Level{built, event == E::array_start, true, bytes_, 0, 0};
        if (built) add(kContainer);
        break;
      }
      case E::key:
        levels_[depth - 1].key_kept = kept;
        if (kept && levels_[depth - 1].built) {
          add(kMember + heap(v.get_ref<const std::string&>().size()));
        }
        break;
      case E::value:
        if (kept && builds_child(depth)) {
          add_element(depth);
          if (v.is_string()) add(kString + heap(v.get_ref<const std::string&>().size()));
        }
        break;
      case E::object_end:
      case E::array_end:
        if (!kept) {
          bytes_ = levels_[depth].at_start;
          // The parser takes it out of its array again (the capacity stays).
          if (depth > 0 && levels_[depth - 1].array) --levels_[depth - 1].elements;
        }
        levels_.resize(depth);
        break;
    }
  }

 private:
  static constexpr uint64_t kElement = sizeof(json);  // 16, in its array's storage
  static constexpr uint64_t kContainer = 64;  // a vector (24) or map (48) on the heap
  static constexpr uint64_t kMember = 96;     // a map node: links, key, value (80)
  static constexpr uint64_t kString = 48;     // a std::string (32) on the heap

  // A string's characters beyond its inline buffer (15), as malloc rounds.
  static uint64_t heap(size_t length) { return length <= 15 ? 0 : (length + 1 + 8 + 15) & ~15ull; }

  struct Level {
    bool built = false;
    bool array = false;
    bool key_kept = true;  // of the member being parsed (objects)
    uint64_t at_start = 0;
    uint64_t elements = 0, capacity = 0;  // arrays
  };

  // Whether a value at `depth` is built when the callback keeps it.
  bool builds_child(size_t depth) const {
    if (depth == 0) return true;
    const Level& up = levels_[depth - 1];
    return up.built && (up.array || up.key_kept);
  }
  // A value built at `depth`: a slot of its array (the member node of an
  // object is counted at its key).
  void add_element(size_t depth) {
    if (depth == 0 || !levels_[depth - 1].array) return;
    Level& up = levels_[depth - 1];
    if (++up.elements <= up.capacity) return;
    const uint64_t grown = up.capacity == 0 ? 1 : 2 * up.capacity;
    add(grown * kElement);  // the new storage, while the old is still held
    bytes_ -= up.capacity * kElement;
    up.capacity = grown;
  }
  void add(uint64_t n) {
    bytes_ += n;
    if (bytes_ > max_) throw Over{};
  }

  std::vector<Level> levels_;  // [d]: the array or object begun at depth d
  uint64_t bytes_ = 0;
  const uint64_t max_;
};

// Frees what v holds, bottom up. nlohmann's destructor first moves all the
// elements of an array or object into a vector of its own (to avoid deep
// recursion), which would take the size of a large array's storage a second
// time as a piece is dropped; nesting is capped (JsonLimits::depth), so this
// recursion is bounded.
void release(json& v) {
  if (v.is_array()) {
    json::array_t& a = v.get_ref<json::array_t&>();
    for (json& e : a) release(e);
    json::array_t().swap(a);
  } else if (v.is_object()) {
    json::object_t& o = v.get_ref<json::object_t&>();
    for (auto& member : o) release(member.second);
    o.clear();
  }
}

// Reads a JSON text piece by piece for nlohmann's parser (an input
// iterator over JsonText): the lexer reads one character at a time, and
// only the end of a piece reads the next.
class PieceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  PieceIterator() = default;  // the end
  explicit PieceIterator(JsonText* text) : text_(text) {}

  // Only ever compared with the end (the adapter's `current != end`).
  bool operator==(const PieceIterator& /*end*/) const { return at_end(); }
  bool operator!=(const PieceIterator& /*end*/) const { return !at_end(); }
  const char& operator*() const { return *p_; }
  PieceIterator& operator++() {
    ++p_;
    return *this;
  }

 private:
  bool at_end() const {
    if (p_ != end_) return false;
    if (text_ == nullptr) return true;
    const std::string_view piece = text_->at(offset_);
    offset_ += piece.size();
    p_ = piece.data(), end_ = piece.data() + piece.size();
    return piece.empty();
  }

  JsonText* text_ = nullptr;
  mutable const char* p_ = nullptr;
  mutable const char* end_ = nullptr;
  mutable uint64_t offset_ = 0;  // of the next piece
};

// What the parser must know before it builds anything, in one pass over the
// pieces: the first string longer than the cap (the parser would build such
// a string whole, a 200 MB region name 200 MB more, before its callback
// could refuse it) and a bound on the number of values. memchr and a
// vectorised count keep it cheap (milliseconds for 100 MB).
class Prescan {
 public:
  explicit Prescan(size_t max_string) : max_(max_string) {}

  void feed(std::string_view piece) {
    const char* const begin = piece.data();
    const char* const end = begin + piece.size();
    if (!found()) {
      // At least the number of values: every value but the first follows a
      // ',' or opens an array or object (commas inside strings only add).
      for (const char c : piece) {
        values_ += static_cast<uint64_t>((c == ',') | (c == '[') | (c == '{'));
      }
      scan(begin, end);
    }
    offset_ += piece.size();
  }
  // At the end of the text: a string still open runs to it.
  void finish() {
    if (!found() && in_string_) close_string(offset_);
  }

  bool found() const { return long_length_ > 0; }
  uint64_t long_at() const { return open_at_; }
  uint64_t long_length() const { return long_length_; }
  uint64_t values_bound() const { return values_; }

 private:
  void scan(const char* begin, const char* end) {
    const char* p = begin;
    while (p < end && !found()) {
      if (!in_string_) {
        const auto* open = static_cast<const char*>(std::memchr(p, '"', size_t(end - p)));
        if (open == nullptr) return;
        in_string_ = true, open_at_ = offset_ + size_t(open - begin), backslashes_ = 0;
        p = open + 1;
        continue;
      }
      // Where the string's characters start in this piece.
      const char* first = open_at_ >= offset_ ? begin + (open_at_ - offset_) + 1 : begin;
      const auto* quote = static_cast<const char*>(std::memchr(p, '"', size_t(end - p)));
      const char* b = quote != nullptr ? quote : end;
      uint64_t run = 0;  // backslashes right before b
      while (b > first && b[-1] == '\\') --b, ++run;
      if (b == first) run += backslashes_;  // the run began in the piece before
      if (quote == nullptr) {
        backslashes_ = run;
        return;
      }
      p = quote + 1;
      if (run % 2 == 0) close_string(offset_ + size_t(quote - begin));
    }
  }
  void close_string(uint64_t close_at) {
    const uint64_t n = close_at - open_at_ - 1;
    in_string_ = false;
    if (n > max_) long_length_ = n;
  }

  const size_t max_;
  uint64_t offset_ = 0;  // of the piece being fed
  uint64_t values_ = 1;
  bool in_string_ = false;
  uint64_t open_at_ = 0;      // of the string being scanned (then of the long one)
  uint64_t backslashes_ = 0;  // ending the string's characters so far
  uint64_t long_length_ = 0;
};

// "line 3, column 7" of the byte at offset `at` (0-based) of text, read
// again up to there.
std::string line_column(JsonText& text, uint64_t at) {
  at = std::min(at, text.size());
  uint64_t line = 1, line_start = 0;
  for (uint64_t off = 0; off < at;) {
    const std::string_view piece = text.at(off);
    if (piece.empty()) break;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(piece.size(), at - off));
    for (size_t i = 0; i < n; ++i) {
      if (piece[i] == '\n') ++line, line_start = off + i + 1;
    }
    off += n;
  }
  return fmt::format("line {}, column {}", line, at - line_start + 1);
}

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column
// 5: syntax error while parsing value - unexpected end of input; expected
// '[', '{', or a literal" without its prefix: "unexpected end of input;
// expected '[', '{', or a literal".
std::string syntax_detail(const std::string& what) {
  std::string s = what;
  const size_t se = s.find("syntax error while parsing ");
  if (se != std::string::npos) {
    s = s.substr(se + 27);
    const size_t dash = s.find(" - ");
    if (dash != std::string::npos) s = s.substr(dash + 3);
  } else if (s.rfind("[json.exception.", 0) == 0 && s.find("] ") != std::string::npos) {
    s = s.substr(s.find("] ") + 2);
  }
  // "last read: '<the token so far>'" can be a whole long string: keep its end.
  const std::string lr = "last read: '";
  const size_t a = s.find(lr);
  if (a != std::string::npos) {
    const size_t from = a + lr.size();
    size_t to = s.find("'; expected", from);
    if (to == std::string::npos) to = s.rfind('\'');
    if (to != std::string::npos && to > from && to - from > 40) {
      s.replace(from, to - from, "..." + s.substr(to - 37, 37));
    }
  }
  return s;
}

}  // namespace

JsonText::JsonText(const InputFile& file)
    : file_(&file), buf_(new char[kChunkBytes]), size_known_(false) {}

std::string_view JsonText::at(uint64_t offset) {
  if (size_known_ && offset >= size_) return {};
  if (text_ != nullptr) return std::string_view(*text_).substr(static_cast<size_t>(offset));
  size_t n = kChunkBytes;
  if (size_known_) n = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
  return std::string_view(buf_.get(), file_->read_at(offset, buf_.get(), n));
}

JsonReader::JsonReader(std::string file, std::string kind, std::string advice)
    : root_(std::make_shared<Root>(Root{std::move(file), std::move(kind), std::move(advice)})) {}

JsonReader JsonReader::at(const char* key) const { return JsonReader(this, key, 0); }
JsonReader JsonReader::at(size_t index) const { return JsonReader(this, nullptr, index); }

std::string JsonReader::path() const {
  if (parent_ == nullptr) return "";
  if (key_ == nullptr) return parent_->path() + "[" + std::to_string(index_) + "]";
  return parent_->path(key_);
}

std::string JsonReader::path(const std::string& key) const {
  std::string p = path();
  if (!p.empty() && !key.empty() && key[0] != '[') p += '.';
  return p + key;
}

namespace {

// An error is one line whatever the file holds: control characters of names
// and values quoted from it are escaped (\n, \x01).
std::string one_line(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void JsonReader::fail(const std::string& what) const {
  const std::string p = path();
  throw Error(one_line(root_->file + ": not a valid " + root_->kind + ": " +
                       (p.empty() ? "" : p + ": ") + what) +
              root_->advice);
}

void JsonReader::fail_at(const std::string& key, const std::string& what) const {
  throw Error(one_line(root_->file + ": not a valid " + root_->kind + ": " + path(key) + ": " +
                       what) +
              root_->advice);
}

JsonReader::json JsonReader::parse(const std::string& text, const JsonLimits& lim) const {
  return parse(text, nullptr, lim);
}

JsonReader::json JsonReader::parse(const std::string& text, const json::parser_callback_t& keep,
                                   const JsonLimits& lim) const {
  JsonText in(text);
  return parse(in, keep, lim);
}

JsonReader::json JsonReader::parse(JsonText& text, const json::parser_callback_t& keep,
                                   const JsonLimits& lim) const {
  Prescan scan(lim.string_bytes);
  uint64_t size = 0;
  for (std::string_view piece; !(piece = text.at(size)).empty(); size += piece.size()) {
    scan.feed(piece);
  }
  scan.finish();
  if (!text.size_known()) text.set_size(size);
  if (size == 0) fail("the file is empty");
  if (scan.found()) {
    fail(fmt::format("a string of {} bytes at byte {} ({}) is beyond the limit of {} bytes",
                     scan.long_length(), scan.long_at(), line_column(text, scan.long_at()),
                     lim.string_bytes));
  }
  // Counted exactly while parsing; this bound only spares building most of
  // a file that has far too many (strings with commas can inflate it).
  if (scan.values_bound() > 2 * lim.values) {
    fail(fmt::format("more than {} JSON values (the limit)", lim.values));
  }
  json doc;
  std::string cap, error;
  size_t error_byte = 0;
  bool ok = false;
  if (keep) {
    KeptBytes kept(lim.kept_bytes);
    const json::parser_callback_t counted = [&](int depth, json::parse_event_t event, json& v) {
      const bool k = keep(depth, event, v);
      kept.account(static_cast<size_t>(depth), event, v, k);
      if (!k && (event == json::parse_event_t::object_end ||
                 event == json::parse_event_t::array_end)) {
        release(v);  // the parser drops it
      }
      return k;
    };
    CappedSax<nlohmann::detail::json_sax_dom_callback_parser<json>> sax(lim, doc, counted);
    try {
      ok = json::sax_parse(PieceIterator(&text), PieceIterator(), &sax);
    } catch (const KeptBytes::Over&) {
      release(doc);
      fail(fmt::format("more than {} bytes of JSON values held at once (the limit)",
                       lim.kept_bytes));
    } catch (...) {
      release(doc);  // a callback refused the document
      throw;
    }
    cap = sax.cap(), error = sax.error(), error_byte = sax.error_byte();
  } else {
    CappedSax<nlohmann::detail::json_sax_dom_parser<json>> sax(lim, doc);
    ok = json::sax_parse(PieceIterator(&text), PieceIterator(), &sax);
    cap = sax.cap(), error = sax.error(), error_byte = sax.error_byte();
  }
  if (ok) return doc;
  release(doc);
  if (!cap.empty()) fail(cap);
  const size_t at = error_byte;
  const bool truncated = at >= text.size();
  const bool overflow = error.find("out_of_range") != std::string::npos;
  fail(fmt::format("{} at byte {} ({}): {}",
                   truncated  ? "not JSON (truncated?), it ends"
                   : overflow ? "a number beyond any finite value"
                              : "not JSON, syntax error",
                   at, line_column(text, at), syntax_detail(error)));
}

std::string JsonReader::type_of(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return fmt::format("{:g}", v.get<double>());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return v.dump();
    default: return "another type";
  }
}

void JsonReader::check_integer(const json& v, const std::string& key, int64_t lo,
                               uint64_t hi) const {
  if (!v.is_number_integer()) fail_at(key, "expected an integer, got " + type_of(v));
  const int64_t i = v.is_number_unsigned() ? 0 : v.get<int64_t>();
  const bool fits = v.is_number_unsigned()
                        ? v.get<uint64_t>() <= hi
                        : i >= lo && (i < 0 || static_cast<uint64_t>(i) <= hi);
  if (!fits) {
    fail_at(key, v.dump() + " is out of range (" + std::to_string(lo) + " to " +
                     std::to_string(hi) + ")");
  }
}

const JsonReader::json& JsonReader::member(const json& obj, const char* key) const {
  if (!obj.is_object()) fail(std::string("expected an object holding '") + key + "', got " +
                             type_of(obj));
  auto it = obj.find(key);
  if (it == obj.end()) fail(std::string("missing '") + key + "'");
  return *it;
}

const JsonReader::json& JsonReader::array(const json& obj, const char* key, size_t max) const {
  const json& v = member(obj, key);
  if (!v.is_array()) fail_at(key, "expected an array, got " + type_of(v));
  if (v.size() > max) {
    fail_at(key, fmt::format("{} entries are beyond the limit of {}", v.size(), max));
  }
  return v;
}

const JsonReader::json& JsonReader::object(const json& obj, const char* key) const {
  const json& v = member(obj, key);
  if (!v.is_object()) fail_at(key, "expected an object, got " + type_of(v));
  return v;
}

std::string JsonReader::str(const json& obj, const char* key, size_t max_bytes) const {
  const json& v = member(obj, key);
  if (!v.is_string()) fail_at(key, "expected a string, got " + type_of(v));
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() > max_bytes) {
    fail_at(key, fmt::format("{} bytes are beyond the limit of {} bytes", s.size(), max_bytes));
  }
  return s;
}

double JsonReader::nonneg(const json& obj, const char* key) const {
  const double v = get<double>(obj, key);
  if (v < 0) fail_at(key, fmt::format("{:g} is negative", v));
  return v;
}

int64_t JsonReader::in_range(const json& obj, const char* key, int64_t lo, int64_t hi) const {
  const json& v = member(obj, key);
  check_integer(v, key, lo, static_cast<uint64_t>(hi));
  return v.get<int64_t>();
}

std::vector<uint64_t> JsonReader::counts(const json& obj, const char* key, size_t n) const {
  std::vector<uint64_t> out;
  if (n == 0 && obj.find(key) == obj.end()) return out;
  const json& a = array(obj, key, n);
  if (a.size() != n) {
    fail_at(key, fmt::format("{} counts, but the profile names {} counters", a.size(), n));
  }
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (!a[i].is_number_unsigned()) {
      fail_at(std::string(key) + "[" + std::to_string(i) + "]",
              "expected a count (an integer >= 0), got " + type_of(a[i]));
    }
    out.push_back(a[i].get<uint64_t>());
  }
  return out;
}

}  // namespace rprof
