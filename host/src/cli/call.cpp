// call.cpp -- `toolgate call M... --tool NAME [--args JSON]
//                [--approve yes|no|prompt] [--trace] [--events FILE]
//                [--code-mode [--code-sandbox bubblewrap|none]]`
// One call of a sample tool through the plugins of the manifests.  Prints
// the result JSON; exit 0 if it succeeded, 1 if it ended as an error or the
// event log could not be written.
#include "options.hpp"

#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>

namespace toolgate::cli {

namespace json = boost::json;

namespace {

// Asks on the terminal; unavailable when there is none.
ApprovalAnswer prompt(const ApprovalRequest& r) {
  if (!::isatty(STDIN_FILENO) || !::isatty(STDERR_FILENO)) return ApprovalAnswer::unavailable;
  std::fprintf(stderr, "toolgate: %s asks: %s\n  tool %s, arguments %s\n  allow once? [y/N] ",
               std::string(r.source).c_str(), std::string(r.reason).c_str(),
               r.identity.tool.c_str(), to_json_text(r.arguments).c_str());
  std::string line;
  if (!std::getline(std::cin, line)) return ApprovalAnswer::cancelled;
  return line == "y" || line == "Y" || line == "yes" ? ApprovalAnswer::allowed_once
                                                     : ApprovalAnswer::rejected;
}

void print_trace(const Event& e) {
  if (e.type != "hook/result") return;
  const auto& d = e.data;
  std::string line = "trace: " + std::string(d.at("stage").as_string()) + "  " +
                     std::string(d.at("source").as_string()) + "  " +
                     std::string(d.at("verdict").as_string()) + "  " +
                     std::to_string(d.at("ns").as_int64() / 1000) + "us";
  if (auto* r = d.if_contains("reason")) line += "  reason=" + to_json_text(*r);
  // What went wrong, not only that it did: a failed hook's message, a
  // normalization problem, an error code.
  for (const char* key : {"error", "problem", "code"})
    if (auto* v = d.if_contains(key))
      line.append("  ").append(key).append("=").append(to_json_text(*v));
  if (auto* a = d.if_contains("arguments_after"))
    line += "  arguments " + to_json_text(d.at("arguments_before")) + " -> " + to_json_text(*a);
  std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

int run_call(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o,
                           {"--tool", "--args", "--approve", "--events", "--stub", "--code-sandbox",
                            "--tools", "--workspace"},
                           {"--trace", "--code-mode"});
  auto code_mode = code_mode_flags(rest);
  auto stubs = stub_tools(rest);  // checked before any plugin's init runs
  for (auto& t : tool_set_flags(rest)) stubs.push_back(std::move(t));
  // Compatibility with `toolgate call --manifest M TOOL [JSON]`: the last
  // positionals are the tool and its arguments when --tool is absent.
  auto tool = flag_value(rest, "--tool");
  auto arguments = flag_value(rest, "--args");
  if (!tool) {
    // Positionals that are not manifest files are TOOL [JSON].
    std::vector<std::string> manifests;
    std::vector<std::string> other;
    for (const auto& m : o.manifests) (std::filesystem::exists(m) ? manifests : other).push_back(m);
    if (other.empty() || other.size() > 2) throw UsageError("call needs --tool NAME");
    tool = other[0];
    if (other.size() == 2) arguments = other[1];
    o.manifests = manifests;
  }
  use_default_manifests_if_none(o);
  auto host = make_host(o, nullptr, std::move(stubs));
  if (code_mode) host->enable_code_mode(*code_mode);
  if (auto a = flag_value(rest, "--approve")) {
    if (*a == "yes")
      host->set_approver([](const ApprovalRequest&) { return ApprovalAnswer::allowed_once; });
    else if (*a == "no")
      host->set_approver([](const ApprovalRequest&) { return ApprovalAnswer::rejected; });
    else if (*a == "prompt")
      host->set_approver(prompt);
    else
      throw UsageError("--approve takes yes, no or prompt");
  }
  if (has_flag(rest, "--trace")) host->subscribe(print_trace);
  std::shared_ptr<JsonLinesSink> events;
  if (auto file = flag_value(rest, "--events")) {
    std::FILE* f = std::fopen(file->c_str(), "a");
    if (!f)
      throw std::runtime_error("cannot open " + *file +
                               " for the event log: " + std::strerror(errno));
    std::shared_ptr<std::FILE> owned(f, std::fclose);
    events = std::make_shared<JsonLinesSink>(f, true, *file);
    host->subscribe([sink = events, owned](const Event& e) { (*sink)(e); });
  }
  std::string why;
  auto call = call_document(*tool, arguments.value_or("{}"), &why);
  std::vector<std::string> contexts;
  ToolResult r = call ? host->call_json(*call, &contexts)
                      : ToolResult::failure(error_code::invalid_arguments, "--args: " + why,
                                            stage::call, "host");
  std::printf("%s\n", to_json_text(r.to_json()).c_str());
  // What post-execute hooks queued for the model: the user message to place
  // after the results, as a second JSON line.
  if (auto message = context_message(contexts))
    std::printf("%s\n", to_json_text(json::object{{"context_message", *message}}).c_str());
  // An event log that could not be written (reported once when it
  // happened) fails the command: the record of the call is incomplete.
  if (events && !events->flush()) return 1;
  return r.is_error ? 1 : 0;
}

}  // namespace toolgate::cli
