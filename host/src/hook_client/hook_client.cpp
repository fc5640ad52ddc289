#include "hook_client.hpp"

#include "strict_json.hpp"

#include <toolgate/json.hpp>

#include <boost/json/serialize.hpp>
#include <boost/json/value_to.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

namespace toolgate::hook_client {

namespace json = boost::json;
namespace fs = std::filesystem;
using agent_hooks::AgentFormat;
using agent_hooks::HookReply;
using agent_hooks::HookRequest;
using agent_hooks::Phase;

namespace {

// The protocol's error code for a complete the daemon does not know.
constexpr std::string_view unknown_call = "unknown_call";

constexpr std::size_t max_payload_bytes = 64u << 20;

std::string read_stdin() {
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw HookFailure(std::string("cannot read the hook payload: ") + strerror(errno));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_payload_bytes)
      throw HookFailure("the hook payload is over " + std::to_string(max_payload_bytes >> 20) +
                        " MiB; toolgate refuses it rather than read it partly");
  }
  return text;
}

class DaemonDecider final : public Decider {
 public:
  DaemonDecider(fs::path path, std::chrono::milliseconds timeout)
      : path_(std::move(path)), deadline_(std::chrono::steady_clock::now() + timeout) {}
  ~DaemonDecider() override {
    if (fd_ >= 0) ::close(fd_);
  }

  json::object ask(const json::object& request) override {
    if (fd_ < 0) connect();
    std::string line = to_json_text(request) + "\n";
    for (std::size_t done = 0; done < line.size();) {
      wait_for(POLLOUT);
      ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        // A daemon that refuses a peer answers why and closes before
        // reading: that answer is the better message.
        std::string why = strerror(errno);
        if (auto refusal = read_pending_answer()) return std::move(*refusal);
        throw unreachable("sending failed: " + why);
      }
      done += static_cast<std::size_t>(n);
    }
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string answer = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        std::string why;
        auto v = parse_untrusted(answer, 64, &why);
        if (!v || !v->is_object())
          throw HookFailure("the daemon's answer is not a JSON object (" + why +
                            "); is the socket really toolgate serve's?");
        return std::move(v->get_object());
      }
      wait_for(POLLIN);
      char buf[65536];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw unreachable("the daemon closed the connection without answering");
      buffer_.append(buf, static_cast<std::size_t>(n));
      if (buffer_.size() > max_payload_bytes) throw HookFailure("the daemon's answer is too large");
    }
  }

 private:
  HookFailure unreachable(const std::string& what) const {
    return HookFailure("cannot get an answer from the toolgate daemon at " + path_.string() + ": " +
                       what +
                       "; start it (`toolgate serve`, or `systemctl --user start toolgate`), "
                       "point --socket / TOOLGATE_SOCKET at it, or use --no-daemon");
  }

  // An answer already waiting on the socket, without blocking.
  std::optional<json::object> read_pending_answer() {
    char buf[65536];
    ssize_t n;
    while ((n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT)) > 0)
      buffer_.append(buf, static_cast<std::size_t>(n));
    auto nl = buffer_.find('\n');
    if (nl == std::string::npos) return std::nullopt;
    std::string why;
    auto v = parse_untrusted(std::string_view(buffer_).substr(0, nl), 64, &why);
    if (!v || !v->is_object()) return std::nullopt;
    return std::move(v->get_object());
  }

  void connect() {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.native().size() >= sizeof addr.sun_path) throw unreachable("the path is too long");
    std::memcpy(addr.sun_path, path_.c_str(), path_.native().size());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd_ < 0) throw unreachable(std::string("socket(): ") + strerror(errno));
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 &&
        errno != EINPROGRESS && errno != EAGAIN)
      throw unreachable(strerror(errno));
  }

  void wait_for(short events) {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        throw HookFailure(
            "the toolgate daemon at " + path_.string() +
            " did not answer within the hook's bound (--timeout-ms); the call is refused "
            "rather than let through -- check the daemon's log for a slow plugin");
      pollfd p{fd_, events, 0};
      int n = ::poll(&p, 1, static_cast<int>(left.count()));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) return;
    }
  }

  fs::path path_;
  std::chrono::steady_clock::time_point deadline_;
  int fd_ = -1;
  std::string buffer_;
};

json::object call_of(const HookRequest& r) {
  json::object call{{"tool", r.identity.tool},
                    {"arguments", r.arguments},
                    {"session_id", r.identity.session_id},
                    {"client", r.identity.client}};
  if (!r.identity.call_id.empty()) call["call_id"] = r.identity.call_id;
  if (!r.identity.agent_id.empty()) call["agent_id"] = r.identity.agent_id;
  return call;
}

