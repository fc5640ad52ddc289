// Code Mode (docs/design.md §17): run_code runs a script under real node and
// real bubblewrap; every tool it calls goes through the pipeline.
#include "test_support.hpp"

#include "fs_tools.hpp"

#include <toolgate/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

using namespace tgtest;

namespace {

// A host with Code Mode on, the echo tool (counted), and a "slow" tool that
// waits for its signal up to 5 s and records how it ended.
struct CodeFixture : Fixture {
  std::shared_ptr<std::atomic<int>> in_flight = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> max_in_flight = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::vector<std::string>> order = std::make_shared<std::vector<std::string>>();

  explicit CodeFixture(CodeModeOptions o = {}) {
    ToolDefinition step;
    step.name = "step";
    step.input_schema = json::parse(R"({"type":"object","properties":{"n":{"type":"integer"}}})");
    auto fl = in_flight;
    auto mx = max_in_flight;
    auto ord = order;
    step.execute = [fl, mx, ord](const ToolContext& ctx) {
      int now = ++*fl;
      for (int seen = *mx; now > seen && !mx->compare_exchange_weak(seen, now);) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ord->push_back(json::serialize(ctx.call.arguments.at("n")));
      --*fl;
      return ToolOutput::success(ctx.call.arguments.at("n"));
    };
    host.register_tool(std::move(step));
    ToolDefinition slow;
    slow.name = "slow";
    slow.execute = [](const ToolContext& ctx) {
      auto st = ctx.signal->wait_for(std::chrono::seconds(5));
      if (st == SignalState::cancelled) return ToolOutput::failure("cancelled", "cancelled");
      return ToolOutput::success("slept");
    };
    host.register_tool(std::move(slow));
    host.enable_code_mode(std::move(o));
  }

  ToolResult run(const std::string& code, std::int64_t timeout_ms = 20000) {
    return call("run_code", {{"code", code}, {"timeout_ms", timeout_ms}});
  }
};

std::string text_of(const ToolResult& r) {
  std::string t;
  for (const auto& b : r.content)
    if (b.as_object().contains("text")) t += std::string(b.at("text").as_string()) + "\n";
  if (r.error) t += r.error->message;
  return t;
}

CodeModeOptions unconfined() {
  CodeModeOptions o;
  o.sandbox = CodeModeOptions::Sandbox::none;
  return o;
}

}  // namespace

TEST(CodeMode, ScriptCallsAToolAndReturnsJson) {
  CodeFixture f;
  auto r = f.run(
      "const r = await tools.echo({name: 'Ada'}); console.log('got', r.name);\n"
      "return {greeting: `Hello, ${r.name}!`, n: 0.1 + 0.2};");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value), R"({"greeting":"Hello, Ada!","n":3.0000000000000004E-1})");
  EXPECT_EQ(*f.body_runs, 1);
  EXPECT_NE(text_of(r).find("got Ada"), std::string::npos) << text_of(r);
}

TEST(CodeMode, PromiseAllRunsTheCallsOneAtATimeInDispatchOrder) {
  CodeFixture f;
  auto r = f.run(
      "const ns = [1,2,3,4,5,6,7,8,9,10];\n"
      "return await Promise.all(ns.map((n) => tools.step({n})));");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value), "[1,2,3,4,5,6,7,8,9,10]");
  EXPECT_EQ(*f.max_in_flight, 1);
  EXPECT_EQ(*f.order,
            (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}));
}

