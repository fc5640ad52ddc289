#include "writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tgp::audit {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void sys_fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

void lock_fd(int fd, const fs::path& path) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) sys_fail("cannot lock " + path.string());
}

void create_parent(const fs::path& p) {
  if (!p.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec)
    throw std::runtime_error("cannot create the folder " + p.parent_path().string() + ": " +
                             ec.message());
}

// Opens `p` for appending (created 0600 if missing), never through a
// symbolic link and only if it is a regular file.  `what` names the file in
// messages ("the audit log"), `fix_key` the config key to change.
int open_append(const fs::path& p, const std::string& what, const std::string& fix_key,
                struct stat* st) {
  const std::string name = what + " " + p.string();
  // O_NOFOLLOW: a link planted at the path must not redirect the writes
  // (the host may run as root).  O_NONBLOCK: a FIFO there must not hang us.
  const int fd =
      ::open(p.c_str(),
             O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
  if (fd < 0) {
    const int err = errno;
    struct stat l {};
    if (err == ELOOP && ::lstat(p.c_str(), &l) == 0 && S_ISLNK(l.st_mode))
      throw std::runtime_error(name +
                               " is a symbolic link; refusing to follow it (a link planted there "
                               "could make the audit plugin create or overwrite another file): "
                               "remove the link, or set \"" +
                               fix_key + "\" to the real file");
    if (err == ENXIO)
      throw std::runtime_error(name + " is a FIFO or socket, not a regular file: set \"" + fix_key +
                               "\" to a file");
    errno = err;
    sys_fail("cannot open " + name);
  }
  if (::fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    ::close(fd);
    throw std::runtime_error(name + " is not a regular file: set \"" + fix_key + "\" to a file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace

Writer::Writer(WriterOptions o) : o_(std::move(o)) {
  std::string field = "path";  // the config key an error is about
  auto cleanup = [this] {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
      fd_ = -1;
    }
    if (anchor_fd_ >= 0) {
      ::close(anchor_fd_);
      anchor_fd_ = -1;
    }
  };
  try {
    create_parent(o_.path);
    open_active();
    lock_current();
    try {
      refresh_head();
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(
          std::string(e.what()) +
          "; the chain cannot be continued: check the log with `toolgate audit verify`, "
          "then move the file aside (a new chain starts) or repair it");
    }
    if (!o_.anchor.empty()) {
      field = "anchor_file";
      open_anchor();
    }
    ::flock(fd_, LOCK_UN);
  } catch (const OpenError&) {
    cleanup();
    throw;
  } catch (const std::exception& e) {
    cleanup();
    throw OpenError(field, e.what());
  }
}

Writer::~Writer() {
  if (fd_ < 0) return;
  if (unsynced_ > 0 || (anchor_fd_ >= 0 && head_.seq > anchored_seq_)) {
    // Make the last records durable and anchor them, under the lock (so the
    // anchor file stays in seq order with other writers).
    try {
      lock_current();
      refresh_head();
      durable_point();
    } catch (...) {
      if (o_.fsync.mode != Durability::never && fd_ >= 0) ::fdatasync(fd_);
    }
    if (fd_ >= 0) ::flock(fd_, LOCK_UN);
  }
  if (fd_ >= 0) ::close(fd_);
  if (anchor_fd_ >= 0) ::close(anchor_fd_);
}

void Writer::open_active() {
  struct stat st {};
  const int fd = open_append(o_.path, "the audit log", "path", &st);
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  ino_ = st.st_ino;
  dev_ = st.st_dev;
  size_known_ = false;
}

void Writer::open_anchor() {
  const std::string a = o_.anchor.string();
  if (o_.anchor == o_.path)
    throw OpenError("anchor_file",
                    "names the audit log itself; the anchor must be a separate file, best on "
                    "another volume or host or append-only (chattr +a)");
  create_parent(o_.anchor);
  struct stat st {};
  anchor_fd_ = open_append(o_.anchor, "the anchor file", "anchor_file", &st);
  if (st.st_ino == ino_ && st.st_dev == dev_)
    throw OpenError("anchor_file", "the anchor file " + a +
                                       " is the audit log itself (a hard link?); the anchor must "
                                       "be a separate file");
  std::optional<std::string> last;
  try {
    last = read_last_line(o_.anchor);
  } catch (const std::exception& e) {
    throw OpenError("anchor_file", "cannot continue the anchor file: " + std::string(e.what()) +
                                       "; inspect it with `toolgate audit verify --anchor " + a +
                                       " LOG...`");
  }
  if (last) {
    std::string why;
    auto anchor = parse_anchor(*last, &why);
    if (!anchor)
      throw OpenError("anchor_file", "the last line of the anchor file " + a + ": " + why);
    const std::string start_over =
        ": the chain cannot be continued; check it with `toolgate audit verify --anchor " + a +
        " LOG...`, then move the log (with its rotated files) and the anchor file aside to "
        "start a new chain";
    if (anchor->seq > head_.seq)
      throw OpenError("path", "the audit log " + o_.path.string() + " ends at seq " +
                                  std::to_string(head_.seq) + ", but its anchor file " + a +
                                  " anchors seq " + std::to_string(anchor->seq) +
                                  ": records were cut off the end of the log, or it was "
                                  "replaced" +
                                  start_over);
    if (anchor->seq == head_.seq && anchor->hash != head_.hash)
      throw OpenError("path", "the last record of the audit log " + o_.path.string() + " (seq " +
                                  std::to_string(head_.seq) + ") does not match its anchor in " +
                                  a + ": the log was rewritten" + start_over);
    anchored_seq_ = anchor->seq;
  }
  // A log older than its anchor file, or a stop between a record and its
  // anchor: anchor the head now.
  if (head_.seq > anchored_seq_) {
    write_anchor();
    if (o_.fsync.mode != Durability::never) sync(anchor_fd_, o_.anchor);
  }
}

void Writer::lock_current() {
  for (;;) {
    lock_fd(fd_, o_.path);
    struct stat by_path {};
    if (::lstat(o_.path.c_str(), &by_path) == 0 && by_path.st_ino == ino_ && by_path.st_dev == dev_)
      return;
    // Rotated (or removed, or replaced) by another writer: follow the active
    // file -- open_active refuses a link planted in its place.
    ::flock(fd_, LOCK_UN);
    open_active();
  }
}

void Writer::refresh_head() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) sys_fail("cannot stat " + o_.path.string());
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size_known_ && size == size_) return;
  head_ = read_chain_head(o_.path, o_.key.get());  // someone else appended (or first use)
  size_ = size;
  size_known_ = true;
}

