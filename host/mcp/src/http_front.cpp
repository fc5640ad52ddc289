// http_front.cpp -- the HTTP listener of `toolgate mcp --listen`.
//
// One thread runs an Asio io_context that owns every socket, the table of
// requests waiting for the gateway, and both of the gateway's pipes (read
// there too: a thread that read the answers and posted each line over cost
// every answer one more wake-up).  Nothing blocks that thread: lines to the
// gateway are queued and written as its pipe takes them, so the listener
// keeps reading the gateway's answers while the gateway is busy writing
// them (a blocking write each way would wait on the other for ever).
#include <toolgate/mcp/http_front.hpp>

#include <toolgate/json.hpp>

#include "framing.hpp"
#include "http_checks.hpp"
#include "input_requests.hpp"
#include "jsonrpc.hpp"
#include "legacy_http.hpp"
#include "raw_json.hpp"
#include "request_envelope.hpp"
#include "sealed_state.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/serialize.hpp>

#include <spdlog/spdlog.h>

#include <charconv>
#include <deque>
#include <optional>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace toolgate::mcp {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace http;  // http_checks.hpp

namespace {

constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";

std::optional<std::uint64_t> front_id_of(std::string_view text) {
  std::uint64_t n = 0;
  const auto* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || p != end || n == 0) return std::nullopt;
  return n;
}

std::optional<std::int64_t> integer_of(std::string_view text) {
  std::int64_t n = 0;
  const auto* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, n);
  if (ec != std::errc() || p != end) return std::nullopt;
  return n;
}

std::optional<std::size_t> object_open(std::string_view text) {
  const auto at = text.find_first_not_of(" \t\r\n");
  if (at == std::string_view::npos || text[at] != '{') return std::nullopt;
  return at;
}

std::string response_head(unsigned status, std::string_view content_type, std::size_t length,
                          bool keep_alive, std::string_view extra_headers = {}) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
  out += std::string_view(bhttp::obsolete_reason(bhttp::int_to_status(status)));
  out += "\r\n";
  if (!content_type.empty()) {
    out += "Content-Type: ";
    out += content_type;
    out += "\r\n";
  }
  out += "Content-Length: " + std::to_string(length) + "\r\n";
  out += "Cache-Control: no-store\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += extra_headers;
  out += "\r\n";
  return out;
}

std::optional<std::string_view> header(const bhttp::request<bhttp::string_body>& req,
                                       std::string_view name) {
  const auto it = req.find(boost::beast::string_view(name.data(), name.size()));
  if (it == req.end()) return std::nullopt;
  return std::string_view(it->value().data(), it->value().size());
}

bool has_traceparent(const boost::json::object& params) {
  const auto* meta = params.if_contains("_meta");
  return meta && meta->is_object() && meta->get_object().contains("traceparent");
}

bool media_type_is(std::string_view value, std::string_view type);

// Whether an Accept header lists the event stream (or a wildcard for it):
// only then may a request's answer become one.
bool accepts_event_stream(std::string_view accept) {
  while (!accept.empty()) {
    const auto comma = accept.find(',');
    auto one = accept.substr(0, comma);
    while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
    if (media_type_is(one, "text/event-stream") || media_type_is(one, "text/*") ||
        media_type_is(one, "*/*"))
      return true;
    accept = comma == std::string_view::npos ? std::string_view() : accept.substr(comma + 1);
  }
  return false;
}

constexpr std::string_view event_stream_head =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
    "X-Accel-Buffering: no\r\nConnection: close\r\n\r\n";

bool media_type_is(std::string_view value, std::string_view type) {
  const auto end = value.find(';');
  auto v = value.substr(0, end);
  while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
  if (v.size() != type.size()) return false;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(v[i])) != type[i]) return false;
  return true;
}

}  // namespace

class HttpConnection;

// A 2025-era client's session (legacy_http.hpp): what its requests are
// translated with, and where the messages for it go.  io thread only.
struct LegacySession {
  std::string id;                  // Mcp-Session-Id
  std::string version;             // 2025-06-18 or 2025-11-25
  std::string token;               // the bearer token that opened it ("" without tokens)
  RequestEnvelope envelope;        // each request's 2026-07-28 _meta
  boost::json::object answerable;  // what the client can be asked
  std::chrono::steady_clock::time_point last_used;
  std::weak_ptr<HttpConnection> stream;  // its GET stream, if open
  // Requests in progress, by the client's id (id_key), for its
  // notifications/cancelled; and the listener's questions to the client
  // awaiting its answer, by their id text.
  std::unordered_map<std::string, std::weak_ptr<HttpConnection>> calls;
  std::unordered_map<std::string, std::weak_ptr<HttpConnection>> questions;
  std::uint64_t next_question = 1;
};

struct HttpFront::Impl {
  Impl(HttpListenOptions o, int to_gateway_fd, int from_gateway_fd, std::size_t max_message)
      : options(std::move(o)),
        splitter(max_message + (std::size_t{1} << 16)),
        work(net::make_work_guard(ioc)) {
    to_gateway.assign(to_gateway_fd);
    from_gateway.assign(from_gateway_fd);
  }
  ~Impl() {
    // The descriptors are the caller's to close.
    if (to_gateway.is_open()) to_gateway.release();
    if (from_gateway.is_open()) from_gateway.release();
  }

  // Queues a line for the gateway; false once its pipe has failed (the
  // gateway has stopped) or the listener is stopping.
  bool send_to_gateway(std::string_view line);
  void write_gateway();
  void route_safely(Frame frame);

