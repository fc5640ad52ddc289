// MCP tools and CallToolResults <-> the pipeline, both ways, including
// through a real Host (guards, failures, structured values).
#include "test_support.hpp"

#include "gated_requests.hpp"
#include "tool_mapping.hpp"

#include <toolgate/json.hpp>

using namespace tgtest;
using namespace toolgate::mcp;

namespace {
ToolResult call(Host& host, std::string tool, json::object args = {}) {
  ToolCall c;
  c.identity = {"", std::move(tool), "s", ""};
  c.arguments = std::move(args);
  return host.call(std::move(c));
}
}  // namespace

TEST(McpMapping, AnnotationsUseTheSpecDefaults) {
  using namespace toolgate::annotation;
  EXPECT_EQ(annotation_bits(json::value()), destructive | open_world);
  EXPECT_EQ(annotation_bits(json::parse(R"({"readOnlyHint":true,"openWorldHint":false})")),
            read_only);
  EXPECT_EQ(annotation_bits(json::parse(R"({"readOnlyHint":true,"destructiveHint":true})")),
            read_only | open_world);  // destructive only means something for writers
  EXPECT_EQ(
      annotation_bits(json::parse(
          R"({"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false})")),
      idempotent);
  EXPECT_EQ(annotation_bits(json::parse(R"({"destructiveHint":"yes","openWorldHint":1})")),
            destructive | open_world);  // non-booleans are absent hints
}

TEST(McpMapping, ToolDefinitionsCarrySchemasAndAnnotations) {
  auto t = json::parse(R"({"name":"write_file","description":"Write a file",
    "inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},
    "outputSchema":{"type":"object"},
    "annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":true,"openWorldHint":false}})");
  std::string why;
  auto d = tool_definition(t, &why);
  ASSERT_TRUE(d) << why;
  EXPECT_EQ(d->name, "write_file");
  EXPECT_EQ(d->description, "Write a file");
  EXPECT_EQ(d->input_schema.at("properties").at("path").at("type"), "string");
  EXPECT_EQ(d->output_schema, json::parse(R"({"type":"object"})"));
  EXPECT_EQ(d->annotations, annotation::destructive | annotation::idempotent);
  EXPECT_FALSE(tool_definition(json::parse(R"({"description":"no name"})"), &why));
  EXPECT_FALSE(tool_definition(json::parse(R"({"name":""})"), &why));
  EXPECT_FALSE(tool_definition(json::parse("[1]"), &why));
}

TEST(McpMapping, ServerResultsBecomeToolOutputs) {
  auto plain =
      output_from_call_result(json::parse(R"({"content":[{"type":"text","text":"hi"}]})"), "t");
  EXPECT_TRUE(plain.ok);
  EXPECT_TRUE(plain.value.is_null());  // no structuredContent
  ASSERT_TRUE(plain.content);
  EXPECT_EQ(plain.content->size(), 1u);

  auto structured = output_from_call_result(
      json::parse(
          R"({"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1},"isError":false})"),
      "t");
  EXPECT_TRUE(structured.ok);
  EXPECT_EQ(structured.value, json::parse(R"({"n":1})"));

  auto failed = output_from_call_result(
      json::parse(
          R"({"content":[{"type":"text","text":"ENOENT: a.txt"},{"type":"text","text":"more"}],"isError":true})"),
      "read_file");
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error_code, "tool_error");
  EXPECT_EQ(failed.message, "ENOENT: a.txt\nmore");

  EXPECT_FALSE(output_from_call_result(json::parse("[]"), "t").ok);
  EXPECT_FALSE(output_from_call_result(json::parse(R"({"content":"x"})"), "t").ok);
  EXPECT_FALSE(output_from_call_result(json::parse(R"({"task":{"taskId":"1"}})"), "t").ok);

  auto rpc =
      output_from_rpc_error(json::parse(R"({"code":-32602,"message":"Unknown tool: x"})"), "x");
  EXPECT_FALSE(rpc.ok);
  EXPECT_NE(rpc.message.find("-32602"), std::string::npos);
  EXPECT_NE(rpc.message.find("Unknown tool: x"), std::string::npos);
}

