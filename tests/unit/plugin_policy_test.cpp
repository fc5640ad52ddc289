// plugins/policy through the real loader: rule matching, every condition
// kind, rewrites, defaults and config errors.
#include "library_support.hpp"

#include <fstream>
#include <iterator>

using namespace tgtest;

namespace {

json::object rules(json::array r, json::object extra = {}) {
  extra["rules"] = std::move(r);
  return extra;
}

ToolResult call_as(LibraryFixture& f, std::string tool, std::string client, std::string agent_id,
                   json::object args = {}) {
  ToolCall c;
  c.identity.tool = std::move(tool);
  c.identity.session_id = "s1";
  c.identity.client = std::move(client);
  c.identity.agent_id = std::move(agent_id);
  c.arguments = std::move(args);
  return f.host.call(std::move(c));
}

}  // namespace

TEST(PolicyPlugin, ADenyRuleStopsTheCallBeforeTheBody) {
  LibraryFixture f;
  f.add_tool("shell.run", 0);
  f.load("policy",
         rules({json::object{{"tools", "shell.*"}, {"verdict", "deny"}, {"reason", "no shell"}}}));
  auto r = f.call("shell.run", {{"command", "ls"}});
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "no shell");
  EXPECT_EQ(r.error->source, "toolgate.policy/rules");
  EXPECT_EQ(*f.body_runs, 0);
  // Other tools are not matched by the glob.
  EXPECT_FALSE(f.call("echo", {{"command", "ls"}}).is_error);
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PolicyPlugin, TheFirstMatchingRuleWins) {
  LibraryFixture f;
  f.load("policy",
         rules({
             json::object{
                 {"when", json::array{json::object{{"pointer", "/mode"}, {"equals", "safe"}}}},
                 {"verdict", "allow"}},
             json::object{{"verdict", "deny"}, {"reason", "only safe mode"}},
         }));
  EXPECT_FALSE(f.call("echo", {{"mode", "safe"}}).is_error);
  EXPECT_EQ(code_of(f.call("echo", {{"mode", "fast"}})), "denied");
  EXPECT_EQ(code_of(f.call("echo")), "denied");
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PolicyPlugin, ToolGlobsSupportExclusions) {
  LibraryFixture f;
  f.add_tool("fs.read", 0);
  f.add_tool("fs.write", 0);
  f.load("policy", rules({json::object{{"tools", json::array{"fs.*", "!fs.read"}},
                                       {"verdict", "deny"},
                                       {"reason", "read only"}}}));
  EXPECT_FALSE(f.call("fs.read").is_error);
  EXPECT_EQ(code_of(f.call("fs.write")), "denied");
}

// Each condition kind, as (condition, arguments that match, arguments that do not).
TEST(PolicyPlugin, EveryConditionKind) {
  struct Case {
    const char* name;
    json::object cond;
    json::object yes, no;
  };
  std::vector<Case> cases = {
      {"equals string", {{"pointer", "/m"}, {"equals", "x"}}, {{"m", "x"}}, {{"m", "xx"}}},
      {"equals number across int/double",
       {{"pointer", "/n"}, {"equals", 1}},
       {{"n", 1.0}},
       {{"n", 2}}},
      {"equals bool", {{"pointer", "/b"}, {"equals", true}}, {{"b", true}}, {{"b", "true"}}},
      {"equals null", {{"pointer", "/z"}, {"equals", nullptr}}, {{"z", nullptr}}, {{"z", 0}}},
      {"equals object",
       {{"pointer", "/o"}, {"equals", json::object{{"k", 1}}}},
       {{"o", json::object{{"k", 1}}}},
       {{"o", json::object{{"k", 2}}}}},
      {"equals nested pointer",
       {{"pointer", "/a/b~1c/0"}, {"equals", "v"}},
       {{"a", json::object{{"b/c", json::array{"v"}}}}},
       {{"a", json::object{{"b/c", json::array{"w"}}}}}},
      {"one_of",
       {{"pointer", "/br"}, {"one_of", json::array{"main", "release"}}},
       {{"br", "release"}},
       {{"br", "dev"}}},
      {"glob",
       {{"pointer", "/p"}, {"glob", "*.lock"}},
       {{"p", "a/Cargo.lock"}},
       {{"p", "a.lock.txt"}}},
      {"glob on a non-string", {{"pointer", "/p"}, {"glob", "*"}}, {{"p", "x"}}, {{"p", 5}}},
      {"regex is unanchored",
       {{"pointer", "/c"}, {"regex", "push .*--force"}},
       {{"c", "git push origin --force"}},
       {{"c", "git push origin"}}},
      {"regex anchored",
       {{"pointer", "/c"}, {"regex", "^ls( |$)"}},
       {{"c", "ls -l"}},
       {{"c", "xls"}}},
      {"prefix",
       {{"pointer", "/u"}, {"prefix", "https://internal."}},
       {{"u", "https://internal.example"}},
       {{"u", "http://internal.example"}}},
      {"exists true", {{"pointer", "/d"}, {"exists", true}}, {{"d", nullptr}}, {}},
      {"exists false", {{"pointer", "/d"}, {"exists", false}}, {}, {{"d", 1}}},
      {"not", {{"pointer", "/m"}, {"equals", "x"}, {"not", true}}, {{"m", "y"}}, {{"m", "x"}}},
      {"not on an absent value",
       {{"pointer", "/m"}, {"prefix", "x"}, {"not", true}},
       {},
       {{"m", "xa"}}},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    f.load("policy",
           rules({json::object{
               {"when", json::array{c.cond}}, {"verdict", "deny"}, {"reason", "matched"}}}));
    EXPECT_EQ(code_of(f.call("echo", c.yes)), "denied") << c.name;
    EXPECT_FALSE(f.call("echo", c.no).is_error) << c.name;
  }
}