  // Reads the gateway's output and routes each line; at its end the
  // listener shuts down.
  void read_gateway();
  void route(Frame frame);
  // A request relayed and not yet answered: its connection was closed.
  void cancel(std::uint64_t id, std::string_view why);
  void accept();
  void shut_down();
  // The session `id` names, when it exists and `authorization` may use it
  // (the token that opened it, when the listener asks for tokens).
  std::shared_ptr<LegacySession> find_session(std::string_view id, std::string_view authorization);
  // Sessions idle past the limit (no request for that long, no stream, no
  // call in progress) are ended: by the next initialize, or when named.
  bool idle(const LegacySession& s, std::chrono::steady_clock::time_point now) const;
  void sweep_sessions();

  HttpListenOptions options;
  bool loopback = true;
  std::vector<std::string> origins;
  LineSplitter splitter;  // the gateway's output, into lines
  // io thread only; declared before the io_context, whose destruction
  // destroys the connections its pending handlers still hold.
  std::uint64_t next_id = 1;
  std::unordered_map<std::uint64_t, std::weak_ptr<HttpConnection>> waiting;
  std::unordered_set<HttpConnection*> connections;
  std::unordered_map<std::string, std::shared_ptr<LegacySession>> sessions;
  bool stopping = false;
  net::io_context ioc{1};
  net::executor_work_guard<net::io_context::executor_type> work;
  tcp::acceptor acceptor{ioc};
  net::posix::stream_descriptor to_gateway{ioc};
  std::deque<std::string> gateway_queue;  // lines (with their newline) not written yet
  bool gateway_writing = false;
  bool gateway_broken = false;
  net::posix::stream_descriptor from_gateway{ioc};
  std::vector<char> read_buffer = std::vector<char>(std::size_t{1} << 16);
  std::vector<Frame> frames;
};