TEST(McpMapping, PipelineResultsBecomeCallToolResults) {
  auto ok = call_result_from(ToolResult::success(json::parse(R"({"n":1})"), {text_block("one")}));
  EXPECT_EQ(
      ok,
      json::parse(
          R"({"content":[{"type":"text","text":"one"}],"structuredContent":{"n":1},"isError":false})"));
  // A value that is not an object is never structuredContent.
  auto str = call_result_from(ToolResult::success("hi", {text_block("hi")}));
  EXPECT_FALSE(str.contains("structuredContent"));
  EXPECT_EQ(str.at("isError"), false);

  auto denied = call_result_from(ToolResult::failure(
      error_code::denied, "writes outside /work are not allowed", stage::guard, "acme/paths"));
  EXPECT_EQ(denied.at("isError"), true);
  EXPECT_EQ(denied.at("content").at(0).at("text"), "writes outside /work are not allowed");
  EXPECT_EQ(
      denied.at("_meta").at("toolgate/error"),
      json::parse(
          R"({"code":"denied","message":"writes outside /work are not allowed","stage":"guard","source":"acme/paths"})"));
  EXPECT_FALSE(denied.contains("structuredContent"));
}

// The whole way: a tool body that returns a server's result, through a Host
// with a guard, back to a CallToolResult.
TEST(McpMapping, ThroughTheHost) {
  Host host;
  ToolDefinition t;
  t.name = "get";
  t.execute = [](const ToolContext& c) {
    if (c.call.arguments.contains("fail"))
      return output_from_call_result(
          json::parse(R"({"content":[{"type":"text","text":"boom"}],"isError":true})"), "get");
    if (c.call.arguments.contains("plain"))
      return output_from_call_result(json::parse(R"({"content":[{"type":"text","text":"plain"}]})"),
                                     "get");
    return output_from_call_result(
        json::parse(R"({"content":[{"type":"text","text":"s"}],"structuredContent":{"k":"v"}})"),
        "get");
  };
  host.set_tools({t});
  host.add_guard("acme", {"no-secret"}, [](const HookCall& c) -> std::optional<std::string> {
    if (c.arguments.contains("secret")) return "no secrets";
    return std::nullopt;
  });
  auto run = [&](json::object args) {
    return call_result_from(call(host, "get", std::move(args)));
  };
  EXPECT_EQ(
      run({}),
      json::parse(
          R"({"content":[{"type":"text","text":"s"}],"structuredContent":{"k":"v"},"isError":false})"));
  EXPECT_EQ(run({{"plain", true}}),
            json::parse(R"({"content":[{"type":"text","text":"plain"}],"isError":false})"));
  auto failed = run({{"fail", true}});
  EXPECT_EQ(failed.at("isError"), true);
  EXPECT_EQ(failed.at("_meta").at("toolgate/error").at("code"), "tool_error");
  EXPECT_EQ(failed.at("_meta").at("toolgate/error").at("message"), "boom");
  auto denied = run({{"secret", 1}});
  EXPECT_EQ(denied.at("_meta").at("toolgate/error").at("code"), "denied");
  EXPECT_EQ(denied.at("_meta").at("toolgate/error").at("source"), "acme/no-secret");
  EXPECT_EQ(denied.at("_meta").at("toolgate/error").at("stage"), "guard");
}

TEST(McpMapping, SetToolsReplacesAndRemoves) {
  Host host;
  auto tool = [](std::string name, std::string text) {
    ToolDefinition t;
    t.name = std::move(name);
    t.execute = [text](const ToolContext&) { return ToolOutput::success(json::value(text)); };
    return t;
  };
  host.set_tools({tool("a", "a1"), tool("b", "b1")});
  host.set_tools({tool("a", "a2")});  // replace one, keep the other
  EXPECT_EQ(call(host, "a").value, json::value("a2"));
  EXPECT_EQ(call(host, "b").value, json::value("b1"));
  host.set_tools({tool("c", "c1")}, true);  // the complete list
  EXPECT_EQ(code_of(call(host, "a")), "unknown_tool");
  EXPECT_EQ(call(host, "c").value, json::value("c1"));
  EXPECT_THROW(host.set_tools({tool("d", "1"), tool("d", "2")}), std::invalid_argument);
}

// Each set_tools publishes a generation; the replaced ones must be freed
// once no call uses them, even without hot reload (a gateway calls it on
// every tools/list).  A token captured by the tool counts the live copies.
TEST(HostSetTools, ReplacedGenerationsAreFreedWithoutReload) {
  Host host;
  auto token = std::make_shared<int>(0);
  for (int i = 0; i < 200; ++i) {
    ToolDefinition t;
    t.name = "t";
    t.execute = [token](const ToolContext&) { return ToolOutput::success(json::string("x")); };
    host.set_tools({t});
  }
  // The active generation's entry (plus at most the definitions still in
  // this scope); not one per set_tools.
  EXPECT_LE(token.use_count(), 4) << "old generations are kept alive";
}