TEST(PolicyPlugin, AllConditionsOfARuleMustHold) {
  LibraryFixture f;
  f.load("policy",
         rules({json::object{{"when", json::array{json::object{{"pointer", "/a"}, {"equals", 1}},
                                                  json::object{{"pointer", "/b"}, {"equals", 2}}}},
                             {"verdict", "deny"},
                             {"reason", "both"}}}));
  EXPECT_FALSE(f.call("echo", {{"a", 1}}).is_error);
  EXPECT_FALSE(f.call("echo", {{"b", 2}}).is_error);
  EXPECT_EQ(code_of(f.call("echo", {{"a", 1}, {"b", 2}})), "denied");
}

TEST(PolicyPlugin, AskGoesToTheApprover) {
  LibraryFixture f;
  f.load("policy", rules({json::object{{"verdict", "ask"}, {"reason", "sure?"}}}));
  EXPECT_EQ(code_of(f.call("echo")), "approval_unavailable");
  EXPECT_EQ(*f.body_runs, 0);
  std::string seen;
  f.host.set_approver([&](const ApprovalRequest& r) {
    seen = std::string(r.reason);
    return ApprovalAnswer::allowed_once;
  });
  EXPECT_FALSE(f.call("echo").is_error);
  EXPECT_EQ(seen, "sure?");
  EXPECT_EQ(*f.body_runs, 1);
}

TEST(PolicyPlugin, AnAllowRuleTurnsAnEarlierAskIntoAllow) {
  LibraryFixture f;
  f.host.add_pre_execute("asker", HookOptions("ask", {}, 10),
                         [](const HookCall&) { return PreVerdict::ask("asker"); });
  f.load("policy",
         rules({json::object{
             {"when", json::array{json::object{{"pointer", "/trusted"}, {"equals", true}}}},
             {"verdict", "allow"}}}));
  EXPECT_FALSE(f.call("echo", {{"trusted", true}}).is_error);
  EXPECT_EQ(code_of(f.call("echo", {{"trusted", false}})), "approval_unavailable");
}

TEST(PolicyPlugin, RewritesSetAndRemoveFields) {
  LibraryFixture f;
  f.load(
      "policy",
      rules({json::object{
          {"tools", "echo"},
          {"set", json::object{{"/limits/timeout", 30}, {"/mode", "safe"}, {"/list/-", "added"}}},
          {"remove", json::array{"/force", "/absent/deep"}}}}));
  auto r = f.call("echo", {{"force", true}, {"mode", "fast"}, {"list", json::array{"a"}}});
  ASSERT_FALSE(r.is_error) << json::serialize(r.to_json());
  EXPECT_EQ(*r.value, (json::object{{"mode", "safe"},
                                    {"list", json::array{"a", "added"}},
                                    {"limits", json::object{{"timeout", 30}}}}));
  // The rewrite is attributed to the hook in the event log.
  auto results = f.recorder->of_type("hook/result");
  bool attributed = false;
  for (const auto& e : results)
    if (e.data.at("source") == "toolgate.policy/rules" && e.data.contains("arguments_after"))
      attributed = true;
  EXPECT_TRUE(attributed);
}