// One client connection: reads a request, relays it, writes its answer,
// then reads the next (keep-alive), or streams a subscription until either
// side closes.  Lives on the io thread.
class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(HttpFront::Impl& front, tcp::socket socket)
      : f_(front),
        socket_(std::move(socket)),
        deadline_(front.ioc),
        keepalive_(front.ioc),
        question_deadline_(front.ioc) {
    f_.connections.insert(this);
  }
  ~HttpConnection() { f_.connections.erase(this); }

  void start() { read_request(); }

  // The gateway's answer to this connection's request (the client's id
  // already back in it).
  void answer(std::string text, unsigned status) {
    waiting_ = 0;
    switch (answering_) {
      case Answering::as_is:
        break;
      case Answering::legacy_initialize:
        return answer_initialize(text);
      case Answering::legacy_stream:
        // The gateway ended the subscription behind a GET stream: so does
        // the stream (its answer is to a request the client never sent).
        close_after_write_ = true;
        return write_next();
      case Answering::legacy:
        if (ask_questions(text)) return;
        end_legacy_call();
        text = without_modern_result_members(std::move(text));
        status = 200;  // a 2025-era client reads JSON-RPC errors from a 200
        break;
    }
    send_answer(std::move(text), status);
  }

  void send_answer(std::string text, unsigned status, std::string_view extra_headers = {}) {
    if (streaming_) {
      queue("event: message\ndata: " + text + "\n\n");
      close_after_write_ = true;
      return;
    }
    queue(response_head(status, "application/json", text.size(), keep_alive_, extra_headers) +
          text);
    close_after_write_ = !keep_alive_;
    next_after_write_ = keep_alive_;
  }

  // A progress notification for this connection's request, the client's
  // token back in it: the answer becomes an event stream (when the client
  // accepts one), the notification its first event, the answer its last.
  void progress(const std::string& text) {
    if (closed_ || !accepts_events_ || !waiting_) return;
    if (!streaming_) {
      streaming_ = true;
      queue(std::string(event_stream_head));
    }
    event(text);
  }

  // A notification of the subscription this connection streams, `sub` its
  // subscription id in `text`: under the client's own id, or, on a
  // 2025-era session's GET stream, as that era has it.
  void notify(std::string_view text, const MemberSpan& sub) {
    if (answering_ != Answering::legacy_stream)
      return event(replace_span(text, sub.value, client_id_));
    if (auto legacy = legacy_notification(text)) event(*legacy);
  }

  // A notification for the subscription this connection streams.
  void event(const std::string& text) {
    if (!streaming_ || closed_) return;
    if (out_.size() >= f_.options.max_queued_events) {
      spdlog::warn("an HTTP subscriber reads too slowly ({} notifications queued): closing it",
                   out_.size());
      close();
      return;
    }
    queue("event: message\ndata: " + text + "\n\n");
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    if (waiting_) f_.cancel(std::exchange(waiting_, 0), "the client closed its HTTP stream");
    end_legacy_call();
    boost::system::error_code ignored;
    deadline_.cancel();
    keepalive_.cancel();
    question_deadline_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

 private:
  void arm(std::chrono::milliseconds d) {
    deadline_.expires_after(d);
    deadline_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
      if (ec) return;
      if (auto self = w.lock()) self->close();
    });
  }

  void read_request() {
    resume_ = false;
    if (closed_) return;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(f_.options.max_header_bytes));
    parser_->body_limit(f_.options.max_body_bytes);
    // Idle time and the request's arrival share one deadline: a client
    // trickling bytes does not extend it.
    arm(f_.options.request_timeout);
    bhttp::async_read(socket_, buffer_, *parser_,
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                        self->on_request(ec);
                      });
  }

  void on_request(boost::system::error_code ec) {
    deadline_.cancel();
    if (closed_) return;
    if (ec == bhttp::error::body_limit)
      return refuse(413, rpc_error::invalid_request,
                    "the request body is over the listener's limit of " +
                        std::to_string(f_.options.max_body_bytes) + " bytes",
                    false);
    if (ec == bhttp::error::header_limit)
      return refuse(431, rpc_error::invalid_request,
                    "the request's headers are over the listener's limit of " +
                        std::to_string(f_.options.max_header_bytes) + " bytes",
                    false);
    if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset)
      return close();
    if (ec)
      return refuse(400, rpc_error::invalid_request, "not a valid HTTP request: " + ec.message(),
                    false);
    handle(parser_->release());
  }

  void refuse(unsigned status, std::int64_t code, const std::string& message, bool keep_alive,
              std::string_view id_text = "null", std::string_view extra_headers = {}) {
    keep_alive_ = keep_alive;
    const auto body = error_text(id_text, code, message);
    queue(response_head(status, "application/json", body.size(), keep_alive, extra_headers) + body);
    close_after_write_ = !keep_alive;
    next_after_write_ = keep_alive;
  }

  void handle(bhttp::request<bhttp::string_body> req) {
    keep_alive_ = req.keep_alive();
    answering_ = Answering::as_is;
    session_.reset();
    const auto& o = f_.options;
    if (f_.loopback && !loopback_host_allowed(header(req, "Host").value_or("")))
      return refuse(403, rpc_error::invalid_request,
                    "the Host header must name 127.0.0.1, localhost or [::1] on a loopback "
                    "listener (a DNS rebinding defence)",
                    false);
    if (auto origin = header(req, "Origin")) {
      bool ok = false;
      for (const auto& a : f_.origins) ok |= *origin == a;
      if (!ok)
        return refuse(403, rpc_error::invalid_request,
                      "the Origin " + std::string(*origin) +
                          " is not allowed (toolgate mcp --allow-origin ORIGIN allows one)",
                      false);
    }
    if (!o.tokens.empty() && !bearer_matches(header(req, "Authorization").value_or(""), o.tokens))
      return refuse(401, rpc_error::invalid_request,
                    "this listener needs Authorization: Bearer TOKEN with a token from its "
                    "token file",
                    keep_alive_, "null", "WWW-Authenticate: Bearer\r\n");
    const std::string_view target(req.target().data(), req.target().size());
    if (target.substr(0, target.find('?')) != "/mcp")
      return refuse(404, rpc_error::invalid_request, "the MCP endpoint is /mcp", keep_alive_);
    // A 2025-era session's GET (its stream) and DELETE (its end).
    const auto session_id = header(req, "Mcp-Session-Id");
    const auto authorization = header(req, "Authorization").value_or("");
    if (session_id && (req.method() == bhttp::verb::get || req.method() == bhttp::verb::delete_)) {
      auto s = f_.find_session(*session_id, authorization);
      if (!s) return unknown_session("null");
      s->last_used = std::chrono::steady_clock::now();
      if (req.method() == bhttp::verb::delete_) return end_session(std::move(s));
      return open_stream(std::move(s), req);
    }
    if (req.method() != bhttp::verb::post)
      return refuse(405, rpc_error::invalid_request,
                    "MCP over HTTP takes POST here; GET (a stream) and DELETE are for a "
                    "2025-era session, named by its Mcp-Session-Id header",
                    keep_alive_, "null", "Allow: POST, GET, DELETE\r\n");
    if (!media_type_is(header(req, "Content-Type").value_or(""), "application/json"))
      return refuse(415, rpc_error::invalid_request,
                    "the body must be one JSON-RPC message, sent as Content-Type: "
                    "application/json",
                    keep_alive_);
    std::string text = std::move(req.body());
    Message m = parse_message(text);
    if (m.kind == Message::Kind::invalid)
      return refuse(400, m.error_code, m.problem, keep_alive_, text_of(m.reply_id));
    const auto version = header(req, "MCP-Protocol-Version");
    if (session_id) return handle_in_session(std::move(text), m, *session_id, version, req);
    if (m.kind == Message::Kind::request && m.method() == "initialize" &&
        (!version || *version != "2026-07-28"))
      return begin_session(text, m, req);
    if (m.kind == Message::Kind::response)
      return refuse(400, rpc_error::invalid_request,
                    "a client sends no JSON-RPC responses over HTTP under MCP 2026-07-28 (a "
                    "2025-era client answers within its session: send its Mcp-Session-Id)",
                    keep_alive_);
    if (m.kind == Message::Kind::notification)
      // No client notification is defined over HTTP under 2026-07-28
      // (cancelling is closing the stream); one is accepted and dropped.
      return accepted();
    if (auto r =
            check_request_headers(m, version, header(req, "Mcp-Method"), header(req, "Mcp-Name")))
      return refuse(r->status, r->code, r->message, keep_alive_, text_of(m.id()));
    relay_request(std::move(text), m, req, m.method() == "subscriptions/listen");
  }

  // Relays a request that passed the checks: trace context from the
  // headers into its _meta, its id and progress token replaced (relay).
  void relay_request(std::string text, const Message& m,
                     const bhttp::request<bhttp::string_body>& req, bool listen) {
    // Trace context sent as HTTP headers goes into the body's _meta, where
    // the gateway reads it, unless the body names a trace of its own.
    if (auto trace = trace_context_of(header(req, "traceparent").value_or(""),
                                      header(req, "tracestate").value_or(""));
        !trace.empty() && !has_traceparent(m.params()))
      text = with_envelope(text, trace_envelope(trace));
    const auto open = object_open(text);
    const auto id = open ? find_member(text, *open, "id") : std::nullopt;
    if (!id)
      return refuse(400, rpc_error::invalid_request,
                    "write the request's \"id\" key without escapes", keep_alive_, text_of(m.id()));
    // The progress token is replaced in the text (relay): one the parser
    // reads but the text scan cannot find (an escaped key) would pass as
    // the client wrote it -- a front id of another request, perhaps.
    if (const auto* meta = m.params().if_contains("_meta");
        meta && meta->is_object() && meta->get_object().contains("progressToken") &&
        !find_path(text, {"params", "_meta", "progressToken"}))
      return refuse(400, rpc_error::invalid_request,
                    "write the request's \"progressToken\" key (and the keys above it) without "
                    "escapes",
                    keep_alive_, text_of(m.id()));
    accepts_events_ = accepts_event_stream(header(req, "Accept").value_or(""));
    if (session_) {
      call_key_ = id_key(m.id());
      session_->calls[call_key_] = weak_from_this();
      legacy_request_ = text;  // each round of questions retries it
    }
    relay(std::move(text), *id, listen);
  }

  void accepted() {
    queue(response_head(202, "", 0, keep_alive_));
    close_after_write_ = !keep_alive_;
    next_after_write_ = keep_alive_;
  }

  // ---- 2025-era sessions (legacy_http.hpp) --------------------------------------------

  void unknown_session(std::string_view id_text) {
    refuse(404, rpc_error::invalid_request,
           "no such session here (it was ended, it was idle too long, or the listener "
           "restarted): send initialize without Mcp-Session-Id to start a new one",
           keep_alive_, id_text);
  }

  // initialize without a session: the gateway's server/discover, answered
  // as an InitializeResult with a new session's id (answer_initialize).
  void begin_session(std::string_view text, const Message& m,
                     const bhttp::request<bhttp::string_body>& req) {
    f_.sweep_sessions();
    if (f_.sessions.size() >= f_.options.max_sessions)
      return refuse(503, rpc_error::internal_error,
                    "this listener holds its limit of " + std::to_string(f_.options.max_sessions) +
                        " 2025-era sessions; end one (DELETE with its Mcp-Session-Id) or try later",
                    keep_alive_, text_of(m.id()));
    const auto open = object_open(text);
    const auto id = open ? find_member(text, *open, "id") : std::nullopt;
    if (!id)
      return refuse(400, rpc_error::invalid_request,
                    "write the request's \"id\" key without escapes", keep_alive_, text_of(m.id()));
    initialize_params_ = m.params();
    answering_ = Answering::legacy_initialize;
    std::string discover = R"({"jsonrpc":"2.0","id":)";
    discover += id->value.of(text);
    discover += R"(,"method":"server/discover","params":{}})";
    discover = with_envelope(discover, legacy_envelope(initialize_params_));
    const auto discover_id = find_member(discover, 0, "id");
    token_ = f_.options.tokens.empty()
                 ? std::string()
                 : std::string(bearer_token_of(header(req, "Authorization").value_or("")));
    accepts_events_ = false;
    relay(std::move(discover), *discover_id, false);
  }

  void answer_initialize(const std::string& text) {
    answering_ = Answering::as_is;
    const Message a = parse_message(text);
    const auto* result = a.kind == Message::Kind::response ? a.body.if_contains("result") : nullptr;
    if (!result || !result->is_object()) return send_answer(text, 200);  // the error, as it is
    // Checked again: other initializes may have filled the table meanwhile.
    if (f_.sessions.size() >= f_.options.max_sessions)
      return send_answer(
          error_text(client_id_, rpc_error::internal_error,
                     "this listener holds its limit of " + std::to_string(f_.options.max_sessions) +
                         " 2025-era sessions; try later"),
          503);
    auto s = std::make_shared<LegacySession>();
    s->id = random_nonce();  // 128 random bits, hex
    s->version = legacy_version_for(initialize_params_);
    s->token = token_;
    s->envelope = legacy_envelope(initialize_params_);
    const auto* caps = initialize_params_.if_contains("capabilities");
    s->answerable =
        answerable_capabilities(caps && caps->is_object() ? &caps->get_object() : nullptr);
    s->last_used = std::chrono::steady_clock::now();
    f_.sessions.emplace(s->id, s);
    spdlog::info("a {} client began an HTTP session", s->version);
    const auto body = response_text(
        a.id(), false, to_json_text(legacy_initialize_result(result->get_object(), s->version)));
    send_answer(replace_span(body, find_member(body, 0, "id")->value, client_id_), 200,
                "Mcp-Session-Id: " + s->id + "\r\n");
  }

  void handle_in_session(std::string text, const Message& m, std::string_view session_id,
                         const std::optional<std::string_view>& version,
                         const bhttp::request<bhttp::string_body>& req) {
    const auto id_text = m.kind == Message::Kind::notification ? "null" : text_of(m.id());
    auto s = f_.find_session(session_id, header(req, "Authorization").value_or(""));
    if (!s) return unknown_session(id_text);
    if (version && *version != s->version)
      return refuse(400, rpc_error::invalid_request,
                    "the MCP-Protocol-Version header says \"" + std::string(*version) +
                        "\" but this session speaks " + s->version + " (from its initialize)",
                    keep_alive_, id_text);
    s->last_used = std::chrono::steady_clock::now();
    if (m.kind == Message::Kind::response) {
      // An answer to one of the listener's questions.
      const auto it = s->questions.find(text_of(m.id()));
      if (it != s->questions.end()) {
        auto c = it->second.lock();
        s->questions.erase(it);
        if (c) c->question_answered(text_of(m.id()), m, text);
      }
      return accepted();
    }
    if (m.kind == Message::Kind::notification) {
      if (m.method() == "notifications/cancelled")
        if (const auto* rid = m.params().if_contains("requestId"))
          if (const auto it = s->calls.find(id_key(*rid)); it != s->calls.end())
            if (auto c = it->second.lock(); c && c.get() != this) c->close();
      return accepted();  // notifications/initialized and the rest: nothing to do
    }
    if (m.method() == "initialize")
      return refuse(400, rpc_error::invalid_request,
                    "this session is initialized already; to start another, send initialize "
                    "without Mcp-Session-Id",
                    keep_alive_, id_text);
    if (m.method() == "ping") {
      // Answered here: the session is the listener's.
      const auto body = std::string(R"({"jsonrpc":"2.0","id":)") + id_text + R"(,"result":{}})";
      return send_answer(body, 200);
    }
    // The listener adds these when it retries after a question; written by
    // the client they would meet the listener's own in one object.
    for (const char* key : {"inputResponses", "requestState"})
      if (m.params().contains(key))
        return refuse(400, rpc_error::invalid_params,
                      std::string("a 2025-era request carries no params.") + key +
                          " (the listener adds it when the client has answered its questions)",
                      keep_alive_, id_text);
    session_ = std::move(s);
    answering_ = Answering::legacy;
    relay_request(with_envelope(text, session_->envelope), m, req, false);
  }

  // An input_required answer to a session's call: its questions go to the
  // client on the call's SSE stream; true when so (the retry follows their
  // answers, question_answered).
  bool ask_questions(const std::string& text) {
    // Only the gateway says input_required (it overrides a server's
    // resultType), written plainly: every other answer goes on unparsed.
    const auto kind = find_path(text, {"result", "resultType"});
    if (!kind || kind->value.of(text) != R"("input_required")") return false;
    const Message a = parse_message(text);
    const auto* result = a.kind == Message::Kind::response ? a.body.if_contains("result") : nullptr;
    if (!result || !result->is_object() || !is_input_required(result->get_object())) return false;
    auto fail = [&](const std::string& why) {
      end_legacy_call();
      send_answer(error_text(client_id_, rpc_error::internal_error, why), 200);
      return true;
    };
    InputRequired q;
    try {
      const auto span = find_path(text, {"result"});
      q = read_input_required(result->get_object(), span ? span->value.of(text) : "",
                              session_->answerable, QuestionsOf::gateway);
    } catch (const std::invalid_argument& e) {
      return fail(std::string("the gateway's questions could not be read: ") + e.what());
    }
    if (q.requests.empty()) return fail("the gateway asked for input without a question");
    if (!accepts_events_)
      return fail(
          "this call needs the client's answer (an approval or a server's question), which can "
          "be asked only on an SSE stream: send Accept: application/json, text/event-stream");
    if (!streaming_) {
      streaming_ = true;
      queue(std::string(event_stream_head));
      schedule_keepalive();  // a person may take a while to decide
    }
    // Unanswered questions would hold the connection and the session for
    // ever: the round has a deadline, after which the call ends.
    question_deadline_.expires_after(f_.options.question_timeout);
    question_deadline_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
      auto self = w.lock();
      if (ec || !self || self->closed_ || self->questions_.empty()) return;
      self->end_legacy_call();
      self->send_answer(error_text(self->client_id_, rpc_error::internal_error,
                                   "the client did not answer the gateway's question in time, "
                                   "so the call ends"),
                        200);
    });
    request_state_ = std::move(q.request_state);
    answers_.clear();
    for (auto& r : q.requests) {
      const std::string qid = "\"toolgate-" + std::to_string(session_->next_question++) + "\"";
      session_->questions[qid] = weak_from_this();
      questions_.emplace(qid, r.key);
      event(question_text(qid, r.method,
                          r.params_text.empty() ? to_json_text(r.params) : r.params_text));
    }
    return true;
  }

 public:
  // The client's answer to the question `qid` of this connection's call:
  // once every question of the round has its answer, the call is retried
  // with them (inputResponses) and the gateway's requestState.
  void question_answered(const std::string& qid, const Message& m, std::string_view text) {
    const auto it = questions_.find(qid);
    if (it == questions_.end() || closed_) return;
    const std::string key = it->second;
    questions_.erase(it);
    const auto result = find_path(text, {"result"});
    if (!result) {
      const auto* error = m.body.if_contains("error");
      end_legacy_call();
      return send_answer(
          error_text(client_id_, rpc_error::internal_error,
                     "the client answered the question \"" + key + "\" with " +
                         (error ? "an error " + text_of(*error) : std::string("no result")) +
                         ", so the call ends"),
          200);
    }
    answers_.emplace_back(key, std::string(result->value.of(text)));
    if (!questions_.empty()) return;
    const auto params = find_path(legacy_request_, {"params"});
    if (!params || params->value.of(legacy_request_).front() != '{' ||
        has_escaped_key(legacy_request_, params->value.begin)) {
      end_legacy_call();
      return send_answer(error_text(client_id_, rpc_error::invalid_request,
                                    "write the request's \"params\" key without escapes"),
                         200);
    }
    std::string retry = replace_span(
        legacy_request_, params->value,
        with_input_responses(params->value.of(legacy_request_), answers_, request_state_));
    answers_.clear();
    question_deadline_.cancel();
    // The saved request may begin with whitespace: its object opens where
    // object_open says (relay_request checked that the id is there).
    const auto open = object_open(retry);
    const auto id = open ? find_member(retry, *open, "id") : std::nullopt;
    if (!id) {
      end_legacy_call();
      return send_answer(error_text(client_id_, rpc_error::invalid_request,
                                    "write the request's \"id\" key without escapes"),
                         200);
    }
    relay(std::move(retry), *id, false);
  }

 private:
  // A session's call is over (answered, failed or closed): it is no
  // longer the client's to cancel, and its questions are no longer asked.
  void end_legacy_call() {
    if (!session_) return;
    if (const auto it = session_->calls.find(call_key_);
        it != session_->calls.end() && it->second.lock().get() == this)
      session_->calls.erase(it);
    for (const auto& [qid, key] : questions_) session_->questions.erase(qid);
    questions_.clear();
  }

  // GET with a session: its stream, a subscriptions/listen for the list
  // changes (legacy_http.hpp).
  void open_stream(std::shared_ptr<LegacySession> s,
                   const bhttp::request<bhttp::string_body>& req) {
    if (!accepts_event_stream(header(req, "Accept").value_or("")))
      return refuse(406, rpc_error::invalid_request,
                    "a session's GET stream is text/event-stream: send Accept: text/event-stream",
                    keep_alive_);
    // One stream per session: a new one replaces the old, which may be a
    // connection the client already lost (it reconnects after a blip).
    if (auto old = s->stream.lock(); old && old.get() != this) old->close();
    s->stream = weak_from_this();
    session_ = s;
    answering_ = Answering::legacy_stream;
    std::string listen = R"({"jsonrpc":"2.0","id":0,"method":"subscriptions/listen","params":)";
    listen += legacy_listen_params();
    listen += '}';
    listen = with_envelope(listen, s->envelope);
    const auto id = find_member(listen, 0, "id");
    relay(std::move(listen), *id, true);
  }

  // DELETE with a session: it ends, its stream and calls with it.
  void end_session(std::shared_ptr<LegacySession> session) {
    auto& s = *session;
    f_.sessions.erase(s.id);
    std::vector<std::shared_ptr<HttpConnection>> open;
    if (auto c = s.stream.lock()) open.push_back(std::move(c));
    for (auto& [key, w] : s.calls)
      if (auto c = w.lock()) open.push_back(std::move(c));
    for (auto& c : open)
      if (c.get() != this) c->close();
    spdlog::info("a {} client ended its HTTP session", s.version);
    queue(response_head(200, "", 0, keep_alive_));
    close_after_write_ = !keep_alive_;
    next_after_write_ = keep_alive_;
  }

  void relay(std::string text, const MemberSpan& id, bool listen) {
    const std::uint64_t front_id = f_.next_id++;
    client_id_ = std::string(id.value.of(text));
    std::string line = replace_span(text, id.value, std::to_string(front_id));
    // A progress token is the client's choice, and two clients may choose
    // alike: the server sees the request's front id instead, and progress
    // for it comes back to this connection with the client's token.
    progress_token_.clear();
    if (const auto token = find_path(line, {"params", "_meta", "progressToken"})) {
      progress_token_ = std::string(token->value.of(line));
      line = replace_span(line, token->value, std::to_string(front_id));
    }
    // Newlines outside strings are whitespace (inside they are escaped):
    // the stdio framing takes one line per message.
    for (auto& c : line)
      if (c == '\n' || c == '\r') c = ' ';
    waiting_ = front_id;
    f_.waiting.emplace(front_id, weak_from_this());
    if (listen) {
      streaming_ = true;
      queue(std::string(event_stream_head));
      schedule_keepalive();
    }
    if (!f_.send_to_gateway(line)) {
      f_.waiting.erase(front_id);
      waiting_ = 0;
      if (streaming_) return close();
      return refuse(503, rpc_error::internal_error, "the gateway behind this listener has stopped",
                    false, client_id_);
    }
    watch();
  }

  // While the answer is awaited, a read on the socket sees the client go
  // away (its end: cancellation) -- or bytes of a next request, kept for
  // later.
  void watch() {
    if (closed_ || watching_) return;
    watching_ = true;
    socket_.async_read_some(
        buffer_.prepare(4096),
        [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
          self->watching_ = false;
          if (self->closed_) return;
          if (ec == net::error::operation_aborted && self->resume_) {
            self->resume_ = false;
            return self->read_request();
          }
          if (ec) return self->close();
          self->buffer_.commit(n);
          if (self->buffer_.size() >
              self->f_.options.max_header_bytes + self->f_.options.max_body_bytes)
            return self->close();
          if (self->waiting_ || self->streaming_) return self->watch();
          if (!self->writing_ && self->out_.empty()) self->read_request();
        });
  }

  // After a refusal the client may still be sending (a body over the
  // limit): closing at once would reset the connection before it reads the
  // answer.  So the send side is shut, and what still arrives is read and
  // dropped until the client closes or a short deadline passes.
  void linger_close() {
    if (closed_) return;
    if (waiting_) f_.cancel(std::exchange(waiting_, 0), "the client closed its HTTP stream");
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    if (watching_) {
      socket_.cancel(ignored);  // its handler closes
      return;
    }
    arm(std::chrono::milliseconds(2000));
    drain();
  }

  void drain() {
    buffer_.clear();
    socket_.async_read_some(buffer_.prepare(65536),
                            [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                              if (ec || self->closed_) return self->close();
                              self->drain();
                            });
  }

  void schedule_keepalive() {
    keepalive_.expires_after(f_.options.keepalive);
    keepalive_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
      if (ec) return;
      auto self = w.lock();
      if (!self || self->closed_) return;
      if (self->out_.empty()) self->queue(":\n\n");
      self->schedule_keepalive();
    });
  }

  void queue(std::string bytes) {
    out_.push_back(std::move(bytes));
    write_next();
  }

  void write_next() {
    if (writing_ || closed_) return;
    if (out_.empty()) {
      if (close_after_write_) return linger_close();
      if (next_after_write_) {
        next_after_write_ = false;
        if (watching_) {
          // The watch holds the read side: cancel it; its handler reads on.
          resume_ = true;
          boost::system::error_code ignored;
          socket_.cancel(ignored);
        } else {
          read_request();
        }
      }
      return;
    }
    writing_ = true;
    arm(f_.options.write_timeout);
    net::async_write(socket_, net::buffer(out_.front()),
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       self->writing_ = false;
                       self->deadline_.cancel();
                       if (ec) return self->close();
                       self->out_.pop_front();
                       self->write_next();
                     });
  }

 public:
  const std::string& client_id() const { return client_id_; }
  const std::string& progress_token() const { return progress_token_; }

 private:
  HttpFront::Impl& f_;
  tcp::socket socket_;
  net::steady_timer deadline_;
  net::steady_timer keepalive_;
  net::steady_timer question_deadline_;  // the open questions' answers are due
  boost::beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::deque<std::string> out_;
  // How the gateway's answer reaches the client: as it is (2026-07-28), or
  // translated for a 2025-era session (legacy_http.hpp).
  enum class Answering { as_is, legacy_initialize, legacy, legacy_stream };
  Answering answering_ = Answering::as_is;
  std::shared_ptr<LegacySession> session_;                    // the session of the request, if any
  boost::json::object initialize_params_;                     // legacy_initialize: the client's
  std::string token_;                                         // legacy_initialize: the bearer token
  std::string call_key_;                                      // legacy: the request's id (id_key)
  std::string legacy_request_;                                // legacy: as relayed, to retry
  std::unordered_map<std::string, std::string> questions_;    // open: id text -> key
  std::vector<std::pair<std::string, std::string>> answers_;  // key -> answer text
  std::optional<std::string> request_state_;                  // the gateway's, sealed
  std::string client_id_;                                     // the id as the client wrote it
  std::string progress_token_;   // the request's _meta.progressToken as written, or empty
  bool accepts_events_ = false;  // its Accept lists text/event-stream
  std::uint64_t waiting_ = 0;    // the relayed request not yet answered
  bool keep_alive_ = true;
  bool streaming_ = false;  // an SSE response (subscriptions/listen)
  bool writing_ = false;
  bool watching_ = false;
  bool resume_ = false;  // the watch was cancelled to read the next request
  bool close_after_write_ = false;
  bool next_after_write_ = false;
  bool closed_ = false;
};

