// The four agents' hook formats (host/src/agent_hooks): each fixture built
// from an agent's hook docs parses into toolgate's identity and arguments,
// and each of toolgate's answers becomes the reply fields and exit code the
// agent's docs specify.
#include "agent_hooks/agent_format.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <fstream>
#include <sstream>

namespace json = boost::json;
using namespace toolgate;
using namespace toolgate::agent_hooks;

namespace {

json::value fixture(const std::string& agent, const std::string& file) {
  std::ifstream in(std::string(TOOLGATE_AGENT_FIXTURES) + "/" + agent + "/" + file);
  EXPECT_TRUE(in) << agent << "/" << file;
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

const AgentFormat& fmt(std::string_view name) {
  const AgentFormat* f = find_format(name);
  EXPECT_NE(f, nullptr) << name;
  return *f;
}

HookRequest parse(const std::string& agent, const std::string& file) {
  return fmt(agent).parse(fixture(agent, file));
}

json::object out_of(const HookReply& r) {
  json::value v = json::parse(r.stdout_text);
  EXPECT_TRUE(v.is_object()) << r.stdout_text;
  return v.as_object();
}

BeforeAnswer allow() {
  BeforeAnswer a;
  a.verdict = SplitBegin::Verdict::allow;
  return a;
}

BeforeAnswer rewrite(json::object args) {
  BeforeAnswer a = allow();
  a.arguments = std::move(args);
  a.rewritten = true;
  return a;
}

BeforeAnswer ask(std::string reason) {
  BeforeAnswer a;
  a.verdict = SplitBegin::Verdict::ask;
  a.reason = std::move(reason);
  return a;
}

BeforeAnswer deny(std::string reason, std::string by = "guard.commands/deny",
                  std::string code = "denied") {
  BeforeAnswer a;
  a.verdict = SplitBegin::Verdict::deny;
  a.reason = std::move(reason);
  a.denied_by = std::move(by);
  a.error_code = std::move(code);
  return a;
}

AfterAnswer blocked(std::string message) {
  return AfterAnswer{SplitOutcome::Kind::blocked,
                     ToolResult::failure(error_code::denied, std::move(message),
                                         stage::post_execute, "plugin.redact/secrets"),
                     {}};
}

AfterAnswer replaced(std::string text) {
  return AfterAnswer{SplitOutcome::Kind::replaced,
                     ToolResult::success(nullptr, json::array{text_block(text)}),
                     {}};
}

AfterAnswer accepted(std::vector<std::string> contexts) {
  return AfterAnswer{SplitOutcome::Kind::accepted,
                     ToolResult::success(nullptr, json::array{text_block("x")}),
                     std::move(contexts)};
}

std::string str(const json::value& v) { return std::string(v.as_string()); }

}  // namespace

// ---- registry ------------------------------------------------------------------

TEST(AgentFormatRegistry, FourFormatsSortedAndFindable) {
  std::vector<std::string_view> names = format_names();
  ASSERT_EQ(names, (std::vector<std::string_view>{"claude-code", "codex", "cursor", "gemini-cli"}));
  for (auto n : names) {
    ASSERT_NE(find_format(n), nullptr);
    EXPECT_EQ(find_format(n)->name(), n);
  }
  EXPECT_EQ(find_format("aider"), nullptr);
}

TEST(AgentFormatRegistry, BadPayloadsNameTheField) {
  for (auto n : format_names()) {
    const AgentFormat& f = *find_format(n);
    try {
      f.parse(json::array{1, 2});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("not a JSON object"), std::string::npos) << e.what();
    }
    // Missing tool_name on each agent's before event.
    std::string event = n == "claude-code" || n == "codex" ? "PreToolUse"
                        : n == "gemini-cli"                ? "BeforeTool"
                                                           : "preToolUse";
    try {
      f.parse(json::object{{"hook_event_name", event}, {"tool_input", json::object{}}});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("\"tool_name\""), std::string::npos) << e.what();
    }
    try {
      f.parse(json::object{
          {"hook_event_name", event}, {"tool_name", 7}, {"tool_input", json::object{}}});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("\"tool_name\" is a number"), std::string::npos)
          << e.what();
    }
    try {
      f.parse(json::object{{"tool_name", "Bash"}, {"tool_input", json::object{}}});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("\"hook_event_name\""), std::string::npos) << e.what();
    }
    try {
      f.parse(json::object{{"hook_event_name", "SessionStart"}, {"tool_name", "Bash"}});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("\"SessionStart\""), std::string::npos) << e.what();
    }
    try {
      f.parse(json::object{{"hook_event_name", event}, {"tool_name", "Bash"}});
      ADD_FAILURE() << n;
    } catch (const BadPayload& e) {
      EXPECT_NE(std::string(e.what()).find("\"tool_input\""), std::string::npos) << e.what();
    }
  }
}

