#include "fs_tools.hpp"

#include <boost/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace toolgate::fs_tools {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

struct Workspace {
  fs::path root;  // canonical
  Options options;

  bool inside(const fs::path& resolved) const {
    auto [r, _] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
    return r == root.end();
  }
  // The host's resolution follows a dangling link to where a write would
  // create the file; that is the path that must be in the workspace.
  std::optional<std::string> outside(const FsDecision& d) const {
    if (inside(fs::path(d.path))) return std::nullopt;
    return d.path + " is outside the workspace " + root.string() + " (through a link)";
  }

  // The workspace path an argument names, or a failure saying why not.
  // Resolved like the host resolves it (links followed, `..` collapsed),
  // so "inside" means what the write would really touch.
  std::optional<fs::path> locate(const json::object& args, const char* key, std::string* why,
                                 bool optional = false) const {
    const json::value* v = args.if_contains(key);
    std::string rel = optional && !v ? "." : "";
    if (v && v->is_string()) rel = std::string(v->get_string());
    if (rel.empty()) {
      *why = std::string("\"") + key + "\" must be a non-empty string: a path in the workspace";
      return std::nullopt;
    }
    fs::path p(rel);
    if (p.is_relative()) p = root / p;
    std::error_code ec;
    fs::path resolved = fs::weakly_canonical(p, ec);
    if (ec) {
      *why = "cannot resolve " + rel + ": " + ec.message();
      return std::nullopt;
    }
    if (!inside(resolved)) {
      *why = rel + " resolves to " + resolved.string() + ", outside the workspace " + root.string();
      return std::nullopt;
    }
    return resolved;
  }