void HttpFront::Impl::cancel(std::uint64_t id, std::string_view why) {
  waiting.erase(id);
  std::string line =
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)";
  line += std::to_string(id);
  line += R"(,"reason":)";
  line += boost::json::serialize(boost::json::value(why));
  line += "}}";
  send_to_gateway(line);
}

void HttpFront::Impl::route(Frame frame) {
  std::string_view text = frame.text;
  if (frame.kind == Frame::Kind::oversize) {
    // An answer too long to relay still ends its request.
    if (!frame.answer_id || !frame.answer_id->is_int64()) return;
    const auto it = waiting.find(static_cast<std::uint64_t>(frame.answer_id->as_int64()));
    if (it == waiting.end()) return;
    auto c = it->second.lock();
    waiting.erase(it);
    if (c)
      c->answer(error_text(c->client_id(), rpc_error::internal_error,
                           "the answer (" + std::to_string(frame.bytes) +
                               " bytes) is over the gateway's message limit"),
                200);
    return;
  }
  auto open = object_open(text);
  if (!open) return;
  // The envelope is read from the text; a key written with escapes
  // ("m\u0065thod", relayed as the server wrote it) would not be seen, and
  // a request taken for an answer to some client's call.  Such a line is
  // read as every JSON reader reads it, and written again plainly.
  std::string plain;
  if (has_escaped_key(text, *open)) {
    auto v = parse_untrusted(text, max_message_depth, nullptr);
    if (!v || !v->is_object()) return;
    plain = to_json_text(*v);
    text = plain;
    open = object_open(text);
    if (!open) return;
  }
  const auto id = find_member(text, *open, "id");
  const auto method = find_member(text, *open, "method");
  const bool has_method = method.has_value();
  if (has_method && id) {
    // Under 2026-07-28 no request travels to the client; refuse it so the
    // gateway does not wait for an answer.
    send_to_gateway(error_text(id->value.of(text), rpc_error::method_not_found,
                               "an HTTP client of MCP 2026-07-28 takes no requests"));
    return;
  }
  if (has_method) {
    if (const auto token = method->value.of(text) == R"("notifications/progress")"
                               ? find_path(text, {"params", "progressToken"})
                               : std::nullopt) {
      const auto n = front_id_of(token->value.of(text));
      const auto it = n ? waiting.find(*n) : waiting.end();
      if (it == waiting.end()) return;
      if (auto c = it->second.lock(); c && !c->progress_token().empty())
        c->progress(replace_span(text, token->value, c->progress_token()));
      return;
    }
    const auto sub = find_path(text, {"params", "_meta", subscription_key});
    const auto n = sub ? front_id_of(sub->value.of(text)) : std::nullopt;
    const auto it = n ? waiting.find(*n) : waiting.end();
    if (it == waiting.end()) return;  // log messages: not streamed (http_front.hpp)
    if (auto c = it->second.lock()) c->notify(text, *sub);
    return;
  }
  const auto n = id ? front_id_of(id->value.of(text)) : std::nullopt;
  const auto it = n ? waiting.find(*n) : waiting.end();
  if (it == waiting.end()) return;  // cancelled meanwhile
  auto c = it->second.lock();
  waiting.erase(it);
  if (!c) return;
  unsigned status = 200;
  if (const auto code = find_path(text, {"error", "code"}))
    if (const auto v = integer_of(code->value.of(text))) status = status_for_error_code(*v);
  c->answer(replace_span(text, id->value, c->client_id()), status);
}

