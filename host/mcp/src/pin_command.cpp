// pin_command.cpp -- `toolgate mcp pin`: ask the server for its tools and
// write their pins (tool_pins.hpp), with the gateway's own peer code: the
// same framing, size limit and id handling as a session.
#include <toolgate/mcp/gateway.hpp>

#include "jsonrpc.hpp"
#include "peer.hpp"
#include "request_envelope.hpp"
#include "tool_pins.hpp"

#include <toolgate/signal.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

// pin only asks: a request from the server is answered "not found", its
// notifications are dropped, and nothing is relayed anywhere.
struct PinHandler final : PeerHandler {
  bool take_request(Peer& from, Message& m, json::object&) override {
    from.reply_error(m.id(), rpc_error::method_not_found, "toolgate mcp pin answers no requests");
    return true;
  }
  bool take_notification(Peer&, Message&) override { return true; }
  std::optional<json::object> saw_result(Peer&, const PendingRequest&,
                                         const json::object&) override {
    return std::nullopt;
  }
  void write_failed(Peer&) override {}
  bool keep_reading(const Peer&) override { return true; }
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const json::object& result_of(const Answer& a, std::string_view method, Peer& server) {
  if (a.end == Answer::End::answered) {
    const auto& r = a.response();
    if (const auto* result = r.if_contains("result"); result && result->is_object())
      return result->get_object();
    throw std::runtime_error("the MCP server refused " + std::string(method) + ": " + text_of(r));
  }
  if (a.end == Answer::End::signalled)
    throw std::runtime_error("the MCP server did not answer " + std::string(method) +
                             " within 30 s");
  throw std::runtime_error("the MCP server did not answer " + std::string(method) + ": " +
                           (a.end == Answer::End::failed ? a.failure() : server.unwritable()));
}

}  // namespace

std::string fetch_pin_file(ServerLink& process, const GatewayOptions& o) {
  // The other side of the relay, which nothing reaches.
  Fd none_in{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
  Fd none_out{::open("/dev/null", O_WRONLY | O_CLOEXEC)};
  if (none_in.fd < 0 || none_out.fd < 0)
    throw std::runtime_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
  std::signal(SIGPIPE, SIG_IGN);
  Peer nobody("nobody", none_in.fd, none_out.fd, o.max_message_bytes, o.signal_check);
  Peer server("the MCP server", process.stdout_fd(), process.stdin_fd(), o.max_message_bytes,
              o.signal_check);
  PinHandler handler;
  if (o.server_protocol.modern) server.speak_modern(gateway_envelope());
  server.connect(nobody, handler);
  nobody.connect(server, handler);
  std::thread reader([&] {
    server.read_loop();
    server.set_gone("the MCP server closed its output");
    server.fail_pending(server.gone_reason());
  });
  struct Stop {
    ServerLink& process;
    Peer& server;
    std::thread& reader;
    ~Stop() {
      server.shut_output();
      process.close_stdin();
      if (!process.wait_for(std::chrono::milliseconds(2000))) {
        process.send_signal(SIGTERM);
        if (!process.wait_for(std::chrono::milliseconds(2000))) process.send_signal(SIGKILL);
      }
      server.wake();
      reader.join();
    }
  } stop{process, server, reader};

  auto deadline = Signal::make()->child(std::chrono::seconds(30));
  if (!o.server_protocol.modern) {  // a 2026-07-28 server has no handshake
    const json::object init{
        {"protocolVersion", "2025-06-18"},
        {"capabilities", json::object{}},
        {"clientInfo", json::object{{"name", "toolgate-mcp-pin"}, {"version", "1"}}}};
    result_of(server.request_and_wait("initialize", init, *deadline), "initialize", server);
    server.send(make_notification("notifications/initialized", {}));
  }
  PinMap pins;
  json::value cursor;
  for (int page = 0; page < 1000; ++page) {
    json::object params;
    if (!cursor.is_null()) params["cursor"] = cursor;
    auto a = server.request_and_wait("tools/list", params, *deadline);
    const auto& result = result_of(a, "tools/list", server);
    const auto* tools = result.if_contains("tools");
    if (!tools || !tools->is_array())
      throw std::runtime_error("the MCP server's tools/list result has no \"tools\" array");
    for (const auto& t : tools->get_array()) {
      const auto* to = t.if_object();
      const auto* name = to ? to->if_contains("name") : nullptr;
      if (!name || !name->is_string() || name->get_string().empty())
        throw std::runtime_error("the MCP server lists a tool without a name: " + text_of(t));
      pins.emplace(std::string(name->get_string()), tool_pin(*to));
    }
    const auto* next = result.if_contains("nextCursor");
    if (!next || !next->is_string()) break;
    cursor = *next;
  }
  return pin_file_text(pins);
}

}  // namespace toolgate::mcp