TEST(PolicyPlugin, ARewriteThatCannotApplyFailsClosed) {
  LibraryFixture f;
  f.load("policy", rules({json::object{{"set", json::object{{"/mode/level", 1}}}}}));
  auto r = f.call("echo", {{"mode", "a-string"}});
  EXPECT_EQ(code_of(r), "plugin_error");
  EXPECT_TRUE(has(r.error->message, "cannot set /mode/level")) << r.error->message;
  EXPECT_EQ(*f.body_runs, 0);
}

TEST(PolicyPlugin, DefaultVerdicts) {
  {
    LibraryFixture f;
    f.load("policy", {{"default", "deny"}, {"default_reason", "not in the policy"}});
    auto r = f.call("echo");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(r.error->message, "not in the policy");
  }
  {
    LibraryFixture f;
    f.load("policy");  // no rules, default keep
    EXPECT_FALSE(f.call("echo").is_error);
  }
}

// "callers": who asks -- the calling program (globs) and whether a subagent
// makes the call (ABI 1.3's client and agent_id).
TEST(PolicyPlugin, CallersSubagentMatchesOnlySubagentCalls) {
  LibraryFixture f;
  f.load("policy", rules({json::object{{"callers", json::object{{"subagent", true}}},
                                       {"verdict", "deny"},
                                       {"reason", "not for subagents"}}}));
  auto r = call_as(f, "echo", "claude-code", "sub-1");
  EXPECT_EQ(code_of(r), "denied");
  EXPECT_EQ(r.error->message, "not for subagents");
  EXPECT_FALSE(call_as(f, "echo", "claude-code", "").is_error);
  EXPECT_FALSE(f.call("echo").is_error);  // no identity at all: the main agent
  EXPECT_EQ(*f.body_runs, 2);
  // Split-phase calls (the agents' hooks) are matched the same way.
  ToolCall c;
  c.identity = {"", "Bash", "s1", "", "codex", "sub-2"};
  c.arguments = json::object{{"command", "ls"}};
  EXPECT_EQ(f.host.begin_call(c).verdict, SplitBegin::Verdict::deny);
  c.identity.agent_id = "";
  EXPECT_EQ(f.host.begin_call(c).verdict, SplitBegin::Verdict::allow);
}

TEST(PolicyPlugin, CallersSubagentFalseMatchesOnlyTheMainAgent) {
  LibraryFixture f;
  f.load("policy", rules({json::object{{"callers", json::object{{"subagent", false}}},
                                       {"verdict", "deny"},
                                       {"reason", "main agent only"}}}));
  EXPECT_EQ(code_of(call_as(f, "echo", "codex", "")), "denied");
  EXPECT_FALSE(call_as(f, "echo", "codex", "sub-1").is_error);
}

TEST(PolicyPlugin, CallersClientGlobsAndTheReadmeExample) {
  {
    LibraryFixture f;
    f.load("policy", rules({json::object{{"callers", json::object{{"clients", "*-cli"}}},
                                         {"verdict", "deny"},
                                         {"reason", "no CLIs"}}}));
    EXPECT_EQ(code_of(call_as(f, "echo", "gemini-cli", "")), "denied");
    EXPECT_FALSE(call_as(f, "echo", "claude-code", "").is_error);
    EXPECT_FALSE(call_as(f, "echo", "", "").is_error);  // an embedder's own call
  }
  {
    // plugins/README.md: deny Bash to claude-code's subagents.
    LibraryFixture f;
    f.add_tool("Bash", 0);
    f.load("policy", rules({json::object{
                         {"tools", "Bash"},
                         {"callers", json::object{{"clients", "claude-code"}, {"subagent", true}}},
                         {"verdict", "deny"},
                         {"reason", "subagents may not run shell commands"}}}));
    auto r = call_as(f, "Bash", "claude-code", "explorer");
    EXPECT_EQ(code_of(r), "denied");
    EXPECT_EQ(r.error->message, "subagents may not run shell commands");
    EXPECT_FALSE(call_as(f, "Bash", "claude-code", "").is_error);          // the main agent
    EXPECT_FALSE(call_as(f, "Bash", "codex", "explorer").is_error);        // another client
    EXPECT_FALSE(call_as(f, "echo", "claude-code", "explorer").is_error);  // another tool
    EXPECT_EQ(*f.body_runs, 3);  // only the subagent's Bash was stopped
  }
}