TEST(AgentFormatRegistry, FailClosedBlocksEverywhere) {
  for (auto n : format_names()) {
    for (auto phase : {std::optional<Phase>{}, std::optional<Phase>{Phase::before},
                       std::optional<Phase>{Phase::after}}) {
      HookReply r = find_format(n)->fail_closed(
          phase, "toolgate: the daemon is not running; start it with `toolgate serve`");
      EXPECT_EQ(r.exit_code, 2) << n;
      EXPECT_NE(r.stderr_text.find("the daemon is not running"), std::string::npos) << n;
    }
    EXPECT_FALSE(find_format(n)->fail_closed(Phase::before, "").stderr_text.empty());
  }
  // Cursor: the deny form on stdout too, for the agent and the user.
  json::object o = out_of(find_format("cursor")->fail_closed(Phase::before, "down"));
  EXPECT_EQ(str(o.at("permission")), "deny");
  EXPECT_EQ(str(o.at("agent_message")), "down");
}

TEST(AgentFormatRegistry, AnswersFromSplitResults) {
  SplitBegin b;
  b.verdict = SplitBegin::Verdict::deny;
  b.reason = "boom";
  b.result = ToolResult::failure(error_code::plugin_error, "boom", stage::guard, "guard.x/check");
  BeforeAnswer a = BeforeAnswer::from(b);
  EXPECT_EQ(a.denied_by, "guard.x/check");
  EXPECT_EQ(a.error_code, "plugin_error");
  HookRequest r = parse("claude-code", "pre_deny.json");
  json::object o = out_of(fmt("claude-code").before(r, a));
  std::string reason = str(o.at("hookSpecificOutput").at("permissionDecisionReason"));
  EXPECT_NE(reason.find("the plugin guard.x/check failed: boom"), std::string::npos) << reason;

  SplitOutcome out;
  out.kind = SplitOutcome::Kind::replaced;
  out.result = ToolResult::success(nullptr, json::array{text_block("r")});
  out.additional_contexts = {"c"};
  AfterAnswer aa = AfterAnswer::from(out);
  EXPECT_EQ(aa.kind, SplitOutcome::Kind::replaced);
  EXPECT_EQ(aa.additional_contexts.size(), 1u);
}

// ---- Claude Code -----------------------------------------------------------------

TEST(AgentFormatClaudeCode, ParsesFixtures) {
  HookRequest r = parse("claude-code", "pre_allow.json");
  EXPECT_EQ(r.phase, Phase::before);
  EXPECT_EQ(r.event, "PreToolUse");
  EXPECT_EQ(r.identity.tool, "Bash");
  EXPECT_EQ(r.identity.call_id, "toolu_01A9xQm3Rk7ZpL2vT8bNc4Wd");
  EXPECT_EQ(r.identity.session_id, "8c35adc1-4f2e-4b8a-9d3c-2a6f1e0b7d55");
  EXPECT_EQ(r.identity.client, "claude-code");
  EXPECT_EQ(r.identity.agent_id, "");
  EXPECT_EQ(str(r.arguments.at("command")), "ls -la src");
  EXPECT_EQ(r.arguments.at("timeout").to_number<int>(), 120000);

  HookRequest sub = parse("claude-code", "pre_subagent.json");
  EXPECT_EQ(sub.identity.agent_id, "a4d2c8f1e0b3a297");
  EXPECT_EQ(sub.identity.tool, "Read");
  EXPECT_EQ(str(sub.arguments.at("file_path")), "/home/dev/my-project/src/main.cpp");

  HookRequest post = parse("claude-code", "post.json");
  EXPECT_EQ(post.phase, Phase::after);
  EXPECT_EQ(post.identity.call_id, r.identity.call_id);  // correlates with pre_allow
  EXPECT_FALSE(post.reported.is_error);
  EXPECT_NE(str(post.reported.content.at(0).at("text")).find("main.cpp"), std::string::npos);

  HookRequest fail = parse("claude-code", "post_failure.json");
  EXPECT_EQ(fail.phase, Phase::after);
  EXPECT_EQ(fail.event, "PostToolUseFailure");
  EXPECT_TRUE(fail.reported.is_error);
  ASSERT_TRUE(fail.reported.error);
  EXPECT_EQ(fail.reported.error->code, "tool_error");
  EXPECT_NE(fail.reported.error->message.find("Cannot find module"), std::string::npos);

  for (const char* f : {"pre_deny.json", "pre_rewrite.json", "post_secret.json"})
    EXPECT_NO_THROW(parse("claude-code", f)) << f;
}

