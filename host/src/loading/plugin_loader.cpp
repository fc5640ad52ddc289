#include "plugin_loader.hpp"

#include "../abi/adapters.hpp"
#include "../abi/host_api.hpp"
#include "config_schema.hpp"
#include "elf_file.hpp"
#include "file_permissions.hpp"
#include "shadow_copy.hpp"

#include <toolgate/host.hpp>
#include <toolgate/json.hpp>

#include <openssl/evp.h>
#include <boost/dll/shared_library.hpp>
#include <boost/json/serialize.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string_view>
#include <vector>

namespace toolgate::detail {

namespace fs = std::filesystem;

namespace {

std::string version_str(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

struct Fail {
  const fs::path& manifest;
  const ManifestPlugin& plugin;
  [[noreturn]] void operator()(std::string what, std::string fix, std::string sub_path = "") const {
    throw LoadError(manifest.string(), plugin.json_path + sub_path,
                    "plugin \"" + plugin.id + "\" (" + plugin.path.string() + "): " + what,
                    std::move(fix));
  }
};

constexpr std::uint32_t known_caps = all_hook_capabilities() | TG_CAP_TOOLS;
constexpr std::uint32_t known_flags = TG_PLUGIN_SERIALIZED | TG_PLUGIN_NEVER_UNLOAD;

std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// The declared capabilities nothing was registered for, in words from the
// hook-kind table: "a guard (TG_CAP_GUARD)", "tools (TG_CAP_TOOLS)".
std::string unregistered(std::uint32_t missing) {
  std::vector<std::string> kinds;
  for (const auto& k : kHookKinds) {
    if (!(missing & k.capability)) continue;
    std::string macro = "TG_CAP_";
    for (char c : k.capability_name)
      macro += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const bool vowel = std::string_view("aeiou").find(k.noun.front()) != std::string_view::npos;
    std::string words = vowel ? "an " : "a ";
    words.append(k.noun).append(" (").append(macro).append(")");
    kinds.push_back(std::move(words));
  }
  if (missing & TG_CAP_TOOLS) kinds.push_back("tools (TG_CAP_TOOLS)");
  std::string out = "declared ";
  for (std::size_t i = 0; i < kinds.size(); ++i)
    out.append(i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ").append(kinds[i]);
  return out.append(kinds.size() == 1 ? " but registered none" : " but registered none of them");
}

// Checks the descriptor against what this host speaks.
void check_descriptor(const tg_plugin_descriptor* d, const ManifestPlugin& mp, const Fail& fail) {
  if (!d) fail("its entry returned no descriptor", "return a pointer to a static descriptor");
  // Negotiation (toolgate.h section 1): majors must match; the plugin's
  // minor is the oldest host minor it needs.  A descriptor from a newer SDK
  // may be longer than this host's: the fields it does not know are not
  // read (anything that must not be ignored comes with a capability or
  // flag bit, which is refused below when unknown).
  constexpr std::size_t min_size =
      offsetof(tg_plugin_descriptor, shutdown) + sizeof(tg_shutdown_fn);
  if (d->struct_size < min_size)
    fail("its descriptor has struct_size " + std::to_string(d->struct_size) +
             ", smaller than any toolgate descriptor (" + std::to_string(min_size) + " bytes)",
         "set struct_size = sizeof(tg_plugin_descriptor) and rebuild against the SDK");
  const std::string host_v = version_str(TOOLGATE_ABI_MAJOR, TOOLGATE_ABI_MINOR);
  const std::string plugin_v = version_str(d->abi_major, d->abi_minor);
  if (d->abi_major != TOOLGATE_ABI_MAJOR)
    fail("was built for ABI " + plugin_v + " but this host speaks ABI " + host_v +
             " (majors must match)",
         "rebuild the plugin against the toolgate SDK " + host_v);
  if (d->abi_minor > TOOLGATE_ABI_MINOR)
    fail("needs a host of ABI " + plugin_v + " or newer, and this host speaks ABI " + host_v,
         "upgrade toolgate, or rebuild the plugin for ABI " + host_v +
             " (set abi_minor to the oldest minor it needs and check newer host members with "
             "TOOLGATE_HOST_HAS)");
  std::string declared = d->id ? d->id : "";
  if (declared != mp.id)
    fail("declares id \"" + declared + "\" but the manifest says \"" + mp.id + "\"",
         "set \"id\": \"" + declared + "\" if this is the plugin you meant", "/id");
  if (!d->init) fail("its descriptor has no init function", "set .init in the descriptor");
  if (d->capabilities & ~known_caps)
    fail("declares capabilities this host does not know (" + hex(d->capabilities & ~known_caps) +
             ")",
         "rebuild against this SDK");
  if (d->flags & ~known_flags)
    fail("declares flags this host does not know (" + hex(d->flags & ~known_flags) + ")",
         "rebuild against this SDK");
}

// Strict mode: a bad build is refused with every problem and its fix.
void refuse_bad_build(const std::vector<BuildProblem>& problems, const Fail& fail) {
  if (problems.empty()) return;
  std::string what = "refused in strict mode: its build is wrong: ";
  std::string fix;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    what += (i ? "; " : "") + problems[i].code + ": " + problems[i].message;
    if (fix.find(problems[i].fix) == std::string::npos)
      fix += (fix.empty() ? "" : "; ") + problems[i].fix;
  }
  fail(what,
       fix +
           " (strict mode is on for toolgate mcp and with --strict; embedders: "
           "LoadOptions::strict_plugin_builds)",
       "/path");
}

// The descriptor's config_schema (ABI 1.2), when it has one: the config is
// checked against it before init may run.  A schema the host cannot fully
// enforce is the plugin's bug and fails the load (fail closed): the author
// believed those checks happen.
void check_config_schema(const tg_plugin_descriptor* d, const ManifestPlugin& mp,
                         const Fail& fail) {
  if (d->struct_size < offsetof(tg_plugin_descriptor, config_schema) + sizeof(const char*) ||
      !d->config_schema)
    return;  // built before ABI 1.2, or no schema declared
  SchemaError error;
  auto schema = ConfigSchema::compile(d->config_schema, error);
  if (!schema)
    fail("its config_schema cannot be used: at " + error.schema_pointer + " of the schema" +
             (error.keyword.empty() ? "" : " (keyword \"" + error.keyword + "\")") + ": " +
             error.message,
         "this is a bug in the plugin, not in the manifest: fix the config_schema in its source "
         "(sdk/README.md, \"Reading your config\", lists the JSON Schema subset toolgate "
         "checks) and rebuild it");
  if (auto v = schema->validate(boost::json::value(mp.config)))
    fail("config" + v->pointer + ": " + v->message,
         "change config" + (v->pointer.empty() ? std::string() : v->pointer) +
             " in the manifest to what the plugin accepts (its documentation lists its config "
             "keys); the plugin's init was not run",
         "/config" + v->pointer);
}

}  // namespace

std::string sha256_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is unavailable");
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    EVP_DigestUpdate(ctx.get(), buf, static_cast<std::size_t>(in.gcount()));
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &n);
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    char b[3];
    std::snprintf(b, sizeof b, "%02x", md[i]);
    out += b;
  }
  return out;
}