json::object begin_request(const HookRequest& r) {
  // The hook process has no approver of its own: an ask goes back to the
  // agent, which asks its user (or, where it cannot, the adapter denies).
  return {{"op", "begin"}, {"call", call_of(r)}, {"caller_approves", true}};
}

json::object complete_request(const HookRequest& r) {
  json::object req{{"op", "complete"}, {"result", r.reported.to_json()}};
  if (!r.identity.call_id.empty())
    req["call_id"] = r.identity.call_id;
  else
    req["match"] = json::object{{"client", r.identity.client},
                                {"session_id", r.identity.session_id},
                                {"tool", r.identity.tool},
                                {"arguments", r.arguments}};
  return req;
}

void require_ok(const json::object& a) {
  const auto* ok = a.if_contains("ok");
  if (ok && ok->is_bool() && ok->get_bool()) return;
  const auto* e = a.if_contains("error");
  std::string message = e && e->is_object() && e->get_object().contains("message")
                            ? json::value_to<std::string>(e->get_object().at("message"))
                            : to_json_text(a);
  throw HookFailure("the toolgate daemon refused the request: " + message);
}

std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::vector<std::string> contexts_of(const json::object& a) {
  std::vector<std::string> out;
  if (const auto* c = a.if_contains("additional_contexts"); c && c->is_array())
    for (const auto& t : c->get_array())
      if (t.is_string()) out.emplace_back(t.get_string());
  return out;
}

ToolResult result_of(const json::object& a) {
  std::string why;
  const auto* r = a.if_contains("result");
  auto result = r ? ToolResult::from_json(*r, &why) : std::nullopt;
  if (!result) throw HookFailure("the toolgate daemon's answer has no valid result: " + why);
  return std::move(*result);
}

agent_hooks::BeforeAnswer before_answer(const json::object& a) {
  agent_hooks::BeforeAnswer out;
  std::string verdict = str(a, "verdict");
  if (verdict == "allow" || verdict == "ask") {
    out.verdict = verdict == "allow" ? SplitBegin::Verdict::allow : SplitBegin::Verdict::ask;
    const auto* args = a.if_contains("arguments");
    if (!args || !args->is_object()) throw HookFailure("the daemon's answer has no arguments");
    out.arguments = args->get_object();
    const auto* rw = a.if_contains("rewritten");
    out.rewritten = rw && rw->is_bool() && rw->get_bool();
  } else if (verdict == "deny") {
    out.verdict = SplitBegin::Verdict::deny;
    ToolResult r = result_of(a);
    if (r.error) {
      out.denied_by = r.error->source;  // deny_message adds the code where it says more
      out.error_code = r.error->code;
    }
  } else {
    throw HookFailure("the daemon's answer has an unknown verdict \"" + verdict + "\"");
  }
  out.reason = str(a, "reason");
  out.additional_contexts = contexts_of(a);
  return out;
}

agent_hooks::AfterAnswer after_answer(const json::object& a) {
  agent_hooks::AfterAnswer out;
  std::string outcome = str(a, "outcome");
  if (outcome == "accepted")
    out.kind = SplitOutcome::Kind::accepted;
  else if (outcome == "replaced")
    out.kind = SplitOutcome::Kind::replaced;
  else if (outcome == "blocked")
    out.kind = SplitOutcome::Kind::blocked;
  else
    throw HookFailure("the daemon's answer has an unknown outcome \"" + outcome + "\"");
  out.result = result_of(a);
  out.additional_contexts = contexts_of(a);
  return out;
}

// After the tool ran: complete the call begun by the before-tool hook.  If
// the daemon does not know it (restarted in between, expired, or the
// before-tool hook is not installed), the call is decided and completed
// now, so post-execute policy still applies; a denial then blocks.
agent_hooks::AfterAnswer after(Decider& d, const HookRequest& r) {
  json::object a = d.ask(complete_request(r));
  const auto* e = a.if_contains("error");
  if (e && e->is_object() && str(e->get_object(), "code") == unknown_call) {
    json::object b = d.ask(begin_request(r));
    require_ok(b);
    if (str(b, "verdict") == "deny") {
      agent_hooks::AfterAnswer blocked;
      blocked.kind = SplitOutcome::Kind::blocked;
      blocked.result = result_of(b);
      blocked.additional_contexts = contexts_of(b);
      return blocked;
    }
    HookRequest again = r;
    again.identity.call_id = str(b, "call_id");
    a = d.ask(complete_request(again));
  }
  require_ok(a);
  return after_answer(a);
}

// Whoever answers first -- the hook or its watchdog -- is the only one to
// write: the agent must read exactly one answer.
std::atomic<bool> answer_claimed{false};