TEST(CodeMode, ADeniedSubCallBindsForTheRunWithoutRunningHooksAgain) {
  CodeFixture f;
  auto pre_runs = std::make_shared<std::atomic<int>>(0);
  auto guard_runs = std::make_shared<std::atomic<int>>(0);
  f.host.add_pre_execute("test", {"count", {"echo"}}, [pre_runs](const HookCall&) {
    ++*pre_runs;
    return PreVerdict::keep();
  });
  f.host.add_guard("test", {"no-secrets", {"echo"}}, [guard_runs](const HookCall& c) {
    ++*guard_runs;
    return c.arguments.contains("secret") ? std::optional<std::string>("no secrets here")
                                          : std::nullopt;
  });
  auto r = f.run(
      "const seen = [];\n"
      "for (const args of [{secret: 1, a: 2}, {a: 2, secret: 1}, {secret: 1, a: 2}]) {\n"
      "  try { await tools.echo(args); seen.push('ran'); }\n"
      "  catch (e) { seen.push(`${e.name}:${e.code}:${e.stage}:${e.source}:${e instanceof "
      "ToolDenied}`); }\n"
      "}\n"
      "await tools.echo({fine: true});\n"
      "return seen;");
  // The script swallowed every denial and returned normally...
  ASSERT_FALSE(r.is_error) << text_of(r);
  auto seen = r.value->as_array();
  ASSERT_EQ(seen.size(), 3u);
  for (const auto& s : seen) EXPECT_EQ(s, "ToolDenied:denied:guard:test/no-secrets:true");
  // ...the hooks ran for the first call only (and for the allowed one)...
  EXPECT_EQ(*guard_runs, 2);
  EXPECT_EQ(*pre_runs, 2);
  EXPECT_EQ(*f.body_runs, 1);
  // ...and the result still lists all three refusals.
  auto text = text_of(r);
  EXPECT_NE(text.find("toolgate refused 3 tool call(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("refused again"), std::string::npos) << text;
}

TEST(CodeMode, WhatARunKeepsOfItsRefusalsIsBounded) {
  // A guard that quotes the argument it refuses (guard-paths quotes a path
  // it cannot resolve): a script that sends large arguments must not make
  // the host keep them, per refusal, for the rest of the run.
  CodeFixture f;
  f.host.add_guard("test", {"quoting", {"echo"}}, [](const HookCall& c) {
    return std::optional<std::string>("refused: " + json::serialize(c.arguments));
  });
  auto r = f.run(
      "const big = 'x'.repeat(200000);\n"
      "for (let i = 0; i < 5; ++i) {\n"
      "  try { await tools.echo({blob: big + i}); } catch (e) {\n"
      "    if (e.message.length < 200000) throw new Error('the refusal was cut for the script');\n"
      "  }\n"
      "}\n"
      "return 'done';");
  ASSERT_FALSE(r.is_error) << text_of(r).substr(0, 2000);
  const auto text = text_of(r);
  EXPECT_NE(text.find("toolgate refused 5 tool call(s)"), std::string::npos);
  EXPECT_LT(text.size(), 20000u) << "the run kept every refusal's whole message";
}

TEST(CodeMode, ABindingWithdrawnByAReloadMidRunIsNotCallable) {
  // The generation a sub-call runs in decides what a script may call: a
  // tool whose binding is withdrawn while the script runs (an MCP tool whose
  // pin drifted) is refused from then on, though it was bound at the start.
  CodeFixture f;
  auto entered = std::make_shared<std::promise<void>>();
  auto go = std::make_shared<std::promise<void>>();
  ToolDefinition gate;
  gate.name = "gate";
  gate.execute = [entered, go, wait = go->get_future().share()](const ToolContext&) {
    entered->set_value();
    wait.wait();
    return ToolOutput::success(true);
  };
  f.host.register_tool(std::move(gate));
  auto run = std::async(std::launch::async, [&f] {
    return f.run("await tools.gate();\nreturn await tools.echo({a: 1});");
  });
  entered->get_future().wait();
  ToolDefinition untrusted;
  untrusted.name = "echo";
  untrusted.code_binding = false;
  auto runs = std::make_shared<std::atomic<int>>(0);
  untrusted.execute = [runs](const ToolContext&) {
    ++*runs;
    return ToolOutput::success("ran");
  };
  f.host.set_tools({std::move(untrusted)});
  go->set_value();
  auto r = run.get();
  ASSERT_TRUE(r.is_error) << text_of(r);
  EXPECT_NE(text_of(r).find("not one of the tools a script can call"), std::string::npos)
      << text_of(r);
  EXPECT_EQ(*runs, 0);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CodeMode, AScriptThatIsToldToReadFirstCanReadAndThenEdit) {
  // Read-before-edit refuses an edit of a file the session has not read,
  // and says "read it first": that refusal depends on what the session did,
  // so it does not bind the run -- the same edit after a read goes through.
  CodeFixture f;
  TempDir dir;
  const auto ws = std::filesystem::canonical(dir.path);
  std::ofstream(ws / "notes.txt") << "one two three";
  for (auto& t : fs_tools::tools({ws})) f.host.register_tool(std::move(t));
  f.host.enable_code_mode(unconfined());
  auto r = f.run(
      "const edit = {path: 'notes.txt', old: 'two', new: '2'};\n"
      "let first = 'ran';\n"
      "try { await callTool('fs.edit', edit); } catch (e) { first = e.source; }\n"
      "await callTool('fs.read', {path: 'notes.txt'});\n"
      "await callTool('fs.edit', edit);\n"
      "return first;");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(r.value->as_string(), "host/read-before-edit");
  std::ifstream in(ws / "notes.txt");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "one 2 three");
}

TEST(CodeMode, ARewriteToDeniedArgumentsIsRefusedBeforeTheGuards) {
  CodeFixture f;
  auto guard_runs = std::make_shared<std::atomic<int>>(0);
  // {"alias": true} is rewritten to {"secret": 1}: the same final call.
  f.host.add_pre_execute("test", {"alias", {"echo"}}, [](const HookCall& c) {
    if (c.arguments.contains("alias")) return PreVerdict::keep().with_arguments({{"secret", 1}});
    return PreVerdict::keep();
  });
  f.host.add_guard("test", {"no-secrets", {"echo"}}, [guard_runs](const HookCall& c) {
    ++*guard_runs;
    return c.arguments.contains("secret") ? std::optional<std::string>("no") : std::nullopt;
  });
  auto r = f.run(
      "const out = [];\n"
      "for (const a of [{secret: 1}, {alias: true}]) {\n"
      "  try { await tools.echo(a); out.push('ran'); } catch (e) { out.push(e.name); }\n"
      "}\n"
      "return out;");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value), R"(["ToolDenied","ToolDenied"])");
  EXPECT_EQ(*guard_runs, 1);
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CodeMode, AnAskInASubCallGoesToTheApproverAndARejectionBinds) {
  CodeFixture f;
  auto asked = std::make_shared<std::atomic<int>>(0);
  f.host.add_pre_execute("test", {"ask", {"echo"}},
                         [](const HookCall&) { return PreVerdict::ask("echo needs approval"); });
  f.host.set_approver([asked](const ApprovalRequest& r) {
    ++*asked;
    return r.arguments.contains("ok") ? ApprovalAnswer::allowed_once : ApprovalAnswer::rejected;
  });
  auto r = f.run(
      "const out = [];\n"
      "for (const a of [{ok: 1}, {no: 1}, {no: 1}, {ok: 1}]) {\n"
      "  try { await tools.echo(a); out.push('ran'); } catch (e) { out.push(e.code); }\n"
      "}\n"
      "return out;");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value), R"(["ran","approval_rejected","approval_rejected","ran"])");
  // Asked for each allowed call and once for the rejected one: not again.
  EXPECT_EQ(*asked, 3);
  EXPECT_EQ(*f.body_runs, 2);
}