namespace {

// Where, and whether, the plugin file named by the manifest may be used:
// checked before its bytes are copied or hashed.
void check_plugin_source(const ManifestPlugin& mp, const LoaderOptions& options, const Fail& fail) {
  std::error_code fec;
  auto st = fs::status(mp.path, fec);
  if (st.type() == fs::file_type::directory)
    fail("the plugin path is a folder, not a file",
         "point \"path\" at the plugin's .so file inside it", "/path");
  if (st.type() != fs::file_type::regular)
    fail(st.type() == fs::file_type::not_found ? "the plugin file does not exist"
                                               : "the plugin path is not a regular file",
         "build the plugin, or fix \"path\" (it is relative to the manifest)", "/path");
  if (!options.allow_insecure_permissions)
    if (auto p = permission_problem(mp.path))
      fail("refused: " + p->why + ", so another user could replace the plugin", permission_fix(*p),
           "/path");
  // Before any byte is read: a huge (or sparse) file is refused at once,
  // not hashed for minutes.
  if (auto size = fs::file_size(mp.path, fec); !fec && size > kMaxPluginBytes)
    fail("the plugin file is " + std::to_string(size) + " bytes, over the " +
             std::to_string(kMaxPluginBytes) + "-byte limit",
         "check that \"path\" names the plugin's .so (a plugin is a few megabytes)", "/path");
}

// Plugins loaded without hot reload are copied too, into one private
// folder for the process: the pin is checked on the copy and the copy is
// loaded, so a file swapped between the hash and dlopen cannot run.
ShadowDir& private_copies() {
  static ShadowDir dir;
  return dir;
}

}  // namespace

