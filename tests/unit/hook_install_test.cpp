// Installing toolgate's hook entries into each agent's settings file and
// removing them again (host/src/agent_hooks/install.hpp): text in, text out.
#include "agent_hooks/install.hpp"

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

#include <cstdio>

namespace json = boost::json;
using namespace toolgate::agent_hooks;

namespace {

const AgentFormat& fmt(std::string_view name) { return *find_format(name); }

constexpr std::string_view kCmd = "/usr/bin/toolgate hook claude-code";

// A settings file with another hook on the same event and other keys.
const char* kClaudeSettings = R"({
  "model": "opus",
  "permissions": {"allow": ["Read"]
}
, "hooks" : {
  "PreToolUse" : [ {
    "matcher" : "Bash",
    "hooks" : [ {"type" : "command", "command" : "/opt/lint.sh", "timeout" : 30} ]
  } ],
                 "Stop" : [ {"hooks" : [ {"type" : "command", "command" : "say done"} ]} ]
}
})";

// The handlers running `cmd` under `event`, for the nested layouts.
std::vector<json::object> handlers(const json::value& root, std::string_view event,
                                   std::string_view cmd, bool nested = true) {
  std::vector<json::object> out;
  const auto* ev = root.at("hooks").as_object().if_contains(event);
  if (!ev) return out;
  for (const auto& e : ev->as_array()) {
    if (!nested) {
      if (e.at("command").as_string() == cmd) out.push_back(e.as_object());
      continue;
    }
    for (const auto& h : e.at("hooks").as_array())
      if (h.at("command").as_string() == cmd) out.push_back(h.as_object());
  }
  return out;
}

}  // namespace

TEST(HookInstall, SettingsPaths) {
  std::filesystem::path home = "/home/u", proj = "/src/p";
  EXPECT_EQ(settings_path(fmt("claude-code"), "user", home, proj), "/home/u/.claude/settings.json");
  EXPECT_EQ(settings_path(fmt("claude-code"), "project", home, proj),
            "/src/p/.claude/settings.json");
  EXPECT_EQ(settings_path(fmt("codex"), "user", home, proj), "/home/u/.codex/hooks.json");
  EXPECT_EQ(settings_path(fmt("codex"), "project", home, proj), "/src/p/.codex/hooks.json");
  EXPECT_EQ(settings_path(fmt("gemini-cli"), "user", home, proj), "/home/u/.gemini/settings.json");
  EXPECT_EQ(settings_path(fmt("gemini-cli"), "project", home, proj),
            "/src/p/.gemini/settings.json");
  EXPECT_EQ(settings_path(fmt("cursor"), "user", home, proj), "/home/u/.cursor/hooks.json");
  EXPECT_EQ(settings_path(fmt("cursor"), "project", home, proj), "/src/p/.cursor/hooks.json");
  EXPECT_THROW(settings_path(fmt("cursor"), "system", home, proj), std::invalid_argument);
}

TEST(HookInstall, ClaudeKeepsOtherHooksAndKeys) {
  std::string installed = install_hooks(fmt("claude-code"), kClaudeSettings, kCmd);
  json::value v = json::parse(installed);
  EXPECT_EQ(v.at("model"), json::value("opus"));
  EXPECT_EQ(v.at("permissions"), json::parse(R"({"allow": ["Read"]
})"));
  EXPECT_EQ(v.at("hooks").at("Stop"), json::parse(kClaudeSettings).at("hooks").at("Stop"));
  // The other PreToolUse hook is still first and unchanged.
  EXPECT_EQ(v.at("hooks").at("PreToolUse").at(0),
            json::parse(kClaudeSettings).at("hooks").at("PreToolUse").at(0));
  for (auto event : {"PreToolUse", "PostToolUse", "PostToolUseFailure"}) {
    auto hs = handlers(v, event, kCmd);
    ASSERT_EQ(hs.size(), 1u) << event;
    EXPECT_EQ(hs[0].at("type"), json::value("command"));
    EXPECT_EQ(hs[0].at("timeout"), json::value(10));
  }
  // Key order as parsed; two-space indentation.
  EXPECT_LT(installed.find("\"model\""), installed.find("\"permissions\""));
  EXPECT_NE(installed.find("\n  \"model\": \"opus\""), std::string::npos) << installed;
}