TEST(PolicyPlugin, BadConfigsNameTheKeyAndTheFix) {
  struct Case {
    json::object config;
    const char* path;
    const char* text;
  };
  std::vector<Case> cases = {
      {{{"rule", json::array{}}}, "/plugins/0/config/rule", "unknown key \"rule\""},
      {rules({json::object{{"verdit", "deny"}}}), "/plugins/0/config/rules/0/verdit",
       "unknown key"},
      {rules({json::object{{"verdict", "block"}}}), "/plugins/0/config/rules/0/verdict",
       "\"block\" is not one of \"keep\", \"allow\", \"ask\", \"deny\""},
      {rules({json::object{{"verdict", "deny"}}}), "/plugins/0/config/rules/0/reason",
       "needs a reason"},
      {rules({json::object{{"tools", 3}}}), "/plugins/0/config/rules/0/tools",
       "string or an array"},
      {rules({json::object{
           {"when", json::array{json::object{{"pointer", "path"}, {"exists", true}}}}}}),
       "/plugins/0/config/rules/0/when/0/pointer", "is not a JSON Pointer"},
      {rules({json::object{{"when", json::array{json::object{{"pointer", "/a"}}}}}}),
       "/plugins/0/config/rules/0/when/0", "exactly one of"},
      {rules({json::object{{"when", json::array{json::object{
                                        {"pointer", "/a"}, {"equals", 1}, {"prefix", "x"}}}}}}),
       "/plugins/0/config/rules/0/when/0", "(it has 2)"},
      {rules({json::object{
           {"when", json::array{json::object{{"pointer", "/a"}, {"regex", "(unclosed"}}}}}}),
       "/plugins/0/config/rules/0/when/0/regex", "not a valid RE2"},
      {rules({json::object{
           {"when", json::array{json::object{{"pointer", "/a"}, {"one_of", json::array{}}}}}}}),
       "/plugins/0/config/rules/0/when/0/one_of", "at least one"},
      {rules({json::object{{"set", json::object{{"x", 1}}}}}), "/plugins/0/config/rules/0/set/x",
       "is not a JSON Pointer"},
      {rules({json::object{{"remove", json::array{"/ok", 5}}}}),
       "/plugins/0/config/rules/0/remove/1", "must be a string"},
      {{{"default", "deny"}}, "/plugins/0/config/default_reason", "needs a reason"},
      {{{"rules", json::object{}}}, "/plugins/0/config/rules", "must be an array"},
      {rules({json::object{{"callers", json::object{{"client", "codex"}}}}}),
       "/plugins/0/config/rules/0/callers/client", "unknown key"},
      {rules({json::object{{"callers", json::object{{"subagent", "yes"}}}}}),
       "/plugins/0/config/rules/0/callers/subagent", "must be true or false"},
      {rules({json::object{{"callers", json::object{}}}}), "/plugins/0/config/rules/0/callers",
       "needs \"clients\""},
      {rules({json::object{{"callers", json::object{{"clients", json::array{}}}}}}),
       "/plugins/0/config/rules/0/callers/clients", "at least one glob"},
  };
  for (const auto& c : cases) {
    LibraryFixture f;
    std::string e = f.config_error("policy", c.config);
    EXPECT_EQ(e.substr(0, e.find(':')), c.path) << e;
    EXPECT_TRUE(has(e, c.text)) << e;
  }
}

// The static verdict (ABI 1.6): what Host::denied_always answers for the
// policy plugin, through the C ABI, and that it agrees with real calls.
namespace {
std::optional<std::string> denied_always(LibraryFixture& f, std::string tool,
                                         std::string client = "mcp", std::uint32_t depth = 0) {
  CallIdentity who;
  who.tool = std::move(tool);
  who.client = std::move(client);
  who.depth = depth;
  return f.host.denied_always(who);
}
}  // namespace

TEST(PolicyPlugin, AnUnconditionalDenyRuleDeniesTheToolWhateverItsArguments) {
  LibraryFixture f;
  f.add_tool("shell.run", 0);
  f.load("policy",
         rules({json::object{{"tools", "shell.*"}, {"verdict", "deny"}, {"reason", "no shell"}}}));
  auto why = denied_always(f, "shell.run");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("toolgate.policy/rules"), std::string::npos) << *why;
  EXPECT_FALSE(denied_always(f, "echo"));
  // And the calls agree: denied whatever the arguments.
  EXPECT_EQ(code_of(f.call("shell.run", {{"command", "ls"}})), "denied");
  EXPECT_EQ(code_of(f.call("shell.run")), "denied");
}