TEST(AgentFormatClaudeCode, BeforeReplies) {
  const AgentFormat& f = fmt("claude-code");
  HookRequest r = parse("claude-code", "pre_allow.json");

  // Plain allow: no decision (Claude's own permission prompt still applies).
  HookReply plain = f.before(r, allow());
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.stdout_text, "");

  BeforeAnswer with_ctx = allow();
  with_ctx.additional_contexts = {"one", "two"};
  json::object c = out_of(f.before(r, with_ctx));
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("hookEventName")), "PreToolUse");
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("additionalContext")), "one\n\ntwo");
  EXPECT_FALSE(c.at("hookSpecificOutput").as_object().contains("permissionDecision"));

  HookReply d = f.before(parse("claude-code", "pre_deny.json"), deny("rm -rf is not allowed"));
  EXPECT_EQ(d.exit_code, 0);
  json::object dh = out_of(d).at("hookSpecificOutput").as_object();
  EXPECT_EQ(str(dh.at("permissionDecision")), "deny");
  EXPECT_EQ(str(dh.at("permissionDecisionReason")),
            "toolgate: denied by guard.commands/deny: rm -rf is not allowed");

  json::object ah =
      out_of(f.before(r, ask("pushes to main need a human"))).at("hookSpecificOutput").as_object();
  EXPECT_EQ(str(ah.at("permissionDecision")), "ask");
  EXPECT_NE(str(ah.at("permissionDecisionReason")).find("pushes to main"), std::string::npos);

  HookRequest rw = parse("claude-code", "pre_rewrite.json");
  json::object args = rw.arguments;
  args["command"] = "git push origin main";
  json::object wh = out_of(f.before(rw, rewrite(args))).at("hookSpecificOutput").as_object();
  // ask, not allow: the user sees the rewritten input; toolgate never
  // approves a call on Claude Code's behalf.
  EXPECT_EQ(str(wh.at("permissionDecision")), "ask");
  EXPECT_EQ(wh.at("updatedInput"), json::value(args));  // the whole input
}

TEST(AgentFormatClaudeCode, AfterReplies) {
  const AgentFormat& f = fmt("claude-code");
  HookRequest secret = parse("claude-code", "post_secret.json");

  // Blocked: decision block + reason, and the Bash-shaped output replaced.
  HookReply b = f.after(secret, blocked("a secret was found"));
  EXPECT_EQ(b.exit_code, 0);
  json::object bo = out_of(b);
  EXPECT_EQ(str(bo.at("decision")), "block");
  EXPECT_NE(str(bo.at("reason")).find("blocked by plugin.redact/secrets: a secret was found"),
            std::string::npos);
  json::object upd = bo.at("hookSpecificOutput").at("updatedToolOutput").as_object();
  EXPECT_EQ(str(bo.at("hookSpecificOutput").at("hookEventName")), "PostToolUse");
  EXPECT_EQ(str(upd.at("stderr")), "");
  EXPECT_EQ(upd.at("interrupted"), json::value(false));
  EXPECT_EQ(str(upd.at("stdout")).find("AKIA"), std::string::npos);

  // Replaced: updatedToolOutput in the tool's shape.
  json::object ro = out_of(f.after(secret, replaced("aws_access_key_id = [REDACTED]")));
  EXPECT_EQ(str(ro.at("hookSpecificOutput").at("updatedToolOutput").at("stdout")),
            "aws_access_key_id = [REDACTED]");
  EXPECT_EQ(ro.at("hookSpecificOutput").at("updatedToolOutput").as_object().size(), 4u);

  // An MCP tool: updatedMCPToolOutput.
  HookRequest mcp = secret;
  mcp.identity.tool = "mcp__fs__read";
  json::object mo = out_of(f.after(mcp, replaced("clean")));
  EXPECT_EQ(
      str(mo.at("hookSpecificOutput").at("updatedMCPToolOutput").at("content").at(0).at("text")),
      "clean");

  // Unknown shape: block + reason carrying the replacement.
  HookRequest odd = secret;
  odd.raw_response = json::object{{"filePath", "/x"}, {"success", true}};
  json::object oo = out_of(f.after(odd, replaced("clean")));
  EXPECT_EQ(str(oo.at("decision")), "block");
  EXPECT_NE(str(oo.at("reason")).find("clean"), std::string::npos);
  EXPECT_FALSE(oo.contains("hookSpecificOutput"));

  // Accepted: nothing, or the context.
  EXPECT_EQ(f.after(parse("claude-code", "post.json"), accepted({})).stdout_text, "");
  json::object co = out_of(f.after(parse("claude-code", "post.json"), accepted({"note"})));
  EXPECT_EQ(str(co.at("hookSpecificOutput").at("additionalContext")), "note");
  EXPECT_FALSE(co.contains("decision"));

  // PostToolUseFailure reads only additionalContext.
  json::object fo = out_of(f.after(parse("claude-code", "post_failure.json"), blocked("no")));
  EXPECT_FALSE(fo.contains("decision"));
  EXPECT_EQ(str(fo.at("hookSpecificOutput").at("hookEventName")), "PostToolUseFailure");
  EXPECT_NE(str(fo.at("hookSpecificOutput").at("additionalContext")).find("no"), std::string::npos);
}

