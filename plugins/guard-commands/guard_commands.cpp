// guard_commands.cpp -- shell-command arguments are parsed like a shell
// would (shell_parse.hpp) and every command that would run is checked
// against deny rules, or against an allow-list (analyze.hpp).  A command
// that cannot be parsed is denied: what the guard cannot read, it does not
// let through.
#include "analyze.hpp"
#include "shell_parse.hpp"

#include "../common/args.hpp"
#include "../common/config.hpp"
#include "../common/glob.hpp"

#include <toolgate/plugin.hpp>

namespace sdk = toolgate::sdk;

namespace tgp::shell {
namespace {

class GuardCommands {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "properties": {
        "tools": )json" TGP_SCHEMA_TOOLS R"json(,
        "pointers": )json" TGP_SCHEMA_STRINGS R"json(,
        "rules": {"type": "object", "additionalProperties": false, "properties": {
          "rm_rf_root": {"type": "boolean"},
          "pipe_to_shell": {"type": "boolean"},
          "privilege": {"type": "boolean"},
          "block_devices": {"type": "boolean"},
          "fork_bomb": {"type": "boolean"},
          "dynamic_programs": {"type": "boolean"}}},
        "deny_programs": )json" TGP_SCHEMA_STRINGS R"json(,
        "allow_programs": )json" TGP_SCHEMA_STRINGS R"json(,
        "max_length": {"type": "integer", "minimum": 1, "maximum": 16777216}}})json";

  explicit GuardCommands(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"tools", "pointers", "rules", "deny_programs", "allow_programs", "max_length"});
    tools_ = NameGlobs(c.strings("tools", std::vector<std::string>{}));
    pointers_ = c.strings("pointers", std::vector<std::string>{"/command", "/cmd", "/script"});
    if (pointers_.empty()) throw ConfigError("/pointers", "list at least one JSON Pointer");
    for (std::size_t i = 0; i < pointers_.size(); ++i)
      check_pointer_syntax(pointers_[i], "/pointers/" + std::to_string(i));
    if (c.has("rules")) {
      ConfigObject r = c.object("rules");
      r.only({"rm_rf_root", "pipe_to_shell", "privilege", "block_devices", "fork_bomb",
              "dynamic_programs"});
      rules_.rm_rf_root = r.boolean("rm_rf_root", true);
      rules_.pipe_to_shell = r.boolean("pipe_to_shell", true);
      rules_.privilege = r.boolean("privilege", true);
      rules_.block_devices = r.boolean("block_devices", true);
      rules_.fork_bomb = r.boolean("fork_bomb", true);
      rules_.dynamic_programs = r.boolean("dynamic_programs", true);
    }
    rules_.deny_programs = c.strings("deny_programs", std::vector<std::string>{});
    rules_.allow_programs = c.strings("allow_programs", std::vector<std::string>{});
    if (c.has("allow_programs") && rules_.allow_programs.empty())
      throw ConfigError("/allow_programs",
                        "an empty allow-list would deny every command; list programs or leave "
                        "the key out");
    max_length_ = static_cast<std::size_t>(c.integer("max_length", 65536, 1, 16 << 20));

    init.guard("commands", [this](const sdk::Call& call) { return check(call); });
  }

 private:
  std::string check_text(std::string_view text) const {
    if (text.size() > max_length_)
      return "is longer than " + std::to_string(max_length_) + " bytes";
    std::string error;
    auto script = parse(text, &error);
    if (!script) return "cannot be parsed (" + error + ")";
    return analyze(*script, rules_);
  }

  // An argv array (["rm", "-rf", "/"]) is one simple command, no shell.
  std::string check_argv(const sdk::Call& call, const std::string& pointer, std::size_t n) const {
    Script s;
    Command cmd;
    cmd.pipelines.emplace_back(0, 0);
    for (std::size_t i = 0; i < n; ++i) {
      auto w = call.arg_string((pointer + "/" + std::to_string(i)).c_str());
      if (!w) return pointer + "/" + std::to_string(i) + " is not a string";
      cmd.words.push_back(Word{std::string(*w), false, {}});
    }
    s.commands.push_back(std::move(cmd));
    return analyze(s, rules_);
  }

  sdk::GuardVerdict check(const sdk::Call& call) const {
    if (!tools_.matches(call.tool())) return sdk::GuardVerdict::abstain();
    LazyArgs args(call);
    std::string denial;
    for (const auto& p : pointers_) {
      expand_pointer(args, p, [&](const std::string& pointer, const tg_json_value& v) {
        if (!denial.empty() || v.type == TG_JSON_NULL) return;
        std::string why;
        if (v.type == TG_JSON_STRING)
          why = check_text(sdk::from_tg(v.string));
        else if (v.type == TG_JSON_ARRAY)
          why = check_argv(call, pointer, v.size);
        else
          why = "is not a command string";
        if (!why.empty()) denial = std::string(call.tool()) + ": " + pointer + " " + why;
      });
      if (!denial.empty()) return sdk::GuardVerdict::deny(std::move(denial));
    }
    return sdk::GuardVerdict::abstain();
  }

  NameGlobs tools_;
  std::vector<std::string> pointers_;
  Rules rules_;
  std::size_t max_length_ = 65536;
};

}  // namespace
}  // namespace tgp::shell

TOOLGATE_PLUGIN(tgp::shell::GuardCommands, "toolgate.guard-commands", "1.0.0", TG_CAP_GUARD, 0)
