// http_upstream.cpp -- the bridge to a remote MCP server (http_upstream.hpp).
//
// Threads: a dispatcher reads the gateway's lines and hands each message
// to a thread of its own from a pool (a call can take minutes; each waits
// on its own connection, so a slow call holds up no other; the threads stay
// for the next message, since making one per message cost more than the
// rest of the bridge); a legacy session adds one thread for its GET
// stream.  An exchange takes a connection from the pool
// (upstream_connections.hpp: kept open between messages) and uses blocking
// reads and writes on it; another thread ends it by shutting its socket
// down (cancellation, shutdown), after which it is never reused.
#include <toolgate/mcp/http_upstream.hpp>

#include "framing.hpp"
#include "http_checks.hpp"
#include "jsonrpc.hpp"
#include "param_headers.hpp"
#include "raw_json.hpp"
#include "request_envelope.hpp"
#include "sse_parser.hpp"
#include "upstream_connections.hpp"
#include "worker_pool.hpp"

#include <toolgate/json.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace toolgate::mcp {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;

std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why) {
  auto fail = [&](std::string w) -> std::optional<HttpUrl> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  HttpUrl u;
  u.text = std::string(text);
  std::string_view rest;
  if (text.starts_with("https://")) {
    u.tls = true;
    rest = text.substr(8);
  } else if (text.starts_with("http://")) {
    rest = text.substr(7);
  } else {
    return fail("\"" + u.text + "\" is not an http:// or https:// URL");
  }
  if (rest.find('#') != std::string_view::npos)
    return fail("the URL \"" + u.text + "\" has a fragment (#...); give the endpoint alone");
  const auto slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  u.target = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  if (u.target.front() == '?') u.target = "/" + u.target;
  if (authority.find('@') != std::string_view::npos)
    return fail("the URL \"" + u.text +
                "\" carries credentials; give a bearer token with --upstream-token-file instead");
  std::string_view port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return fail("the URL \"" + u.text + "\" has a bad host");
    u.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return fail("the URL \"" + u.text + "\" has a bad host");
      port = authority.substr(close + 2);
    }
  } else {
    const auto colon = authority.find(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (u.host.empty()) return fail("the URL \"" + u.text + "\" names no host");
  // A name, an IPv4 address or (bracketed) an IPv6 one with its zone: what
  // else would go into the Host header and the request line as it is.
  for (char c : u.host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
          (authority.starts_with('[') && (c == ':' || c == '%'))))
      return fail("the URL \"" + u.text + "\" has a bad host (a character not allowed in one)");
  for (char c : u.target)
    if (c <= 0x20 || c > 0x7e)
      return fail("the URL \"" + u.text +
                  "\" has a space or a control or non-ASCII character in its path; percent-encode "
                  "it");
  if (port.empty()) {
    u.port = u.tls ? "443" : "80";
  } else {
    unsigned n = 0;
    for (char c : port) {
      if (c < '0' || c > '9' || n > 65535) return fail("the URL \"" + u.text + "\" has a bad port");
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    if (n == 0 || n > 65535) return fail("the URL \"" + u.text + "\" has a bad port");
    u.port = std::string(port);
  }
  return u;
}

namespace {

constexpr std::string_view version_key = "io.modelcontextprotocol/protocolVersion";

// The protocol version a message's params._meta names ("" when none): a
// message of MCP 2026-07-28 says so in itself.
std::string_view envelope_version(const boost::json::object& params) {
  const auto* meta = params.if_contains("_meta");
  const auto* v = meta && meta->is_object() ? meta->get_object().if_contains(version_key) : nullptr;
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

// One HTTP exchange in progress, ended from another thread by shutting its
// socket down (a blocking read then returns).
struct Exchange {
  std::mutex mutex;
  int fd = -1;
  bool done = false;
  bool cancelled = false;
  void attach(int socket_fd) {
    std::lock_guard lock(mutex);
    fd = socket_fd;
    if (cancelled) ::shutdown(fd, SHUT_RDWR);
  }
  void abort() {
    std::lock_guard lock(mutex);
    cancelled = true;
    if (fd >= 0 && !done) ::shutdown(fd, SHUT_RDWR);
  }
  void finish() {
    std::lock_guard lock(mutex);
    done = true;
  }
  bool was_cancelled() {
    std::lock_guard lock(mutex);
    return cancelled;
  }
};

// Reads a response's body as it arrives (read_some: an SSE event is handed
// on when it comes, not when a buffer fills), each piece to `on_bytes`;
// the error that ended it, if any.
template <class Stream, class OnBytes>
boost::system::error_code read_body(Stream& stream, beast::flat_buffer& buffer,
                                    bhttp::response_parser<bhttp::buffer_body>& p,
                                    OnBytes&& on_bytes) {
  char chunk[16384];
  while (!p.is_done()) {
    p.get().body().data = chunk;
    p.get().body().size = sizeof chunk;
    boost::system::error_code ec;
    bhttp::read_some(stream, buffer, p, ec);
    if (ec == bhttp::error::need_buffer) ec = {};
    on_bytes(std::string_view(chunk, sizeof chunk - p.get().body().size));
    if (ec) return ec;
  }
  return {};
}

// Newlines in JSON text outside strings are whitespace: one line per message.
std::string one_line(std::string text) {
  for (auto& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

std::string error_line(std::string_view id_text, std::int64_t code, std::string_view message) {
  return R"({"jsonrpc":"2.0","id":)" + std::string(id_text) + R"(,"error":{"code":)" +
         std::to_string(code) + R"(,"message":)" +
         boost::json::serialize(boost::json::value(message)) + "}}";
}

std::string snippet(std::string_view body) {
  std::string s(body.substr(0, 200));
  for (auto& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return s + (body.size() > 200 ? "..." : "");
}

}  // namespace

struct HttpUpstream::Impl {
  HttpUpstreamOptions o;
  int in_read = -1, in_write = -1;    // the gateway writes in_write
  int out_read = -1, out_write = -1;  // the gateway reads out_read
  std::optional<ssl::context> tls;
  std::unique_ptr<UpstreamConnections> connections;  // kept open between messages
  std::unique_ptr<LineReader> reader;
  std::unique_ptr<LineWriter> writer;
  std::thread dispatcher;

  std::mutex mutex;
  std::condition_variable changed;
  std::size_t running = 0;  // exchange threads alive
  bool ended = false;       // everything done, out_write closed
  bool aborting = false;
  std::string session_id;          // 2025: Mcp-Session-Id
  std::string negotiated_version;  // 2025: from the initialize result
  bool get_stream_started = false;
  std::map<std::string, std::shared_ptr<Exchange>> requests;  // by the request's id text
  // 2026-07-28: each tool's Mcp-Param-* declarations, from the tools/list
  // results relayed (param_headers.hpp).
  std::map<std::string, std::vector<ParamHeader>, std::less<>> param_headers;
  std::set<std::shared_ptr<Exchange>> open;  // every exchange, to abort
  // Last: destroyed (its threads joined) before anything their tasks use.
  // No cap short of the system's: a message queued behind busy threads
  // could be the answer they wait for (a server's sampling question).
  WorkerPool workers{std::numeric_limits<std::size_t>::max()};

  void dispatch();
  void start(std::function<void()> work);
  void send(std::string text, Message m);
  void listen_get_stream();
  void delete_session();
  void abort_all();
  // The answer's messages, each a line to the gateway; true once the
  // answer to `id_text` was among them.
  bool deliver(std::string data, const std::string& id_text, const std::string& method);
  void add_headers(bhttp::request<bhttp::string_body>& req, const Message& m);
  // The Mcp-Param-* declarations of the tools in a tools/list answer.
  void learn_param_headers(std::string_view answer);
};

void HttpUpstream::Impl::learn_param_headers(std::string_view answer) {
  auto v = parse_untrusted(answer, max_message_depth);
  const auto* result = v && v->is_object() ? v->get_object().if_contains("result") : nullptr;
  const auto* tools =
      result && result->is_object() ? result->get_object().if_contains("tools") : nullptr;
  if (!tools || !tools->is_array()) return;
  for (const auto& t : tools->get_array()) {
    const auto* o = t.if_object();
    const auto* name = o ? o->if_contains("name") : nullptr;
    const auto* schema = o ? o->if_contains("inputSchema") : nullptr;
    if (!name || !name->is_string() || !schema) continue;
    std::vector<std::string> skipped;
    auto declared = param_headers_of(*schema, &skipped);
    for (const auto& why : skipped)
      spdlog::warn("the MCP server's tool \"{}\": {}; not mirrored into a header",
                   std::string_view(name->get_string()), why);
    std::lock_guard lock(mutex);
    param_headers[std::string(name->get_string())] = std::move(declared);
  }
}

void HttpUpstream::Impl::start(std::function<void()> work) {
  {
    std::lock_guard lock(mutex);
    ++running;
  }
  // Shared, so that the fallback below does not copy the message.
  auto task = std::make_shared<std::function<void()>>([this, work = std::move(work)] {
    try {
      work();
    } catch (const std::exception& e) {
      spdlog::warn("the HTTP bridge to {}: {}", o.url.text, e.what());
    } catch (...) {
      spdlog::warn("the HTTP bridge to {}: an unknown exception", o.url.text);
    }
    std::lock_guard lock(mutex);
    --running;
    changed.notify_all();
  });
  // A pool that can make no thread at all: one of its own, as a last try.
  if (!workers.submit([task] { (*task)(); })) std::thread([task] { (*task)(); }).detach();
}

// A header whose value comes from a message: visible ASCII and spaces only,
// else the message is not sent (a CR LF in a method or version taken from
// a client's body would otherwise add headers of the client's choosing).
static void set_from_message(bhttp::request<bhttp::string_body>& req, std::string_view name,
                             std::string_view value) {
  for (char c : value)
    if (c < 0x20 || c > 0x7e)
      throw std::runtime_error("the message's " + std::string(name) +
                               " has a character an HTTP header cannot carry; not sent");
  req.set(name, value);
}

void HttpUpstream::Impl::add_headers(bhttp::request<bhttp::string_body>& req, const Message& m) {
  req.set(bhttp::field::host, o.url.host.find(':') != std::string::npos
                                  ? "[" + o.url.host + "]:" + o.url.port
                                  : o.url.host + ":" + o.url.port);
  req.set(bhttp::field::user_agent, "toolgate-mcp");
  req.set(bhttp::field::content_type, "application/json");
  req.set(bhttp::field::accept, "application/json, text/event-stream");
  if (!o.bearer_token.empty()) req.set(bhttp::field::authorization, "Bearer " + o.bearer_token);
  if (m.kind != Message::Kind::response) {
    // The trace context of the body, for the server's HTTP layer (W3C
    // Trace Context's own headers) as well as its MCP layer (_meta).
    const auto trace = trace_context_in(m.params());
    if (!trace.empty()) set_from_message(req, "traceparent", trace.traceparent);
    if (!trace.tracestate.empty()) set_from_message(req, "tracestate", trace.tracestate);
  }
  const auto version =
      m.kind == Message::Kind::response ? std::string_view() : envelope_version(m.params());
  bool legacy_session;
  {
    std::lock_guard lock(mutex);
    legacy_session = !negotiated_version.empty();
  }
  // A 2026-07-28 envelope in a message of a 2025 session is the client's
  // (a 2026-07-28 client in front of a 2025 server): the session decides.
  if (!version.empty() && !legacy_session) {
    // 2026-07-28: the headers mirror the body as sent.
    set_from_message(req, "MCP-Protocol-Version", version);
    set_from_message(req, "Mcp-Method", m.method());
    if (m.method() == "tools/call") {
      const auto* name = m.params().if_contains("name");
      const auto* args = m.params().if_contains("arguments");
      std::vector<std::pair<std::string, std::string>> mirrored;
      if (name && name->is_string() && args && args->is_object()) {
        std::lock_guard lock(mutex);
        if (auto it = param_headers.find(name->get_string()); it != param_headers.end())
          mirrored = param_header_values(it->second, args->get_object());
      }
      for (const auto& [header, value] : mirrored) set_from_message(req, header, value);
    }
    const char* member = m.method() == "resources/read"                              ? "uri"
                         : m.method() == "tools/call" || m.method() == "prompts/get" ? "name"
                                                                                     : nullptr;
    if (member)
      if (const auto* v = m.params().if_contains(member); v && v->is_string())
        req.set("Mcp-Name", http::encode_header_value(v->get_string()));
    return;
  }
  std::lock_guard lock(mutex);
  if (!negotiated_version.empty())
    set_from_message(req, "MCP-Protocol-Version", negotiated_version);
  if (!session_id.empty()) req.set("Mcp-Session-Id", session_id);
}

bool HttpUpstream::Impl::deliver(std::string data, const std::string& id_text,
                                 const std::string& method) {
  const std::string line = one_line(std::move(data));
  bool answers = false;
  std::string_view text = line;
  if (const auto open_at = text.find_first_not_of(" \t");
      open_at != std::string_view::npos && text[open_at] == '{') {
    const auto id = find_member(text, open_at, "id");
    const bool has_method = find_member(text, open_at, "method").has_value();
    answers = !has_method && id && id->value.of(text) == id_text;
    if (answers && method == "tools/list") learn_param_headers(text);
    if (answers && method == "initialize") {
      // 2025: the version the session speaks, sent in a header from now on.
      if (const auto v = find_path(text, {"result", "protocolVersion"})) {
        auto parsed = parse_untrusted(v->value.of(text), 4);
        if (parsed && parsed->is_string()) {
          std::lock_guard lock(mutex);
          negotiated_version = std::string(parsed->get_string());
        }
      }
    }
  }
  writer->write(line);
  return answers;
}

void HttpUpstream::Impl::send(std::string text, Message m) {
  const bool is_request = m.kind == Message::Kind::request;
  const std::string id_text = is_request ? text_of(m.id()) : std::string();
  const std::string method(m.kind == Message::Kind::response ? std::string_view() : m.method());
  auto ex = std::make_shared<Exchange>();
  {
    std::lock_guard lock(mutex);
    if (aborting) return;
    open.insert(ex);
    if (is_request) requests[id_text] = ex;
  }
  std::string failure;
  bool answered = false;
  try {
    auto c = connections->take([&](int fd) { ex->attach(fd); });
    bhttp::request<bhttp::string_body> req{bhttp::verb::post, o.url.target, 11};
    add_headers(req, m);
    req.body() = text;
    req.prepare_payload();
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::buffer_body> p;
    p.body_limit(boost::none);  // bounded below, per message
    p.header_limit(64 << 10);
    unsigned status = 0;
    std::string body, content_type;
    bool sse = false, oversize = false;
    SseParser events(
        o.max_message_bytes,
        [&](std::string data) { answered |= deliver(std::move(data), id_text, method); },
        [&](std::size_t n) {
          failure = "the MCP server sent a message of " + std::to_string(n) +
                    " bytes, over the limit of " + std::to_string(o.max_message_bytes);
        });
    c->with([&](auto& stream) {
      bhttp::write(stream, req);
      bhttp::read_header(stream, buffer, p);
      status = p.get().result_int();
      content_type = std::string(p.get()[bhttp::field::content_type]);
      sse = content_type.starts_with("text/event-stream");
      if (method == "initialize" && p.get().count("Mcp-Session-Id")) {
        std::lock_guard lock(mutex);
        session_id = std::string(p.get()["Mcp-Session-Id"]);
      }
      const auto ec = read_body(stream, buffer, p, [&](std::string_view bytes) {
        if (sse)
          events.feed(bytes);
        else if (body.size() + bytes.size() > o.max_message_bytes)
          oversize = true;
        else
          body.append(bytes);
      });
      if (ec) throw beast::system_error(ec);
    });
    // Back to the pool when the answer was read whole and the server keeps
    // the connection (bytes past the answer would be lost with this
    // buffer), before a JSON answer is handed on, so the next message the
    // answer prompts finds the connection there.
    if (p.is_done() && p.get().keep_alive() && !oversize && buffer.size() == 0) {
      ex->finish();  // from here on nothing shuts this socket down
      if (!ex->was_cancelled())
        connections->give_back(std::move(c),
                               p.get().count(bhttp::field::keep_alive)
                                   ? keep_alive_timeout(p.get()[bhttp::field::keep_alive])
                                   : std::nullopt);
    }
    if (oversize) {
      failure = "the MCP server's answer is over the limit of " +
                std::to_string(o.max_message_bytes) + " bytes";
    } else if (!sse && status >= 200 && status < 300 && !body.empty()) {
      answered |= deliver(std::move(body), id_text, method);
    } else if (status < 200 || status >= 300) {
      // A refusal.  A JSON-RPC error in the body is the server's own word:
      // it is passed on (under the request's id, which such an answer may
      // lack); anything else becomes one that says what came back.
      auto v = parse_untrusted(body, max_message_depth);
      const auto* error = v && v->is_object() ? v->get_object().if_contains("error") : nullptr;
      if (is_request && error && error->is_object()) {
        writer->write(R"({"jsonrpc":"2.0","id":)" + id_text + R"(,"error":)" +
                      to_json_text(*error) + "}");
        answered = true;
      } else if (status == 401 || status == 403) {
        failure = "the MCP server at " + o.url.text + " refused the gateway's credentials (HTTP " +
                  std::to_string(status) + ")";
      } else {
        failure = "the MCP server at " + o.url.text + " answered HTTP " + std::to_string(status) +
                  (body.empty() ? std::string() : ": " + snippet(body));
      }
    } else if (is_request && !answered && failure.empty()) {
      failure = "the MCP server ended its answer without a response to the request";
    }
  } catch (const boost::system::system_error& e) {
    // Its what() carries Beast's source location; the reason is enough.
    if (failure.empty())
      failure = "the connection to the MCP server at " + o.url.text +
                " failed before its answer was complete: " + e.code().message();
  } catch (const std::exception& e) {
    if (failure.empty()) failure = e.what();
  }
  ex->finish();
  bool cancelled = ex->was_cancelled();
  {
    std::lock_guard lock(mutex);
    open.erase(ex);
    if (is_request) requests.erase(id_text);
    cancelled |= aborting;
  }
  if (is_request && !answered && !cancelled)
    writer->write(error_line(id_text, rpc_error::internal_error,
                             failure.empty() ? "no answer from the MCP server" : failure));
  else if (!is_request && !failure.empty() && !cancelled)
    spdlog::warn("the MCP server at {} did not take a {}: {}", o.url.text,
                 method.empty() ? std::string("response") : method, failure);
}

// 2025: what the server sends unasked comes on a GET stream, for as long as
// the session lives; a server that offers none answers 405.
void HttpUpstream::Impl::listen_get_stream() {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto ex = std::make_shared<Exchange>();
    {
      std::lock_guard lock(mutex);
      if (aborting) return;
      open.insert(ex);
    }
    unsigned status = 0;
    try {
      auto c = connections->take([&](int fd) { ex->attach(fd); });
      bhttp::request<bhttp::string_body> req{bhttp::verb::get, o.url.target, 11};
      add_headers(req, Message{});
      req.erase(bhttp::field::content_type);
      req.set(bhttp::field::accept, "text/event-stream");
      beast::flat_buffer buffer;
      bhttp::response_parser<bhttp::buffer_body> p;
      p.body_limit(boost::none);
      SseParser events(o.max_message_bytes,
                       [&](std::string data) { deliver(std::move(data), "", ""); });
      c->with([&](auto& stream) {
        bhttp::write(stream, req);
        bhttp::read_header(stream, buffer, p);
        status = p.get().result_int();
        if (status != 200) return;
        read_body(stream, buffer, p, [&](std::string_view bytes) { events.feed(bytes); });
      });
    } catch (const std::exception&) {
      // Reconnected below, unless the bridge is ending.
    }
    ex->finish();
    {
      std::unique_lock lock(mutex);
      open.erase(ex);
      if (aborting || status == 405 || status == 404 || status == 400) return;
      changed.wait_for(lock, std::chrono::seconds(1), [&] { return aborting; });
    }
  }
}

void HttpUpstream::Impl::delete_session() {
  std::string session;
  {
    std::lock_guard lock(mutex);
    session = session_id;
  }
  if (session.empty()) return;
  try {
    auto c = connections->take([](int) {});
    bhttp::request<bhttp::string_body> req{bhttp::verb::delete_, o.url.target, 11};
    add_headers(req, Message{});
    req.erase(bhttp::field::content_type);
    c->lowest().expires_after(std::chrono::seconds(2));
    beast::flat_buffer buffer;
    bhttp::response<bhttp::string_body> res;
    c->with([&](auto& stream) {
      bhttp::async_write(stream, req, [&](boost::system::error_code, std::size_t) {});
      c->ioc.restart();
      c->ioc.run();
      bhttp::async_read(stream, buffer, res, [&](boost::system::error_code, std::size_t) {});
      c->ioc.restart();
      c->ioc.run();
    });
  } catch (const std::exception& e) {
    spdlog::debug("deleting the MCP session at {}: {}", o.url.text, e.what());
  }
}

void HttpUpstream::Impl::abort_all() {
  std::lock_guard lock(mutex);
  aborting = true;
  for (const auto& ex : open) ex->abort();
  changed.notify_all();
}

void HttpUpstream::Impl::dispatch() {
  while (auto frame = reader->next()) {
    if (frame->kind != Frame::Kind::message) continue;  // the gateway's own lines fit
    Message m = parse_message(frame->text);
    if (m.kind == Message::Kind::invalid) continue;
    if (m.kind == Message::Kind::notification && m.method() == "notifications/cancelled") {
      // The request's stream is closed either way (its answer is no longer
      // wanted); under 2026-07-28 that is the cancellation, before it the
      // notification is sent too.
      if (const auto* rid = m.params().if_contains("requestId")) {
        std::lock_guard lock(mutex);
        if (auto it = requests.find(text_of(*rid)); it != requests.end()) it->second->abort();
      }
      bool legacy;
      {
        std::lock_guard lock(mutex);
        legacy = !negotiated_version.empty();
      }
      if (!legacy) continue;
    }
    const bool initialized =
        m.kind == Message::Kind::notification && m.method() == "notifications/initialized";
    start([this, text = std::move(frame->text), m = std::move(m)]() mutable {
      send(std::move(text), std::move(m));
    });
    if (initialized) {
      std::lock_guard lock(mutex);
      if (!get_stream_started) {
        get_stream_started = true;
        ++running;
        std::thread([this] {
          listen_get_stream();
          std::lock_guard l(mutex);
          --running;
          changed.notify_all();
        }).detach();
      }
    }
  }
  // The gateway is done (or the bridge is being stopped): end the session,
  // drop what is still open, and close the output once nothing can write.
  bool graceful;
  {
    std::lock_guard lock(mutex);
    graceful = !aborting;
    aborting = true;
  }
  if (graceful) delete_session();
  connections->close_all();
  abort_all();
  std::unique_lock lock(mutex);
  changed.wait(lock, [&] { return running == 0; });
  writer->shut();
  ::close(out_write);
  out_write = -1;
  ended = true;
  changed.notify_all();
}

HttpUpstream::HttpUpstream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<HttpUpstream> HttpUpstream::open(HttpUpstreamOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->o = std::move(options);
  if (impl->o.url.tls) {
    impl->tls.emplace(ssl::context::tls_client);
    boost::system::error_code ec;
    if (impl->o.ca_file.empty())
      impl->tls->set_default_verify_paths(ec);
    else
      impl->tls->load_verify_file(impl->o.ca_file, ec);
    if (ec)
      throw std::runtime_error(
          "cannot load the CA certificates" +
          (impl->o.ca_file.empty() ? std::string(" of the system") : " from " + impl->o.ca_file) +
          ": " + ec.message());
  }
  impl->connections = std::make_unique<UpstreamConnections>(
      impl->o.url, impl->tls ? &*impl->tls : nullptr, impl->o.connect_timeout);
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("cannot make the HTTP bridge's pipes");
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    throw std::runtime_error("cannot make the HTTP bridge's pipes");
  }
  impl->in_read = in[0];
  impl->in_write = in[1];
  impl->out_read = out[0];
  impl->out_write = out[1];
  impl->reader =
      std::make_unique<LineReader>(impl->in_read, impl->o.max_message_bytes + (1u << 16));
  impl->writer = std::make_unique<LineWriter>(impl->out_write);
  auto* raw = impl.get();
  impl->dispatcher = std::thread([raw] { raw->dispatch(); });
  return std::unique_ptr<HttpUpstream>(new HttpUpstream(std::move(impl)));
}

HttpUpstream::~HttpUpstream() {
  send_signal(SIGKILL);
  if (impl_->dispatcher.joinable()) impl_->dispatcher.join();
  for (int fd : {impl_->in_read, impl_->in_write, impl_->out_read, impl_->out_write})
    if (fd >= 0) ::close(fd);
}

int HttpUpstream::stdin_fd() const { return impl_->in_write; }
int HttpUpstream::stdout_fd() const { return impl_->out_read; }

void HttpUpstream::close_stdin() {
  if (impl_->in_write >= 0) {
    ::close(impl_->in_write);
    impl_->in_write = -1;
  }
}

std::optional<int> HttpUpstream::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(impl_->mutex);
  if (!impl_->changed.wait_for(lock, timeout, [&] { return impl_->ended; })) return std::nullopt;
  return 0;
}

void HttpUpstream::send_signal(int) {
  impl_->abort_all();
  impl_->reader->wake();
}

std::string HttpUpstream::describe_end(int) const {
  return "closed the connection to " + impl_->o.url.text;
}

}  // namespace toolgate::mcp
