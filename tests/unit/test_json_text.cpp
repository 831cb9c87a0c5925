// A JSON file read as it is parsed (JsonText over an InputFile, 1 MiB
// pieces) reads exactly as the same text in memory: the same document, and
// the same errors with the same byte offsets and lines, also where what the
// reader looks for (a long string, its escapes, a syntax error) straddles
// the boundary between two pieces. And what a document read piece by piece
// holds is counted as it is allocated: an array by its capacity.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "common/fs.h"
#include "common/json_reader.h"

using namespace rprof;
namespace fs = std::filesystem;
using json = JsonReader::json;

namespace {

constexpr size_t kPiece = JsonText::kChunkBytes;

const auto keep_all = [](int, json::parse_event_t, json&) { return true; };

// The document, or the one-line error, of text read from memory and from a
// file (both named "t.json").
struct Read {
  std::string memory, file;
};
Read read_both(const std::string& text, const JsonLimits& lim = JsonLimits()) {
  const JsonReader r("t.json", "rprof profile");
  auto result = [&](auto&& parse) {
    try {
      return parse().dump();
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  Read out;
  out.memory = result([&] { return r.parse(text, keep_all, lim); });
  // One file per process: ctest runs this file's cases side by side.
  const fs::path p = "test_json_text_scratch." + std::to_string(getpid()) + ".json";
  std::ofstream(p, std::ios::binary) << text;
  {
    const InputFile in(p.string(), 1ull << 30, "rprof profile");
    JsonText t(in);
    out.file = result([&] { return r.parse(t, keep_all, lim); });
  }
  fs::remove(p);
  return out;
}

// An array of one string padded so that `at` falls on byte `boundary`.
std::string padded(size_t boundary, const std::string& at) {
  std::string text = "[\"";
  text += std::string(boundary - text.size(), 'x');
  return text + at;
}

}  // namespace

TEST_CASE("a file read in pieces reads as the same text in memory") {
  // Lines and a string that cross several pieces.
  std::string text = "{\"a\": [";
  for (int i = 0; i < 300000; ++i) text += i ? ",\n 12345" : "12345";
  text += "], \"s\": \"" + std::string(kPiece - 10, 'y') + "\\\"q\"}";
  const Read r = read_both(text);
  CHECK(r.file == r.memory);
  CHECK(r.memory.size() > 2 * kPiece);
}

TEST_CASE("an error past the first piece names the same byte, line and column from a file") {
  std::string text = "[";
  for (int i = 0; i < 400000; ++i) text += i ? ",\n1" : "1";
  const size_t at = text.size() + 1;
  text += ",,1]";
  const Read r = read_both(text);
  CHECK(r.file == r.memory);
  CHECK(r.memory == "t.json: not a valid rprof profile: not JSON, syntax error at byte " +
                        std::to_string(at) +
                        " (line 400000, column 3): unexpected ','; expected '[', '{', or a "
                        "literal");
  // Truncated: it ends past the first piece.
  const Read t = read_both(text.substr(0, text.size() - 4));
  CHECK(t.file == t.memory);
  CHECK(t.memory.find("not JSON (truncated?), it ends at byte ") != std::string::npos);
}

TEST_CASE("a long string across pieces is refused at its start, escapes counted across them") {
  JsonLimits lim;
  lim.string_bytes = 2 * kPiece;
  // A string of 2 MiB + 1 starting in the first piece, ending in the third.
  const std::string s(2 * kPiece + 1, 'z');
  const Read r = read_both("[1,\n\"" + s + "\"]", lim);
  CHECK(r.file == r.memory);
  CHECK(r.memory == "t.json: not a valid rprof profile: a string of 2097153 bytes at byte 4 (line "
                    "2, column 1) is beyond the limit of 2097152 bytes");
  // A quote escaped by a backslash at the end of the first piece does not
  // end the string: it runs to the end (an odd run of backslashes before it).
  // (backslashes, how many of them end the first piece)
  for (const auto& [backslashes, before] : {std::pair<size_t, size_t>{1, 1}, {3, 3}, {3, 2}, {5, 1}}) {
    std::string text = padded(kPiece - before, std::string(backslashes, '\\') + "\"");
    text += std::string(2 * kPiece, 'w') + "\"]";
    const Read e = read_both(text, lim);
    CHECK(e.file == e.memory);
    CHECK(e.memory.find("a string of " + std::to_string(text.size() - 4) + " bytes at byte 1 ") !=
          std::string::npos);
  }
  // An even run ends it there: the strings are short and the text reads.
  for (const size_t before : {size_t{2}, size_t{1}}) {
    const std::string text =
        padded(kPiece - before, "\\\\\"") + ",\"" + std::string(1000, 'v') + "\"]";
    const Read e = read_both(text, lim);
    CHECK(e.file == e.memory);
    CHECK(e.memory.rfind("[\"xx", 0) == 0);
  }
}

TEST_CASE("a piece is counted by its arrays' capacity, old and new while one doubles") {
  // Zeros in one array with 1,000,000 bytes held at most: growing from
  // 16,384 to 32,768 elements holds 64 + 16 x 49,152 = 786,496 bytes, to
  // 65,536 (the 32,769th zero) 64 + 16 x 98,304 = 1,572,928.
  JsonLimits lim;
  lim.kept_bytes = 1000000;
  auto zeros = [](size_t n) {
    std::string s = "[";
    for (size_t i = 0; i < n; ++i) s += i ? ",0" : "0";
    return s + "]";
  };
  const JsonReader r("t.json", "rprof profile");
  CHECK(r.parse(zeros(32768), keep_all, lim).size() == 32768);
  try {
    r.parse(zeros(32769), keep_all, lim);
    FAIL("held 32,769 zeros (1.5 MB of storage) within 1 MB");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "t.json: not a valid rprof profile: more than 1000000 bytes "
                                   "of JSON values held at once (the limit)");
  }
}
