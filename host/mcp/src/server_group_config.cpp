// The servers file of `toolgate mcp --servers FILE` (server_group.hpp).
#include <toolgate/json.hpp>
#include <toolgate/mcp/server_group.hpp>

#include <boost/json/value.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Refuses a key of `o` not in `allowed`, naming it and the allowed ones.
bool only(const json::object& o, std::initializer_list<std::string_view> allowed,
          const std::string& where, std::string* why) {
  for (const auto& kv : o) {
    bool known = false;
    for (auto a : allowed) known |= kv.key() == a;
    if (known) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    *why = where + "/" + std::string(kv.key()) + ": unknown key; remove it or use one of: " + list;
    return false;
  }
  return true;
}

std::optional<std::string> string_at(const json::object& o, std::string_view key,
                                     const std::string& where, std::string* why, bool* bad) {
  const auto* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (!v->is_string() || v->get_string().empty()) {
    *why = where + "/" + std::string(key) + ": must be a non-empty string";
    *bad = true;
    return std::nullopt;
  }
  return std::string(v->get_string());
}

}  // namespace

std::optional<ServerGroupConfig> parse_server_group_config(std::string_view text,
                                                           std::string* why) {
  auto fail = [&](std::string w) -> std::optional<ServerGroupConfig> {
    *why = std::move(w);
    return std::nullopt;
  };
  std::string parse_why;
  auto v = parse_untrusted(text, 16, &parse_why);
  if (!v) return fail(parse_why);
  const auto* o = v->if_object();
  if (!o) return fail("a servers file is a JSON object");
  if (!only(*o, {"toolgate_servers", "separator", "servers"}, "", why)) return std::nullopt;
  const auto* version = o->if_contains("toolgate_servers");
  if (!version || !version->is_int64() || version->get_int64() != 1)
    return fail("/toolgate_servers: must be 1 (the servers file format's version)");
  ServerGroupConfig c;
  if (const auto* sep = o->if_contains("separator")) {
    const auto* s = sep->if_string();
    bool ok = s && !s->empty() && s->size() <= 2;
    if (ok)
      for (char ch : *s) ok &= ch == '.' || ch == '_' || ch == '-';
    if (!ok)
      return fail(
          "/separator: one or two of '.', '_' and '-' (MCP tool names allow no other "
          "punctuation)");
    c.separator = std::string(*s);
  }
  const auto* servers = o->if_contains("servers");
  if (!servers || !servers->is_array() || servers->get_array().empty())
    return fail(
        "/servers: list at least one server, e.g. [{\"name\": \"fs\", \"command\": [...]}]");
  std::set<std::string> names;
  for (std::size_t i = 0; i < servers->get_array().size(); ++i) {
    const std::string where = "/servers/" + std::to_string(i);
    const auto* s = servers->get_array()[i].if_object();
    if (!s) return fail(where + ": each server is an object with a \"name\"");
    if (!only(*s, {"name", "command", "url", "token_file", "ca_file", "prefix"}, where, why))
      return std::nullopt;
    ServerGroupConfig::Server server;
    bool bad = false;
    auto name = string_at(*s, "name", where, why, &bad);
    if (bad) return std::nullopt;
    if (!name) return fail(where + "/name: missing; each server has a name, its tools' prefix");
    bool ok = name->size() <= 64;
    for (char ch : *name) ok &= name_char(ch);
    if (!ok)
      return fail(where + "/name: 1 to 64 of A-Z, a-z, 0-9, '_' and '-' (got \"" + *name + "\")");
    if (!names.insert(*name).second)
      return fail(where + "/name: \"" + *name + "\" names two servers; names are unique");
    server.name = *name;
    if (const auto* p = s->if_contains("prefix")) {
      if (!p->is_bool())
        return fail(where + "/prefix: true (the default: tools are offered as NAME" + c.separator +
                    "TOOL) or false (under their own names)");
      server.prefixed = p->get_bool();
    }
    const auto* command = s->if_contains("command");
    auto url = string_at(*s, "url", where, why, &bad);
    if (bad) return std::nullopt;
    if ((command != nullptr) == url.has_value())
      return fail(where + ": give either \"command\" (a server on stdio) or \"url\" (over HTTP)");
    if (command) {
      const auto* a = command->if_array();
      if (!a || a->empty())
        return fail(where +
                    "/command: the server's command and arguments, e.g. [\"npx\", \"-y\", "
                    "\"@modelcontextprotocol/server-filesystem\", \"/srv\"]");
      for (std::size_t k = 0; k < a->size(); ++k) {
        const auto* arg = (*a)[k].if_string();
        if (!arg || (k == 0 && arg->empty()))
          return fail(where + "/command/" + std::to_string(k) + ": must be a string" +
                      (k == 0 ? " naming the program" : ""));
        server.command.emplace_back(*arg);
      }
      for (auto key : {"token_file", "ca_file"})
        if (s->contains(key))
          return fail(where + "/" + key + ": goes with \"url\" (a server over HTTP)");
    } else {
      if (!url->starts_with("http://") && !url->starts_with("https://"))
        return fail(where + "/url: an http:// or https:// URL, e.g. https://host/mcp");
      server.url = *url;
      if (auto f = string_at(*s, "token_file", where, why, &bad)) server.token_file = *f;
      if (bad) return std::nullopt;
      if (auto f = string_at(*s, "ca_file", where, why, &bad)) server.ca_file = *f;
      if (bad) return std::nullopt;
    }
    c.servers.push_back(std::move(server));
  }
  return c;
}

ServerGroupConfig read_server_group_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the servers file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  std::string why;
  auto c = parse_server_group_config(text.str(), &why);
  if (!c)
    throw std::runtime_error(file.string() + ": not a servers file: " + why +
                             " (host/README.md, \"Many servers\", shows one)");
  // Relative paths in it are relative to the file, as in manifests.
  const auto base = std::filesystem::absolute(file).parent_path();
  for (auto& s : c->servers)
    for (auto* p : {&s.token_file, &s.ca_file})
      if (!p->empty() && p->is_relative()) *p = base / *p;
  return std::move(*c);
}

}  // namespace toolgate::mcp