TEST(HookInstall, TwiceChangesNothingAndUninstallRestores) {
  for (auto name : format_names()) {
    const AgentFormat& f = fmt(name);
    std::string cmd = "/usr/bin/toolgate hook " + std::string(name);
    std::string original =
        name == "cursor" ? R"({"version": 1, "hooks": {"stop": [{"command": "x"}]}, "k": [1]})"
        : name == "gemini-cli"
            ? R"({"theme": "dark", "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "sec", "type": "command", "command": "/s.sh", "timeout": 5000}]}]}})"
            : kClaudeSettings;
    std::string once = install_hooks(f, original, cmd);
    EXPECT_NE(once, original) << name;
    std::string twice = install_hooks(f, once, cmd);
    EXPECT_EQ(twice, once) << name;
    std::string removed = uninstall_hooks(f, once, cmd);
    EXPECT_EQ(json::parse(removed), json::parse(original)) << name << "\n" << removed;
    // Nothing to remove: unchanged text.
    EXPECT_EQ(uninstall_hooks(f, original, cmd), original) << name;
  }
}

TEST(HookInstall, FromNoFile) {
  for (auto name : format_names()) {
    const AgentFormat& f = fmt(name);
    std::string text = install_hooks(f, "", "tg hook");
    json::value v = json::parse(text);
    EXPECT_EQ(text.back(), '\n');
    if (name == "cursor") {
      EXPECT_EQ(v.at("version"), json::value(1));
      for (auto event : {"preToolUse", "postToolUse", "postToolUseFailure"}) {
        auto hs = handlers(v, event, "tg hook", false);
        ASSERT_EQ(hs.size(), 1u) << event;
        EXPECT_EQ(hs[0].at("failClosed"), json::value(true));
        EXPECT_EQ(hs[0].at("timeout"), json::value(10));
      }
    } else if (name == "gemini-cli") {
      for (auto event : {"BeforeTool", "AfterTool"}) {
        auto hs = handlers(v, event, "tg hook");
        ASSERT_EQ(hs.size(), 1u) << event;
        EXPECT_EQ(hs[0].at("timeout"), json::value(10000));  // milliseconds
      }
    } else {
      for (auto event : {"PreToolUse", "PostToolUse"}) {
        auto hs = handlers(v, event, "tg hook");
        ASSERT_EQ(hs.size(), 1u) << event;
        EXPECT_EQ(hs[0].at("timeout"), json::value(10));
      }
    }
    // Uninstalling from a file install created leaves no hooks behind.
    json::value after = json::parse(uninstall_hooks(f, text, "tg hook"));
    EXPECT_FALSE(after.as_object().contains("hooks")) << name;
  }
}

TEST(HookInstall, UninstallRemovesOnlyOurHandler) {
  // Our handler shares a matcher group with someone else's: only ours goes.
  std::string text = R"({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
      {"type": "command", "command": "/opt/other"},
      {"type": "command", "command": "tg"}]}]}})";
  json::value v = json::parse(uninstall_hooks(fmt("codex"), text, "tg"));
  EXPECT_EQ(v, json::parse(R"({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
      {"type": "command", "command": "/opt/other"}]}]}})"));
}

TEST(HookInstall, UnparsableOrOddShapesThrow) {
  const AgentFormat& f = fmt("claude-code");
  try {
    install_hooks(f, "{\n  \"hooks\": {,}\n}", kCmd);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("not valid JSON"), std::string::npos) << m;
    EXPECT_NE(m.find("line 2"), std::string::npos) << m;
  }
  EXPECT_THROW(install_hooks(f, "{\"a\": 1,}", kCmd), std::runtime_error);  // no extensions
  EXPECT_THROW(install_hooks(f, "// c\n{}", kCmd), std::runtime_error);
  EXPECT_THROW(install_hooks(f, "[]", kCmd), std::runtime_error);
  EXPECT_THROW(uninstall_hooks(f, "{", kCmd), std::runtime_error);
  try {
    install_hooks(f, R"({"hooks": []})", kCmd);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/hooks"), std::string::npos) << e.what();
  }
  try {
    install_hooks(f, R"({"hooks": {"PreToolUse": [{"matcher": "x", "hooks": 3}]}})", kCmd);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/hooks/PreToolUse/0/hooks"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(install_hooks(fmt("cursor"), R"({"hooks": {"preToolUse": {}}})", "c"),
               std::runtime_error);
}