TEST(CodeMode, EachSubCallIsDispatchedLoggedAndSettledOnce) {
  CodeFixture f;
  auto r = f.run("await tools.echo({a: 1}); await tools.step({n: 2}); return 'ok';");
  ASSERT_FALSE(r.is_error) << text_of(r);
  auto events = f.recorder->snapshot();
  std::string run_id;
  for (const auto& e : events)
    if (e.type == "tool/call" && e.data.at("tool") == "run_code") run_id = e.call_id;
  ASSERT_FALSE(run_id.empty());
  std::vector<std::string> sub_ids;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (e.type != "tool/code-dispatch") continue;
    EXPECT_EQ(e.data.at("parent_call_id").as_string(), run_id);
    EXPECT_EQ(e.data.at("seq").to_number<int>(), static_cast<int>(sub_ids.size()) + 1);
    std::string id(e.data.at("call_id").as_string());
    sub_ids.push_back(id);
    // Its own tool/call comes next, with the caller chain.
    ASSERT_LT(i + 1, events.size());
    EXPECT_EQ(events[i + 1].type, "tool/call");
    EXPECT_EQ(events[i + 1].call_id, id);
    EXPECT_EQ(events[i + 1].data.at("parent_call_id").as_string(), run_id);
    EXPECT_EQ(events[i + 1].data.at("depth"), 1);
    EXPECT_FALSE(events[i + 1].data.at("parent_token").as_string().empty());
  }
  ASSERT_EQ(sub_ids.size(), 2u);
  for (const auto& id : sub_ids) {
    int results = 0;
    for (const auto& e : events) results += e.type == "tool/result" && e.call_id == id;
    EXPECT_EQ(results, 1) << id;
  }
}