TEST(PolicyPlugin, AStaticVerdictWalksTheRulesAsACallWould) {
  LibraryFixture f;
  f.add_tool("a", 0);
  f.add_tool("b", 0);
  f.add_tool("c", 0);
  f.add_tool("d", 0);
  auto when_safe = json::array{json::object{{"pointer", "/mode"}, {"equals", "safe"}}};
  f.load("policy",
         rules(
             {
                 // a: a conditional allow first -- some arguments pass.
                 json::object{{"tools", "a"}, {"when", when_safe}, {"verdict", "allow"}},
                 json::object{{"tools", "a"}, {"verdict", "deny"}, {"reason", "only safe"}},
                 // b: a conditional deny, then an unconditional deny -- none pass.
                 json::object{{"tools", "b"},
                              {"when", when_safe},
                              {"verdict", "deny"},
                              {"reason", "not safe either"}},
                 json::object{{"tools", "b"}, {"verdict", "deny"}, {"reason", "never"}},
                 // c: an unconditional keep rule ends the walk before the deny.
                 json::object{{"tools", "c"}, {"set", json::object{{"/x", 1}}}},
                 json::object{{"tools", "c"}, {"verdict", "deny"}, {"reason", "never reached"}},
                 // d: falls through to the default.
             },
             {{"default", "deny"}, {"default_reason", "unlisted"}}));
  EXPECT_FALSE(denied_always(f, "a"));
  EXPECT_FALSE(f.call("a", {{"mode", "safe"}}).is_error);
  EXPECT_TRUE(denied_always(f, "b"));
  EXPECT_EQ(code_of(f.call("b", {{"mode", "safe"}})), "denied");
  EXPECT_EQ(code_of(f.call("b", {{"mode", "fast"}})), "denied");
  EXPECT_FALSE(denied_always(f, "c"));
  EXPECT_FALSE(f.call("c").is_error);
  EXPECT_TRUE(denied_always(f, "d"));
  EXPECT_EQ(code_of(f.call("d")), "denied");
}

TEST(PolicyPlugin, AStaticVerdictDependsOnTheCaller) {
  LibraryFixture f;
  f.add_tool("write_file", 0);
  f.load("policy", rules({json::object{{"tools", "write_file"},
                                       {"callers", json::object{{"from_code", true}}},
                                       {"verdict", "deny"},
                                       {"reason", "scripts may not write"}},
                          json::object{{"tools", "write_file"},
                                       {"callers", json::object{{"clients", "codex"}}},
                                       {"verdict", "deny"},
                                       {"reason", "not for codex"}}}));
  EXPECT_FALSE(denied_always(f, "write_file", "mcp", 0));
  EXPECT_TRUE(denied_always(f, "write_file", "mcp", 1));
  EXPECT_TRUE(denied_always(f, "write_file", "codex", 0));
  EXPECT_FALSE(denied_always(f, "write_file", "claude-code", 0));
}

TEST(PolicyPlugin, TheSampleForcePushRuleCatchesTheOtherSpellings) {
  // The rule as samples/manifests/secure-agent.json ships it: a force push
  // spelled with git's own options first, a +refspec or a combined short
  // option is still one (found by a review).
  std::ifstream in(std::string(TOOLGATE_SOURCE_DIR) + "/samples/manifests/secure-agent.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json::parse_options manifest_syntax;  // comments and trailing commas, as manifests allow
  manifest_syntax.allow_comments = true;
  manifest_syntax.allow_trailing_commas = true;
  const json::value manifest = json::parse(text, {}, manifest_syntax);
  json::object rule;
  for (const auto& p : manifest.at("plugins").as_array())
    if (p.at("id") == "toolgate.policy")
      for (const auto& r : p.at("config").at("rules").as_array())
        if (r.at("name") == "no-force-push") rule = r.as_object();
  ASSERT_FALSE(rule.empty());
  rule["tools"] = "shell.run";
  LibraryFixture f;
  f.add_tool("shell.run", 0);
  f.load("policy", rules({rule}));
  for (const char* push :
       {"git push --force", "git push -f origin main", "git push -uf origin main",
        "git -C . push --force", "git push origin +main", "git push --force-with-lease",
        "cd repo && git push origin +HEAD:main"})
    EXPECT_EQ(code_of(f.call("shell.run", {{"command", push}})), "denied") << push;
  for (const char* fine : {"git push origin main", "git push --follow-tags",
                           "git push origin feature-fix", "git push -o ci.skip"})
    EXPECT_FALSE(f.call("shell.run", {{"command", fine}}).is_error) << fine;
}