int emit(const HookReply& reply) {
  if (answer_claimed.exchange(true))
    for (;;) ::pause();  // the watchdog is answering and will end the process
  std::size_t out = std::fwrite(reply.stdout_text.data(), 1, reply.stdout_text.size(), stdout);
  bool written =
      out == reply.stdout_text.size() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  std::fwrite(reply.stderr_text.data(), 1, reply.stderr_text.size(), stderr);
  if (!written) {
    // The agent reads nothing (or half a decision) from stdout, and for
    // most agents an empty stdout with exit 0 is "allow": block by exit code.
    std::fputs("toolgate: the answer could not be written on stdout; the call is blocked\n",
               stderr);
    std::fflush(stderr);
    return 2;
  }
  std::fflush(stderr);
  return reply.exit_code;
}

}  // namespace

std::unique_ptr<Decider> daemon_decider(fs::path socket, std::chrono::milliseconds timeout) {
  return std::make_unique<DaemonDecider>(std::move(socket), timeout);
}

fs::path default_socket() {
  if (const char* env = std::getenv("TOOLGATE_SOCKET"); env && *env) return fs::path(env);
  if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg) {
    fs::path user = fs::path(xdg) / "toolgate" / "toolgate.sock";
    std::error_code ec;
    if (fs::exists(user, ec)) return user;
  }
  return "/run/toolgate/toolgate.sock";
}

int answer_hook(const AgentFormat& format, const std::string& who,
                const std::function<std::unique_ptr<Decider>()>& make_decider,
                std::chrono::milliseconds bound) {
  // A hook killed by the agent for running too long is "allow" for most
  // agents: whatever hangs -- stdin that never closes, plugins loading in
  // process -- the hook answers "blocked" itself before that.
  static std::atomic<int> phase_seen{-1};
  // The answer is the hook's last act: once it is written the process
  // ends at once, without tearing the decider down -- plugins loaded with
  // --no-daemon could hang or crash while unloading, after the answer,
  // and an agent that kills a slow hook or reads its answer only at a
  // clean exit would let the call through.
  auto answered = [](int code) -> int {
    std::fflush(nullptr);
    ::_exit(code);
  };
  try {
    std::thread([&format, who, bound] {
      std::this_thread::sleep_for(bound);
      if (answer_claimed.exchange(true)) return;
      int p = phase_seen.load();
      HookReply r = format.fail_closed(
          p < 0 ? std::nullopt : std::optional<Phase>(static_cast<Phase>(p)),
          who + ": no answer within " + std::to_string(bound.count()) +
              " ms (the hook's bound); the call is blocked rather than let through");
      (void)!::write(1, r.stdout_text.data(), r.stdout_text.size());
      (void)!::write(2, r.stderr_text.data(), r.stderr_text.size());
      ::_exit(r.exit_code ? r.exit_code : 2);
    }).detach();
  } catch (const std::exception& e) {
    // No watchdog (the process or user is at its thread limit): nothing
    // would bound the wait, so the call is blocked now -- an exception
    // escaping here would be an exit code the agent reads as "go on".
    return answered(emit(
        format.fail_closed(std::nullopt, who + ": cannot start the hook's watchdog (" + e.what() +
                                             "); the call is blocked rather than let "
                                             "through unbounded")));
  }

  std::optional<Phase> phase;
  std::optional<HookRequest> request;
  // After the tool ran, a failure is answered through the adapter's own
  // after-tool reply as a blocked result: that is what replaces the output
  // where the agent allows it (an exit code alone only adds a message there).
  auto failed = [&](const std::string& message) {
    if (request && request->phase == Phase::after) {
      agent_hooks::AfterAnswer blocked;
      blocked.kind = SplitOutcome::Kind::blocked;
      blocked.result =
          ToolResult::failure(error_code::plugin_error, message, stage::post_execute, "toolgate");
      try {
        return emit(format.after(*request, blocked));
      } catch (...) {
      }
    }
    return emit(format.fail_closed(phase, message));
  };
  try {
    std::string text = read_stdin();
    std::string why;
    auto payload = parse_untrusted(text, 128, &why);
    if (!payload) throw agent_hooks::BadPayload("the hook payload is not valid JSON: " + why);
    request = format.parse(*payload);
    phase = request->phase;
    phase_seen = static_cast<int>(*phase);
    std::unique_ptr<Decider> decider = make_decider();
    if (request->phase == Phase::before) {
      json::object a = decider->ask(begin_request(*request));
      require_ok(a);
      return answered(emit(format.before(*request, before_answer(a))));
    }
    return answered(emit(format.after(*request, after(*decider, *request))));
  } catch (const agent_hooks::BadPayload& e) {
    return failed(who + ": cannot read the agent's hook payload: " + e.what() +
                  "; is this hook registered for the right agent?");
  } catch (const std::exception& e) {
    return failed(who + ": " + e.what());
  } catch (...) {
    return failed(who + ": an unexpected failure");
  }
}

}  // namespace toolgate::hook_client
