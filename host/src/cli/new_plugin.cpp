// new_plugin.cpp -- `toolgate new-plugin NAME --lang c|cpp
//                    [--kind guard|pre|wrapper|post|observer] [--dir DIR]`
// Scaffolds a plugin project that builds against the installed SDK
// (find_package(toolgate CONFIG)) and tests itself with the installed
// toolgate: sources, CMakeLists.txt, a manifest, a README.  Never
// overwrites a file: if any would be, nothing is written.
#include "options.hpp"
#include "templates.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <regex>

namespace toolgate::cli {

namespace fs = std::filesystem;

namespace {

struct Kind {
  const char* name;
  const char* text;
};
constexpr Kind kinds[] = {{"guard", "guard"},
                          {"pre", "pre-execute hook"},
                          {"wrapper", "execute wrapper"},
                          {"post", "post-execute hook"},
                          {"observer", "result observer"}};

// Event types with these prefixes belong to the host; the observer
// template emits "NAME/observed".
constexpr const char* reserved_names[] = {"tool",   "tools", "hook",    "approval",
                                          "plugin", "batch", "observer"};

void check_name(const std::string& name) {
  static const std::regex valid("[a-z][a-z0-9_-]{0,47}");
  if (!std::regex_match(name, valid) || name.back() == '-' || name.back() == '_')
    throw UsageError("plugin name \"" + name +
                     "\" is not valid: start with a lower-case letter, then a-z, 0-9, - or _ "
                     "(at most 48 characters, not ending in - or _), e.g. my-guard");
  for (const char* r : reserved_names)
    if (name == r)
      throw UsageError("plugin name \"" + name +
                       "\" is reserved for the host's events; pick another");
}

std::string class_name(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '-' || c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string_view template_text(std::string_view path) {
  for (const auto& t : template_files())
    if (t.path == path) return t.text;
  throw std::logic_error("new-plugin: template " + std::string(path) + " is not embedded");
}

std::string fill(std::string_view text, const std::map<std::string, std::string>& vars) {
  std::string out(text);
  for (const auto& [key, value] : vars)
    for (std::size_t at = 0; (at = out.find(key, at)) != std::string::npos; at += value.size())
      out.replace(at, key.size(), value);
  return out;
}

void write_new(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  // O_EXCL: a file that appeared since the check is not overwritten either.
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot create " + file.string() + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

int run_new_plugin(const Args& args) {
  std::string name, lang, kind = "guard", dir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&]() -> std::string {
      if (i + 1 == args.size()) throw UsageError(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--lang")
      lang = value();
    else if (args[i] == "--kind")
      kind = value();
    else if (args[i] == "--dir")
      dir = value();
    else if (args[i].size() > 1 && args[i][0] == '-')
      throw UsageError("unknown option " + args[i]);
    else if (name.empty())
      name = args[i];
    else
      throw UsageError("new-plugin takes one NAME (got \"" + name + "\" and \"" + args[i] + "\")");
  }
  if (name.empty())
    throw UsageError("new-plugin needs a NAME, e.g. toolgate new-plugin my-guard --lang c");
  check_name(name);
  if (lang != "c" && lang != "cpp") throw UsageError("--lang takes c or cpp");
  const Kind* k = nullptr;
  for (const auto& candidate : kinds)
    if (kind == candidate.name) k = &candidate;
  if (!k) throw UsageError("--kind takes guard, pre, wrapper, post or observer");

  const bool cpp = lang == "cpp";
  const std::string source = name + (cpp ? ".cpp" : ".c");
  std::map<std::string, std::string> vars = {
      {"@NAME@", name},
      {"@ID@", name},
      {"@CLASS@", class_name(name)},
      {"@KIND@", kind},
      {"@KIND_TEXT@", k->text},
      {"@LANG@", lang},
      {"@LANG_TEXT@", cpp ? "C++" : "C"},
      {"@LANGUAGES@", cpp ? "CXX" : "C"},
      {"@SOURCE@", source},
      {"@LINK@", cpp ? " LINK Boost::json" : ""},
      {"@FIND_DEPENDENCIES@", cpp ? "# The C++ layer (toolgate/plugin.hpp) uses Boost.JSON.\n"
                                    "find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS json)\n"
                                  : ""},
  };
  // The tests first: they contain placeholders of their own.
  vars["@TESTS@"] = fill(template_text("tests/" + kind + ".cmake"), vars);

  const fs::path root = dir.empty() ? fs::path(name) : fs::path(dir);
  const std::vector<std::pair<fs::path, std::string>> files = {
      {root / "CMakeLists.txt", fill(template_text("CMakeLists.txt.in"), vars)},
      {root / "src" / source,
       fill(template_text(std::string(cpp ? "cpp/" : "c/") + kind + (cpp ? ".cpp" : ".c")), vars)},
      {root / (name + ".json"), fill(template_text("manifest.json"), vars)},
      {root / "README.md", fill(template_text("README.md"), vars)},
  };
  std::string existing;
  for (const auto& [file, text] : files) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(file, ec))) existing += "\n  " + file.string();
  }
  if (!existing.empty())
    throw std::runtime_error("refusing to overwrite existing files (nothing was written):" +
                             existing + "\nchoose another --dir, or move these files away");
  for (const auto& [file, text] : files) {
    write_new(file, text);
    std::printf("created %s\n", file.c_str());
  }
  std::printf(
      "\nnext:\n  cd %s\n  cmake -S . -B build && cmake --build build && ctest --test-dir build\n",
      root.c_str());
  return 0;
}

}  // namespace toolgate::cli