std::string check_plugin_file(const ManifestPlugin& mp, const fs::path& manifest_file,
                              const LoaderOptions& options, const fs::path& load_from,
                              ElfImage* image) {
  const fs::path& file = load_from.empty() ? mp.path : load_from;
  Fail fail{manifest_file, mp};
  check_plugin_source(mp, options, fail);
  // Completeness first: a build still being written is "not ready yet",
  // not a SHA-256 mismatch.
  ElfImage img = read_elf(file);
  if (!img.problem.empty()) {
    std::string what = "cannot be loaded: the file " + img.problem;
    std::string fix = "wait for the build to finish, or rebuild the plugin";
    if (img.incomplete)
      throw PluginNotReady(manifest_file.string(), mp.json_path + "/path",
                           "plugin \"" + mp.id + "\" (" + mp.path.string() + "): " + what, fix);
    fail(std::move(what), std::move(fix), "/path");
  }
  std::string actual = sha256_file(file);
  if (mp.sha256) {
    if (actual != *mp.sha256)
      fail("SHA-256 mismatch: the manifest pins " + *mp.sha256 + " but the file is " + actual,
           "if the new build is intended, update \"sha256\" to " + actual, "/sha256");
  }
  // What the symbol tables show is refused before any of the plugin's
  // code runs (the probe's included); host-bound symbols need the image
  // loaded (load_plugin).
  if (options.strict_builds) {
    std::vector<BuildProblem> bad;
    for (auto& p : image_problems(img))
      if (p.bad_build) bad.push_back(std::move(p));
    refuse_bad_build(bad, fail);
  }
  if (image) *image = std::move(img);
  return actual;
}