// ---- Codex -------------------------------------------------------------------------

TEST(AgentFormatCodex, ParsesFixtures) {
  HookRequest r = parse("codex", "pre_allow.json");
  EXPECT_EQ(r.phase, Phase::before);
  EXPECT_EQ(r.identity.tool, "Bash");
  EXPECT_EQ(r.identity.call_id, "call_Q3v8LkT2mZ9xR1pW5nB7cD4e");
  EXPECT_EQ(r.identity.session_id, "019a7c2e-5b1d-7f40-9c3e-6d2a8b4f1e07");
  EXPECT_EQ(r.identity.client, "codex");
  EXPECT_EQ(r.identity.agent_id, "");
  EXPECT_EQ(r.arguments, (json::object{{"command", "ls -la src"}}));

  HookRequest sub = parse("codex", "pre_subagent.json");
  EXPECT_EQ(sub.identity.agent_id, "019a7c2f-0c44-7b90-a1d2-3e4f5a6b7c8d");
  EXPECT_EQ(sub.identity.session_id, r.identity.session_id);  // the parent's session

  HookRequest post = parse("codex", "post.json");
  EXPECT_EQ(post.phase, Phase::after);
  EXPECT_EQ(post.identity.call_id, r.identity.call_id);
  EXPECT_NE(str(post.reported.content.at(0).at("text")).find("main.cpp"), std::string::npos);

  HookRequest mcp = parse("codex", "post_mcp.json");
  EXPECT_EQ(mcp.identity.tool, "mcp__filesystem__read_file");
  EXPECT_EQ(str(mcp.reported.content.at(0).at("text")), "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n");
  EXPECT_FALSE(mcp.reported.is_error);
}

TEST(AgentFormatCodex, BeforeReplies) {
  const AgentFormat& f = fmt("codex");
  HookRequest r = parse("codex", "pre_allow.json");
  HookReply plain = f.before(r, allow());
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.stdout_text, "");

  json::object dh = out_of(f.before(parse("codex", "pre_deny.json"), deny("no")))
                        .at("hookSpecificOutput")
                        .as_object();
  EXPECT_EQ(str(dh.at("hookEventName")), "PreToolUse");
  EXPECT_EQ(str(dh.at("permissionDecision")), "deny");
  EXPECT_EQ(str(dh.at("permissionDecisionReason")), "toolgate: denied by guard.commands/deny: no");

  // No ask in Codex: a deny that says so.
  json::object ah = out_of(f.before(r, ask("needs a human"))).at("hookSpecificOutput").as_object();
  EXPECT_EQ(str(ah.at("permissionDecision")), "deny");
  std::string why = str(ah.at("permissionDecisionReason"));
  EXPECT_NE(why.find("asks for approval"), std::string::npos) << why;
  EXPECT_NE(why.find("needs a human"), std::string::npos) << why;
  EXPECT_NE(why.find("Codex cannot ask"), std::string::npos) << why;

  HookRequest rw = parse("codex", "pre_rewrite.json");
  json::object wh = out_of(f.before(rw, rewrite({{"command", "git push origin main"}})))
                        .at("hookSpecificOutput")
                        .as_object();
  EXPECT_EQ(str(wh.at("permissionDecision")), "allow");
  EXPECT_EQ(str(wh.at("updatedInput").at("command")), "git push origin main");

  // Bash rewritten without a string command: Codex would ignore it; denied.
  json::object bad =
      out_of(f.before(rw, rewrite({{"cmd", "x"}}))).at("hookSpecificOutput").as_object();
  EXPECT_EQ(str(bad.at("permissionDecision")), "deny");

  BeforeAnswer ctx = allow();
  ctx.additional_contexts = {"a", "b"};
  json::object ch = out_of(f.before(r, ctx)).at("hookSpecificOutput").as_object();
  EXPECT_EQ(str(ch.at("additionalContext")), "a\n\nb");
  EXPECT_FALSE(ch.contains("permissionDecision"));
}

