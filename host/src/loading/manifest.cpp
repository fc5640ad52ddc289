#include "manifest.hpp"

#include "../json_util.hpp"

#include <toolgate/host.hpp>

#include <boost/json/parse.hpp>

#include <fstream>
#include <sstream>

namespace toolgate::detail {

namespace json = boost::json;

namespace {

[[noreturn]] void fail(const std::filesystem::path& f, std::string path,
                       std::string what, std::string fix) {
  throw LoadError(f.string(), std::move(path), std::move(what), std::move(fix));
}

void only_keys(const std::filesystem::path& f, const json::object& o,
               const std::string& at, std::initializer_list<std::string_view> keys) {
  for (const auto& kv : o) {
    bool known = false;
    for (auto k : keys) known = known || kv.key() == k;
    if (known) continue;
    std::string list;
    for (auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(f, at + "/" + std::string(kv.key()),
         "unknown key \"" + std::string(kv.key()) + "\"",
         "remove it or use one of: " + list);
  }
}

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char ch : id)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
          ch == '-' || ch == '_'))
      return false;
  return true;
}

}  // namespace

Manifest read_manifest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    fail(file, "", "cannot open the manifest", "check that the file exists and is readable");
  std::stringstream buf;
  buf << in.rdbuf();
  json::parse_options opt;
  opt.allow_comments = true;
  opt.allow_trailing_commas = true;
  opt.max_depth = 64;
  boost::system::error_code ec;
  json::value doc = json::parse(buf.str(), ec, {}, opt);
  if (ec)
    fail(file, "", "not valid JSON: " + ec.message(),
         "fix the syntax (comments and trailing commas are allowed)");
  if (!doc.is_object()) fail(file, "", "the manifest must be a JSON object", "wrap it in { }");
  const auto& root = doc.get_object();
  only_keys(file, root, "", {"toolgate", "plugins"});
  if (auto v = root.if_contains("toolgate"); v && !(v->is_int64() && v->get_int64() == 1))
    fail(file, "/toolgate", "unsupported manifest format version",
         "this host reads format 1: set \"toolgate\": 1");
  Manifest m;
  m.file = file;
  const auto* plugins = root.if_contains("plugins");
  if (!plugins) return m;
  if (!plugins->is_array())
    fail(file, "/plugins", "\"plugins\" must be an array", "write \"plugins\": [ {...}, ... ]");
  const auto base = std::filesystem::absolute(file).parent_path();
  std::size_t i = 0;
  for (const auto& entry : plugins->get_array()) {
    std::string at = "/plugins/" + std::to_string(i++);
    if (!entry.is_object())
      fail(file, at, "a plugin entry must be an object",
           "write { \"id\": ..., \"path\": ... }");
    const auto& o = entry.get_object();
    only_keys(file, o, at, {"id", "path", "config", "enabled"});
    ManifestPlugin p;
    p.json_path = at;
    const auto* id = o.if_contains("id");
    if (!id || !id->is_string())
      fail(file, at + "/id", "missing or non-string \"id\"",
           "set \"id\" to the plugin's declared id (toolgate inspect shows it)");
    p.id = id->get_string();
    if (!valid_id(p.id))
      fail(file, at + "/id", "invalid id \"" + p.id + "\"",
           "use lower-case letters, digits, '.', '-' and '_'");
    for (const auto& other : m.plugins)
      if (other.id == p.id)
        fail(file, at + "/id", "duplicate plugin id \"" + p.id + "\"",
             "each plugin may appear once; remove the duplicate");
    const auto* path = o.if_contains("path");
    if (!path || !path->is_string() || path->get_string().empty())
      fail(file, at + "/path", "missing or non-string \"path\"",
           "set \"path\" to the plugin file, relative to this manifest");
    std::filesystem::path rel(std::string(path->get_string()));
    // Relative to the manifest, never through a library search path.
    p.path = rel.is_absolute() ? rel : (base / rel).lexically_normal();
    if (const auto* c = o.if_contains("config")) {
      if (!c->is_object())
        fail(file, at + "/config", "\"config\" must be an object", "write \"config\": { ... }");
      p.config = c->get_object();
    }
    if (const auto* e = o.if_contains("enabled")) {
      if (!e->is_bool())
        fail(file, at + "/enabled", "\"enabled\" must be true or false", "use a JSON boolean");
      p.enabled = e->get_bool();
    }
    m.plugins.push_back(std::move(p));
  }
  return m;
}

}  // namespace toolgate::detail