std::shared_ptr<LegacySession> HttpFront::Impl::find_session(std::string_view id,
                                                             std::string_view authorization) {
  const auto it = sessions.find(std::string(id));
  if (it == sessions.end()) return nullptr;
  if (idle(*it->second, std::chrono::steady_clock::now())) {
    sessions.erase(it);
    return nullptr;
  }
  // A session opened with one token is not another token's to use.
  if (!options.tokens.empty() && !bearer_matches(authorization, {it->second->token}))
    return nullptr;
  return it->second;
}

bool HttpFront::Impl::idle(const LegacySession& s,
                           std::chrono::steady_clock::time_point now) const {
  if (now - s.last_used <= options.session_idle_timeout || !s.stream.expired()) return false;
  for (const auto& [key, c] : s.calls)
    if (!c.expired()) return false;
  return true;
}

void HttpFront::Impl::sweep_sessions() {
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(sessions, [&](const auto& kv) { return idle(*kv.second, now); });
}

void HttpFront::Impl::accept() {
  acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (stopping) return;
    if (!ec) {
      if (connections.size() >= options.max_connections) {
        boost::system::error_code ignored;
        socket.close(ignored);  // over the limit: closed as it comes
      } else {
        socket.set_option(tcp::no_delay(true), ec);
        std::make_shared<HttpConnection>(*this, std::move(socket))->start();
      }
    }
    accept();
  });
}