// Contexts from post-execute hooks reach an MCP client in the call's own
// result: after its content, and listed in _meta.
TEST(McpMapping, AdditionalContextsTravelInTheCallResult) {
  ToolResult ok = ToolResult::success(json::value("v"), json::array{text_block("result text")});
  auto plain = call_result_from(ok);
  add_contexts(plain, {});
  EXPECT_EQ(plain.at("content").as_array().size(), 1u);
  EXPECT_FALSE(plain.contains("_meta"));

  auto with = call_result_from(ok);
  add_contexts(with, {"first note", "second note"});
  const auto& content = with.at("content").as_array();
  ASSERT_EQ(content.size(), 3u);
  EXPECT_EQ(content[0].at("text"), "result text");
  EXPECT_EQ(content[1].at("text"), "first note");
  EXPECT_EQ(content[2].at("text"), "second note");
  EXPECT_EQ(with.at("_meta").at("toolgate/additional_contexts"),
            (json::array{"first note", "second note"}));

  // An error keeps its toolgate/error beside them.
  auto denied = call_result_from(ToolResult::failure(error_code::denied, "no", "guard", "g/x"));
  add_contexts(denied, {"note"});
  EXPECT_EQ(denied.at("_meta").at("toolgate/error").at("code"), "denied");
  EXPECT_EQ(denied.at("_meta").at("toolgate/additional_contexts"), (json::array{"note"}));
  EXPECT_EQ(denied.at("content").as_array().back().at("text"), "note");
}

// What the server sent goes back as it came when no hook changed the
// outcome (tool_mapping.hpp: relay_for); otherwise it is rebuilt.
TEST(McpMapping, UnchangedServerAnswersAreRelayedAsTheyCame) {
  Host host;
  std::optional<ServerAnswer> last;
  ToolDefinition t;
  t.name = "get";
  // As a server may write them: numbers spelled its way, an integer beyond
  // 64 bits, spacing.  Relayed, these bytes must come back unchanged.
  const std::string rpc_text =
      R"({"code":-32042,"message":"auth","data":{"url":"https://x","n":1.50E+0}})";
  const std::string error_text = R"({"isError":true,"content":[{"type":"text","text":"no"},
                            {"type":"image","data":"AA==","mimeType":"image/png"}]})";
  const std::string ok_text = R"({"content":[{"type":"text","text":"s"}], "_meta":{"a":1},"x":2,)"
                              R"("big":123456789012345678901234567890,"r":0.00011133861541748047})";
  // Parts no hook reads: an embedded resource in an error result, a
  // structuredContent that is not an object.
  const std::string unseen_error_text =
      R"({"isError":true,"content":[{"type":"text","text":"no"},)"
      R"({"type":"resource","resource":{"uri":"x","text":"SECRET"}}]})";
  const std::string unseen_value_text = R"({"content":[],"structuredContent":"SECRET"})";
  const std::string spoof_text = R"({"isError":true,"_meta":{"toolgate/error":{"code":"forged"}},)"
                                 R"("content":[{"type":"text","text":"no"}]})";
  t.execute = [&](const ToolContext& c) {
    bool rpc = c.call.arguments.contains("rpc");
    const std::string& text = rpc                                         ? rpc_text
                              : c.call.arguments.contains("error")        ? error_text
                              : c.call.arguments.contains("spoof")        ? spoof_text
                              : c.call.arguments.contains("unseen-error") ? unseen_error_text
                              : c.call.arguments.contains("unseen-value") ? unseen_value_text
                                                                          : ok_text;
    json::object body = json::parse(text).as_object();
    ToolOutput out =
        rpc ? output_from_rpc_error(body, "get") : output_from_call_result(body, "get");
    last = ServerAnswer{std::make_shared<const json::object>(body), rpc,
                        out.ok ? std::string() : out.message, text};
    return out;
  };
  host.set_tools({t});
  auto relay = [&](json::object args, std::vector<std::string> contexts = {}) {
    return relay_for(call(host, "get", std::move(args)), last, "get", contexts);
  };
  auto rpc = relay({{"rpc", true}});
  EXPECT_EQ(rpc.kind, Relay::Kind::rpc_error);
  EXPECT_EQ(rpc.body.at("data").at("url"), "https://x");
  EXPECT_EQ(rpc.text, rpc_text);  // byte for byte
  // A context cannot travel with a JSON-RPC error: the result is rebuilt.
  EXPECT_EQ(relay({{"rpc", true}}, {"note"}).kind, Relay::Kind::result);
  auto ok = relay({});
  EXPECT_EQ(ok.kind, Relay::Kind::result);
  EXPECT_EQ(ok.text, ok_text);   // its _meta and unknown members with it
  EXPECT_TRUE(ok.body.empty());  // relayed as text: no body built
  // With a context added the result is rebuilt (a hook acted).
  EXPECT_EQ(relay({}, {"note"}).text, "");
  auto err = relay({{"error", true}});
  EXPECT_EQ(err.body.at("content").as_array().size(), 2u);
  EXPECT_EQ(err.body.at("_meta").at("toolgate/error").at("code"), "tool_error");
  // The server's text with toolgate's _meta spliced in first, the rest as sent.
  ASSERT_TRUE(err.text.starts_with(R"({"_meta":{"toolgate/error":{"code":"tool_error")"))
      << err.text;
  EXPECT_TRUE(err.text.ends_with(error_text.substr(1))) << err.text;
  EXPECT_EQ(json::parse(err.text), json::value(err.body));
  // A server that writes toolgate's own key into its _meta is not relayed
  // as text (a client would read the server's copy of a duplicate key).
  // What reached no hook is never relayed: rebuilt from what they saw.
  for (const char* unseen : {"unseen-error", "unseen-value"}) {
    auto u = relay({{unseen, true}});
    EXPECT_EQ(u.text, "") << unseen;
    EXPECT_EQ(to_json_text(u.body).find("SECRET"), std::string::npos) << to_json_text(u.body);
  }
  // A JSON-RPC error's data is part of the failure the hooks read.
  EXPECT_NE(output_from_rpc_error(json::parse(rpc_text), "get").message.find(R"("n":1.5)"),
            std::string::npos);
  auto spoof = relay({{"spoof", true}});
  EXPECT_EQ(spoof.text, "");
  EXPECT_EQ(spoof.body.at("_meta").at("toolgate/error").at("code"), "tool_error");

  // A post-execute hook that changes the result: rebuilt, nothing of the
  // server's own answer (its _meta, its extra fields) is passed on.
  host.add_post_execute("p", {"mask"}, [](const HookCall& c) {
    if (c.denied) return PostVerdict::accept();
    return PostVerdict::replace(
        json::parse(R"({"isError":false,"content":[{"type":"text","text":"masked"}]})"));
  });
  auto changed = relay({});
  EXPECT_EQ(changed.kind, Relay::Kind::result);
  EXPECT_EQ(changed.text, "");
  EXPECT_FALSE(changed.body.contains("x"));
  const auto* meta = changed.body.if_contains("_meta");
  EXPECT_FALSE(meta && meta->is_object() && meta->as_object().contains("a"));
  EXPECT_EQ(relay({{"rpc", true}}).kind, Relay::Kind::result);
}