TEST(AgentFormatCodex, AfterReplies) {
  const AgentFormat& f = fmt("codex");
  HookRequest secret = parse("codex", "post_secret.json");
  json::object b = out_of(f.after(secret, blocked("secret")));
  EXPECT_EQ(str(b.at("decision")), "block");
  EXPECT_NE(str(b.at("reason")).find("secret"), std::string::npos);

  // Block replaces the result with the reason: the replacement text itself.
  json::object rp = out_of(f.after(secret, replaced("[REDACTED]")));
  EXPECT_EQ(str(rp.at("decision")), "block");
  EXPECT_EQ(str(rp.at("reason")), "[REDACTED]");

  EXPECT_EQ(f.after(parse("codex", "post.json"), accepted({})).stdout_text, "");
  json::object c = out_of(f.after(parse("codex", "post.json"), accepted({"n"})));
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("hookEventName")), "PostToolUse");
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("additionalContext")), "n");
  EXPECT_FALSE(c.contains("decision"));
}

// ---- Gemini CLI --------------------------------------------------------------------

TEST(AgentFormatGeminiCli, ParsesFixtures) {
  HookRequest r = parse("gemini-cli", "pre_allow.json");
  EXPECT_EQ(r.phase, Phase::before);
  EXPECT_EQ(r.event, "BeforeTool");
  EXPECT_EQ(r.identity.tool, "run_shell_command");
  EXPECT_EQ(r.identity.call_id, "");  // Gemini has no tool-call id
  EXPECT_EQ(r.identity.session_id, "3f9c1a2b-7d4e-4c8a-b5f6-0e1d2c3b4a59");
  EXPECT_EQ(r.identity.client, "gemini-cli");
  EXPECT_EQ(str(r.arguments.at("dir_path")), "/home/dev/my-project");

  HookRequest mcp = parse("gemini-cli", "pre_mcp.json");
  EXPECT_EQ(mcp.identity.tool, "mcp_filesystem_read_file");
  EXPECT_EQ(mcp.arguments, (json::object{{"path", "/home/dev/my-project/.env"}}));

  HookRequest post = parse("gemini-cli", "post_secret.json");
  EXPECT_EQ(post.phase, Phase::after);
  EXPECT_NE(str(post.reported.content.at(0).at("text")).find("AKIAIOSFODNN7EXAMPLE"),
            std::string::npos);

  json::object failed = fixture("gemini-cli", "post.json").as_object();
  failed["tool_response"].as_object()["error"] = json::object{{"message", "boom"}};
  EXPECT_TRUE(fmt("gemini-cli").parse(failed).reported.is_error);
  for (const char* fx : {"pre_deny.json", "pre_rewrite.json", "post.json"})
    EXPECT_NO_THROW(parse("gemini-cli", fx)) << fx;
}

TEST(AgentFormatGeminiCli, BeforeReplies) {
  const AgentFormat& f = fmt("gemini-cli");
  HookRequest r = parse("gemini-cli", "pre_allow.json");
  json::object a = out_of(f.before(r, allow()));
  EXPECT_EQ(str(a.at("decision")), "allow");
  EXPECT_FALSE(a.contains("hookSpecificOutput"));

  json::object d = out_of(f.before(parse("gemini-cli", "pre_deny.json"), deny("nope")));
  EXPECT_EQ(str(d.at("decision")), "deny");
  EXPECT_EQ(str(d.at("reason")), "toolgate: denied by guard.commands/deny: nope");

  json::object k = out_of(f.before(r, ask("needs a human")));
  EXPECT_EQ(str(k.at("decision")), "deny");
  EXPECT_NE(str(k.at("reason")).find("Gemini CLI cannot ask"), std::string::npos);

  HookRequest rw = parse("gemini-cli", "pre_rewrite.json");
  json::object args = rw.arguments;
  args["command"] = "git push origin main";
  json::object w = out_of(f.before(rw, rewrite(args)));
  EXPECT_EQ(str(w.at("decision")), "allow");
  EXPECT_EQ(w.at("hookSpecificOutput").at("tool_input"), json::value(args));

  // Removing an argument cannot be expressed (Gemini merges): denied.
  json::object fewer{{"command", "git push origin main"}};
  json::object x = out_of(f.before(rw, rewrite(fewer)));
  EXPECT_EQ(str(x.at("decision")), "deny");
  EXPECT_NE(str(x.at("reason")).find("\"description\""), std::string::npos);
}

