// writer.hpp -- appends sealed records to the active audit file: chain
// head, durability (fsync policy), size-based rotation, locking, the
// optional key (a keyed chain) and anchor file.
#pragma once

#include "chain.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
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
  // Seal records with HMAC-SHA256 under this key (a keyed chain).
  std::shared_ptr<const Key> key;
  // Append the chain head here each time the log is made durable (empty:
  // no anchor file).
  std::filesystem::path anchor;
};

// A failure to open the log, naming the config key it is about ("path",
// "anchor_file").
class OpenError : public std::runtime_error {
 public:
  OpenError(std::string key, const std::string& what)
      : std::runtime_error(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

class Writer {
 public:
  // Opens (creating, mode 0600) the active file -- never through a symbolic
  // link -- and the anchor file, and reads the chain head; throws OpenError
  // with a message that says how to fix it.
  explicit Writer(WriterOptions o);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends one record; `body` is the record text after "prev", starting
  // with ',' and without the closing brace.  Throws on I/O failure (the file
  // is then left as it was before the call; a failure to write the anchor
  // after the record was appended says so).
  void append(const std::string& body);

 private:
  void open_active();   // (re)opens path_; sets fd_, ino_
  void open_anchor();   // opens the anchor file; checks it against head_
  void lock_current();  // flock on the active file, reopening if rotated
  void refresh_head();  // under the lock: re-read the head if others wrote
  void rotate();        // under the lock
  void sync(int fd, const std::filesystem::path& path);
  // Under the lock: the log is made durable (per the fsync policy) and the
  // head is anchored.
  void durable_point();
  void write_anchor();

  WriterOptions o_;
  std::mutex mutex_;
  int fd_ = -1;
  std::uint64_t ino_ = 0, dev_ = 0;
  std::uint64_t size_ = 0;  // size of the active file after our last write
  bool size_known_ = false;
  Head head_;
  std::uint64_t unsynced_ = 0;  // records appended since the last durable point
  int anchor_fd_ = -1;
  std::uint64_t anchored_seq_ = 0;  // the last seq this writer anchored
  bool anchor_torn_ = false;        // a partial anchor line could not be removed
};

}  // namespace tgp::audit
