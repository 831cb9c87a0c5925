// SharedText (common/shared_text.h): one string per distinct value, a
// pointer's size, read as a std::string.
#include <fmt/core.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "common/shared_text.h"

using namespace rprof;

TEST_CASE("shared text: equal texts share one string, different ones do not") {
  const std::string built = std::string("rprof's cache model") + ", L2";
  const SharedText a = built;
  const SharedText b = "rprof's cache model, L2";
  const SharedText c = std::string_view("rprof's cache model, LLC");
  CHECK(&a.str() == &b.str());
  CHECK(a == b);
  CHECK(&a.str() != &c.str());
  CHECK(a != c);
  CHECK(sizeof(SharedText) == sizeof(void*));
}

TEST_CASE("shared text: empty by default, read as the text it holds") {
  const SharedText none;
  CHECK(none.empty());
  CHECK(none.size() == 0);
  CHECK(none == "");
  CHECK(SharedText("") == none);

  const SharedText t = "estimated from 12 units";
  CHECK_FALSE(t.empty());
  CHECK(t.size() == 23);
  CHECK(t == "estimated from 12 units");
  CHECK(t == std::string("estimated from 12 units"));
  CHECK(t != "estimated from 13 units");
  CHECK(t.find("12") == 15);
  CHECK(std::string(t.c_str()) == "estimated from 12 units");
  const std::string& s = t;  // a std::string wherever one is read
  CHECK(s == "estimated from 12 units");
  CHECK(t + "; approximate" == "estimated from 12 units; approximate");
  CHECK("note: " + t == "note: estimated from 12 units");
  std::ostringstream out;
  out << t;
  CHECK(out.str() == "estimated from 12 units");
  CHECK(fmt::format("[{}]", t) == "[estimated from 12 units]");
}

TEST_CASE("shared text: assigning a new text leaves the old one intact") {
  SharedText t = "held against the DP scalar roof";
  const std::string& before = t.str();
  t = t + " (12.4 GFLOP/s)";
  CHECK(before == "held against the DP scalar roof");
  CHECK(t == "held against the DP scalar roof (12.4 GFLOP/s)");
  t = SharedText();
  CHECK(t.empty());
}
