// Host::call_json (host/include/toolgate/host.hpp), the entry point for
// untrusted call text, on a host with a tool and one hook of each waterfall
// stage registered.  Whatever the text, call_json returns a result (never
// throws), the result has the documented shape, the result, the outcome
// and every event are JSON once written out, text that is not JSON is
// `invalid_arguments`, a call that ran produced exactly one tool/result
// event, and the echo tool gives back exactly the arguments it was sent.
#include "fuzz_check.hpp"
#include "strict_json.hpp"

#include <toolgate/host.hpp>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace json = boost::json;
using namespace toolgate;

namespace {

// What the host writes out (results, outcomes, events) parses back.
bool is_json(const json::object& o) {
  json::error_code ec;
  json::parse(json::serialize(o), ec);
  return !ec;
}

struct Counts {
  int calls = 0, results = 0;
};

// Built once; never destroyed, so no hook outlives what it captures.
Host& host(Counts*& counts) {
  static Counts c;
  static Host* h = [] {
    auto* host = new Host();
    ToolDefinition echo;
    echo.name = "echo";
    echo.execute = [](const ToolContext& ctx) {
      if (ctx.call.arguments.contains("fail")) return ToolOutput::failure("asked to fail");
      return ToolOutput::success(ctx.call.arguments);
    };
    host->register_tool(std::move(echo));
    ToolDefinition text;
    text.name = "text";
    text.execute = [](const ToolContext& ctx) {
      const auto* t = ctx.call.arguments.if_contains("text");
      return ToolOutput::success(t ? *t : json::value("none"));
    };
    text.finalize_content = [](ToolResult& r) { r.content.emplace_back(text_block("final")); };
    host->register_tool(std::move(text));
    // A rewrite, a guard, an "ask" nobody answers, a post-execute hook and
    // an observer, each keyed on an argument so the fuzzer can reach them.
    host->add_pre_execute("fuzz", HookOptions("rewrite"), [](const HookCall& call) {
      if (call.arguments.contains("ask")) return PreVerdict::ask("asked");
      if (!call.arguments.contains("rewrite")) return PreVerdict::keep();
      json::object a = call.arguments;
      a.erase("rewrite");
      a["rewritten"] = true;
      return PreVerdict::keep().with_arguments(std::move(a));
    });
    host->add_guard("fuzz", HookOptions("deny"), [](const HookCall& call) {
      std::optional<std::string> deny;
      if (const auto* r = call.arguments.if_contains("deny"))
        deny = r->is_string() ? std::string(r->get_string()) : json::serialize(*r);
      return deny;
    });
    host->add_post_execute("fuzz", HookOptions("post"), [](const HookCall& call) {
      if (const auto* r = call.arguments.if_contains("replace")) return PostVerdict::replace(*r);
      if (call.arguments.contains("block")) return PostVerdict::block("blocked");
      return PostVerdict::accept().add_context("seen");
    });
    host->add_result_observer("fuzz", HookOptions("observe"),
                              [](const Outcome& o) { FUZZ_CHECK(is_json(o.to_json())); });
    host->subscribe([](const Event& e) {
      if (e.type == "tool/call") ++c.calls;
      if (e.type == "tool/result") ++c.results;
      FUZZ_CHECK(is_json(e.to_json()));
    });
    return host;
  }();
  counts = &c;
  return *h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Counts* counts = nullptr;
  Host& h = host(counts);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const int calls_before = counts->calls, results_before = counts->results;

  ToolResult r = h.call_json(text);

  // The documented shape: isError iff error, a code from the closed set, a
  // stage, and a result that survives its own JSON form.
  FUZZ_CHECK(r.is_error == r.error.has_value());
  if (r.error) {
    FUZZ_CHECK(is_error_code(r.error->code));
    FUZZ_CHECK(!r.error->stage.empty());
    FUZZ_CHECK(!r.error->message.empty());
  }
  FUZZ_CHECK(is_json(r.to_json()));
  std::string why;
  auto round = ToolResult::from_json(json::value(r.to_json()), &why);
  FUZZ_CHECK(round.has_value());
  FUZZ_CHECK(round->to_json() == r.to_json());

  // Exactly one tool/result for every call that started (input rejected
  // before a call exists starts none).
  FUZZ_CHECK(counts->calls - calls_before == counts->results - results_before);
  FUZZ_CHECK(counts->calls - calls_before <= 1);

  json::parse_options popt;
  popt.max_depth = 64;
  json::error_code ec;
  // Lone surrogate escapes read as U+FFFD (strict_json.hpp).
  const auto repaired = toolgate::detail::replace_lone_surrogates(text);
  json::value v = json::parse(repaired ? std::string_view(*repaired) : text, ec, {}, popt);
  if (ec || !v.is_object()) {
    FUZZ_CHECK(r.error && r.error->code == error_code::invalid_arguments);
    return 0;
  }
  // What the engine reads (the strict parser, checked against Boost.JSON
  // by fuzz_strict_json): refused text is `invalid_arguments` too.
  toolgate::detail::StrictJsonOptions sopt;
  sopt.max_depth = 64;
  auto strict = toolgate::detail::parse_strict(text, sopt, nullptr);
  if (!strict) {
    FUZZ_CHECK(r.error && r.error->code == error_code::invalid_arguments);
    return 0;
  }
  // The echo tool hands back the arguments it was called with, untouched,
  // unless a hook was asked to intervene.
  const auto& o = strict->get_object();
  const auto* tool = o.if_contains("tool");
  const auto* args = o.if_contains("arguments");
  if (!r.is_error && tool && tool->is_string() && tool->get_string() == "echo" && o.size() <= 4) {
    const json::object empty;
    const json::value sent = args && !args->is_null() ? *args : json::value(empty);
    if (sent.is_object() && !sent.get_object().contains("rewrite") &&
        !sent.get_object().contains("replace")) {
      FUZZ_CHECK(r.value.has_value());
      FUZZ_CHECK(*r.value == sent);
    }
  }
  return 0;
}