void HttpFront::Impl::read_gateway() {
  from_gateway.async_read_some(net::buffer(read_buffer),
                               [this](boost::system::error_code ec, std::size_t n) {
                                 if (ec == net::error::operation_aborted)
                                   return;  // shut_down cancelled it
                                 if (ec) {
                                   if (auto last = splitter.finish())
                                     route_safely(std::move(*last));
                                   return shut_down();  // the gateway's output ended
                                 }
                                 splitter.feed(std::string_view(read_buffer.data(), n), frames);
                                 auto ready = std::move(frames);
                                 frames.clear();
                                 for (auto& frame : ready) route_safely(std::move(frame));
                                 if (!stopping) read_gateway();
                               });
}

void HttpFront::Impl::route_safely(Frame frame) {
  // A frame a handler bug cannot route is lost, not the frames after it
  // or the reads: the listener goes on.
  try {
    route(std::move(frame));
  } catch (const std::exception& e) {
    spdlog::error("the HTTP listener: {} (a bug; the listener goes on)", e.what());
  }
}

bool HttpFront::Impl::send_to_gateway(std::string_view line) {
  if (gateway_broken || stopping) return false;
  std::string framed;
  framed.reserve(line.size() + 1);
  framed.append(line);
  framed.push_back('\n');
  gateway_queue.push_back(std::move(framed));
  if (!gateway_writing) write_gateway();
  return true;
}