  std::optional<std::string> read_text(const fs::path& p, std::string* why) const {
    std::error_code ec;
    auto size = fs::file_size(p, ec);
    if (ec) {
      *why = "cannot read " + p.string() + ": " + ec.message();
      return std::nullopt;
    }
    if (size > options.max_file_bytes) {
      *why = p.string() + " is " + std::to_string(size) + " bytes, over the " +
             std::to_string(options.max_file_bytes) + "-byte limit of the file tools";
      return std::nullopt;
    }
    std::ifstream in(p, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    if (!in && !in.eof()) {
      *why = "cannot read " + p.string();
      return std::nullopt;
    }
    std::string text = buf.str();
    if (text.find('\0') != std::string::npos) {
      *why = p.string() + " is not a text file (it holds NUL bytes)";
      return std::nullopt;
    }
    return text;
  }

  // Writes `p`, the path the fs gate resolved and checked (absolute, no
  // links), without following a link anywhere on it: one put there after
  // the check -- by another process, or a tool racing this one -- makes
  // the write fail instead of landing where the gate never looked.  Each
  // folder is opened from the one before with O_NOFOLLOW, then the file.
  static bool write_all(const fs::path& p, std::string_view text, std::string* why) {
    auto fail = [&](const std::string& what, int error = errno) {
      *why = "cannot write " + p.string() + ": " + what + " (" + std::strerror(error) + ")";
      return false;
    };
    if (!p.is_absolute() || !p.has_filename()) return fail("not an absolute file path");
    int dir = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return fail("cannot open /");
    const fs::path folders = p.parent_path().relative_path();
    for (const auto& part : folders) {
      const int next = ::openat(dir, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      const int error = errno;
      ::close(dir);
      if (next < 0)
        return fail(error == ELOOP || error == ENOTDIR
                        ? "the folder " + part.string() + " is a link now, or no folder"
                        : "cannot open the folder " + part.string(),
                    error);
      dir = next;
    }
    const int fd = ::openat(dir, p.filename().c_str(),
                            O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    const int error = errno;
    ::close(dir);
    if (fd < 0) return fail(error == ELOOP ? "the file is a link now" : "cannot open it", error);
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::close(fd);
        return fail("the write failed");
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) return fail("the write failed");
    return true;
  }
};

json::object schema(std::initializer_list<std::pair<const char*, const char*>> props,
                    std::initializer_list<const char*> required) {
  json::object p;
  for (auto [name, type] : props) p[name] = {{"type", type}};
  json::array req;
  for (auto r : required) req.emplace_back(r);
  return {
      {"type", "object"}, {"properties", p}, {"required", req}, {"additionalProperties", false}};
}

}  // namespace

std::vector<ToolDefinition> tools(const Options& options) {
  std::error_code ec;
  auto root = fs::canonical(options.workspace, ec);
  if (ec || !fs::is_directory(root))
    throw std::invalid_argument("the file tools' workspace " + options.workspace.string() +
                                " is not an existing folder");
  auto ws = std::make_shared<const Workspace>(Workspace{root, options});
  std::vector<ToolDefinition> out;

  ToolDefinition read;
  read.name = "fs.read";
  read.description = "Reads a text file of the workspace " + root.string() +
                     ". Read a file before changing it: an edit or overwrite of a file not read "
                     "in this session, or changed since, is refused.";
  read.input_schema = schema({{"path", "string"}}, {"path"});
  read.annotations = annotation::read_only | annotation::idempotent;
  read.execute = [ws](const ToolContext& ctx) {
    std::string why;
    auto p = ws->locate(ctx.call.arguments, "path", &why);
    if (!p) return ToolOutput::failure(why);
    auto text = ws->read_text(*p, &why);
    if (!text) return ToolOutput::failure(why);
    ctx.observed(p->string());
    return ToolOutput::success(json::object{{"path", p->string()}, {"content", *text}},
                               json::array{json::object{{"type", "text"}, {"text", *text}}});
  };
  out.push_back(std::move(read));

  ToolDefinition write;
  write.name = "fs.write";
  write.description = "Creates or overwrites a text file of the workspace " + root.string() +
                      ". Overwriting an existing file needs a read of it first.";
  write.input_schema = schema({{"path", "string"}, {"content", "string"}}, {"path", "content"});
  write.annotations = annotation::destructive;
  write.execute = [ws](const ToolContext& ctx) {
    std::string why;
    auto p = ws->locate(ctx.call.arguments, "path", &why);
    if (!p) return ToolOutput::failure(why);
    const json::value* content = ctx.call.arguments.if_contains("content");
    if (!content || !content->is_string())
      return ToolOutput::failure("\"content\" must be a string: the file's new text");
    auto d = ctx.write_intent(p->string());
    if (!d) return ToolOutput::failure(d.reason);
    if (auto o = ws->outside(d)) return ToolOutput::failure(*o);
    std::error_code ec;
    const bool created = !fs::exists(d.path, ec);
    if (!Workspace::write_all(d.path, content->get_string(), &why)) return ToolOutput::failure(why);
    ctx.observed(d.path);  // the session now knows what it wrote
    return ToolOutput::success(json::object{
        {"path", d.path}, {"bytes", content->get_string().size()}, {"created", created}});
  };
  out.push_back(std::move(write));

  ToolDefinition edit;
  edit.name = "fs.edit";
  edit.description = "Replaces the exact text `old` with `new` in a file of the workspace " +
                     root.string() +
                     " (once; all occurrences with replace_all). Read the file first.";
  edit.input_schema =
      schema({{"path", "string"}, {"old", "string"}, {"new", "string"}, {"replace_all", "boolean"}},
             {"path", "old", "new"});
  edit.annotations = annotation::destructive;
  edit.execute = [ws](const ToolContext& ctx) {
    const auto& a = ctx.call.arguments;
    std::string why;
    auto p = ws->locate(a, "path", &why);
    if (!p) return ToolOutput::failure(why);
    const json::value* old_v = a.if_contains("old");
    const json::value* new_v = a.if_contains("new");
    if (!old_v || !old_v->is_string() || old_v->get_string().empty() || !new_v ||
        !new_v->is_string())
      return ToolOutput::failure("\"old\" (non-empty) and \"new\" must be strings");
    const json::value* all_v = a.if_contains("replace_all");
    const bool all = all_v && all_v->is_bool() && all_v->get_bool();
    auto d = ctx.edit_intent(p->string());
    if (!d) return ToolOutput::failure(d.reason);
    if (auto o = ws->outside(d)) return ToolOutput::failure(*o);
    auto text = ws->read_text(d.path, &why);
    if (!text) return ToolOutput::failure(why);
    const std::string_view from = old_v->get_string(), to = new_v->get_string();
    std::size_t count = 0;
    for (auto at = text->find(from); at != std::string::npos;
         at = text->find(from, at + from.size()))
      ++count;
    if (count == 0) return ToolOutput::failure("the text to replace is not in " + d.path);
    if (count > 1 && !all)
      return ToolOutput::failure("the text to replace is in " + d.path + " " +
                                 std::to_string(count) +
                                 " times; include more context, or set replace_all");
    std::string result;
    std::size_t last = 0;
    for (auto at = text->find(from); at != std::string::npos; at = text->find(from, last)) {
      result.append(*text, last, at - last).append(to);
      last = at + from.size();
      if (!all) break;
    }
    result.append(*text, last, std::string::npos);
    if (!Workspace::write_all(d.path, result, &why)) return ToolOutput::failure(why);
    ctx.observed(d.path);
    return ToolOutput::success(json::object{{"path", d.path}, {"replacements", all ? count : 1}});
  };
  out.push_back(std::move(edit));

  ToolDefinition list;
  list.name = "fs.list";
  list.description = "Lists a folder of the workspace " + root.string() + " (default: its root).";
  list.input_schema = schema({{"path", "string"}}, {});
  list.annotations = annotation::read_only | annotation::idempotent;
  list.execute = [ws](const ToolContext& ctx) {
    std::string why;
    auto p = ws->locate(ctx.call.arguments, "path", &why, true);
    if (!p) return ToolOutput::failure(why);
    std::error_code ec;
    std::vector<json::object> entries;
    bool cut = false;
    for (fs::directory_iterator it(*p, ec), end; !ec && it != end; it.increment(ec)) {
      if (entries.size() == ws->options.max_entries) {
        cut = true;
        break;
      }
      const auto& e = *it;
      std::error_code e2;
      const char* type = e.is_symlink(e2)        ? "link"
                         : e.is_directory(e2)    ? "folder"
                         : e.is_regular_file(e2) ? "file"
                                                 : "other";
      json::object o{{"name", e.path().filename().string()}, {"type", type}};
      if (std::string_view(type) == "file") o["size"] = e.file_size(e2);
      entries.push_back(std::move(o));
    }
    if (ec) return ToolOutput::failure("cannot list " + p->string() + ": " + ec.message());
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      return a.at("name").as_string() < b.at("name").as_string();
    });
    json::array arr;
    for (auto& e : entries) arr.push_back(std::move(e));
    json::object v{{"path", p->string()}, {"entries", std::move(arr)}};
    if (cut) v["truncated_at"] = ws->options.max_entries;
    return ToolOutput::success(std::move(v));
  };
  out.push_back(std::move(list));
  return out;
}

}  // namespace toolgate::fs_tools