TEST(CodeMode, HooksSeeTheCallerChain) {
  CodeFixture f;
  // A guard that refuses echo from code only.
  f.host.add_guard("test", {"not-from-code", {"echo"}}, [](const HookCall& c) {
    return c.identity.depth > 0 ? std::optional<std::string>("not from code") : std::nullopt;
  });
  EXPECT_FALSE(f.call("echo", {{"a", 1}}).is_error);
  auto r = f.run("try { await tools.echo({a: 1}); return 'ran'; } catch (e) { return e.message; }");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(*r.value, "not from code");
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(CodeMode, ACallerCannotPassAParentTokenOrChain) {
  CodeFixture f;
  for (int which = 0; which < 3; ++which) {
    ToolCall c;
    c.identity.tool = "echo";
    if (which == 0) c.identity.parent_token = "run-forged";
    if (which == 1) c.identity.parent_call_id = "call-1";
    if (which == 2) c.identity.depth = 1;
    auto r = f.host.call(std::move(c));
    ASSERT_TRUE(r.is_error);
    EXPECT_EQ(code_of(r), "invalid_arguments");
    EXPECT_NE(r.error->message.find("parent token"), std::string::npos);
  }
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CodeMode, RunCodeItselfGoesThroughThePipeline) {
  CodeFixture f;
  auto seen_code = std::make_shared<std::string>();
  f.host.add_pre_execute("test", {"read-code", {"run_code"}}, [seen_code](const HookCall& c) {
    *seen_code = std::string(c.arguments.at("code").as_string());
    return PreVerdict::keep();
  });
  f.host.add_guard("test", {"no-code-for-s2", {"run_code"}}, [](const HookCall& c) {
    return c.identity.session_id == "s2" ? std::optional<std::string>("no code in s2")
                                         : std::nullopt;
  });
  ToolCall c;
  c.identity = {"", "run_code", "s2", ""};
  c.arguments = json::object{{"code", "await tools.echo({}); return 1;"}};
  auto r = f.host.call(std::move(c));
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(r.error->source, "test/no-code-for-s2");
  EXPECT_EQ(*seen_code, "await tools.echo({}); return 1;");
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CodeMode, TheNameIsReserved) {
  CodeFixture f;
  ToolDefinition t;
  t.name = "run_code";
  t.execute = [](const ToolContext&) { return ToolOutput::success(1); };
  EXPECT_THROW(f.host.register_tool(t), std::invalid_argument);
  EXPECT_THROW(f.host.set_tools({t}), std::invalid_argument);
}

TEST(CodeMode, ScriptErrorsAndBadArgumentsAreClearErrors) {
  CodeFixture f;
  auto r = f.run("let x = ;");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("SyntaxError"), std::string::npos) << r.error->message;
  r = f.run("throw new RangeError('bad range');");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("RangeError: bad range"), std::string::npos);
  r = f.call("run_code", {{"code", 1}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("\"code\""), std::string::npos);
  r = f.call("run_code", {{"code", "return 1"}, {"timeout_ms", 0}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("timeout_ms"), std::string::npos);
  // No import(), no require, no process inside the script's own world.
  r = f.run("return [typeof require, typeof process, typeof fetch];");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value), R"(["undefined","undefined","undefined"])");
  r = f.run("await import('node:fs'); return 'imported';");
  ASSERT_TRUE(r.is_error);
  // run_code cannot run itself.
  r = f.run(
      "try { await callTool('run_code', {code: 'return 1'}); return 'ran'; }"
      " catch (e) { return e.message; }");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_NE(json::serialize(*r.value).find("not one of the tools a script can call"),
            std::string::npos)
      << json::serialize(*r.value);
}