TEST(HookInstall, PrettyPrinter) {
  json::value v = json::parse(R"({"b": [1, {"x": "\u00e9\n"}], "a": {}, "c": []})");
  EXPECT_EQ(pretty_json(v),
            "{\n  \"b\": [\n    1,\n    {\n      \"x\": \"\u00e9\\n\"\n    }\n  ],\n"
            "  \"a\": {},\n  \"c\": []\n}\n");
  EXPECT_EQ(json::parse(pretty_json(v)), v);
}

TEST(HookInstall, TheProgramPathIsOneShellWord) {
  // The agents run a hook's command through a shell: a path with a space,
  // a quote or a `$` must reach the program as it is.
  EXPECT_EQ(shell_word("/usr/bin/toolgate-hook"), "/usr/bin/toolgate-hook");
  for (std::string path :
       {"/opt/My Tools/bin/toolgate", "/tmp/it's $HOME/`x`;rm -rf ~", "/a\"b\\c\n", "A=B", ""}) {
    const std::string word = shell_word(path);
    std::FILE* sh = ::popen(("printf '%s' " + word).c_str(), "r");
    ASSERT_NE(sh, nullptr);
    std::string out;
    char buf[256];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, sh)) > 0;) out.append(buf, n);
    EXPECT_EQ(::pclose(sh), 0) << word;
    EXPECT_EQ(out, path) << word;
  }
}

TEST(HookInstall, AnEarlierInstallWithTheOtherProgramIsReplaced) {
  // `install` picks toolgate-hook when it is installed beside toolgate, so
  // a second install can write another command for the same hook.  Both
  // entries would run, begin the same call twice, and the daemon would
  // deny every call as a duplicate id: the earlier entry is replaced.
  for (auto name : format_names()) {
    const AgentFormat& f = fmt(name);
    const std::string agent(name);
    const std::string slow = "/usr/bin/toolgate hook " + agent;
    const std::string fast = "'/opt/My Tools/toolgate-hook' " + agent;
    const std::string other_agent =
        "/usr/bin/toolgate-hook " + std::string(name == "codex" ? "cursor" : "codex");
    std::string text = install_hooks(f, name == "cursor" ? "" : kClaudeSettings, slow);
    text = install_hooks(f, text, other_agent);  // not this agent's: kept
    text = install_hooks(f, text, fast);
    const json::value root = json::parse(text);
    const auto& l_events = name == "cursor"       ? std::vector<std::string>{"preToolUse"}
                           : name == "gemini-cli" ? std::vector<std::string>{"BeforeTool"}
                                                  : std::vector<std::string>{"PreToolUse"};
    for (const auto& event : l_events) {
      const bool nested = name != "cursor";
      EXPECT_EQ(handlers(root, event, slow, nested).size(), 0u) << name << "\n" << text;
      EXPECT_EQ(handlers(root, event, fast, nested).size(), 1u) << name;
      EXPECT_EQ(handlers(root, event, other_agent, nested).size(), 1u) << name;
    }
    if (name != "cursor") {
      EXPECT_EQ(handlers(root, "PreToolUse", "/opt/lint.sh").size(), 1u);
    }
    // Uninstalling with either program removes toolgate's hook for the
    // agent, and nothing else.
    const json::value back = json::parse(uninstall_hooks(f, text, slow));
    for (const auto& event : l_events)
      EXPECT_EQ(handlers(back, event, fast, name != "cursor").size(), 0u) << name;
  }
}
