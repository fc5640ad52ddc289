#include "socket_server.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <thread>

namespace toolgate::serve {

namespace fs = std::filesystem;

namespace {

std::runtime_error failure(const fs::path& path, const std::string& what, const std::string& fix) {
  return std::runtime_error(path.string() + ": " + what + "; " + fix);
}

std::string errno_text() { return std::strerror(errno); }

sockaddr_un address_of(const fs::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string& p = path.native();
  if (p.size() >= sizeof addr.sun_path)
    throw failure(path,
                  "a socket path may be at most " + std::to_string(sizeof addr.sun_path - 1) +
                      " bytes, this one is " + std::to_string(p.size()),
                  "choose a shorter --socket path");
  std::memcpy(addr.sun_path, p.data(), p.size());
  return addr;
}

// The folder holding the socket: created private, or checked to be ours and
// not writable by anyone else (who could otherwise swap the socket).
void prepare_folder(const fs::path& folder, const std::optional<gid_t>& group) {
  const mode_t mode = group ? 0750 : 0700;
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0) {
    if (errno != ENOENT) throw failure(folder, "cannot be read: " + errno_text(), "check the path");
    if (::mkdir(folder.c_str(), mode) != 0)
      throw failure(folder, "cannot be created: " + errno_text(),
                    "create it, owned by the daemon's user, or choose another --socket");
    if (group && ::chown(folder.c_str(), static_cast<uid_t>(-1), *group) != 0)
      throw failure(folder, "cannot be given the group: " + errno_text(),
                    "run the daemon as root or as a member of the group");
    if (::chmod(folder.c_str(), mode) != 0)  // mkdir's mode went through the umask
      throw failure(folder, "cannot be made private: " + errno_text(), "check the path");
    return;
  }
  if (!S_ISDIR(st.st_mode))
    throw failure(folder, "is not a folder (or is a symbolic link)",
                  "remove it or choose another --socket");
  if (st.st_uid != ::geteuid())
    throw failure(folder, "belongs to uid " + std::to_string(st.st_uid) + ", not the daemon's user",
                  "remove it or choose another --socket: someone else could replace the socket");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw failure(folder, "is writable by other users",
                  "chmod go-w it, or choose another --socket");
}

// A socket file already there: another daemon's (refuse) or a stale one
// left by a daemon that died (removed).
void clear_stale_socket(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (!S_ISSOCK(st.st_mode))
    throw failure(path, "exists and is not a socket", "remove it or choose another --socket");
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto addr = address_of(path);
  bool live = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (fd >= 0) ::close(fd);
  if (live)
    throw failure(path, "another toolgate serve is listening on it",
                  "stop that daemon first, or choose another --socket");
  ::unlink(path.c_str());
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string user_name(uid_t uid) {
  passwd pw{}, *found = nullptr;
  char buf[1024];
  if (::getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found) return pw.pw_name;
  return "uid " + std::to_string(uid);
}

}  // namespace

std::optional<fs::path> default_socket_path(std::string* why) {
  if (const char* env = std::getenv("TOOLGATE_SOCKET"); env && *env) return fs::path(env);
  if (::geteuid() == 0) return fs::path("/run/toolgate/toolgate.sock");
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg)
    return fs::path(xdg) / "toolgate" / "toolgate.sock";
  *why =
      "no socket path: XDG_RUNTIME_DIR is not set and the daemon does not run as root; pass "
      "--socket PATH or set TOOLGATE_SOCKET";
  return std::nullopt;
}

