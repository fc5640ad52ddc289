#include "framing.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
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
  std::string line;
  line.reserve(message.size() + 1);
  line.append(message);
  line.push_back('\n');
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t n = ::write(fd_, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken_ = true;
      return false;
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
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
