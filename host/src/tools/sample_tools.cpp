#include "sample_tools.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <toolgate/json.hpp>

#include <chrono>

namespace toolgate::samples {

ToolDefinition greeting_tool() {
  ToolDefinition t;
  t.name = "greet";
  t.description = "Greets someone by name.";
  t.input_schema = boost::json::parse(
      R"({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})");
  t.annotations = annotation::read_only | annotation::idempotent;
  t.execute = [](const ToolContext& ctx) {
    const auto* name = ctx.call.arguments.if_contains("name");
    if (!name || !name->is_string())
      return ToolOutput::failure("greet needs a string argument \"name\"");
    return ToolOutput::success(
        boost::json::string("Hello, " + std::string(name->get_string()) + "!"));
  };
  return t;
}

ToolDefinition todo_tool() {
  ToolDefinition t;
  t.name = "todo.write";
  t.description = "Replaces the session's todo list.";
  t.input_schema = boost::json::parse(
      R"({"type":"object","required":["todos"],"properties":{"todos":{"type":"array","items":{)"
      R"("type":"object","required":["content","status"],"properties":{"content":{"type":"string"},)"
      R"("status":{"enum":["pending","in_progress","completed"]}}}}}})");
  t.execute = [](const ToolContext& ctx) {
    const auto* todos = ctx.call.arguments.if_contains("todos");
    if (!todos || !todos->is_array())
      return ToolOutput::failure("todo.write needs \"todos\", a list");
    for (const auto& item : todos->get_array()) {
      const auto* o = item.if_object();
      const auto* content = o ? o->if_contains("content") : nullptr;
      const auto* status = o ? o->if_contains("status") : nullptr;
      const bool known_status =
          status && status->is_string() &&
          (status->get_string() == "pending" || status->get_string() == "in_progress" ||
           status->get_string() == "completed");
      if (!content || !content->is_string() || !known_status)
        return ToolOutput::failure(
            "each todo needs a string \"content\" and a \"status\" of pending, in_progress or "
            "completed");
    }
    // A tool-owned event: the host reserves its own types, not this one.
    ctx.call.emit("todo/write", {{"todos", *todos}});
    return ToolOutput::success(boost::json::object{{"todos", *todos}});
  };
  return t;
}

ToolDefinition slow_tool() {
  ToolDefinition t;
  t.name = "slow";
  t.description = "Waits for `ms` milliseconds, stopping early if signalled.";
  t.input_schema =
      boost::json::parse(R"({"type":"object","properties":{"ms":{"type":"integer","minimum":0}}})");
  t.annotations = annotation::read_only;
  t.execute = [](const ToolContext& ctx) {
    std::int64_t ms = 1000;
    if (const auto* v = ctx.call.arguments.if_contains("ms"); v && v->is_int64())
      ms = v->get_int64();
    // The framework cannot kill code: the tool sleeps on its signal.
    switch (ctx.signal->wait_for(std::chrono::milliseconds(ms))) {
      case SignalState::pending:
        return ToolOutput::success(boost::json::object{{"slept_ms", ms}});
      case SignalState::timed_out:
        return ToolOutput::failure("slow: stopped, the deadline passed", "timeout");
      case SignalState::cancelled:
        break;
    }
    return ToolOutput::failure("slow: stopped, the call was cancelled", "cancelled");
  };
  return t;
}

ToolDefinition stub_tool(std::string name, boost::json::value input_schema) {
  ToolDefinition t;
  t.name = std::move(name);
  t.description = "A stub (toolgate --stub): echoes its arguments.";
  t.input_schema = input_schema.is_null()
                       ? boost::json::value(boost::json::object{{"type", "object"}})
                       : std::move(input_schema);
  t.annotations = annotation::destructive | annotation::open_world;  // MCP's defaults
  t.execute = [tool = t.name](const ToolContext& ctx) {
    boost::json::object value{{"tool", tool}, {"arguments", ctx.call.arguments}};
    std::string text = "stub " + tool + " called with " + to_json_text(ctx.call.arguments);
    return ToolOutput::success(std::move(value), boost::json::array{text_block(text)});
  };
  return t;
}

}  // namespace toolgate::samples
