// The streaming JSON writer (common/json_out): the text nlohmann::json's
// dump() gives for the same values, compact and indented, with compact
// containers inside an indented document; both ways of writing doubles; a
// document written out of order is refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "common/json_out.h"

using nlohmann::json;
using rprof::json_out::Doubles;
using rprof::json_out::Writer;

namespace {

// {"a": [1, -2, 2.5, "x\"y", true, null, {}, []], "b": {"c": 15.83996132780221, "d": "caf\xc3\xa9 \xff"}}
void write_sample(Writer& w) {
  w.begin_object();
  w.key("a").begin_array();
  w.value(uint64_t{1}).value(int64_t{-2}).value(2.5).value("x\"y").value(true).null();
  w.begin_object().end_object();
  w.begin_array().end_array();
  w.end_array();
  w.key("b").begin_object();
  w.member("c", 15.83996132780221);
  w.member("d", "caf\xc3\xa9 \xff");
  w.end_object();
  w.end_object();
}

json sample_dom() {
  return {{"a", {1, -2, 2.5, "x\"y", true, nullptr, json::object(), json::array()}},
          {"b", {{"c", 15.83996132780221}, {"d", "caf\xc3\xa9 \xff"}}}};
}

std::string dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("json_out: the writer's text is the DOM's dump, compact and indented") {
  for (int indent : {-1, 0, 2, 4}) {
    INFO(indent);
    std::string text;
    Writer w(text, indent);
    write_sample(w);
    CHECK(w.depth() == 0);
    CHECK(text == dump(sample_dom(), indent));
  }
}

TEST_CASE("json_out: a compact container inside an indented document is one line") {
  std::string text;
  Writer w(text, 2);
  w.begin_object();
  w.key("regions").begin_array();
  for (int i = 0; i < 2; ++i) {
    w.begin_object(/*compact=*/true);
    w.member("n", i).key("p").array(std::vector<std::string>{"a", "b"});
    w.end_object();
  }
  w.end_array();
  w.member("z", 1);
  w.end_object();
  CHECK(text ==
        "{\n  \"regions\": [\n    {\"n\":0,\"p\":[\"a\",\"b\"]},\n    {\"n\":1,\"p\":[\"a\",\"b\"]}"
        "\n  ],\n  \"z\": 1\n}");
}

TEST_CASE("json_out: doubles, shortest or as the DOM writes them, NaN and infinities as null") {
  auto write = [](double v, Doubles d) {
    std::string text;
    Writer(text, -1, d).value(v);
    return text;
  };
  // Grisu2 (the DOM's dump) is not always the shortest text of a double.
  CHECK(write(15.83996132780221, Doubles::kShortest) == "15.83996132780221");
  CHECK(write(15.83996132780221, Doubles::kAsDom) == "15.839961327802209");
  CHECK(write(15.83996132780221, Doubles::kAsDom) == json(15.83996132780221).dump());
  CHECK(json::parse("15.839961327802209").get<double>() == 15.83996132780221);
  CHECK(write(1e14, Doubles::kShortest) == "1e+14");
  CHECK(write(1e14, Doubles::kAsDom) == "100000000000000.0");
  CHECK(write(3.0, Doubles::kShortest) == "3.0");
  CHECK(write(3.0, Doubles::kAsDom) == "3.0");
  for (Doubles d : {Doubles::kShortest, Doubles::kAsDom}) {
    CHECK(write(std::nan(""), d) == "null");
    CHECK(write(std::numeric_limits<double>::infinity(), d) == "null");
  }
  // The setting changes from where it is set.
  std::string text;
  Writer w(text);
  w.begin_array().value(1e14);
  CHECK(w.set_doubles(Doubles::kShortest) == Doubles::kAsDom);
  w.value(1e14).end_array();
  CHECK(text == "[100000000000000.0,1e+14]");
}

TEST_CASE("json_out: a document written out of order is an internal error, not bad JSON") {
  std::string text;
  Writer w(text);
  CHECK_THROWS_AS(w.key("x"), rprof::Error);  // a key outside an object
  w.begin_object();
  CHECK_THROWS_AS(w.value(1), rprof::Error);  // a member without a key
  CHECK_THROWS_AS(w.end_array(), rprof::Error);
  w.key("k");
  CHECK_THROWS_AS(w.key("again"), rprof::Error);
  CHECK_THROWS_AS(w.end_object(), rprof::Error);  // a key without its value
  w.value(1).end_object();
  CHECK(text == "{\"k\":1}");
  CHECK(w.depth() == 0);
}
