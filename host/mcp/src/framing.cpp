#include "framing.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>

namespace toolgate::mcp {

namespace {
bool blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}
}  // namespace

void LineSplitter::complete(std::vector<Frame>& out) {
  if (discarding_) {
    out.push_back({Frame::Kind::oversize, {}, discarded_, scanner_.answer_id()});
    discarding_ = false;
    discarded_ = 0;
    scanner_ = EnvelopeScanner();
    return;
  }
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  // A carriage return inside the line is whitespace to JSON (inside a
  // string it would have to be escaped), but a peer that ends lines at CR
  // -- node's readline, Python's text-mode stdin, which the official
  // Python SDK reads -- would read the relayed text as several messages,
  // one of them a request no hook saw.  It is relayed as a space.
  std::replace(line_.begin(), line_.end(), '\r', ' ');
  if (!blank(line_)) {
    std::size_t n = line_.size();
    out.push_back({Frame::Kind::message, std::move(line_), n, std::nullopt});
  }
  line_.clear();
}

void LineSplitter::feed(std::string_view bytes, std::vector<Frame>& out) {
  while (!bytes.empty()) {
    auto nl = bytes.find('\n');
    std::string_view part = bytes.substr(0, nl);
    if (discarding_) {
      discarded_ += part.size();
      scanner_.feed(part);
    } else if (line_.size() + part.size() > max_) {
      discarding_ = true;
      discarded_ = line_.size() + part.size();
      scanner_.feed(line_);
      scanner_.feed(part);
      line_.clear();
      line_.shrink_to_fit();
    } else {
      line_.append(part);
    }
    if (nl == std::string_view::npos) return;
    complete(out);
    bytes.remove_prefix(nl + 1);
  }
}

std::optional<Frame> LineSplitter::finish() {
  std::vector<Frame> out;
  if (discarding_ || !line_.empty()) complete(out);
  if (out.empty()) return std::nullopt;
  return std::move(out.front());
}

LineReader::LineReader(int fd, std::size_t max_bytes) : fd_(fd), splitter_(max_bytes) {
  if (::pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
}

LineReader::~LineReader() {
  for (int f : wake_)
    if (f >= 0) ::close(f);
}

void LineReader::wake() {
  if (wake_[1] >= 0) {
    char c = 1;
    [[maybe_unused]] auto n = ::write(wake_[1], &c, 1);
  }
}

bool LineReader::more_waiting() const {
  if (pos_ < ready_.size()) return true;
  if (eof_) return false;
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

std::optional<Frame> LineReader::next() {
  while (true) {
    if (pos_ < ready_.size()) return std::move(ready_[pos_++]);
    ready_.clear();
    pos_ = 0;
    if (eof_) return std::nullopt;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    int n = ::poll(fds, wake_[0] >= 0 ? 2 : 1, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      eof_ = true;
      continue;
    }
    if (wake_[0] >= 0 && (fds[1].revents & POLLIN)) {
      eof_ = true;
      return std::nullopt;
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[65536];
    ssize_t got = ::read(fd_, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      eof_ = true;
      if (auto last = splitter_.finish()) ready_.push_back(std::move(*last));
      continue;
    }
    splitter_.feed(std::string_view(buf, static_cast<std::size_t>(got)), ready_);
  }
}

bool LineWriter::write(std::string_view message) {
  std::lock_guard lock(mutex_);
  if (broken_) return false;
  // The message and its newline in one system call, without copying the
  // message to append the newline.
  static const char newline = '\n';
  iovec parts[2] = {{const_cast<char*>(message.data()), message.size()},
                    {const_cast<char*>(&newline), 1}};
  iovec* next = parts;
  int left = 2;
  while (left > 0) {
    ssize_t n = ::writev(fd_, next, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken_ = true;
      return false;
    }
    // A partial write: skip what went, and go on from there.
    for (auto done = static_cast<std::size_t>(n); left > 0 && done > 0;) {
      const std::size_t part = std::min(done, next->iov_len);
      next->iov_base = static_cast<char*>(next->iov_base) + part;
      next->iov_len -= part;
      done -= part;
      if (next->iov_len == 0) ++next, --left;
    }
  }
  return true;
}

void LineWriter::shut() {
  std::lock_guard lock(mutex_);
  broken_ = true;
}

bool LineWriter::broken() const {
  std::lock_guard lock(mutex_);
  return broken_;
}

}  // namespace toolgate::mcp
