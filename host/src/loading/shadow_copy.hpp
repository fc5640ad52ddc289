// shadow_copy.hpp -- private, never-reused copies of plugin files.
//
// The dynamic loader caches images by path (and inode): dlopen of a rebuilt
// file at the same path may hand back the old image, and a linker writing
// into a mapped file can crash the process.  So every load during hot reload
// goes through a fresh copy in a folder only we can write to.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

namespace toolgate::detail {

class ShadowDir {
 public:
  // Creates a private (0700) folder under `parent`, or under $TMPDIR / /tmp.
  explicit ShadowDir(const std::filesystem::path& parent = {});
  ~ShadowDir();
  ShadowDir(const ShadowDir&) = delete;
  ShadowDir& operator=(const ShadowDir&) = delete;

  // Copies `source` to a new, unique file ("<id>.<n>.so") and returns its
  // path.  Throws std::runtime_error on I/O failure.
  std::filesystem::path copy(const std::filesystem::path& source, const std::string& id);
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::atomic<unsigned long> counter_{0};
};

}  // namespace toolgate::detail