TEST(CodeMode, AnInfiniteLoopIsKilledAtTheDeadline) {
  CodeFixture f;
  auto t0 = std::chrono::steady_clock::now();
  auto r = f.run("while (true) {}", 700);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "timeout") << text_of(r);
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(CodeMode, TheDeadlineHoldsWhileASubCallRuns) {
  CodeFixture f;
  auto t0 = std::chrono::steady_clock::now();
  auto r = f.run("await tools.slow({}); return 'slept';", 500);
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.is_error);
  EXPECT_EQ(code_of(r), "timeout") << text_of(r);
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST(CodeMode, AMemoryBombIsStopped) {
  CodeFixture f;
  auto r = f.run("const a = []; for (;;) a.push(new Array(1e6).fill(1.5));", 60000);
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("out of memory"), std::string::npos) << r.error->message;
}

TEST(CodeMode, TheSubCallLimitEndsTheRun) {
  CodeModeOptions o;
  o.max_sub_calls = 3;
  CodeFixture f(o);
  auto r = f.run("for (let i = 0; i < 5; i++) await tools.echo({i}); return 'done';");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("more than 3 tool calls"), std::string::npos) << r.error->message;
  EXPECT_EQ(*f.body_runs, 3);
}

TEST(CodeMode, OutputIsBounded) {
  CodeModeOptions o;
  o.max_output_bytes = 1000;
  CodeFixture f(o);
  auto r = f.run("for (let i = 0; i < 200; i++) console.log('line', i, 'x'.repeat(50)); return 1;");
  ASSERT_FALSE(r.is_error) << text_of(r);
  auto text = text_of(r);
  EXPECT_LT(text.size(), 1500u);
  EXPECT_NE(text.find("more bytes of output dropped"), std::string::npos) << text;
}

// ---- the runner is untrusted: a script that escapes node's vm owns the
// channel.  Each probe gets the real `process` the way any escape would.
namespace {
constexpr const char* escape = "const P = console.log.constructor('return process')();\n";
}

TEST(CodeMode, NativeCodeInTheSandboxCannotHoldUncountedMemory) {
  // A script that escapes the vm can load native code: it writes a shared
  // object to its /tmp and calls process.dlopen.  That code must find no
  // memory that no rlimit counts -- memfd_create and SysV shared memory are
  // refused, io_uring does not exist -- and few descriptors.
  std::ifstream in(TOOLGATE_TEST_PLUGIN_DIR "/sandbox_probe.so", std::ios::binary);
  const std::string so((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(so.empty());
  std::string b64(4 * ((so.size() + 2) / 3) + 1, '\0');
  b64.resize(static_cast<std::size_t>(EVP_EncodeBlock(
      reinterpret_cast<unsigned char*>(b64.data()),
      reinterpret_cast<const unsigned char*>(so.data()), static_cast<int>(so.size()))));
  CodeFixture f;
  auto r = f.run(std::string(escape) +
                 "if (!P.getBuiltinModule) return 'skip';\n"
                 "const fs = P.getBuiltinModule('fs');\n"
                 "const { Buffer } = P.getBuiltinModule('buffer');\n"
                 "fs.writeFileSync('/tmp/probe.so', Buffer.from('" +
                 b64 +
                 "', 'base64'));\n"
                 "try { P.dlopen({exports: {}}, '/tmp/probe.so'); } catch (e) {}\n"
                 "return fs.readFileSync('/tmp/sandbox-probe.txt', 'utf8');");
  ASSERT_FALSE(r.is_error) << text_of(r);
  if (r.value->as_string() == "skip")
    GTEST_SKIP() << "this Node.js has no process.getBuiltinModule (20.16 and later have it)";
  EXPECT_EQ(std::string(r.value->as_string()),
            "memfd_create=1 shmget=1 io_uring_setup=38 nofile=256");
}

TEST(CodeMode, GarbageFromTheRunnerEndsTheRun) {
  CodeFixture f;
  auto r =
      f.run(std::string(escape) + "P.stdout.write('this is not json\\n'); await tools.slow({});");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("not a JSON object"), std::string::npos) << r.error->message;
  r = f.run(std::string(escape) +
            "P.stdout.write('{\"type\":\"teleport\"}\\n'); await tools.slow({});");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("unknown type"), std::string::npos) << r.error->message;
}