TEST(AgentFormatGeminiCli, AfterReplies) {
  const AgentFormat& f = fmt("gemini-cli");
  HookRequest secret = parse("gemini-cli", "post_secret.json");
  json::object b = out_of(f.after(secret, blocked("secret")));
  EXPECT_EQ(str(b.at("decision")), "deny");
  EXPECT_NE(str(b.at("reason")).find("secret"), std::string::npos);
  json::object rp = out_of(f.after(secret, replaced("[REDACTED]")));
  EXPECT_EQ(str(rp.at("decision")), "deny");
  EXPECT_EQ(str(rp.at("reason")), "[REDACTED]");
  EXPECT_EQ(f.after(parse("gemini-cli", "post.json"), accepted({})).stdout_text, "");
  json::object c = out_of(f.after(parse("gemini-cli", "post.json"), accepted({"n"})));
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("additionalContext")), "n");
  EXPECT_EQ(str(c.at("hookSpecificOutput").at("hookEventName")), "AfterTool");
  EXPECT_FALSE(c.contains("decision"));
}

// ---- Cursor -------------------------------------------------------------------------

TEST(AgentFormatCursor, ParsesFixtures) {
  HookRequest r = parse("cursor", "pre_allow.json");
  EXPECT_EQ(r.phase, Phase::before);
  EXPECT_EQ(r.identity.tool, "Shell");
  EXPECT_EQ(r.identity.call_id, "tool_3f2a9c1e-8b7d-4e6f-a5c4-1d2e3f4a5b6c");
  EXPECT_EQ(r.identity.session_id, "b60ae0c1-2f85-4c4d-b3e5-b512f9b06e4c");  // conversation_id
  EXPECT_EQ(r.identity.client, "cursor");
  EXPECT_EQ(str(r.arguments.at("command")), "ls -la src");

  HookRequest sh = parse("cursor", "pre_shell_allow.json");
  EXPECT_EQ(sh.identity.tool, "Shell");
  EXPECT_EQ(sh.identity.call_id, "");
  EXPECT_EQ(sh.arguments, (json::object{{"command", "ls -la src"}}));

  HookRequest mcp = parse("cursor", "pre_mcp.json");
  EXPECT_EQ(mcp.identity.tool, "read_file");
  EXPECT_EQ(mcp.arguments, (json::object{{"path", "/home/dev/my-project/.env"}}));

  HookRequest rd = parse("cursor", "pre_read_file.json");
  EXPECT_EQ(rd.identity.tool, "Read");
  EXPECT_EQ(rd.arguments, (json::object{{"file_path", "/home/dev/my-project/.env"}}));

  HookRequest post = parse("cursor", "post_secret.json");
  EXPECT_EQ(post.phase, Phase::after);
  EXPECT_EQ(str(post.reported.content.at(0).at("text")).find("[default]"), 0u);

  HookRequest fail = parse("cursor", "post_failure.json");
  EXPECT_TRUE(fail.reported.is_error);
  EXPECT_NE(fail.reported.error->message.find("timed out"), std::string::npos);

  HookRequest after_shell = parse("cursor", "post_shell_secret.json");
  EXPECT_EQ(after_shell.phase, Phase::after);
  EXPECT_EQ(after_shell.identity.tool, "Shell");

  // subagentStart is not a tool event.
  EXPECT_THROW(parse("cursor", "subagent_start.json"), BadPayload);
  json::object no_cmd = fixture("cursor", "pre_shell_allow.json").as_object();
  no_cmd.erase("command");
  try {
    fmt("cursor").parse(no_cmd);
    ADD_FAILURE();
  } catch (const BadPayload& e) {
    EXPECT_NE(std::string(e.what()).find("\"command\""), std::string::npos);
  }
}

