// server_probe.cpp -- which protocol era a stdio server speaks: MCP
// 2026-07-28's backward-compatibility probe (its stdio transport, "Backward
// Compatibility").  server/discover goes first; a DiscoverResult naming
// 2026-07-28 means the server is spoken to in that version; an
// unsupported-version error means a server of the new era without it (no
// fallback, as the spec says); any other error or silence means an older
// server, which is initialized as before.  Some older servers end on any
// request before initialize: that is reported, and the caller starts the
// server again.
#include <toolgate/mcp/gateway.hpp>

#include "jsonrpc.hpp"
#include "raw_json.hpp"
#include "request_envelope.hpp"

#include <toolgate/json.hpp>

#include <poll.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view probe_id = "toolgate-probe";
constexpr std::string_view modern_version = "2026-07-28";
constexpr std::size_t max_line_bytes = std::size_t{16} << 20;

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const auto n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// One line of the server's output, read a byte at a time so that nothing
// after the probe's answer is taken from the stream the gateway reads next.
enum class Read { line, end, timeout };
Read read_line(int fd, std::string& line, std::chrono::steady_clock::time_point until) {
  line.clear();
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Read::timeout;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Read::end;
    if (r == 0) return Read::timeout;
    char c;
    const auto n = ::read(fd, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Read::end;
    if (c == '\n') return Read::line;
    if (line.size() < max_line_bytes) line += c;
  }
}

std::string versions_text(const json::value* v) { return v ? text_of(*v) : "none"; }

// What the server's answer to the probe says about it.
ServerProbe judge(const Message& m) {
  ServerProbe p;
  if (const auto* e = m.body.if_contains("error"); e && e->is_object()) {
    const auto& error = e->get_object();
    const auto* code = error.if_contains("code");
    const auto* data = error.if_contains("data");
    const auto* supported =
        data && data->is_object() ? data->get_object().if_contains("supported") : nullptr;
    if (code && code->is_int64() && code->get_int64() == rpc_error::unsupported_version) {
      p.outcome = ServerProbe::Outcome::unsupported;
      p.detail = "it does not speak MCP 2026-07-28 (it offers " + versions_text(supported) + ")";
      return p;
    }
    p.detail = "it answered server/discover with an error: " + text_of(*e);
    return p;  // legacy
  }
  const auto* r = m.body.if_contains("result");
  const auto* versions =
      r && r->is_object() ? r->get_object().if_contains("supportedVersions") : nullptr;
  if (!versions || !versions->is_array()) {
    p.detail = "its answer to server/discover is no DiscoverResult: " + text_of(m.body);
    return p;  // legacy: not an answer of the new era
  }
  for (const auto& v : versions->get_array())
    if (v.is_string() && v.get_string() == modern_version) {
      p.outcome = ServerProbe::Outcome::modern;
      p.protocol.modern = true;
      // The result's own text: what it says reaches the client as it came.
      auto span = find_path(m.text, {"result"});
      p.protocol.discover_result =
          span ? std::string(span->value.of(m.text)) : to_json_text(r->get_object());
      p.detail = "it speaks MCP 2026-07-28 (it offers " + text_of(*versions) + ")";
      return p;
    }
  p.outcome = ServerProbe::Outcome::unsupported;
  p.detail = "it does not speak MCP 2026-07-28 (it offers " + text_of(*versions) + ")";
  return p;
}

}  // namespace

ServerProbe probe_server(ServerLink& server, std::chrono::milliseconds timeout) {
  const std::string request =
      with_envelope(request_text(json::string(probe_id), "server/discover", "{}"),
                    gateway_envelope()) +
      "\n";
  ServerProbe p;
  const auto exited = [&](std::string why) {
    p.outcome = ServerProbe::Outcome::exited;
    auto st = server.wait_for(std::chrono::milliseconds(1000));
    p.detail = st ? "it " + server.describe_end(*st) + " when probed with server/discover"
                  : std::move(why);
  };
  if (!write_all(server.stdin_fd(), request)) {
    exited("it closed its input before the probe (server/discover) could be written");
    return p;
  }
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (true) {
    switch (read_line(server.stdout_fd(), line, until)) {
      case Read::end:
        exited("it closed its output when probed with server/discover");
        return p;
      case Read::timeout:
        p.outcome = ServerProbe::Outcome::no_answer;
        p.detail =
            "it did not answer server/discover within " + std::to_string(timeout.count()) + " ms";
        return p;
      case Read::line:
        break;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Message m = parse_message(line);
    if (m.kind != Message::Kind::response) continue;  // nothing else is ours to answer yet
    const auto& id = m.id();
    if (!id.is_string() || id.get_string() != probe_id) continue;
    m.text = line;
    return judge(m);
  }
}

}  // namespace toolgate::mcp