// The client's params reach the server as the client wrote them; only what
// the gateway must change is edited in the text (tool_mapping.hpp).
TEST(McpMapping, ForwardParamsKeepTheClientsBytes) {
  auto parsed = [](std::string_view text) {
    return toolgate::parse_untrusted(text, 64).value().as_object();
  };
  const std::string exact =
      R"({"name":"get", "arguments":{"n":0.00011133861541748047,"half":5E-1,)"
      R"("big":123456789012345678901234567890}, "_meta":{"progressToken":7}})";
  auto p = parsed(exact);
  EXPECT_EQ(forward_params(exact, p, "get", p.at("arguments").as_object()), exact);

  // "task" removed, wherever it is; nothing else touched.
  const std::string first = R"({"task":{"ttl":1000}, "name":"get","arguments":{"a":1.0}})";
  p = parsed(first);
  EXPECT_EQ(forward_params(first, p, "get", p.at("arguments").as_object()),
            R"({"name":"get","arguments":{"a":1.0}})");
  const std::string last = R"({"name":"get","arguments":{"a":1.0} , "task":{}})";
  p = parsed(last);
  EXPECT_EQ(forward_params(last, p, "get", p.at("arguments").as_object()),
            R"({"name":"get","arguments":{"a":1.0} })");

  // A rewrite replaces the arguments alone; the client's _meta stays as sent.
  p = parsed(exact);
  EXPECT_EQ(forward_params(exact, p, "get", json::object{{"n", 1}}),
            R"({"name":"get", "arguments":{"n":1}, "_meta":{"progressToken":7}})");
  // No arguments sent, a hook added some.
  const std::string bare = R"({"name":"get"})";
  EXPECT_EQ(forward_params(bare, parsed(bare), "get", json::object{{"k", "v"}}),
            R"({"arguments":{"k":"v"},"name":"get"})");
  // A key written with escapes is not edited in the text (it could be
  // missed and sent twice): the params are written again, one "arguments".
  const std::string escaped = R"({"name":"get","\u0061rguments":{"a":1}})";
  const std::string rebuilt =
      forward_params(escaped, parsed(escaped), "get", json::object{{"a", 2}});
  EXPECT_EQ(parsed(rebuilt).at("arguments"), (json::object{{"a", 2}}));
  EXPECT_EQ(rebuilt.find("\\u0061"), std::string::npos) << rebuilt;
  // No text known: written from the parsed params.
  EXPECT_EQ(parsed(forward_params("", parsed(first), "get", json::object{})),
            (json::object{{"name", "get"}, {"arguments", json::object{}}}));
}

