// Numbers through the engine (docs/design.md §10.2): read correctly
// rounded, written in their shortest exact form, and never written when
// JSON cannot carry them (NaN, infinities).
#include "json_util.hpp"
#include "test_support.hpp"

#include <toolgate/json.hpp>

#include <boost/json/serialize.hpp>

#include <bit>
#include <cfloat>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

using namespace tgtest;

namespace {

double parsed_double(const std::string& text) {
  std::string why;
  auto v = toolgate::parse_untrusted("[" + text + "]", 8, &why);
  EXPECT_TRUE(v) << text << ": " << why;
  if (!v) return std::nan("");
  const auto& x = v->as_array().at(0);
  EXPECT_TRUE(x.is_double()) << text;
  return x.is_double() ? x.get_double() : std::nan("");
}

// glibc's strtod is correctly rounded: an independent reading of the text.
double reference(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

}  // namespace

TEST(JsonNumbers, ReadCorrectlyRounded) {
  // The value an independent check found changed in transit (read as
  // ...048 by Boost.JSON 1.81), and the largest double (read as infinity).
  for (std::string t : {"0.00011133861541748047", "1.7976931348623158e308",
                        "2.2250738585072011e-308", "4.9406564584124654e-324",
                        "2.4703282292062328e-324", "123456789012345678901234567890", "1E2"}) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(parsed_double(t)),
              std::bit_cast<std::uint64_t>(reference(t)))
        << t;
  }
}

TEST(JsonNumbers, RandomDoublesSurviveAReadAndAWrite) {
  std::mt19937_64 rng(20261204);
  int checked = 0;
  while (checked < 2000) {
    const double d = std::bit_cast<double>(rng());
    if (!std::isfinite(d)) continue;
    ++checked;
    char text[40];
    std::snprintf(text, sizeof text, "%.16e", d);  // a long, exact spelling
    const double read = parsed_double(text);
    ASSERT_EQ(std::bit_cast<std::uint64_t>(read), std::bit_cast<std::uint64_t>(d)) << text;
    // Written back: shortest, and read again to the same bits.
    const std::string written = toolgate::to_json_text(json::value(read));
    EXPECT_LE(written.size(), std::string(text).size() + 2) << text;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(parsed_double(written)), std::bit_cast<std::uint64_t>(d))
        << written;
  }
}

TEST(JsonNumbers, OutOfRangeIsZeroWhenTinyAndRefusedWhenHuge) {
  EXPECT_EQ(parsed_double("1e-400"), 0.0);
  EXPECT_TRUE(std::signbit(parsed_double("-1e-400")));
  EXPECT_EQ(parsed_double("0e400"), 0.0);
  std::string why;
  EXPECT_FALSE(toolgate::parse_untrusted("[1e400]", 8, &why));
  EXPECT_FALSE(toolgate::parse_untrusted("[1.7976931348623159e308]", 8, &why));
}

TEST(JsonNumbers, WrittenInTheirShortestPlainForm) {
  const std::pair<json::value, std::string> cases[] = {
      {0.5, "0.5"},
      {2.0, "2.0"},  // stays a double when read back
      {-0.0, "-0.0"},
      {1e300, "1e+300"},
      {5e-324, "5e-324"},
      {0.1, "0.1"},
      {0.00011133861541748047, "0.00011133861541748047"},
      {2, "2"},
      {-7, "-7"},
      {std::numeric_limits<std::uint64_t>::max(), "18446744073709551615"},
      {std::numeric_limits<std::int64_t>::min(), "-9223372036854775808"},
  };
  for (const auto& [v, text] : cases) EXPECT_EQ(toolgate::to_json_text(v), text);
  EXPECT_TRUE(parsed_double("2.0") == 2.0);
}

TEST(JsonNumbers, EverythingButNumbersIsWrittenAsBoostJsonWritesIt) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls += static_cast<char>(c);
  const json::value docs[] = {
      nullptr,
      true,
      json::string(controls),
      "quote \" backslash \\ slash / héllo ✓ 😀",
      json::array{1, "two", nullptr, json::array{json::object{}}},
      json::object{{"k\"ey", json::array{1, 2, 3}}, {"", json::object{{"x", "y\u0001"}}}},
  };
  for (const auto& v : docs) {
    EXPECT_EQ(toolgate::to_json_text(v), json::serialize(v));
    if (v.is_object()) {
      EXPECT_EQ(toolgate::to_json_text(v.get_object()), json::serialize(v));
    }
    if (v.is_array()) {
      EXPECT_EQ(toolgate::to_json_text(v.get_array()), json::serialize(v));
    }
  }
}