TEST(AgentFormatCursor, BeforeReplies) {
  const AgentFormat& f = fmt("cursor");
  HookRequest r = parse("cursor", "pre_allow.json");
  json::object a = out_of(f.before(r, allow()));
  EXPECT_EQ(str(a.at("permission")), "allow");
  EXPECT_FALSE(a.contains("updated_input"));

  json::object d = out_of(f.before(parse("cursor", "pre_deny.json"), deny("nope")));
  EXPECT_EQ(str(d.at("permission")), "deny");
  EXPECT_EQ(str(d.at("agent_message")), "toolgate: denied by guard.commands/deny: nope");
  EXPECT_EQ(str(d.at("user_message")), "toolgate: denied by guard.commands/deny: nope");

  json::object plugin_failed = out_of(f.before(r, deny("crashed", "guard.x/y", "plugin_error")));
  EXPECT_NE(str(plugin_failed.at("agent_message")).find("the plugin guard.x/y failed: crashed"),
            std::string::npos);

  // preToolUse has no ask: deny.
  json::object k = out_of(f.before(r, ask("human please")));
  EXPECT_EQ(str(k.at("permission")), "deny");
  EXPECT_NE(str(k.at("agent_message")).find("cannot ask"), std::string::npos);

  // beforeShellExecution has ask.
  json::object ks = out_of(f.before(parse("cursor", "pre_shell_deny.json"), ask("human please")));
  EXPECT_EQ(str(ks.at("permission")), "ask");
  EXPECT_NE(str(ks.at("user_message")).find("human please"), std::string::npos);

  HookRequest rw = parse("cursor", "pre_rewrite.json");
  json::object ci = rw.arguments;
  ci["command"] = "npm ci";
  json::object w = out_of(f.before(rw, rewrite(ci)));
  EXPECT_EQ(str(w.at("permission")), "allow");
  EXPECT_EQ(w.at("updated_input"), json::value(ci));

  // No updated_input on beforeShellExecution: a rewrite is denied.
  json::object ws =
      out_of(f.before(parse("cursor", "pre_shell_allow.json"), rewrite({{"command", "ls"}})));
  EXPECT_EQ(str(ws.at("permission")), "deny");

  // beforeReadFile: allow/deny only.
  HookRequest rd = parse("cursor", "pre_read_file.json");
  EXPECT_EQ(str(out_of(f.before(rd, allow())).at("permission")), "allow");
  EXPECT_EQ(str(out_of(f.before(rd, ask("?"))).at("permission")), "deny");
  EXPECT_EQ(str(out_of(f.before(rd, deny("secret file"))).at("permission")), "deny");
}

TEST(AgentFormatCursor, AfterReplies) {
  const AgentFormat& f = fmt("cursor");
  HookRequest secret = parse("cursor", "post_secret.json");
  // Not enforceable for a built-in tool: loudly in additional_context.
  json::object b = out_of(f.after(secret, blocked("secret")));
  std::string ctx = str(b.at("additional_context"));
  EXPECT_NE(ctx.find("TOOLGATE BLOCKED"), std::string::npos) << ctx;
  EXPECT_NE(ctx.find("secret"), std::string::npos) << ctx;
  EXPECT_EQ(b.size(), 1u);

  json::object rp = out_of(f.after(secret, replaced("[REDACTED]")));
  EXPECT_NE(str(rp.at("additional_context")).find("[REDACTED]"), std::string::npos);

  // An MCP tool: updated_mcp_tool_output replaces it.
  HookRequest mcp = secret;
  mcp.identity.tool = "MCP:read_file";
  json::object mo = out_of(f.after(mcp, replaced("[REDACTED]")));
  EXPECT_EQ(str(mo.at("updated_mcp_tool_output").at("content").at(0).at("text")), "[REDACTED]");

  AfterAnswer ctxs = accepted({"one", "two"});
  EXPECT_EQ(str(out_of(f.after(secret, ctxs)).at("additional_context")), "one\n\ntwo");
  EXPECT_EQ(f.after(secret, accepted({})).stdout_text, "");
  // Observe-only events: no reply fields.
  EXPECT_EQ(f.after(parse("cursor", "post_shell_secret.json"), blocked("x")).stdout_text, "");
}

// Contexts before the call, where an agent has no documented field for them:
// Gemini shows them to the user on an allow and to the model on a deny;
// Cursor sends them as agent_message.
TEST(AgentFormatGeminiCli, ContextsBeforeTheCall) {
  const AgentFormat& f = fmt("gemini-cli");
  HookRequest r = parse("gemini-cli", "pre_allow.json");
  BeforeAnswer a = allow();
  a.additional_contexts = {"one", "two"};
  json::object o = out_of(f.before(r, a));
  EXPECT_EQ(str(o.at("decision")), "allow");
  EXPECT_EQ(str(o.at("systemMessage")), "one\n\ntwo");
  BeforeAnswer d = deny("no");
  d.additional_contexts = {"why"};
  EXPECT_EQ(str(out_of(f.before(r, d)).at("reason")),
            "toolgate: denied by guard.commands/deny: no\n\nwhy");
}