SocketServer::SocketServer(ServerOptions options, Protocol& protocol)
    : options_(std::move(options)), protocol_(protocol) {
  const fs::path& path = options_.socket_path;
  if (path.empty() || !path.has_parent_path())
    throw failure(path, "is not a usable socket path",
                  "give an absolute path ending in a file name");
  auto addr = address_of(path);
  prepare_folder(path.parent_path(), options_.group);
  clear_stale_socket(path);
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw failure(path, "socket() failed: " + errno_text(), "check the limits");
  // Bound with no permission for anyone else: there is no moment at which
  // the socket exists with a wider mode than the one it keeps.
  mode_t old = ::umask(0177);
  int bound = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  int bind_errno = errno;
  ::umask(old);
  if (bound != 0) {
    ::close(listen_fd_);
    errno = bind_errno;
    throw failure(path, "cannot bind: " + errno_text(), "check the folder and its permissions");
  }
  if (options_.group) {
    if (::chown(path.c_str(), static_cast<uid_t>(-1), *options_.group) != 0 ||
        ::chmod(path.c_str(), 0660) != 0) {
      std::string why = errno_text();
      ::close(listen_fd_);
      ::unlink(path.c_str());
      throw failure(path, "cannot be given the group: " + why,
                    "run the daemon as root or as a member of the group");
    }
  }
  if (::listen(listen_fd_, 128) != 0) {
    std::string why = errno_text();
    ::close(listen_fd_);
    ::unlink(path.c_str());
    throw failure(path, "cannot listen: " + why, "check the limits");
  }
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

SocketServer::~SocketServer() {
  stop();
  std::unique_lock lock(done_mutex_);
  done_.wait_for(lock, std::chrono::seconds(10), [&] { return active_.load() == 0; });
  lock.unlock();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::unlink(options_.socket_path.c_str());
  if (active_.load() == 0 && stop_fd_ >= 0) ::close(stop_fd_);
}

void SocketServer::stop() {
  stopping_ = true;
  std::uint64_t one = 1;
  if (stop_fd_ >= 0) (void)!::write(stop_fd_, &one, sizeof one);
}

bool SocketServer::peer_allowed(int fd, std::string* who, std::string* space) const {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    *who = "a peer whose credentials cannot be read";
    return false;
  }
  *who = user_name(cred.uid) + " (uid " + std::to_string(cred.uid) + ")";
  // Another user's call ids live apart from the daemon's own user's.
  if (cred.uid != ::geteuid()) *space = "u" + std::to_string(cred.uid) + ":";
  if (cred.uid == ::geteuid()) return true;
  for (uid_t u : options_.allowed_uids)
    if (u == cred.uid) return true;
  return options_.group && cred.gid == *options_.group;
}

void SocketServer::run() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (fds[1].revents & POLLIN)) break;
    if (!(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: the pending connection stays, so the listening
      // socket stays readable -- wait instead of spinning.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    std::string who, space;
    if (!peer_allowed(fd, &who, &space)) {
      write_all(fd, Protocol::error_answer(protocol_error::not_allowed,
                                           who + " may not use this daemon; start it with "
                                                 "--allow-user for that user") +
                        "\n");
      ::close(fd);
      continue;
    }
    if (active_.load() >= options_.max_connections) {
      write_all(
          fd, Protocol::error_answer(protocol_error::too_large,
                                     "the daemon already serves " + std::to_string(active_.load()) +
                                         " connections (its --max-connections); try again") +
                  "\n");
      ::close(fd);
      continue;
    }
    ++active_;
    try {
      std::thread([this, fd, space] { serve_connection(fd, space); }).detach();
    } catch (const std::system_error&) {  // no thread to be had: refuse, serve on
      ::close(fd);
      std::lock_guard lock(done_mutex_);
      --active_;
    }
  }
  // Connections see the stop through stop_fd_ and end.
  std::unique_lock lock(done_mutex_);
  done_.wait_for(lock, std::chrono::seconds(10), [&] { return active_.load() == 0; });
}

void SocketServer::serve_connection(int fd, const std::string& space) {
  timeval send_timeout{5, 0};  // a client that never reads cannot hold the thread
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  std::string buffer;
  char chunk[65536];
  bool open = true;
  std::size_t scanned = 0;  // no newline before this offset: not searched again
  while (open && !stopping_) {
    // Answer every complete line already read.
    std::size_t start = 0;
    for (std::size_t nl;
         open && (nl = buffer.find('\n', std::max(start, scanned))) != std::string::npos;
         start = nl + 1) {
      std::string_view line(buffer.data() + start, nl - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) continue;
      open = write_all(fd, protocol_.answer(line, space) + "\n");
    }
    buffer.erase(0, start);
    scanned = buffer.size();
    if (!open) break;
    if (buffer.size() > options_.max_message_bytes) {
      write_all(fd, Protocol::error_answer(
                        protocol_error::too_large,
                        "a request line is over " + std::to_string(options_.max_message_bytes) +
                            " bytes (the daemon's --max-message-bytes); send less") +
                        "\n");
      break;
    }
    pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(options_.idle_timeout.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || (fds[1].revents & POLLIN)) break;  // idle, stopping, or an error
    ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(got));
  }
  ::close(fd);
  {
    std::lock_guard lock(done_mutex_);
    --active_;
  }
  done_.notify_all();
}

}  // namespace toolgate::serve