TEST(JsonNumbers, ANonFiniteNumberIsRefusedNamingWhereItIs) {
  json::value v = json::object{{"a", json::array{1, std::nan("")}}, {"b/c", INFINITY}};
  try {
    toolgate::to_json_text(v);
    FAIL() << "NaN was written";
  } catch (const toolgate::NonFiniteNumber& e) {
    EXPECT_EQ(e.pointer(), "/a/1");
    EXPECT_NE(std::string(e.what()).find("/a/1"), std::string::npos);
  }
  v.as_object()["a"].as_array()[1] = 0;
  try {
    toolgate::to_json_text(v);
    FAIL() << "infinity was written";
  } catch (const toolgate::NonFiniteNumber& e) {
    EXPECT_EQ(e.pointer(), "/b~1c");
  }
  EXPECT_EQ(toolgate::detail::find_non_finite(v), "/b~1c");
  EXPECT_EQ(toolgate::detail::find_non_finite(json::value(-INFINITY)), "/");
  EXPECT_FALSE(toolgate::detail::find_non_finite(json::array{1.5, "NaN"}));
}

TEST(JsonNumbers, ADeepValueIsWrittenWithoutExhaustingTheStack) {
  json::value v = 1.5;
  for (int i = 0; i < 200000; ++i) v = json::array{std::move(v)};
  const std::string text = toolgate::to_json_text(v);
  EXPECT_EQ(text.size(), 200000 * 2 + 3);
  EXPECT_EQ(text.substr(200000, 3), "1.5");
  // Free it iteratively too: Boost.JSON's destructor recurses.
  while (v.is_array() && !v.get_array().empty()) {
    json::value inner = std::move(v.get_array()[0]);
    v = std::move(inner);
  }
}

// ---- through the engine ------------------------------------------------------------------

TEST(JsonNumbers, EmbedderArgumentsHoldingNaNAreRefusedBeforeAnyHookOrTheBody) {
  Host host;
  bool ran = false, hook_ran = false;
  ToolDefinition t;
  t.name = "t";
  t.execute = [&](const ToolContext&) {
    ran = true;
    return ToolOutput::success(1);
  };
  host.register_tool(t);
  host.add_guard("t", {"g"}, [&](const HookCall&) -> std::optional<std::string> {
    hook_ran = true;
    return std::nullopt;
  });
  ToolCall c;
  c.identity.tool = "t";
  c.arguments = json::object{{"x", json::array{std::nan("")}}};
  auto r = host.call(std::move(c));
  EXPECT_EQ(code_of(r), "invalid_arguments");
  EXPECT_NE(r.error->message.find("/x/0"), std::string::npos) << r.error->message;
  EXPECT_FALSE(ran);
  EXPECT_FALSE(hook_ran);
}

TEST(JsonNumbers, ARewriteToNaNFailsTheHookAndTheBodyDoesNotRun) {
  Host host;
  bool ran = false;
  ToolDefinition t;
  t.name = "t";
  t.execute = [&](const ToolContext&) {
    ran = true;
    return ToolOutput::success(1);
  };
  host.register_tool(t);
  host.add_pre_execute("t", {"nan"}, [](const HookCall&) {
    return PreVerdict::keep().with_arguments(json::object{{"n", INFINITY}});
  });
  ToolCall c;
  c.identity.tool = "t";
  auto r = host.call(std::move(c));
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_EQ(r.error->source, "t/nan");
  EXPECT_NE(r.error->message.find("/n"), std::string::npos) << r.error->message;
  EXPECT_FALSE(ran);
}

TEST(JsonNumbers, AToolValueHoldingNaNBecomesSnapshotFailedAndTheEventLogStaysJson) {
  Host host;
  std::vector<std::string> lines;
  host.subscribe([&](const Event& e) { lines.push_back(toolgate::to_json_text(e.to_json())); });
  ToolDefinition t;
  t.name = "t";
  t.execute = [](const ToolContext&) {
    return ToolOutput::success(json::object{{"ratio", std::nan("")}});
  };
  host.register_tool(t);
  ToolCall c;
  c.identity.tool = "t";
  auto r = host.call(std::move(c));
  EXPECT_EQ(code_of(r), "snapshot_failed");
  EXPECT_NE(r.error->message.find("/value/ratio"), std::string::npos) << r.error->message;
  ASSERT_FALSE(lines.empty());
  for (const auto& l : lines) EXPECT_TRUE(toolgate::parse_untrusted(l, 64)) << l;
}

TEST(JsonNumbers, CanonicalTextIsOneSpellingPerValue) {
  // Keys in another order and numbers spelled otherwise: one text.
  std::string why;
  auto a = toolgate::parse_untrusted(R"({"b":[{"y":1,"x":5E-1}],"a":"\u00e9"})", 8, &why);
  auto b = toolgate::parse_untrusted(R"({ "a" : "é", "b" : [ {"x":0.5, "y":1} ] })", 8, &why);
  ASSERT_TRUE(a && b) << why;
  EXPECT_EQ(toolgate::canonical_json_text(*a), R"({"a":"é","b":[{"x":0.5,"y":1}]})");
  EXPECT_EQ(toolgate::canonical_json_text(*a), toolgate::canonical_json_text(*b));
}