TEST(CodeMode, AHundredMegabyteLineEndsTheRun) {
  CodeFixture f;
  auto r = f.run(std::string(escape) + "P.stdout.write('x'.repeat(100e6)); await tools.slow({});",
                 60000);
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("longer than"), std::string::npos) << r.error->message;
}

TEST(CodeMode, ARunnerDyingMidCallCancelsTheSubCall) {
  CodeFixture f;
  auto r = f.run(std::string(escape) +
                 "setTimeout(() => P.exit(3), 300); await tools.slow({}); return 'survived';");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("exited with status 3"), std::string::npos) << r.error->message;
  // The slow call was told through its signal, and settled exactly once.
  auto events = f.recorder->snapshot();
  std::string slow_id;
  for (const auto& e : events)
    if (e.type == "tool/call" && e.data.at("tool") == "slow") slow_id = e.call_id;
  ASSERT_FALSE(slow_id.empty());
  int results = 0;
  for (const auto& e : events)
    if (e.type == "tool/result" && e.call_id == slow_id) {
      ++results;
      EXPECT_EQ(e.data.at("result").at("error").at("code"), "cancelled") << json::serialize(e.data);
    }
  EXPECT_EQ(results, 1);
}

namespace {
// A listener on 127.0.0.1 that counts connections.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd, 8);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd); }
  int accepted() {
    int n = 0;
    while (true) {
      int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) break;
      ::close(c);
      ++n;
    }
    return n;
  }
};

// The escape probes: each tries one way out and reports what happened.
std::string probe_script(const std::string& file, int port) {
  return std::string(escape) + "const F = console.log.constructor;\n" +
         "const out = {};\n"
         "try { const r = await F('return fetch')()('http://127.0.0.1:" +
         std::to_string(port) +
         "/'); out.http = r.status; } catch (e) { out.http = String(e.cause || e); }\n"
         // fs's internal binding: Node 20 throws, Node 18 reports through a
         // context object (and aborts on the other form).
         "try { const fsb = P.binding('fs'); const ctx = {};\n"
         "  const fd = +P.versions.node.split('.')[0] >= 20 ? fsb.open('" +
         file + "', 0o101, 0o644) : fsb.open('" + file +
         "', 0o101, 0o644, undefined, ctx);\n"
         "  out.write = ctx.errno === undefined ? fd : ctx.code;\n"
         "} catch (e) { out.write = e.code || String(e); }\n"
         "try { const r = P.binding('spawn_sync').spawn({file: P.execPath, args: [P.execPath, "
         "'-e', "
         "'1'], envPairs: [], stdio: [{type: 'pipe', readable: true}, {type: 'pipe', writable: "
         "true}, {type: 'pipe', writable: true}]});\n"
         "  out.spawn = r.error === undefined ? r.status : r.error; } catch (e) { out.spawn = "
         "String(e); }\n"
         "out.env = JSON.stringify(P.env);\n"
         "return out;";
}
}  // namespace