std::shared_ptr<LoadedPlugin> load_plugin(const ManifestPlugin& mp, const fs::path& manifest_file,
                                          const LoaderOptions& options, const fs::path& load_from) {
  Fail fail{manifest_file, mp};
  auto inst = std::make_shared<PluginInstance>();
  fs::path file = load_from;
  if (file.empty()) {
    // What is checked is what runs: copy, then hash and load the copy.
    check_plugin_source(mp, options, fail);
    try {
      file = inst->owned_copy = private_copies().copy(mp.path, mp.id);
    } catch (const std::exception& e) {
      fail(std::string("cannot be copied to a private folder before loading: ") + e.what(),
           "check that $TMPDIR (or /tmp) is writable", "/path");
    }
  }
  ElfImage image;
  std::string actual = check_plugin_file(mp, manifest_file, options, file, &image);

  auto loaded = std::make_shared<LoadedPlugin>();
  inst->path = file.string();
  boost::dll::fs::error_code ec;
  // rtld_now: unresolved symbols fail here, not in the middle of a call.
  // rtld_local: a plugin's symbols never satisfy another plugin's.
  {
    std::lock_guard lock(image_lifecycle_mutex());  // see its comment
    inst->library.load(file, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                       ec);
  }
  if (ec) {
    const char* dl = dlerror();
    fail("cannot be loaded: " + (dl ? std::string(dl) : ec.message()),
         "check that it is a shared library for this platform and that its dependencies are "
         "installed",
         "/path");
  }
  if (!inst->library.has(TOOLGATE_ENTRY_SYMBOL))
    fail("does not export the entry symbol " TOOLGATE_ENTRY_SYMBOL,
         "define it with TOOLGATE_PLUGIN_ENTRY (C) or TOOLGATE_PLUGIN (C++) and build with "
         "toolgate_add_plugin");
  // Before the entry or init runs: strict refuses a bad build here.
  auto build_problems = bad_build_problems(image, inst->library.native());
  if (options.strict_builds) refuse_bad_build(build_problems, fail);
  auto entry = inst->library.get<const tg_plugin_descriptor*()>(TOOLGATE_ENTRY_SYMBOL);
  const tg_plugin_descriptor* d = entry();
  check_descriptor(d, mp, fail);
  check_config_schema(d, mp, fail);
  inst->id = mp.id;
  inst->version = d->version ? d->version : "";
  inst->capabilities = d->capabilities;
  inst->flags = d->flags;

  tg_init_ctx ctx;
  ctx.plugin = inst.get();
  ctx.config = &mp.config;
  const std::string config = to_json_text(mp.config);
  void* state = nullptr;
  tg_status st = d->init(host_api(), &ctx, tg_str{config.data(), config.size()}, &state);
  if (st == TG_OK) {
    inst->state = state;
    inst->initialized = true;
    inst->shutdown = d->shutdown;
  }
  if (ctx.config_rejection) {
    const auto& [pointer, message] = *ctx.config_rejection;
    std::string why = message;
    for (const auto& n : ctx.notes) why += "; " + n;
    fail("rejected its config at " + (pointer.empty() ? std::string("/") : pointer) + ": " + why,
         "fix that config value (see the plugin's documentation)", "/config" + pointer);
  }
  if (st != TG_OK || !ctx.errors.empty()) {
    std::string why;
    for (const auto& e : ctx.errors) why += (why.empty() ? "" : "; ") + e;
    if (why.empty()) why = "init returned status " + std::to_string(st);
    for (const auto& n : ctx.notes) why += "; " + n;
    fail("failed to initialise: " + why, "fix the plugin or its config");
  }
  std::uint32_t registered = ctx.tools.empty() ? 0u : static_cast<std::uint32_t>(TG_CAP_TOOLS);
  for (const auto& h : ctx.hooks)
    registered |= info(static_cast<HookKind>(h.fn.index())).capability;
  if (std::uint32_t missing = d->capabilities & ~registered)
    fail(unregistered(missing),
         "register a callback of each declared kind in init, or drop the capability from the "
         "descriptor");

  loaded->instance = inst;
  loaded->id = mp.id;
  loaded->path = mp.path;
  loaded->sha256 = actual;
  loaded->config = mp.config;
  if (d->struct_size >= offsetof(tg_plugin_descriptor, import_state) + sizeof(tg_import_state_fn)) {
    loaded->export_state = d->export_state;
    loaded->import_state = d->import_state;
  }
  loaded->version = inst->version;
  loaded->build_problems = std::move(build_problems);
  for (auto& h : ctx.hooks)
    loaded->hooks.push_back({h.name, h.tools, h.priority, adapt_hook(inst, h.fn, h.user_data),
                             h.verdict
                                 ? adapt_verdict(inst, h.verdict, h.user_data, mp.id + "/" + h.name)
                                 : DeniesAlwaysFn()});
  for (auto& t : ctx.tools) loaded->tools.push_back(adapt_tool(inst, t));
  return loaded;
}

std::string build_warning(const LoadedPlugin& plugin, const BuildProblem& problem) {
  return "plugin \"" + plugin.id + "\" (" + plugin.path.string() +
         ") is built wrong, loaded anyway (" + problem.code + "): " + problem.message +
         "; fix: " + problem.fix + " (--strict refuses such a build)";
}

}  // namespace toolgate::detail
