// writer.hpp -- appends sealed records to the active audit file: chain
// head, durability (fsync policy), size-based rotation, locking.
#pragma once

#include "chain.hpp"

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

namespace tgp::audit {

enum class Durability { always, every_n, never };
struct FsyncPolicy {
  Durability mode = Durability::always;
  std::uint64_t every = 1;  // every_n: fsync after this many records
};

struct WriterOptions {
  std::filesystem::path path;  // the active file
  FsyncPolicy fsync;
  std::uint64_t max_bytes = 0;  // 0: never rotate
};

class Writer {
 public:
  // Opens (creating, mode 0600) the active file and reads the chain head;
  // throws std::runtime_error with a message that says how to fix it.
  explicit Writer(WriterOptions o);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record; `body` is the record text after "prev", starting
  // with ',' and without the closing brace.  Throws on I/O failure (the file
  // is then left as it was before the call).
  void append(const std::string& body);

 private:
  void open_active();   // (re)opens path_; sets fd_, ino_
  void lock_current();  // flock on the active file, reopening if rotated
  void refresh_head();  // under the lock: re-read the head if others wrote
  void rotate();        // under the lock
  void sync(int fd);

  WriterOptions o_;
  std::mutex mutex_;
  int fd_ = -1;
  std::uint64_t ino_ = 0, dev_ = 0;
  std::uint64_t size_ = 0;  // size of the active file after our last write
  bool size_known_ = false;
  Head head_;
  std::uint64_t unsynced_ = 0;
};

}  // namespace tgp::audit