TEST(CodeMode, EscapeAttemptsFailInTheSandboxButWorkWithoutIt) {
  auto dir = std::filesystem::temp_directory_path() /
             ("toolgate-code-escape-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ::setenv("TOOLGATE_TEST_SECRET", "hunter2-in-the-host-environment", 1);
  for (bool sandboxed : {false, true}) {
    SCOPED_TRACE(sandboxed ? "bubblewrap" : "none");
    Listener listener;
    auto file = dir / (sandboxed ? "sandboxed" : "unconfined");
    CodeFixture f(sandboxed ? CodeModeOptions{} : unconfined());
    auto r = f.run(probe_script(file.string(), listener.port));
    ASSERT_FALSE(r.is_error) << text_of(r);
    auto out = r.value->as_object();
    int connections = listener.accepted();
    std::string env(out.at("env").as_string());
    if (!sandboxed) {
      // The probes work: each would have got out.
      EXPECT_EQ(connections, 1) << json::serialize(out);
      EXPECT_TRUE(std::filesystem::exists(file)) << json::serialize(out);
      EXPECT_EQ(out.at("spawn"), 0) << json::serialize(out);
    } else {
      EXPECT_EQ(connections, 0) << json::serialize(out);
      EXPECT_FALSE(std::filesystem::exists(file)) << json::serialize(out);
      EXPECT_NE(out.at("spawn"), 0) << json::serialize(out);
    }
    // Neither way does the script see the host's environment.
    EXPECT_EQ(env.find("hunter2"), std::string::npos) << env;
  }
  // Inside the sandbox only /tmp (bounded) is writable: the root, /dev and
  // /dev/shm are not unbounded tmpfs the script could fill host memory with.
  CodeFixture f;
  auto r =
      f.run(std::string(escape) +
            "const fsb = P.binding('fs'); const out = {};\n"
            "for (const p of ['/a', '/dev/a', '/dev/shm/a', '/usr/lib/a', '/tmp/a']) {\n"
            "  try { const ctx = {};\n"
            "    +P.versions.node.split('.')[0] >= 20 ? fsb.open(p, 0o101, 0o644)\n"
            "      : fsb.open(p, 0o101, 0o644, undefined, ctx);\n"
            "    out[p] = ctx.code || 'written'; } catch (e) { out[p] = e.code || String(e); }\n"
            "}\n"
            "return out;");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(json::serialize(*r.value),
            R"({"/a":"EROFS","/dev/a":"EROFS","/dev/shm/a":"EROFS","/usr/lib/a":"EROFS",)"
            R"("/tmp/a":"written"})");
  ::unsetenv("TOOLGATE_TEST_SECRET");
  std::filesystem::remove_all(dir);
}

TEST(CodeMode, AMissingSandboxIsRefusedWithTheFix) {
  CodeModeOptions o;
  o.bwrap = "/nonexistent/bwrap";
  CodeFixture f(o);
  auto r = f.run("await tools.echo({}); return 1;");
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("apt install bubblewrap"), std::string::npos) << r.error->message;
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(CodeMode, PrestartedRunnersServeOneRunEach) {
  CodeModeOptions o;
  o.prestarted_runners = 2;
  CodeFixture f(o);
  // A runner that served a run would still hold the mark the run left.
  std::string code =
      "const G = console.log.constructor('return globalThis')();\n"
      "const seen = G.__toolgate_mark === true; G.__toolgate_mark = true; return seen;";
  for (int i = 0; i < 4; ++i) {
    auto r = f.run(code);
    ASSERT_FALSE(r.is_error) << text_of(r);
    EXPECT_EQ(*r.value, false) << "run " << i << " got a runner an earlier run used";
  }
}

TEST(CodeMode, TypeScriptDeclarationsDescribeTheTools) {
  CodeFixture f;
  auto decls = f.host.typescript_declarations();
  EXPECT_NE(decls.find("  step(args?: {\n    n?: number;\n  }): Promise<unknown>;"),
            std::string::npos)
      << decls;
  EXPECT_EQ(decls.find("run_code("), std::string::npos) << decls;
  auto described = f.host.describe();
  (void)described;
}

// ---- the manifests' code_mode section (docs/design.md §17.1) -------------------------
namespace {
bool offers_run_code(const Host& host) {
  const auto d = host.describe();  // kept: the loop reads into it
  for (const auto& t : d.at("tools").as_array())
    if (t.as_string() == "run_code") return true;
  return false;
}
}  // namespace

TEST(CodeModeManifest, ASectionTurnsItOnWithItsOptions) {
  TempDir dir;
  auto m = dir.write("code.json", R"({"toolgate": 1, "code_mode": {"max_sub_calls": 2}})");
  Fixture f;
  EXPECT_FALSE(offers_run_code(f.host));
  f.host.load_manifest(m);
  ASSERT_TRUE(offers_run_code(f.host));
  auto r = f.call("run_code", {{"code", "for (let i = 0; i < 3; i++) await tools.echo({i});"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.error->message.find("more than 2 tool calls"), std::string::npos) << r.error->message;
}

TEST(CodeModeManifest, ALockedLayerDecidesForTheLayersAfterIt) {
  TempDir dir;
  auto off =
      dir.write("1-off.json", R"({"toolgate": 1, "layer": {"name": "security", "locked": true},
                                         "code_mode": {"enabled": false}})");
  auto on = dir.write("2-on.json", R"({"toolgate": 1, "code_mode": {"enabled": true}})");
  Fixture f;
  f.host.enable_code_mode();  // the embedder asks for it...
  ASSERT_TRUE(offers_run_code(f.host));
  f.host.load_manifests({off, on});  // ...the locked layer says no, and a later one cannot undo it
  EXPECT_FALSE(offers_run_code(f.host));
  auto r = f.call("run_code", {{"code", "return 1"}});
  EXPECT_EQ(code_of(r), "unknown_tool");
}

TEST(CodeModeManifest, BadValuesAreLoadErrorsNamingThePlace) {
  TempDir dir;
  Fixture f;
  auto expect_error = [&](const std::string& section, const std::string& pointer) {
    auto m = dir.write("bad.json", R"({"toolgate": 1, "code_mode": )" + section + "}");
    try {
      f.host.load_manifest(m);
      ADD_FAILURE() << section << " loaded";
    } catch (const LoadError& e) {
      EXPECT_EQ(e.json_path(), pointer) << e.what();
    }
  };
  expect_error(R"({"sandbox": "chroot"})", "/code_mode/sandbox");
  expect_error(R"({"max_sub_calls": 0})", "/code_mode/max_sub_calls");
  expect_error(R"({"memory_mb": 16})", "/code_mode/memory_mb");
  expect_error(R"({"timeout": 5})", "/code_mode/timeout");
  expect_error(R"({"timeout_ms": 9000, "max_timeout_ms": 1000})", "/code_mode/timeout_ms");
  EXPECT_FALSE(offers_run_code(f.host));
}

// ABI 1.5 end to end: the policy plugin's "from_code" reads the caller chain
// through the C ABI (tg_call_info's depth), so a deployer can refuse a tool
// to scripts while leaving direct calls alone.
TEST(CodeModePolicy, FromCodeRulesMatchOnlyAScriptsCalls) {
  TempDir dir;
  auto m = dir.write(
      "policy.json",
      manifest_for(
          "toolgate.policy", std::string(TOOLGATE_PLUGIN_DIR) + "/toolgate_policy.so",
          {{"rules", json::array{json::object{{"tools", "echo"},
                                              {"callers", json::object{{"from_code", true}}},
                                              {"verdict", "deny"},
                                              {"reason", "echo is not for scripts"}}}}}));
  CodeFixture f;
  f.host.load_manifest(m);
  EXPECT_FALSE(f.call("echo", {{"direct", true}}).is_error);
  auto r = f.run(
      "try { await tools.echo({}); return 'ran'; } catch (e) { return `${e.name}: ${e.message}`; "
      "}");
  ASSERT_FALSE(r.is_error) << text_of(r);
  EXPECT_EQ(*r.value, "ToolDenied: echo is not for scripts");
  EXPECT_EQ(*f.body_runs, 1);  // the direct call only
}
