// guard_paths.cpp -- file-path arguments must stay inside allowed roots.
//
// For every tool, the configured JSON Pointers (with "*" wildcards) name the
// arguments that hold paths.  Each path is resolved the way the kernel would
// open it (resolve.hpp), must land inside the read roots -- or the write
// roots when the call writes -- and must match no deny glob, checked against
// both the path as written (normalised) and the file it really names.
// Anything that cannot be checked (a non-string path, a ~user path, an
// unreadable directory on the way) denies: a guard never fails open.
// An fs guard ("writes") holds the write roots and deny patterns for every
// file a tool body declares it will write or edit (docs/design.md §2.13).
//
// With "client_roots": "intersect", the roots also narrow to the calling
// client's own roots (ABI 1.6's client context: the MCP client's
// roots/list), so one manifest with a wide root (a home folder) follows
// the project the client has open -- but never widens past the manifest:
// a client root outside every manifest root adds nothing.
#include "resolve.hpp"

#include "../common/args.hpp"
#include "../common/config.hpp"
#include "../common/glob.hpp"

#include <toolgate/plugin.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace sdk = toolgate::sdk;

namespace tgp::paths {
namespace {

const std::vector<std::string> kDefaultPointers = {
    "/path", "/file_path", "/filepath", "/filename",    "/paths/*", "/files/*",  "/directory",
    "/dir",  "/cwd",       "/source",   "/destination", "/target",  "/old_path", "/new_path"};

// Credentials and system trees: denied unless "builtin_deny" is false.
const std::vector<std::string> kBuiltinDeny = {"**/.ssh/**",
                                               "**/.gnupg/**",
                                               "**/.aws/**",
                                               "**/.azure/**",
                                               "**/.config/gcloud/**",
                                               "**/.kube/**",
                                               "**/.docker/config.json",
                                               "**/.env",
                                               "**/.env.*",
                                               "**/.netrc",
                                               "**/.git-credentials",
                                               "**/.npmrc",
                                               "**/.pypirc",
                                               "**/id_rsa*",
                                               "**/id_ecdsa*",
                                               "**/id_ed25519*",
                                               "/etc/**",
                                               "/proc/**",
                                               "/sys/**",
                                               "/dev/**",
                                               "/boot/**"};

struct ArgumentSpec {
  NameGlobs tools;
  std::vector<std::string> pointers;
};

std::string describe_roots(const std::vector<std::string>& roots) {
  if (roots.empty()) return "none configured";
  std::string s;
  for (const auto& r : roots) s += (s.empty() ? "" : ", ") + r;
  return s;
}

class GuardPaths {
 public:
  // The config's shapes, checked by the host before the constructor runs
  // (plugins/README.md documents each key); the constructor checks the rest.
  static constexpr const char* config_schema =
      R"json({"type": "object", "additionalProperties": false, "required": ["read_roots"],
        "properties": {
          "read_roots": )json" TGP_SCHEMA_STRINGS R"json(,
          "write_roots": )json" TGP_SCHEMA_STRINGS R"json(,
          "deny": )json" TGP_SCHEMA_STRINGS R"json(,
          "builtin_deny": {"type": "boolean"},
          "arguments": {"type": "array", "items": {
            "type": "object", "additionalProperties": false, "required": ["pointers"],
            "properties": {
              "tools": )json" TGP_SCHEMA_TOOLS R"json(,
              "pointers": )json" TGP_SCHEMA_STRINGS R"json(}}},
          "write_tools": )json" TGP_SCHEMA_TOOLS R"json(,
          "unannotated": {"enum": ["write", "read"]},
          "client_roots": {"enum": ["ignore", "intersect"]},
          "base": {"type": "string"},
          "home": {"type": "string"}}})json";

