// The manifest reader (host/src/loading/manifest.cpp) on arbitrary file
// contents.  Each input is written to one private file (in a 0700 folder
// made once) and read back with read_manifest: it must return a manifest
// that keeps the reader's promises, or throw LoadError naming the file.
// Any other exception, a crash or a sanitizer report is a finding.
#include "fuzz_check.hpp"
#include "loading/manifest.hpp"

#include <toolgate/host.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>

#include <stdlib.h>

namespace fs = std::filesystem;

namespace {

// The folder is removed at a normal exit; a crash leaves it in $TMPDIR.
struct PrivateFile {
  fs::path dir, file;
  PrivateFile() {
    std::string tmpl = (fs::temp_directory_path() / "toolgate-fuzz-manifest-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    file = dir / "fuzz.json";
  }
  ~PrivateFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'))
      return false;
  return true;
}

void check_settings(const toolgate::detail::HookSettings& s) {
  if (s.priority) FUZZ_CHECK(*s.priority >= -1000000 && *s.priority <= 1000000);
  if (s.mode) FUZZ_CHECK(*s.mode == "enforce" || *s.mode == "shadow");
  FUZZ_CHECK(!s.json_path.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static PrivateFile tmp;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  {
    std::ofstream out(tmp.file, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    FUZZ_CHECK(out.good());
  }
  try {
    auto m = toolgate::detail::read_manifest(tmp.file, /*allow_insecure_permissions=*/true);
    FUZZ_CHECK(m.text == text);
    FUZZ_CHECK(m.file == tmp.file);
    std::set<std::string> ids;
    for (const auto& p : m.plugins) {
      FUZZ_CHECK(valid_id(p.id));
      FUZZ_CHECK(ids.insert(p.id).second);
      FUZZ_CHECK(p.path.is_absolute());
      FUZZ_CHECK(p.path.string().find('\0') == std::string::npos);
      if (p.sha256) {
        FUZZ_CHECK(p.sha256->size() == 64);
        for (char c : *p.sha256) FUZZ_CHECK((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
      }
      for (const auto& [name, s] : p.hooks) check_settings(s);
    }
    for (const auto& [target, s] : m.overrides) check_settings(s);
  } catch (const toolgate::LoadError& e) {
    FUZZ_CHECK(e.file() == tmp.file.string());
    FUZZ_CHECK(!e.problem().empty());
    FUZZ_CHECK(!e.fix().empty());
  }
  return 0;
}