void Writer::sync(int fd, const fs::path& path) {
  if (::fdatasync(fd) != 0) sys_fail("fsync of " + path.string() + " failed");
}

void Writer::write_anchor() {
  std::string line = anchor_line(head_);
  if (anchor_torn_) line.insert(0, "\n");  // keep a torn line on a line of its own
  struct stat st {};
  const bool sized = ::fstat(anchor_fd_, &st) == 0;
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(anchor_fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      // Remove a partial line if we can (not in an append-only file).
      if (done > 0 && (!sized || ::ftruncate(anchor_fd_, st.st_size) != 0)) anchor_torn_ = true;
      throw std::runtime_error("record seq " + std::to_string(head_.seq) + " is in the audit log " +
                               o_.path.string() + ", but its anchor cannot be appended to " +
                               o_.anchor.string() + ": " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  anchor_torn_ = false;
  anchored_seq_ = head_.seq;
}

void Writer::durable_point() {
  const bool syncs = o_.fsync.mode != Durability::never;
  if (syncs) sync(fd_, o_.path);
  unsynced_ = 0;
  if (anchor_fd_ < 0 || head_.seq == 0 || head_.seq <= anchored_seq_) return;
  write_anchor();
  if (syncs) sync(anchor_fd_, o_.anchor);
}

void Writer::rotate() {
  std::uint64_t index = 1;
  auto existing = rotated_files(o_.path);
  if (!existing.empty()) index = existing.back().first + 1;
  const fs::path target = rotated_name(o_.path, index);
  durable_point();  // the old file's last record is durable and anchored
  auto taken = [&](bool link) {
    return std::runtime_error("cannot rotate " + o_.path.string() + " to " + target.string() +
                              ": it already exists" + (link ? " as a symbolic link" : "") +
                              " (planted there?); the plugin never replaces a file: move it "
                              "aside");
  };
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0) throw taken(S_ISLNK(st.st_mode));
  // RENAME_NOREPLACE: nothing put there since the check is replaced either.
  if (::renameat2(AT_FDCWD, o_.path.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) throw taken(::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode));
    if (errno != EINVAL && errno != ENOSYS)
      sys_fail("cannot rotate " + o_.path.string() + " to " + target.string());
    // A file system without RENAME_NOREPLACE: the check above has to do.
    if (::rename(o_.path.c_str(), target.c_str()) != 0)
      sys_fail("cannot rotate " + o_.path.string() + " to " + target.string());
  }
  if (o_.fsync.mode != Durability::never) {
    const fs::path dir = o_.path.has_parent_path() ? o_.path.parent_path() : fs::path(".");
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  const int old = fd_;
  fd_ = -1;
  try {
    open_active();  // the new, empty active file
  } catch (...) {
    ::close(old);
    throw;
  }
  ::close(old);  // releases the old file's lock
  lock_current();
}

void Writer::append(const std::string& body) {
  std::lock_guard guard(mutex_);
  if (fd_ < 0) open_active();
  lock_current();
  struct Unlock {
    Writer* w;
    ~Unlock() {
      if (w->fd_ >= 0) ::flock(w->fd_, LOCK_UN);
    }
  } unlock{this};
  refresh_head();
  auto make = [&] {
    std::string unsealed;
    unsealed.reserve(128 + body.size() + kSealSize);
    unsealed += "{\"v\":1,";
    if (o_.key) {
      unsealed += "\"chain\":\"";
      unsealed += kKeyedChain;
      unsealed += "\",";
    }
    unsealed += "\"seq\":";
    unsealed += std::to_string(head_.seq + 1);
    unsealed += ",\"prev\":\"";
    unsealed += head_.hash;
    unsealed += '"';
    unsealed += body;
    return unsealed;
  };
  std::string hash;
  std::string line = seal(make(), &hash, o_.key.get()) + "\n";
  if (line.size() - 1 > kMaxRecordBytes)
    throw std::runtime_error("a record of " + std::to_string(line.size() - 1) +
                             " bytes is over the " + std::to_string(kMaxRecordBytes) +
                             "-byte limit of an audit record line; it was not written to " +
                             o_.path.string());
  if (o_.max_bytes && size_ > 0 && size_ + line.size() > o_.max_bytes) {
    rotate();
    refresh_head();
    line = seal(make(), &hash, o_.key.get()) + "\n";
  }
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      // Leave no torn record behind: the next record must chain cleanly.
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) size_known_ = false;
      errno = err;
      sys_fail("cannot append to the audit log " + o_.path.string());
    }
    done += static_cast<std::size_t>(n);
  }
  size_ += line.size();
  head_ = Head{head_.seq + 1, std::move(hash)};
  ++unsynced_;
  if (o_.fsync.mode == Durability::every_n && unsynced_ < o_.fsync.every) return;
  durable_point();
}

}  // namespace tgp::audit