  explicit GuardPaths(sdk::Init& init) {
    ConfigObject c(init.config(), "");
    c.only({"read_roots", "write_roots", "deny", "builtin_deny", "arguments", "write_tools",
            "unannotated", "base", "home", "client_roots"});

    std::string cwd;
    std::error_code ec;
    auto here = std::filesystem::current_path(ec);
    if (!ec) cwd = here.string();
    ctx_.base = c.string("base", cwd);
    if (!ctx_.base.empty() && ctx_.base[0] != '/')
      throw ConfigError("/base", "must be an absolute path");
    const char* env_home = std::getenv("HOME");
    ctx_.home = c.string("home", env_home ? env_home : "");
    if (!ctx_.home.empty() && ctx_.home[0] != '/')
      throw ConfigError("/home", "must be an absolute path");

    read_roots_ = roots(c, "read_roots", c.strings("read_roots"));
    write_roots_ =
        c.has("write_roots") ? roots(c, "write_roots", c.strings("write_roots")) : read_roots_;

    std::vector<std::string> deny;
    if (c.boolean("builtin_deny", true)) deny = kBuiltinDeny;
    for (auto& d : c.strings("deny", std::vector<std::string>{})) {
      if (d.empty()) throw ConfigError("/deny", "deny patterns must not be empty");
      deny.push_back(std::move(d));
    }
    for (const auto& d : deny) deny_.emplace_back(d);

    if (c.has("arguments")) {
      const auto& a = c.array("arguments");
      // Empty, the guard would check no argument of any call.
      if (a.empty())
        throw ConfigError("/arguments",
                          "lists no arguments, so no path would be checked; leave it out for the "
                          "default pointers, or name the arguments that hold paths");
      for (std::size_t i = 0; i < a.size(); ++i) {
        ConfigObject e = ConfigObject::of(a[i], "/arguments/" + std::to_string(i));
        e.only({"tools", "pointers"});
        ArgumentSpec spec{NameGlobs(e.strings("tools", std::vector<std::string>{})),
                          e.strings("pointers")};
        if (spec.pointers.empty())
          throw ConfigError(e.path("pointers"),
                            "lists no pointers, so no path would be checked; name the arguments "
                            "that hold paths, such as \"/path\"");
        for (std::size_t k = 0; k < spec.pointers.size(); ++k)
          check_pointer_syntax(spec.pointers[k], e.path("pointers") + "/" + std::to_string(k));
        specs_.push_back(std::move(spec));
      }
    } else {
      specs_.push_back({NameGlobs(), kDefaultPointers});
    }
    write_tools_ = NameGlobs(c.strings("write_tools", std::vector<std::string>{}));
    if (c.has("write_tools") && write_tools_.empty())
      throw ConfigError("/write_tools", "list at least one tool glob, or leave the key out");
    unannotated_write_ =
        c.choice("unannotated", std::string("write"), {"write", "read"}) == "write";
    intersect_client_roots_ =
        c.choice("client_roots", std::string("ignore"), {"ignore", "intersect"}) == "intersect";

    init.guard("paths", [this](const sdk::Call& call) { return check(call); });
    // Every file a tool body writes or edits, on the path the host resolved:
    // the write roots and deny patterns hold for writes no argument string
    // revealed (a shell tool, a derived path, a link).
    init.fs_guard("writes", [this](const sdk::Call& call, const sdk::FsIntent& intent) {
      std::string denial = check_path(call, intent.edit ? "edit" : "write", intent.path, true);
      return denial.empty() ? sdk::GuardVerdict::abstain()
                            : sdk::GuardVerdict::deny(std::move(denial));
    });
  }

