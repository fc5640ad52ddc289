#include "manifest.hpp"

#include "../strict_json.hpp"
#include "file_permissions.hpp"

#include <toolgate/host.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace toolgate::detail {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// Reads one manifest, keeping the file name for every error.
class Reader {
 public:
  explicit Reader(fs::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(std::string path, std::string what, std::string fix) const {
    throw LoadError(file_.string(), std::move(path), std::move(what), std::move(fix));
  }

  json::value parse(const std::string& text) const {
    if (text.size() >= 3 && text.compare(0, 3, "\xEF\xBB\xBF") == 0)
      fail("", "the file starts with a UTF-8 byte order mark (EF BB BF)",
           "save it as UTF-8 without a BOM (JSON text must not start with one)");
    StrictJsonOptions opt;
    opt.allow_comments = true;
    opt.allow_trailing_commas = true;
    opt.max_depth = 64;
    StrictJsonError e;
    auto v = parse_strict(text, opt, &e);
    if (v) return std::move(*v);
    if (e.duplicate_key)
      // The last copy used to win silently: a second "layer" unlocked a
      // locked layer, a second "plugins" dropped a guard.
      fail(e.pointer, e.message, "keep one \"" + e.key + "\" and merge what the copies say");
    fail("", "not valid JSON " + e.message,
         "fix the syntax there (comments and trailing commas are allowed)");
  }

  void only_keys(const json::object& o, const std::string& at,
                 std::initializer_list<std::string_view> keys) const {
    for (const auto& kv : o) {
      if (std::find(keys.begin(), keys.end(), kv.key()) != keys.end()) continue;
      std::string list;
      for (auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
      fail(at + "/" + pointer_token(kv.key()), "unknown key \"" + std::string(kv.key()) + "\"",
           "remove it, or use one of: " + list);
    }
  }

  const json::object& object(const json::value& v, const std::string& at,
                             const char* example) const {
    if (!v.is_object())
      fail(at, std::string("expected an object, found ") + kind(v),
           std::string("write ") + example);
    return v.get_object();
  }

  std::string string(const json::value& v, const std::string& at, const char* what) const {
    if (!v.is_string())
      fail(at, std::string("expected a string (") + what + "), found " + kind(v),
           "write it in double quotes");
    return std::string(v.get_string());
  }

  bool boolean(const json::value& v, const std::string& at) const {
    if (!v.is_bool())
      fail(at, std::string("expected true or false, found ") + kind(v), "use a JSON boolean");
    return v.get_bool();
  }

  int integer(const json::value& v, const std::string& at) const {
    if (!v.is_int64() || v.get_int64() < -1000000 || v.get_int64() > 1000000)
      fail(at, std::string("expected an integer between -1000000 and 1000000, found ") + kind(v),
           "write a whole number, e.g. 10");
    return static_cast<int>(v.get_int64());
  }

  std::vector<std::string> strings(const json::value& v, const std::string& at,
                                   const char* what) const {
    if (!v.is_array())
      fail(at, std::string("expected an array of strings (") + what + "), found " + kind(v),
           "write [\"...\", ...]");
    std::vector<std::string> out;
    std::size_t i = 0;
    for (const auto& x : v.get_array())
      out.push_back(string(x, at + "/" + std::to_string(i++), what));
    return out;
  }

  HookSettings settings(const json::value& v, const std::string& at) const {
    const auto& o = object(v, at, "{ \"priority\": 10, \"tools\": [\"fs.*\"] }");
    only_keys(o, at, {"priority", "before", "after", "tools", "mode", "enabled"});
    HookSettings s;
    s.json_path = at;
    if (auto* x = o.if_contains("priority")) s.priority = integer(*x, at + "/priority");
    if (auto* x = o.if_contains("before"))
      s.before = strings(*x, at + "/before", "hook or plugin ids");
    if (auto* x = o.if_contains("after"))
      s.after = strings(*x, at + "/after", "hook or plugin ids");
    if (auto* x = o.if_contains("tools")) s.tools = strings(*x, at + "/tools", "tool-name globs");
    if (auto* x = o.if_contains("mode")) {
      s.mode = string(*x, at + "/mode", "enforce or shadow");
      if (*s.mode != "enforce" && *s.mode != "shadow")
        fail(at + "/mode", "unknown mode \"" + *s.mode + "\"", "use \"enforce\" or \"shadow\"");
    }
    if (auto* x = o.if_contains("enabled")) s.enabled = boolean(*x, at + "/enabled");
    return s;
  }

  // A whole number in [lo, hi] (a size, a count, milliseconds).
  std::uint64_t bounded(const json::value& v, const std::string& at, std::uint64_t lo,
                        std::uint64_t hi) const {
    const bool whole = v.is_int64() ? v.get_int64() >= 0 : v.is_uint64();
    const std::uint64_t n = v.is_int64()    ? static_cast<std::uint64_t>(v.get_int64())
                            : v.is_uint64() ? v.get_uint64()
                                            : 0;
    if (!whole || n < lo || n > hi)
      fail(at, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi),
           "write a number in that range");
    return n;
  }

  CodeModeSection code_mode(const json::value& v) const {
    const std::string at = "/code_mode";
    const auto& o = object(v, at, "{ \"enabled\": true, \"sandbox\": \"bubblewrap\" }");
    only_keys(o, at,
              {"enabled", "sandbox", "timeout_ms", "max_timeout_ms", "max_sub_calls",
               "max_output_bytes", "memory_mb", "prestarted_runners"});
    CodeModeSection c;
    auto& opt = c.options;
    if (auto* x = o.if_contains("enabled")) c.enabled = boolean(*x, at + "/enabled");
    if (auto* x = o.if_contains("sandbox")) {
      auto sb = string(*x, at + "/sandbox", "bubblewrap or none");
      if (sb == "none")
        opt.sandbox = CodeModeOptions::Sandbox::none;
      else if (sb != "bubblewrap")
        fail(at + "/sandbox", "unknown sandbox \"" + sb + "\"",
             "use \"bubblewrap\" (the default) or \"none\" (scripts run unconfined: only where "
             "they are trusted)");
    }
    if (auto* x = o.if_contains("max_timeout_ms"))
      opt.max_timeout = std::chrono::milliseconds(bounded(*x, at + "/max_timeout_ms", 1, 3600000));
    if (auto* x = o.if_contains("timeout_ms"))
      opt.default_timeout = std::chrono::milliseconds(
          bounded(*x, at + "/timeout_ms", 1, static_cast<std::uint64_t>(opt.max_timeout.count())));
    if (opt.default_timeout > opt.max_timeout)
      fail(at + "/timeout_ms", "the default timeout is longer than max_timeout_ms",
           "lower timeout_ms or raise max_timeout_ms");
    if (auto* x = o.if_contains("max_sub_calls"))
      opt.max_sub_calls = bounded(*x, at + "/max_sub_calls", 1, 100000);
    if (auto* x = o.if_contains("max_output_bytes"))
      opt.max_output_bytes = bounded(*x, at + "/max_output_bytes", 0, 16u << 20);
    if (auto* x = o.if_contains("memory_mb"))
      opt.memory_bytes = bounded(*x, at + "/memory_mb", 256, 65536) << 20;
    if (auto* x = o.if_contains("prestarted_runners"))
      opt.prestarted_runners =
          static_cast<unsigned>(bounded(*x, at + "/prestarted_runners", 0, 64));
    return c;
  }

  static const char* kind(const json::value& v) {
    switch (v.kind()) {
      case json::kind::null:
        return "null";
      case json::kind::bool_:
        return "a boolean";
      case json::kind::int64:
      case json::kind::uint64:
      case json::kind::double_:
        return "a number";
      case json::kind::string:
        return "a string";
      case json::kind::array:
        return "an array";
      case json::kind::object:
        return "an object";
    }
    return "something else";
  }

 private:
  fs::path file_;
};

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
           ch == '_';
  });
}