void HttpFront::Impl::write_gateway() {
  gateway_writing = true;
  net::async_write(to_gateway, net::buffer(gateway_queue.front()),
                   [this](boost::system::error_code ec, std::size_t) {
                     gateway_writing = false;
                     if (ec) {
                       // The gateway has stopped, or shut_down cancelled
                       // the write: nothing more goes to it.
                       gateway_broken = true;
                       gateway_queue.clear();
                       return;
                     }
                     gateway_queue.pop_front();
                     if (!gateway_queue.empty()) write_gateway();
                   });
}

void HttpFront::Impl::shut_down() {
  if (stopping) return;
  stopping = true;
  boost::system::error_code ignored;
  from_gateway.cancel(ignored);
  to_gateway.cancel(ignored);  // a write the gateway no longer reads
  acceptor.close(ignored);
  // close() may erase from `connections`: close a copy.
  std::vector<HttpConnection*> open(connections.begin(), connections.end());
  for (auto* c : open) c->close();
  work.reset();
}

HttpFront::HttpFront(HttpListenOptions options, int to_gateway, int from_gateway,
                     std::size_t max_message_bytes)
    : impl_(
          std::make_unique<Impl>(std::move(options), to_gateway, from_gateway, max_message_bytes)) {
  auto& o = impl_->options;
  impl_->loopback = is_loopback_address(o.address);
  boost::system::error_code ec;
  const auto address = net::ip::make_address(o.address, ec);
  if (ec)
    throw std::runtime_error("--listen: \"" + o.address + "\" is not an IP address (" +
                             ec.message() + ")");
  if (!impl_->loopback && o.tokens.empty())
    throw std::runtime_error("--listen " + o.address +
                             " is not a loopback address: serving beyond this machine needs "
                             "--token-file (bearer tokens)");
  const tcp::endpoint endpoint(address, o.port);
  auto& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(net::socket_base::max_listen_connections, ec);
  if (ec)
    throw std::runtime_error("cannot listen on " + o.address + ":" + std::to_string(o.port) + ": " +
                             ec.message());
  impl_->origins = allowed_origins(port(), o.allow_origins);
}

HttpFront::~HttpFront() = default;

std::uint16_t HttpFront::port() const { return impl_->acceptor.local_endpoint().port(); }

void HttpFront::run() {
  auto& f = *impl_;
  f.read_gateway();
  f.accept();
  // A handler that throws (a bug: every refusal is an answer) is logged and
  // the listener serves on, instead of ending every client's service.
  for (;;) {
    try {
      f.ioc.run();
      return;
    } catch (const std::exception& e) {
      spdlog::error("the HTTP listener: {} (a bug; the listener goes on)", e.what());
    }
  }
}

void HttpFront::stop() {
  net::post(impl_->ioc, [f = impl_.get()] { f->shut_down(); });
}

}  // namespace toolgate::mcp