// A gated request's reply (gated_requests.hpp): the peer's own answer when
// nothing changed it, an error when the pipeline refused, a hook's
// replacement only when it is a result object.
TEST(McpMapping, GatedRequestsReplyWithThePeersAnswerARefusalOrAHooksResult) {
  const GatedMethod* read = gated_method("resources/read", true);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->name, "mcp/resources/read");
  EXPECT_EQ(gated_call("mcp/sampling/createMessage"),
            gated_method("sampling/createMessage", false));
  EXPECT_FALSE(gated_method("resources/read", false));  // only the client reads resources
  EXPECT_FALSE(gated_method("tools/list", true));
  EXPECT_TRUE(is_reserved_name("mcp/anything"));

  Host host;
  std::optional<ServerAnswer> last;
  const std::string result_text = R"({"contents":[{"uri":"file:///a","text":"x"}],"n":1.0E0})";
  const std::string error_text = R"({"code":-32002,"message":"Resource not found"})";
  auto body = [&](const ToolContext& c) {
    const bool missing = c.call.arguments.contains("missing");
    const std::string& text = missing ? error_text : result_text;
    json::object response{{"jsonrpc", "2.0"}, {"id", 1}};
    response[missing ? "error" : "result"] = json::parse(text);
    ToolOutput out = output_from_response(response, "resources/read");
    last = ServerAnswer{std::make_shared<const json::object>(json::parse(text).as_object()),
                        missing, out.ok ? "" : out.message, text};
    return out;
  };
  host.set_tools(gated_definitions(body));
  auto reply = [&](json::object args) {
    last.reset();
    ToolCall c;
    c.identity.tool = "mcp/resources/read";
    c.arguments = std::move(args);
    return reply_for_request(host.call(std::move(c)), last, *read, {});
  };
  auto ok = reply({{"uri", "file:///a"}});
  EXPECT_EQ(ok.kind, Relay::Kind::result);
  EXPECT_EQ(ok.text, result_text);
  auto missing = reply({{"missing", true}});
  EXPECT_EQ(missing.kind, Relay::Kind::rpc_error);
  EXPECT_EQ(missing.text, error_text);  // the server's own error, code and all

  host.add_guard("t", {"no-b", {"mcp/resources/read"}},
                 [](const HookCall& c) -> std::optional<std::string> {
                   if (c.arguments.contains("b")) return "not b";
                   return std::nullopt;
                 });
  auto refused = reply({{"b", 1}});
  EXPECT_EQ(refused.kind, Relay::Kind::rpc_error);
  EXPECT_EQ(refused.text, "");
  EXPECT_EQ(refused.body.at("code"), refused_code);
  EXPECT_EQ(refused.body.at("data").at("toolgate/error").at("code"), "denied");
  EXPECT_FALSE(last);  // the body never ran

  host.add_post_execute("t", {"mask", {"mcp/resources/read"}}, [](const HookCall& c) {
    if (c.arguments.contains("shape"))
      return PostVerdict::replace(json::parse(R"({"isError":false,"content":[],"value":7})"));
    return PostVerdict::replace(json::parse(
        R"({"isError":false,"content":[],"value":{"contents":[{"uri":"file:///a","text":"***"}]}})"));
  });
  auto masked = reply({{"uri", "file:///a"}});
  EXPECT_EQ(masked.kind, Relay::Kind::result);
  EXPECT_EQ(masked.text, "");
  EXPECT_EQ(masked.body.at("contents").at(0).at("text"), "***");
  auto shapeless = reply({{"shape", true}});
  EXPECT_EQ(shapeless.kind, Relay::Kind::rpc_error);
  EXPECT_NE(json::value_to<std::string>(shapeless.body.at("message")).find("no result object"),
            std::string::npos);
}