TEST(AgentFormatCursor, ContextsBeforeTheCall) {
  const AgentFormat& f = fmt("cursor");
  HookRequest r = parse("cursor", "pre_allow.json");
  BeforeAnswer a = allow();
  a.additional_contexts = {"one"};
  json::object o = out_of(f.before(r, a));
  EXPECT_EQ(str(o.at("permission")), "allow");
  EXPECT_EQ(str(o.at("agent_message")), "one");
  BeforeAnswer d = deny("no");
  d.additional_contexts = {"why"};
  json::object od = out_of(f.before(r, d));
  EXPECT_EQ(str(od.at("user_message")), "toolgate: denied by guard.commands/deny: no");
  EXPECT_EQ(str(od.at("agent_message")), "toolgate: denied by guard.commands/deny: no\n\nwhy");
}

TEST(AgentFormatClaudeCode, NonObjectInputIsWrapped) {
  json::object p = fixture("claude-code", "pre_allow.json").as_object();
  p["tool_input"] = "raw text";
  EXPECT_EQ(fmt("claude-code").parse(p).arguments, (json::object{{"input", "raw text"}}));
  json::object c = fixture("cursor", "pre_mcp.json").as_object();
  c["tool_input"] = "not json";
  EXPECT_EQ(fmt("cursor").parse(c).arguments, (json::object{{"input", "not json"}}));
}

// Rewrites an agent would not apply as given are denied, never passed on to
// run with the original arguments.
TEST(AgentFormatCodex, ARewriteOfAToolCodexDoesNotRewriteIsDenied) {
  const auto& f = fmt("codex");
  HookRequest r = parse("codex", "pre_allow.json");
  r.identity.tool = "Read";
  r.arguments = json::object{{"path", "a.txt"}};
  json::object o = out_of(f.before(r, rewrite(json::object{{"path", "b.txt"}})));
  EXPECT_EQ(o.at("hookSpecificOutput").at("permissionDecision"), "deny");
  r.identity.tool = "mcp__fs__read";  // MCP tools take updatedInput
  o = out_of(f.before(r, rewrite(json::object{{"path", "b.txt"}})));
  EXPECT_EQ(o.at("hookSpecificOutput").at("permissionDecision"), "allow");
  EXPECT_EQ(o.at("hookSpecificOutput").at("updatedInput").at("path"), "b.txt");
}

TEST(AgentFormatCursor, ARewriteThatRemovesAnArgumentIsDenied) {
  const auto& f = fmt("cursor");
  HookRequest r = parse("cursor", "pre_rewrite.json");
  json::object args = r.arguments;
  ASSERT_TRUE(args.contains("working_directory"));
  args.erase("working_directory");
  json::object o = out_of(f.before(r, rewrite(args)));
  EXPECT_EQ(o.at("permission"), "deny");
  EXPECT_NE(std::string(o.at("agent_message").as_string()).find("working_directory"),
            std::string::npos);
}

TEST(AgentFormatRegistry, ABlankReplacementStillReplacesTheOutput) {
  // Codex refuses a "block" whose reason is empty or blank (the hook then
  // counts as failed and the original output reaches the model): a
  // replacement with no text -- blanked, images only, an empty list --
  // must still answer with a reason that says what happened.
  const AgentFormat& codex = fmt("codex");
  HookRequest secret = parse("codex", "post_secret.json");
  for (const AfterAnswer& a :
       {replaced(""), replaced("  \n"),
        AfterAnswer{SplitOutcome::Kind::replaced, ToolResult::success(nullptr, json::array{}), {}},
        AfterAnswer{
            SplitOutcome::Kind::replaced,
            ToolResult::success(
                nullptr, json::array{json::object{
                             {"type", "image"}, {"data", "aGk="}, {"mimeType", "image/png"}}}),
            {}}}) {
    json::object o = out_of(codex.after(secret, a));
    EXPECT_EQ(str(o.at("decision")), "block");
    EXPECT_NE(str(o.at("reason")).find("toolgate"), std::string::npos) << str(o.at("reason"));
    json::object g = out_of(fmt("gemini-cli").after(parse("gemini-cli", "post_secret.json"), a));
    EXPECT_EQ(str(g.at("decision")), "deny");
    EXPECT_NE(str(g.at("reason")).find("toolgate"), std::string::npos);
  }
  // Text of its own is relayed as it is.
  EXPECT_EQ(str(out_of(codex.after(secret, replaced("[REDACTED]"))).at("reason")), "[REDACTED]");
}
