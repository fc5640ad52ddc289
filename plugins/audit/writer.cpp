#include "writer.hpp"

#include <cerrno>
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

}  // namespace

Writer::Writer(WriterOptions o) : o_(std::move(o)) {
  if (o_.path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(o_.path.parent_path(), ec);
    if (ec)
      throw std::runtime_error("cannot create the folder " + o_.path.parent_path().string() + ": " +
                               ec.message());
  }
  open_active();
  lock_current();
  try {
    refresh_head();
  } catch (const std::runtime_error& e) {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
    fd_ = -1;
    throw std::runtime_error(
        std::string(e.what()) +
        "; the chain cannot be continued: check the log with `toolgate audit verify`, "
        "then move the file aside (a new chain starts) or repair it");
  }
  ::flock(fd_, LOCK_UN);
}

Writer::~Writer() {
  if (fd_ < 0) return;
  if (o_.fsync.mode != Durability::never && unsynced_) ::fdatasync(fd_);
  ::close(fd_);
}

void Writer::open_active() {
  const int fd = ::open(o_.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) sys_fail("cannot open the audit log " + o_.path.string());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("the audit log " + o_.path.string() + " is not a regular file");
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
  ino_ = st.st_ino;
  dev_ = st.st_dev;
  size_known_ = false;
}

void Writer::lock_current() {
  for (;;) {
    lock_fd(fd_, o_.path);
    struct stat by_path {};
    if (::stat(o_.path.c_str(), &by_path) == 0 && by_path.st_ino == ino_ && by_path.st_dev == dev_)
      return;
    // Rotated (or removed) by another writer: follow the active file.
    ::flock(fd_, LOCK_UN);
    open_active();
  }
}

void Writer::refresh_head() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) sys_fail("cannot stat " + o_.path.string());
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size_known_ && size == size_) return;
  head_ = read_chain_head(o_.path);  // someone else appended (or first use)
  size_ = size;
  size_known_ = true;
}

void Writer::sync(int fd) {
  if (::fdatasync(fd) != 0) sys_fail("fsync of " + o_.path.string() + " failed");
}

void Writer::rotate() {
  std::uint64_t index = 1;
  auto existing = rotated_files(o_.path);
  if (!existing.empty()) index = existing.back().first + 1;
  const fs::path target = rotated_name(o_.path, index);
  if (o_.fsync.mode != Durability::never) sync(fd_);
  unsynced_ = 0;
  if (::rename(o_.path.c_str(), target.c_str()) != 0)
    sys_fail("cannot rotate " + o_.path.string() + " to " + target.string());
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
    unsealed.reserve(96 + body.size() + kSealSize);
    unsealed += "{\"v\":1,\"seq\":";
    unsealed += std::to_string(head_.seq + 1);
    unsealed += ",\"prev\":\"";
    unsealed += head_.hash;
    unsealed += '"';
    unsealed += body;
    return unsealed;
  };
  std::string hash;
  std::string line = seal(make(), &hash) + "\n";
  if (o_.max_bytes && size_ > 0 && size_ + line.size() > o_.max_bytes) {
    rotate();
    refresh_head();
    line = seal(make(), &hash) + "\n";
  }
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      // Leave no torn record behind: the next record must chain cleanly.
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) size_known_ = false;
      errno = err;
      sys_fail("cannot append to the audit log " + o_.path.string());
    }
    done += static_cast<std::size_t>(n);
  }
  size_ += line.size();
  head_ = Head{head_.seq + 1, std::move(hash)};
  switch (o_.fsync.mode) {
    case Durability::always:
      sync(fd_);
      break;
    case Durability::every_n:
      if (++unsynced_ >= o_.fsync.every) {
        sync(fd_);
        unsynced_ = 0;
      }
      break;
    case Durability::never:
      break;
  }
}

}  // namespace tgp::audit