 private:
  // Roots are resolved once at init, so a root that is itself a symlink is
  // compared by the directory it names.
  std::vector<std::string> roots(const ConfigObject& c, const char* key,
                                 const std::vector<std::string>& in) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::string where = c.path(key) + "/" + std::to_string(i);
      if (in[i].empty() || in[i][0] != '/')
        throw ConfigError(where, "\"" + in[i] + "\" must be an absolute path");
      std::string why;
      auto r = resolve(in[i], ctx_, &why);
      if (!r) throw ConfigError(where, "\"" + in[i] + "\" " + why);
      out.push_back(r->real);
    }
    return out;
  }

  bool writes(const sdk::Call& call) const {
    const auto a = call.annotations();
    if (a & TG_TOOL_DESTRUCTIVE) return true;
    if (!write_tools_.empty() && write_tools_.matches(call.tool())) return true;
    if (a & TG_TOOL_READ_ONLY) return false;
    return unannotated_write_;
  }

  // The client's roots (ABI 1.6 client context "/roots"), resolved like
  // ours; nullopt when the client named none (then ours hold alone).  A
  // root that is not an absolute path or does not resolve is left out:
  // leaving one out only narrows.
  std::optional<std::vector<std::string>> client_roots(const sdk::Call& call) const {
    auto list = call.client_context("/roots");
    if (!list || list->type != TG_JSON_ARRAY) return std::nullopt;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < list->size; ++i) {
      auto v = call.client_context(("/roots/" + std::to_string(i)).c_str());
      if (!v || v->type != TG_JSON_STRING) continue;
      auto text = sdk::from_tg(v->string);
      std::string why;
      if (text.empty() || text[0] != '/') continue;
      if (auto r = resolve(text, ctx_, &why)) out.push_back(r->real);
    }
    return out;
  }

  // Our roots narrowed to the client's: each client root inside one of
  // ours, and each of ours inside a client root.
  static std::vector<std::string> intersect(const std::vector<std::string>& ours,
                                            const std::vector<std::string>& theirs) {
    std::vector<std::string> out;
    auto add = [&](const std::string& r) {
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    };
    for (const auto& m : ours)
      for (const auto& c : theirs) {
        if (within(c, m))
          add(c);
        else if (within(m, c))
          add(m);
      }
    return out;
  }

  // Checks one path string; returns a denial reason or "".
  std::string check_path(const sdk::Call& call, const std::string& pointer, std::string_view value,
                         bool write) const {
    const std::string_view tool = call.tool();
    // Built only for a denial: an allowed path costs no string building.
    auto head = [&] {
      return std::string(tool) + ": " + pointer + " \"" + std::string(value) + "\"";
    };
    std::string why;
    auto r = resolve(value, ctx_, &why);
    if (!r) return head() + " " + why;
    // Each path is split once for all the deny globs, and matched once
    // when no link made its real path differ.
    const auto lexical = path_segments(r->lexical);
    const bool linked = r->real != r->lexical;
    const auto real = linked ? path_segments(r->real) : std::vector<std::string_view>{};
    for (const auto& g : deny_)
      if (g.matches(lexical) || (linked && g.matches(real)))
        return head() + " resolves to \"" + r->real + "\", which matches the deny pattern \"" +
               g.text() + "\"";
    const auto& ours = write ? write_roots_ : read_roots_;
    std::optional<std::vector<std::string>> narrowed;
    if (intersect_client_roots_)
      if (auto theirs = client_roots(call)) narrowed = intersect(ours, *theirs);
    for (const auto& root : narrowed ? *narrowed : ours)
      if (within(r->real, root)) return "";
    const std::string kind = write ? "write" : "read";
    if (narrowed)
      return head() + " resolves to \"" + r->real + "\", outside the " + kind +
             " roots: the configured ones (" + describe_roots(ours) +
             ") narrowed to the client's roots, which leaves " +
             (narrowed->empty() ? std::string("none") : describe_roots(*narrowed));
    return head() + " resolves to \"" + r->real + "\", outside the " + kind + " roots (" +
           describe_roots(ours) + ")";
  }

  sdk::GuardVerdict check(const sdk::Call& call) const {
    LazyArgs args(call);
    const bool write = writes(call);
    std::string denial;
    auto visit = [&](const std::string& pointer, const tg_json_value& v) {
      if (!denial.empty()) return;
      if (v.type == TG_JSON_NULL) return;  // an optional path left out
      if (v.type == TG_JSON_STRING) {
        denial = check_path(call, pointer, sdk::from_tg(v.string), write);
      } else if (v.type == TG_JSON_ARRAY) {
        // A list of paths where one was expected: check every element.
        for (std::size_t i = 0; i < v.size && denial.empty(); ++i) {
          auto p = call.arg_string((pointer + "/" + std::to_string(i)).c_str());
          denial = p ? check_path(call, pointer + "/" + std::to_string(i), *p, write)
                     : std::string(call.tool()) + ": " + pointer + "/" + std::to_string(i) +
                           " is not a path string";
        }
      } else {
        denial = std::string(call.tool()) + ": " + pointer + " is not a path string";
      }
    };
    for (const auto& spec : specs_) {
      if (!spec.tools.matches(call.tool())) continue;
      for (const auto& p : spec.pointers) expand_pointer(args, p, visit);
      if (!denial.empty()) return sdk::GuardVerdict::deny(std::move(denial));
    }
    return sdk::GuardVerdict::abstain();
  }

  ResolveContext ctx_;
  std::vector<std::string> read_roots_, write_roots_;
  std::vector<PathGlob> deny_;
  std::vector<ArgumentSpec> specs_;
  NameGlobs write_tools_;
  bool unannotated_write_ = true;
  bool intersect_client_roots_ = false;
};

}  // namespace
}  // namespace tgp::paths

TOOLGATE_PLUGIN(tgp::paths::GuardPaths, "toolgate.guard-paths", "1.0.0",
                TG_CAP_GUARD | TG_CAP_FS_GUARD, 0)