bool valid_sha256(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char ch) {
           return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
         });
}

}  // namespace

Manifest read_manifest(const fs::path& file, bool allow_insecure_permissions) {
  Reader r(file);
  std::error_code fec;
  if (!fs::is_regular_file(file, fec))
    r.fail("", "the manifest does not exist or is not a regular file",
           "check the path (a folder loads its *.json files in name order)");
  // A manifest is policy as much as a plugin is: whoever can rewrite it
  // chooses the guards.  Checked before it is read, like the plugins.
  if (!allow_insecure_permissions)
    if (auto why = insecure_permissions(file); !why.empty())
      r.fail("", "refused: " + why + ", so another user could change the policy",
             "chmod go-w (and fix the owner) on the manifest and every folder above it, or pass "
             "--allow-insecure-plugin-permissions");
  // A manifest is a few kilobytes; a huge one is a mistake or an attack,
  // refused before it is read.
  if (auto size = fs::file_size(file, fec); !fec && size > kMaxManifestBytes)
    r.fail("",
           "the manifest is " + std::to_string(size) + " bytes, over the " +
               std::to_string(kMaxManifestBytes) + "-byte limit",
           "split it into layers, or move large data out of \"config\"");
  std::ifstream in(file, std::ios::binary);
  if (!in) r.fail("", "cannot read the manifest", "check its permissions");
  std::string text;
  {
    std::stringstream buf;
    buf << in.rdbuf();
    text = buf.str();
  }
  if (text.size() > kMaxManifestBytes)  // grew after the size check
    r.fail("", "the manifest is over the " + std::to_string(kMaxManifestBytes) + "-byte limit",
           "split it into layers, or move large data out of \"config\"");
  json::value doc = r.parse(text);
  const auto& root = r.object(doc, "", "{ \"toolgate\": 1, \"plugins\": [ ... ] }");
  r.only_keys(root, "", {"toolgate", "layer", "plugins", "overrides", "code_mode"});

  const auto* version = root.if_contains("toolgate");
  if (!version) r.fail("/toolgate", "missing the format version", "add \"toolgate\": 1 at the top");
  if (!(version->is_int64() && version->get_int64() == 1))
    r.fail("/toolgate", "unsupported manifest format version",
           "this host reads format 1: set \"toolgate\": 1");

  Manifest m;
  m.file = file;
  m.text = std::move(text);
  m.layer = file.stem().string();
  if (const auto* layer = root.if_contains("layer")) {
    const auto& o = r.object(*layer, "/layer", "{ \"name\": \"security\", \"locked\": true }");
    r.only_keys(o, "/layer", {"name", "locked"});
    if (auto* x = o.if_contains("name")) m.layer = r.string(*x, "/layer/name", "the layer's name");
    if (auto* x = o.if_contains("locked")) m.locked = r.boolean(*x, "/layer/locked");
  }

  if (const auto* cm = root.if_contains("code_mode")) m.code_mode = r.code_mode(*cm);

  const auto base = fs::absolute(file).parent_path();
  if (const auto* plugins = root.if_contains("plugins")) {
    if (!plugins->is_array())
      r.fail("/plugins", "expected an array of plugin entries",
             "write \"plugins\": [ {...}, ... ]");
    std::size_t i = 0;
    for (const auto& entry : plugins->get_array()) {
      std::string at = "/plugins/" + std::to_string(i++);
      const auto& o = r.object(entry, at, "{ \"id\": \"acme.fs\", \"path\": \"acme_fs.so\" }");
      r.only_keys(o, at, {"id", "path", "config", "enabled", "sha256", "hooks"});
      ManifestPlugin p;
      p.json_path = at;
      const auto* id = o.if_contains("id");
      if (!id)
        r.fail(at + "/id", "missing \"id\"",
               "set \"id\" to the plugin's declared id (toolgate inspect shows it)");
      p.id = r.string(*id, at + "/id", "the plugin's id");
      if (!valid_id(p.id))
        r.fail(at + "/id", "invalid id \"" + p.id + "\"",
               "use 1-128 lower-case letters, digits, '.', '-' and '_'");
      for (const auto& other : m.plugins)
        if (other.id == p.id)
          r.fail(at + "/id",
                 "duplicate plugin id \"" + p.id + "\" (also at " + other.json_path + ")",
                 "list each plugin once");
      const auto* path = o.if_contains("path");
      if (!path)
        r.fail(at + "/path", "missing \"path\"",
               "set \"path\" to the plugin file, relative to this manifest");
      std::string rel = r.string(*path, at + "/path", "the plugin file");
      if (rel.empty()) r.fail(at + "/path", "\"path\" is empty", "set it to the plugin file");
      if (rel.find('\0') != std::string::npos)
        // The C library would stop at the NUL and load whatever the prefix
        // names.
        r.fail(at + "/path", "\"path\" contains a NUL character (\\u0000)",
               "remove it: a file name cannot contain NUL");
      // Relative to the manifest, never through a library search path.
      fs::path pp(rel);
      p.path = pp.is_absolute() ? pp.lexically_normal() : (base / pp).lexically_normal();
      if (const auto* c = o.if_contains("config"))
        p.config = r.object(*c, at + "/config", "\"config\": { ... }");
      if (const auto* e = o.if_contains("enabled")) p.enabled = r.boolean(*e, at + "/enabled");
      if (const auto* s = o.if_contains("sha256")) {
        std::string d = r.string(*s, at + "/sha256", "64 hex digits");
        std::transform(d.begin(), d.end(), d.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        if (!valid_sha256(d))
          r.fail(at + "/sha256", "not a SHA-256 digest (64 hex digits)",
                 "compute it with: sha256sum " + rel);
        p.sha256 = d;
      }
      if (const auto* h = o.if_contains("hooks")) {
        const auto& hooks = r.object(*h, at + "/hooks", "{ \"hook-name\": { ... } }");
        for (const auto& kv : hooks)
          p.hooks.emplace_back(std::string(kv.key()),
                               r.settings(kv.value(), at + "/hooks/" + pointer_token(kv.key())));
      }
      m.plugins.push_back(std::move(p));
    }
  }
  if (const auto* ov = root.if_contains("overrides")) {
    const auto& o = r.object(*ov, "/overrides", "{ \"plugin-id/hook-name\": { ... } }");
    for (const auto& kv : o)
      m.overrides.emplace_back(std::string(kv.key()),
                               r.settings(kv.value(), "/overrides/" + pointer_token(kv.key())));
  }
  return m;
}

namespace {

// A name ending in .json in a manifest folder is a layer.  One that cannot
// be read as a file (a dangling symlink, a folder, a FIFO) used to be
// skipped, so the security layer it stood for vanished and calls ran
// without it; it is refused instead, naming what it is.
fs::path layer_file(const fs::directory_entry& e) {
  std::error_code ec;
  auto st = fs::status(e.path(), ec);
  if (st.type() == fs::file_type::regular) return e.path();
  std::error_code lec;
  const bool link = fs::is_symlink(fs::symlink_status(e.path(), lec));
  std::string what = link && st.type() == fs::file_type::not_found
                         ? "a dangling symlink (its target does not exist)"
                     : st.type() == fs::file_type::directory ? "a folder"
                     : ec                                    ? "unreadable (" + ec.message() + ")"
                                                             : "not a regular file";
  throw LoadError(e.path().string(), "",
                  "the manifest folder holds \"" + e.path().filename().string() + "\", which is " +
                      what + ": its layer cannot be loaded",
                  "restore the manifest it stands for, or remove it (or rename it so that its name "
                  "does not end in .json)");
}

}  // namespace

std::vector<fs::path> expand_manifest_paths(const std::vector<fs::path>& paths) {
  std::vector<fs::path> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      fs::directory_iterator it(p, ec);
      for (; !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->path().extension() == ".json") files.push_back(layer_file(*it));
      if (ec)
        throw LoadError(p.string(), "", "cannot read the manifest folder: " + ec.message(),
                        "check its permissions");
      // Byte-wise name order: predictable, locale-independent layering.
      std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
        return a.filename().string() < b.filename().string();
      });
      if (files.empty())
        throw LoadError(p.string(), "", "the folder has no *.json manifests",
                        "add a manifest or pass the file itself");
      out.insert(out.end(), files.begin(), files.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace toolgate::detail
