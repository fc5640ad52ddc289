#include <toolgate/mcp/gateway.hpp>

#include "canonical_json.hpp"
#include "client_calls.hpp"
#include "client_roots.hpp"
#include "client_subscriptions.hpp"
#include "client_tasks.hpp"
#include "elicitation.hpp"
#include "gated_requests.hpp"
#include "input_requests.hpp"
#include "jsonrpc.hpp"
#include "peer.hpp"
#include "raw_json.hpp"
#include "request_envelope.hpp"
#include "sealed_state.hpp"
#include "secret_files.hpp"
#include "server_tools.hpp"
#include "shared_store.hpp"
#include "tool_mapping.hpp"
#include "tool_pins.hpp"
#include "worker_pool.hpp"

#include <toolgate/json.hpp>

#include <boost/json/parse.hpp>

#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {
constexpr std::string_view client_gone_text = "the MCP client has gone";

OnDrift on_drift_of(const std::string& s) {
  if (s == "block") return OnDrift::block;
  if (s == "ask") return OnDrift::ask;
  if (s == "allow") return OnDrift::allow;
  throw std::invalid_argument("on_drift must be block, ask or allow, not \"" + s + "\"");
}

ToolPins pins_from(const GatewayOptions& o, SharedStore* shared) {
  std::optional<PinMap> file;
  if (!o.pin_file.empty()) file = read_pin_file(o.pin_file);
  return ToolPins(std::move(file), on_drift_of(o.on_drift), o.pin_file.string(), shared);
}

std::unique_ptr<SharedStore> shared_store_from(const GatewayOptions& o) {
  if (!o.seal_key_file.empty() && !o.shared_store)
    throw std::invalid_argument(
        "a shared sealing key needs a shared store: without one each replica keeps its own "
        "list of spent approvals, and one approval could run once on every replica");
  return o.shared_store ? std::make_unique<SharedStore>(*o.shared_store) : nullptr;
}

// The approvals' key: the replicas' shared keys, or this process's own.
StateSealer sealer_from(const GatewayOptions& o) {
  if (o.seal_key_file.empty()) return StateSealer();
  return StateSealer(read_secret_lines(o.seal_key_file, "sealing key file", 32));
}
}  // namespace

// The gateway's own part: what it does with the peers' messages (the relay
// itself is Peer's), the tool body, the approver, and the lifetime.
struct Gateway::Impl final : PeerHandler {
  Impl(Host& h, int client_in, int client_out, ServerLink& s, GatewayOptions o)
      : host(h),
        server_process(s),
        opt(std::move(o)),
        client("the client", client_in, client_out, opt.max_message_bytes, opt.signal_check),
        server("the MCP server", s.stdout_fd(), s.stdin_fd(), opt.max_message_bytes,
               opt.signal_check),
        shared_store(shared_store_from(opt)),
        pins(pins_from(opt, shared_store.get())),
        tools(
            h,
            [this](const ToolContext& c, ToolCompletion done) { forward_call(c, std::move(done)); },
            [this](const ToolContext& c) { return forward_request(c); }, pins, opt.session_id,
            opt.own_tools),
        pool(opt.max_calls_in_flight),
        server_request_pool(opt.max_calls_in_flight),
        readers(2 * opt.max_calls_in_flight + 2, 2) {
    client.connect(server, *this);
    server.connect(client, *this);
    if (server_modern) {
      server.speak_modern(gateway_envelope());
      server_init = init_from_discover(opt.server_protocol.discover_result);
    }
    // A drifted tool is refused by a guard: monotonic, so no later hook
    // can allow it, and the denial names why (tool_pins.hpp).  Whatever
    // the arguments: its static verdict says so, and tools/list leaves it
    // out (ServerTools::hidden).
    if (pins.on_drift() == OnDrift::block) {
      HookOptions o("pins");
      o.denies_always = [this](const CallIdentity& who) { return pins.drift(who.tool); };
      host.add_guard("toolgate.mcp", std::move(o),
                     [this](const HookCall& c) { return pins.drift(c.identity.tool); });
    }
  }

  Host& host;
  ServerLink& server_process;
  GatewayOptions opt;
  // The server speaks MCP 2026-07-28 (probe_server found so): no
  // initialize, the envelope on every request, and the clients of either
  // era served from its DiscoverResult.
  const bool server_modern = opt.server_protocol.modern;
  Peer client;
  Peer server;
  // What replicas share (null without --redis); pins and used_states use it.
  std::unique_ptr<SharedStore> shared_store;
  ToolPins pins;
  ClientCalls calls;
  ClientRoots roots;
  ClientTasks tasks;
  ClientSubscriptions subscriptions;  // a 2026-07-28 client's, before a 2025 server
  ServerTools tools;
  WorkerPool pool;
  // The server's own gated requests (sampling, elicitation) run apart: a
  // tool call waiting for the server may be what the server is asking
  // about, and it holds a thread of `pool` until the answer comes.
  WorkerPool server_request_pool;
  std::thread server_thread;
  // The threads that read the peers: the reading moves to another when
  // the thread that read a message keeps its work (Peer::pass_reading),
  // counted in `pool` or `server_request_pool` (a Reservation).  So at
  // most one reader per peer plus that work; the gateway's own threads
  // (run's, server_thread) only wait for the reading to end, and a hook
  // that never returns holds none of them.
  WorkerPool readers;

  std::atomic<bool> client_elicits{false};
  // The client's protocol era, decided by its first request: initialize
  // (2025-06-18, 2025-11-25) or a 2026-07-28 request (server/discover, or
  // any request whose _meta names that version).  The server is always
  // spoken to in the older protocol: for a 2026-07-28 client the gateway
  // initializes it itself (protocol_eras in host/README).
  enum class Era { unknown, legacy, modern };
  std::atomic<Era> client_era{Era::unknown};
  // What the server said of itself: its initialize result (a 2025 server
  // the gateway initialized for a 2026-07-28 client) or, for a 2026-07-28
  // server, the same members from its DiscoverResult.  Under state_mutex.
  json::object server_init;
  StateSealer sealer{sealer_from(opt)};
  UsedNonces used_states{shared_store.get()};  // approvals already spent (sealed_state.hpp)
  // Whom a sealed state is for: this process, or with shared keys every
  // replica spending its approvals in the same store (prefix).
  const std::string seal_scope =
      opt.seal_key_file.empty() ? opt.session_id : "replicas:" + opt.shared_store->prefix;
  std::atomic<bool> shutting_down{false};
  std::atomic<std::uint64_t> call_counter{0};
  mutable std::mutex state_mutex;
  std::string protocol_version;  // as the server answered initialize
  // What a 2025 client said it can be asked (elicitation, sampling, roots):
  // a 2026-07-28 server's questions the gateway asks it on the server's behalf.
  json::object legacy_answerable;
  std::string abandoned;  // calls given up on at shutdown (drain_workers)

  std::string version() const {
    std::lock_guard lock(state_mutex);
    return protocol_version;
  }
  std::string abandoned_text() const {
    std::lock_guard lock(state_mutex);
    return abandoned;
  }

  // ---- what the gateway does with the peers' messages ------------------------------
  bool take_request(Peer& from, Message& m, json::object& note) override {
    const auto method = m.method();
    if (&from == &server && server_modern) {
      // MCP 2026-07-28's stdio transport: a server writes no requests (it
      // asks through input_required results, which toolgate does not take).
      server.reply_error(m.id(), rpc_error::method_not_found,
                         "a server speaking MCP 2026-07-28 sends no requests; toolgate relays "
                         "none to the client (" +
                             std::string(method) + ")");
      return true;
    }
    if (&from == &client && era_answered(m)) return true;
    if (&from == &client && method == "subscriptions/listen" && !server_modern &&
        client_era.load() == Era::modern) {
      open_subscription(m);
      return true;
    }
    if (const auto* g = gated_method(method, &from == &client)) {
      on_gated_request(from, *g, m);
      return true;
    }
    if (&from != &client) {
      // The server was never told the client runs tasks (without_client_tasks):
      // it has no task of the client's to ask about, and the client's tasks
      // (whose results no hook saw) are not its to read.
      if (method.starts_with("tasks/")) {
        server.reply_error(m.id(), rpc_error::method_not_found,
                           "toolgate does not relay " + std::string(method) + " to the client");
        return true;
      }
      return false;
    }
    if (method == "tools/call") {
      on_client_call(m);
      return true;
    }
    if (method.starts_with("tasks/")) {
      on_client_task_request(m);
      return true;
    }
    if (method == "initialize") {
      client_elicits = client_can_elicit_forms(m.params());
      roots.on_initialize(m.params());
      if (const auto* caps = m.params().if_contains("capabilities"); caps && caps->is_object()) {
        std::lock_guard lock(state_mutex);
        legacy_answerable = answerable_capabilities(&caps->get_object());
      }
      without_client_tasks(m);
      if (server_modern) {
        answer_initialize(m);
        return true;
      }
    }
    // No ping in 2026-07-28: the gateway answers for itself.
    if (method == "ping" && server_modern) {
      client.send(make_result(m.id(), json::object{}));
      return true;
    }
    if (method == "tools/list") note["had_cursor"] = m.params().contains("cursor");
    if (calls.by_client_id(m.id())) {
      client.reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
      return true;
    }
    return false;
  }

  bool take_notification(Peer& from, Message& m) override {
    if (&from == &server && server_modern)
      if (const auto* sid = subscription_of(m)) return on_subscription_notification(m, *sid);
    if (&from == &server && !server_modern && client_era.load() == Era::modern) {
      // A 2025 server's list changes reach a 2026-07-28 client only on the
      // subscriptions that asked for them (client_subscriptions.hpp).
      if (m.method().ends_with("/list_changed")) {
        if (m.method() == "notifications/tools/list_changed") tools.mark_stale();
        subscriptions.deliver(m.method(), [&](const json::object& n) { client.send(n); });
        return true;
      }
    }
    if (&from == &server && m.method() == "notifications/tools/list_changed") {
      tools.mark_stale();
      return false;
    }
    // The server's tasks are the gateway's business (client_tasks.hpp):
    // their status notifications name ids the client never saw.
    if (&from == &server && m.method() == "notifications/tasks/status") return true;
    if (&from == &client && m.method() == "notifications/roots/list_changed") {
      roots.mark_stale();
      return server_modern;  // a 2026-07-28 server has no roots of the client's
    }
    // The handshake's last step, which a 2026-07-28 server never began.
    if (&from == &client && m.method() == "notifications/initialized") return server_modern;
    if (m.method() != "notifications/cancelled") return false;
    const auto* rid = m.params().if_contains("requestId");
    if (&from == &client && rid && subscriptions.cancel(*rid)) return true;
    auto call = rid ? calls.by_client_id(*rid, &from == &server) : nullptr;
    if (!call) return false;
    // The tool body tells the server (with its own request id).
    call->client_cancelled = true;
    call->cancel();
    return true;
  }

  // ---- subscriptions/listen towards a 2026-07-28 server -----------------------------
  // Such a server tells of list changes only on a subscription.  The
  // gateway holds one of its own for the tool list (tools/list_changed
  // keeps pins and hidden tools true mid-session); a client's own
  // subscriptions are relayed, and their notifications reach it under the
  // id it gave its subscriptions/listen.
  static constexpr std::string_view subscription_key = "io.modelcontextprotocol/subscriptionId";

  static const json::value* subscription_of(const Message& m) {
    const auto* meta = m.params().if_contains("_meta");
    return meta && meta->is_object() ? meta->get_object().if_contains(subscription_key) : nullptr;
  }

  void listen_for_tool_changes() {
    std::lock_guard lock(state_mutex);
    const auto* caps = server_init.if_contains("capabilities");
    const auto* tools_cap =
        caps && caps->is_object() ? caps->get_object().if_contains("tools") : nullptr;
    const auto* changes = tools_cap && tools_cap->is_object()
                              ? tools_cap->get_object().if_contains("listChanged")
                              : nullptr;
    if (!changes || !changes->is_bool() || !changes->get_bool()) return;
    server.request_text_async(
        "subscriptions/listen", R"({"notifications":{"toolsListChanged":true}})", Signal::make(),
        nullptr, [this](Answer a) {
          if (shutting_down) return;
          spdlog::warn(
              "the MCP server ended toolgate's subscription to its tool list ({}); a change "
              "is seen when a client next lists the tools",
              a.end == Answer::End::answered ? text_of(a.response())
              : a.end == Answer::End::failed ? a.failure()
                                             : server.unwritable());
        });
  }

  bool on_subscription_notification(Message& m, const json::value& sid) {
    const bool tools_changed = m.method() == "notifications/tools/list_changed";
    if (tools_changed) tools.mark_stale();
    auto client_id = server.ids().peer_id_of(sid, "subscriptions/listen");
    if (!client_id) {
      // Not a client's subscription: the gateway's own (or one that has
      // ended).  A 2025 client hears of a tool list change the 2025 way; a
      // 2026-07-28 client hears only of what it subscribed to itself, and a
      // client that has not begun hears nothing.
      if (tools_changed && client_era.load() == Era::legacy)
        client.send(make_notification("notifications/tools/list_changed", json::object{}));
      return true;
    }
    if (!m.text.empty())
      if (auto span = find_path(m.text, {"params", "_meta", subscription_key})) {
        client.send_text(replace_span(m.text, span->value, to_json_text(*client_id)));
        return true;
      }
    m.body.at("params").as_object().at("_meta").as_object()[subscription_key] = *client_id;
    client.send(m.body);
    return true;
  }

  // A 2026-07-28 client's subscriptions/listen in front of a 2025 server:
  // the gateway holds it, acknowledging what the server announces.
  void open_subscription(const Message& m) {
    json::object caps;
    {
      std::lock_guard lock(state_mutex);
      if (const auto* c = server_init.if_contains("capabilities"); c && c->is_object())
        caps = c->get_object();
    }
    // The acknowledgement is sent before any notification of the
    // subscription can be (the spec's order): under the table's lock.
    if (calls.by_client_id(m.id()))
      return client.reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
    const auto opened = subscriptions.open(m.id(), m.params(), caps, [&](json::object ack) {
      client.send(make_notification("notifications/subscriptions/acknowledged", std::move(ack)));
    });
    if (opened == ClientSubscriptions::Opened::id_in_use)
      client.reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
    else if (opened == ClientSubscriptions::Opened::too_many)
      client.reply_error(m.id(), rpc_error::invalid_request,
                         std::to_string(ClientSubscriptions::max_open) +
                             " subscriptions are open; cancel one (notifications/cancelled) "
                             "before opening another");
  }

  std::optional<json::object> saw_result(Peer& from, const PendingRequest& request,
                                         const json::object& r) override {
    if (&from != &server) return std::nullopt;
    if (request.method == "subscriptions/listen") {
      // Its graceful end names the subscription by the id the client gave it.
      const auto* meta = r.if_contains("_meta");
      if (!meta || !meta->is_object() || !meta->get_object().contains(subscription_key))
        return std::nullopt;
      json::object out = r;
      out.at("_meta").as_object()[subscription_key] = request.peer_id;
      return out;
    }
    if (request.method == "tools/list") {
      const auto* had_cursor = request.note.if_contains("had_cursor");
      tools.on_list_result(r, had_cursor && had_cursor->as_bool());
      auto listed = tools.without_hidden(r);
      if (opt.code_tools == GatewayOptions::CodeTools::off && opt.own_tools.empty()) return listed;
      return with_gateway_tools(listed ? *listed : r);
    }
    if (request.method == "initialize") {
      if (const auto* v = r.if_contains("protocolVersion"); v && v->is_string()) {
        std::string ver(v->get_string());
        if (ver != "2025-06-18" && ver != "2025-11-25")
          spdlog::warn(
              "the MCP server chose protocol version {}; toolgate mcp is built for "
              "2025-06-18 and 2025-11-25",
              ver);
        std::lock_guard lock(state_mutex);
        protocol_version = std::move(ver);
      }
      return with_gateway_tasks(r, version() == "2025-11-25");
    }
    return std::nullopt;
  }

  void write_failed(Peer& to) override {
    if (&to == &client && client.set_gone(std::string(client_gone_text))) {
      spdlog::warn("cannot write to the client (its end is closed); shutting down");
      client.wake();
    }
  }

  bool keep_reading(const Peer& from) override {
    // The server is read until it closes its output: calls still running
    // after the client has gone need its answers.
    return &from == &server || !(client.gone() || server.gone());
  }

  // The gateway's own tools (--tools) and run_code on the last page of the
  // list (run_code's description now declares the tools just registered);
  // with CodeTools::only, run_code alone.
  json::object with_gateway_tools(const json::object& result) const {
    json::object out = result;
    json::array listed;
    const bool only = opt.code_tools == GatewayOptions::CodeTools::only;
    if (!only)
      if (const auto* t = result.if_contains("tools"); t && t->is_array()) listed = t->get_array();
    const auto* next = result.if_contains("nextCursor");
    if (!(next && next->is_string()))
      for (auto& t : host.tools_json()) {
        const auto name = t.at("name").as_string();
        const bool code =
            name == code_mode_tool && opt.code_tools != GatewayOptions::CodeTools::off;
        if (!code && (only || !tools.is_own(name))) continue;
        if (tools.hidden(name)) continue;
        t.as_object().erase("owner");
        listed.push_back(std::move(t));
      }
    out["tools"] = std::move(listed);
    return out;
  }

  // ---- protocol eras: a 2026-07-28 client (host/README "Protocol eras") -------------
  static constexpr std::string_view modern_version = "2026-07-28";
  static constexpr std::string_view tasks_extension = "io.modelcontextprotocol/tasks";

  // The protocol version a request's _meta names, or "" when none.
  static std::string_view envelope_version(const json::object& params) {
    const auto* meta = params.if_contains("_meta");
    const auto* v = meta && meta->is_object()
                        ? meta->get_object().if_contains("io.modelcontextprotocol/protocolVersion")
                        : nullptr;
    return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
  }
  // The client capabilities a 2026-07-28 request's _meta declares.
  static const json::object* envelope_capabilities(const json::object& params) {
    const auto* meta = params.if_contains("_meta");
    const auto* c =
        meta && meta->is_object()
            ? meta->get_object().if_contains("io.modelcontextprotocol/clientCapabilities")
            : nullptr;
    return c && c->is_object() ? &c->get_object() : nullptr;
  }

  // Decides the client's era on its first request, and answers what only
  // the gateway can under 2026-07-28: server/discover, a request without
  // the envelope or of another version.  true: answered here.
  bool era_answered(Message& m) {
    const auto method = m.method();
    const auto version = envelope_version(m.params());
    Era era = client_era.load();
    if (era == Era::unknown) {
      if (method == "initialize") {
        client_era = Era::legacy;
        return false;
      }
      if (method != "server/discover" && version.empty()) return false;  // a ping, say
      client_era = era = Era::modern;
      if (!server_modern && !initialize_server_for_modern(m)) return true;
    }
    if (era != Era::modern) return false;
    if (version.empty()) {
      client.reply_error(
          m.id(), rpc_error::invalid_params,
          "this session speaks MCP 2026-07-28 (its first request did): every request "
          "needs _meta with io.modelcontextprotocol/protocolVersion and "
          "io.modelcontextprotocol/clientCapabilities");
      return true;
    }
    if (version != modern_version) {
      json::object error{{"code", rpc_error::unsupported_version},
                         {"message", "Unsupported protocol version"},
                         {"data", json::object{{"supported", json::array{modern_version}},
                                               {"requested", version}}}};
      client.send(make_error_object(m.id(), std::move(error)));
      return true;
    }
    if (method == "server/discover") {
      std::lock_guard lock(state_mutex);
      client.send(make_result(m.id(), discover_result(server_init)));
      return true;
    }
    if (method == "initialize") {
      client.reply_error(m.id(), rpc_error::invalid_request,
                         "this session speaks MCP 2026-07-28 (its first request did), which has no "
                         "initialize; start a new session to speak an older version");
      return true;
    }
    return false;
  }

  // A 2026-07-28 client sends no initialize, so the gateway initializes the
  // server itself -- in 2025-11-25, declaring no client capabilities, so the
  // server asks the client nothing mid-call (there is no one to ask: under
  // 2026-07-28 only results travel to the client).  false: it failed, and
  // the client's request got the error.
  bool initialize_server_for_modern(Message& first) {
    json::object info{{"name", "toolgate"}, {"version", "mcp-gateway"}};
    if (const auto* meta = first.params().if_contains("_meta"); meta && meta->is_object())
      if (const auto* ci = meta->get_object().if_contains("io.modelcontextprotocol/clientInfo");
          ci && ci->is_object())
        info = ci->get_object();
    auto stop = Signal::make()->child(std::chrono::seconds(30));
    auto a = server.request_and_wait("initialize",
                                     json::object{{"protocolVersion", "2025-11-25"},
                                                  {"capabilities", json::object{}},
                                                  {"clientInfo", info}},
                                     *stop);
    const json::object* result = nullptr;
    if (a.end == Answer::End::answered)
      if (const auto* r = a.response().if_contains("result"); r && r->is_object())
        result = &r->get_object();
    if (!result) {
      const std::string why = a.end == Answer::End::answered ? text_of(a.response())
                              : a.end == Answer::End::failed ? a.failure()
                                                             : std::string("no answer in 30 s");
      spdlog::error("the MCP server did not initialize: {}", why);
      client.reply_error(first.id(), rpc_error::internal_error,
                         "toolgate could not initialize the MCP server behind it: " + why);
      return false;
    }
    {
      std::lock_guard lock(state_mutex);
      server_init = *result;
      if (const auto* v = result->if_contains("protocolVersion"); v && v->is_string())
        protocol_version = std::string(v->get_string());
    }
    server.send(make_notification("notifications/initialized", json::object{}));
    return true;
  }

  // A 2026-07-28 server's DiscoverResult as the members of an initialize
  // result, which the rest of the gateway reads: its capabilities (its
  // extensions are its own business with its clients, not the gateway's
  // clients'), its serverInfo and its instructions.
  static json::object init_from_discover(std::string_view discover_text) {
    boost::system::error_code ec;
    auto v = json::parse(discover_text, ec);
    json::object init;
    if (ec || !v.is_object()) return init;
    const auto& d = v.get_object();
    json::object caps;
    if (const auto* c = d.if_contains("capabilities"); c && c->is_object())
      for (const auto& kv : c->get_object())
        if (kv.key() != "extensions") caps.emplace(kv.key(), kv.value());
    init["capabilities"] = std::move(caps);
    const auto* meta = d.if_contains("_meta");
    const auto* info = meta && meta->is_object()
                           ? meta->get_object().if_contains("io.modelcontextprotocol/serverInfo")
                           : nullptr;
    // serverInfo is only a SHOULD under 2026-07-28; a 2025 client requires one.
    init["serverInfo"] =
        info && info->is_object()
            ? *info
            : json::value(json::object{{"name", "unnamed MCP server"}, {"version", "unknown"}});
    if (const auto* i = d.if_contains("instructions"); i && i->is_string())
      init["instructions"] = *i;
    return init;
  }

  // A 2025 client's initialize, when the server speaks 2026-07-28 and has
  // no initialize: answered here from its DiscoverResult, in the version
  // the client asked for when the gateway speaks it (else 2025-11-25, and
  // the client decides whether it can go on).
  void answer_initialize(const Message& m) {
    const auto* asked = m.params().if_contains("protocolVersion");
    const std::string version =
        asked && asked->is_string() &&
                (asked->get_string() == "2025-06-18" || asked->get_string() == "2025-11-25")
            ? std::string(asked->get_string())
            : std::string("2025-11-25");
    json::object result;
    {
      std::lock_guard lock(state_mutex);
      result = server_init;
      protocol_version = version;
    }
    result.emplace("protocolVersion", version);
    // What the gateway cannot carry to a 2025 client from a 2026-07-28
    // server is not offered: logging/setLevel and resources/subscribe are
    // gone from that version, and of list changes the gateway subscribes
    // to the tools' only.
    if (auto* caps = result.if_contains("capabilities"); caps && caps->is_object()) {
      auto& c = caps->get_object();
      c.erase("logging");
      for (const char* kind : {"resources", "prompts"})
        if (auto* k = c.if_contains(kind); k && k->is_object()) {
          k->get_object().erase("listChanged");
          k->get_object().erase("subscribe");
        }
    }
    auto with_tasks = with_gateway_tasks(result, version == "2025-11-25");
    client.send(make_result(m.id(), with_tasks ? std::move(*with_tasks) : std::move(result)));
  }

  // server/discover, answered from the server's initialize result: the
  // gateway supports 2026-07-28 towards this client; the capabilities are
  // the server's (its 2025 task capability left out: tasks under
  // 2026-07-28 are an extension the gateway does not offer yet); nothing
  // cached across callers, since what a caller is offered depends on the
  // policy.
  static json::object discover_result(const json::object& init) {
    json::object caps;
    if (const auto* c = init.if_contains("capabilities"); c && c->is_object())
      for (const auto& kv : c->get_object())
        if (kv.key() != "tasks") caps.emplace(kv.key(), kv.value());
    // The gateway's own tasks, offered as the 2026-07-28 extension.
    auto& extensions = caps["extensions"];
    if (!extensions.is_object()) extensions = json::object{};
    extensions.get_object()[tasks_extension] = json::object{};
    json::object out{{"resultType", "complete"},
                     {"supportedVersions", json::array{modern_version}},
                     {"capabilities", std::move(caps)},
                     {"ttlMs", 0},
                     {"cacheScope", "private"}};
    if (const auto* i = init.if_contains("instructions"); i && i->is_string())
      out["instructions"] = *i;
    if (const auto* si = init.if_contains("serverInfo"); si && si->is_object())
      out["_meta"] = json::object{{"io.modelcontextprotocol/serverInfo", *si}};
    return out;
  }

  // What a 2026-07-28 client needs in every result: resultType, and on
  // cacheable results a cache policy -- never shared, never kept, because
  // what a caller is offered depends on the policy and can change.  The
  // policy replaces any the server gave (a 2026-07-28 server's own).
  static json::object cache_policy(std::string_view method) {
    if (method == "tools/list" || method == "prompts/list" || method == "resources/list" ||
        method == "resources/templates/list" || method == "resources/read")
      return {{"ttlMs", 0}, {"cacheScope", "private"}};
    return {};
  }
  static json::object modern_result_members(std::string_view method) {
    json::object out{{"resultType", "complete"}};
    for (const auto& kv : cache_policy(method)) out.emplace(kv.key(), kv.value());
    return out;
  }
  // resultType is the gateway's to say too: a relayed result is complete
  // (a 2026-07-28 server's other kinds are refused in Peer; a 2025 server
  // has no business saying "input_required" to a client, whose answers to
  // such questions would pass no hook).
  json::object result_overrides(Peer& from, const PendingRequest& request) override {
    if (&from != &server || client_era.load() != Era::modern) return {};
    return modern_result_members(request.method);
  }
  // A result the gateway built, for a 2026-07-28 client: the same members
  // in front, or in place of the ones it has (resultType and the cache
  // policy are the gateway's to say).  `parsed`: the same members as
  // `body` as far as those keys go (the relayed answer's parsed result), or
  // null to parse `body` here.
  static std::string with_modern_members(std::string body, const json::object* parsed,
                                         std::string_view method) {
    const auto members = modern_result_members(method);
    json::value own;
    if (!parsed) {
      own = parse_untrusted(body, max_message_depth, nullptr).value_or(nullptr);
      if (!own.is_object()) return body;
      parsed = &own.get_object();
    }
    // A member the text holds under an escaped key ("result\u0054ype"),
    // which every JSON reader decodes, cannot be edited in place: the
    // result is written again from its parsed text with the gateway's
    // members, or a 2025 server could still say "input_required".
    auto rewritten = [&]() -> std::string {
      auto v = parse_untrusted(body, max_message_depth, nullptr);
      json::object out = v && v->is_object() ? std::move(v->get_object()) : *parsed;
      for (const auto& kv : members) out[kv.key()] = kv.value();
      return to_json_text(out);
    };
    for (auto it = members.end(); it != members.begin();) {
      --it;
      if (const auto* had = parsed->if_contains(it->key())) {
        if (*had == it->value()) continue;
        auto span = find_member(body, 0, it->key());
        if (!span) return rewritten();
        body = replace_span(body, span->value, to_json_text(it->value()));
        continue;
      }
      body = insert_first_member(body, 0, to_json_text(json::string(it->key())),
                                 to_json_text(it->value()));
    }
    return body;
  }

  // ---- tasks (client_tasks.hpp) ------------------------------------------------------
  // The client's tasks/* requests name the gateway's tasks, answered here
  // (a parked tasks/result holds no thread); they never reach the server.
  void on_client_task_request(Message& m) {
    const auto method = m.method();
    const auto& params = m.params();
    auto send = [&](const ClientTasks::Reply& r) {
      client.send_text(response_text(r.id, r.is_error, r.body_text));
    };
    const bool modern = client_era.load() == Era::modern;
    if (method == "tasks/get") return send(tasks.get(m.id(), params));
    // 2026-07-28's extension has tasks/update and no tasks/result or list.
    if (modern && method == "tasks/update") return send(tasks.update(m.id(), params));
    if (!modern && method == "tasks/list") return send(tasks.list(m.id(), params));
    if (!modern && method == "tasks/result") {
      if (auto r = tasks.result(m.id(), params)) send(*r);
      return;
    }
    if (method == "tasks/cancel") {
      for (const auto& r : tasks.cancel(m.id(), params, [&](const std::string& call_id) {
             if (auto call = calls.by_call_id(call_id)) call->cancel();
           }))
        send(r);
      return;
    }
    client.reply_error(m.id(), rpc_error::method_not_found,
                       "toolgate does not know " + std::string(method));
  }

  // The server never gets to make the client run tasks: the client's own
  // task capability (for sampling and elicitation) is not passed on, since
  // the gateway gates those requests by their final result, which a task
  // handle is not.
  static void without_client_tasks(Message& m) {
    // if_contains, not operator[]: Boost.JSON's operator[] may rehash the
    // object even when the key is there, and the caller holds views into
    // this message (its method).
    auto* params = m.body.if_contains("params");
    auto* caps =
        params && params->is_object() ? params->get_object().if_contains("capabilities") : nullptr;
    if (!caps || !caps->is_object() || !caps->get_object().contains("tasks")) return;
    caps->get_object().erase("tasks");
    m.text.clear();  // relayed from the changed value
  }

  // What the client is told the gateway can do with tasks (from 2025-11-25
  // on, where tasks began): task-augmented tools/call, tasks/list and
  // tasks/cancel -- the gateway's own, whatever the server does.  Before
  // that, no tasks, whatever the server says.
  static std::optional<json::object> with_gateway_tasks(const json::object& initialize_result,
                                                        bool tasks_exist) {
    const auto* caps = initialize_result.if_contains("capabilities");
    if (!tasks_exist && !(caps && caps->is_object() && caps->get_object().contains("tasks")))
      return std::nullopt;  // relayed as it came
    json::object out = initialize_result;
    auto& c = out["capabilities"];
    if (!c.is_object()) c = json::object{};
    if (!tasks_exist) {
      c.get_object().erase("tasks");
      return out;
    }
    c.get_object()["tasks"] =
        json::object{{"list", json::object{}},
                     {"cancel", json::object{}},
                     {"requests", json::object{{"tools", json::object{{"call", json::object{}}}}}}};
    return out;
  }

  // Removes "task" and _meta's related-task from a request's params; true
  // when there was one.
  static bool without_task_members(json::object& params) {
    bool changed = params.erase("task") != 0;
    if (auto* meta = params.if_contains("_meta"); meta && meta->is_object())
      changed |= meta->get_object().erase("io.modelcontextprotocol/related-task") != 0;
    return changed;
  }

  // A client request of a 2026-07-28 session: its results need resultType,
  // and an ask is a multi round-trip question when it may elicit.
  void mark_era(ClientCall& call) {
    if (client_era.load() != Era::modern) return;
    call.modern = true;
    const auto* caps = envelope_capabilities(call.params);
    call.modern_elicits = caps && caps->contains("elicitation");
    const auto* ext = caps ? caps->if_contains("extensions") : nullptr;
    call.modern_tasks = ext && ext->is_object() && ext->get_object().contains(tasks_extension);
  }

  // ---- a client's tools/call: the pipeline on a worker ------------------------------
  void on_client_call(Message& m) {
    const auto& p = m.params();
    const auto* name = p.if_contains("name");
    if (!name || !name->is_string() || name->get_string().empty())
      return client.reply_error(m.id(), rpc_error::invalid_params,
                                "tools/call needs a string \"name\"");
    // The reserved names are how the pipeline sees the gated requests
    // (gated_requests.hpp): called as a tool, "mcp/elicitation/create" would
    // put the model's own words to the user as if the server asked.
    if (is_reserved_name(name->get_string()))
      return client.reply_error(
          m.id(), rpc_error::invalid_params,
          "\"" + std::string(name->get_string()) +
              "\" is reserved: the gateway's name for a request it checks (no MCP tool has a "
              "name with \"/\"); send the request itself, such as resources/read");
    if (opt.code_tools == GatewayOptions::CodeTools::off && name->get_string() == code_mode_tool)
      return client.reply_error(m.id(), rpc_error::invalid_params,
                                "unknown tool \"run_code\": this gateway does not offer Code Mode "
                                "(start it with --code-mode)");
    if (opt.code_tools == GatewayOptions::CodeTools::only && name->get_string() != code_mode_tool)
      return client.reply_error(
          m.id(), rpc_error::invalid_params,
          "unknown tool \"" + std::string(name->get_string()) +
              "\": this gateway serves run_code only (--code-mode-only); call the server's tools "
              "from a script");
    auto call = std::make_shared<ClientCall>();
    call->client_id = m.id();
    call->tool = std::string(name->get_string());
    const auto* args = p.if_contains("arguments");
    // A copy in the message's own storage (make_message_storage: no heap
    // allocation per member); params keeps the client's for forward_params
    // to tell whether the hooks rewrote them.
    replace_keeping_storage(call->arguments,
                            args ? json::value(*args) : json::value(json::object{}));
    if (auto span = find_path(m.text, {"params"})) call->params_text = span->value.of(m.text);
    // 2025-11-25's task parameter; a 2026-07-28 request's is ignored (the
    // spec says so: its tasks are an extension the gateway does not offer).
    const auto* task = client_era.load() == Era::modern ? nullptr : p.if_contains("task");
    if (task) {
      if (!task->is_object())
        return client.reply_error(m.id(), rpc_error::invalid_params, "\"task\" must be an object");
      if (name->get_string() == code_mode_tool || tools.is_own(name->get_string()))
        return client.reply_error(m.id(), rpc_error::invalid_params,
                                  "toolgate runs its own tool \"" +
                                      std::string(name->get_string()) +
                                      "\" only without a task; call it without \"task\"");
      call->as_task = true;
      if (const auto* ttl = task->get_object().if_contains("ttl"); ttl && ttl->is_number()) {
        const double ms = ttl->to_number<double>();
        call->task_ttl = ms > 1e12 ? std::int64_t(1e12) : ms < 0 ? 0 : std::int64_t(ms);
      }
    }
    // Taken, not copied: the message ends here (`p` and `name` are not
    // read again).
    if (auto* params = m.body.if_contains("params"); params && params->is_object())
      replace_keeping_storage(call->params, std::move(params->get_object()));
    mark_era(*call);
    call->call_id = opt.session_id + "-" + std::to_string(++call_counter);
    if (server.ids().find_forwarded(call->client_id) || !calls.add(call))
      return client.reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
    if (starts_here(*call)) return run_call(call);
    start(call, pool, client);
  }

  // Whether a call can run up to its body on the client's reading thread,
  // saving the hand-over to a worker: nothing before the body can wait --
  // no plugin code (only the gateway's own quick checks), the tool known,
  // the client's roots known, no question the body may ask (pins' ask, a
  // retry's answers), no server task to wait for, no task of the client's.
  // The body then sends the call and returns; the answer is read where it
  // always is.
  bool starts_here(const ClientCall& call) {
    if (call.as_task || call.modern_tasks || call.tool == code_mode_tool || tools.is_own(call.tool))
      return false;
    if (pins.on_drift() == OnDrift::ask || (!server_modern && tools.task_required(call.tool)))
      return false;
    if (call.modern && call.params.contains("requestState")) return false;
    if (!tools.ready(call.tool) || !roots.known_context()) return false;
    return !host.runs_plugin_code_before_body(call.tool);
  }

  // ---- a gated request (gated_requests.hpp): the pipeline on a worker -----------------
  void on_gated_request(Peer& from, const GatedMethod& g, Message& m) {
    auto call = std::make_shared<ClientCall>();
    call->client_id = m.id();
    call->gated = &g;
    call->from_server = &from == &server;
    call->tool = std::string(g.name);
    call->arguments = m.params();
    call->params = m.params();
    if (auto span = find_path(m.text, {"params"}); span && m.text[span->value.begin] == '{')
      call->params_text = span->value.of(m.text);
    // A server's request to the client runs to completion, never as a task:
    // the hooks judge its result, which a task handle is not; and the
    // server's task ids are its own business.
    if (call->from_server && without_task_members(call->arguments.as_object())) {
      call->params = call->arguments.as_object();
      call->params_text.clear();
    }
    if (!call->from_server) mark_era(*call);
    // A 2026-07-28 client's answers to a 2026-07-28 server's questions are
    // the gateway's to judge (retry_answers runs each through the rest of
    // its question's pipeline): the request's hooks do not see them, so
    // none can think it changed them.
    if (call->modern && server_modern) {
      auto& args = call->arguments.as_object();
      args.erase("inputResponses");
      args.erase("requestState");
    }
    call->call_id = opt.session_id + "-" + std::to_string(++call_counter);
    Peer& to = call->from_server ? client : server;
    if (to.ids().find_forwarded(call->client_id) || !calls.add(call))
      return from.reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
    start(call, call->from_server ? server_request_pool : pool, from);
  }

  // Runs `work` on this thread, which read its message from `from`, when
  // `on` has room for it and another thread can go on reading `from`
  // (Peer::pass_reading); false when it cannot, and nothing ran.
  template <class Work>
  bool run_where_read(WorkerPool& on, Peer& from, Work&& work) {
    const auto place = on.reserve();
    if (!place || !from.pass_reading(readers)) return false;
    work();
    return true;
  }

  // Runs the call where its message was read (run_where_read), else on a
  // worker of `on`; when no thread can be had at all, the requester gets
  // an error now instead of waiting forever.
  void start(const std::shared_ptr<ClientCall>& call, WorkerPool& on, Peer& requester) {
    if (run_where_read(on, requester, [&] { run_call(call); })) return;
    if (on.submit([this, call] { run_call(call); })) return;
    calls.finish(*call);
    requester.reply_error(call->client_id, rpc_error::internal_error,
                          "toolgate cannot start a thread for this request (the process's thread "
                          "limit is reached); try again, or lower --max-calls-in-flight");
  }

  void run_call(const std::shared_ptr<ClientCall>& call) {
    Peer& requester = call->from_server ? server : client;
    try {
      if (call->tool == code_mode_tool)
        tools.ensure_listed(server, *call->signal, &call->waiting);
      else if (!call->gated && !tools.is_own(call->tool))
        tools.ensure(call->tool, server, *call->signal, &call->waiting);
      if (auto clash = call->gated ? std::nullopt : tools.clash_for(call->tool)) {
        calls.finish(*call);
        if (!call->client_cancelled)
          requester.send(make_error(call->client_id, rpc_error::invalid_params, *clash));
        return;
      }
      // The arguments are the pipeline's from here (nothing reads them
      // from the client call again): moved, not copied.
      ToolCall c{{call->call_id, call->tool, opt.session_id, "", "mcp", ""},
                 std::move(call->arguments),
                 call->signal};
      // The client's roots, for guards that narrow to them.  Only the
      // client's own requests carry them: a server's request is not the
      // client asking.
      if (!call->from_server)
        c.identity.client_context = roots.context(client, *call->signal, &call->waiting);
      c.identity.trace = trace_context_in(call->params);
      if (call->gated || call->tool == code_mode_tool || tools.is_own(call->tool)) {
        BatchResult b = host.call_batch({std::move(c)});
        return respond(call, b.results.at(0), b.additional_contexts);
      }
      // A server's tool answers when the server does (forward_call): this
      // thread goes back to the pool, and the call ends where the answer
      // is read (or on a worker, when hooks run on the result).
      host.call_async(std::move(c), [this, call](ToolResult r, std::vector<std::string> contexts) {
        respond(call, r, contexts);
      });
    } catch (const std::exception& e) {
      fail_call(call, e.what());
    }
  }

  // The call's pipeline has ended: its response to the requester (or, for
  // a call the client holds a task for, to the task's waiters).
  void respond(const std::shared_ptr<ClientCall>& call, const ToolResult& result,
               const std::vector<std::string>& contexts) noexcept {
    std::string response;
    Peer& requester = call->from_server ? server : client;
    try {
      Relay relay = call->gated
                        ? reply_for_request(result, call->server_answer, *call->gated, contexts)
                        : relay_for(result, call->server_answer, call->tool, contexts);
      const bool is_error = relay.kind == Relay::Kind::rpc_error;
      std::string body = relay.text.empty() ? to_json_text(relay.body) : relay.text;
      if (call->as_task || !call->task_id.empty()) {
        if (!call->task_id.empty()) {
          // The client holds the task: whoever waits on tasks/result gets
          // the final result now, and nothing answers the tools/call again.
          calls.finish(*call);
          for (const auto& r : tasks.finish(call->task_id, is_error, std::move(body)))
            client.send_text(response_text(r.id, r.is_error, r.body_text));
          return;
        }
        // Refused before the body started (no task was made): the client
        // waits for a task, so the refusal is a JSON-RPC error naming it.
        json::object error{
            {"code", refused_code},
            {"message", result.error ? result.error->message
                                     : std::string("the call ended before its tool ran (an execute "
                                                   "wrapper answered for it): no task was made")}};
        if (result.error)
          error["data"] = json::object{
              {"toolgate/error", call_result_from(result).at("_meta").at("toolgate/error")}};
        response = to_json_text(make_error_object(call->client_id, std::move(error)));
      } else if (call->modern && call->input_required && result.error &&
                 (result.error->code == error_code::approval_unavailable ||
                  result.error->message == call->input_message)) {
        // The approver asked by a multi round-trip question, or the tool
        // body passed on the server's: the client answers by retrying the
        // call (sealed_state.hpp, relay_questions).
        response = response_text(call->client_id, false, to_json_text(*call->input_required));
        call->open_questions.clear();  // the client has them now
      } else {
        if (call->modern && !is_error) {
          // Relayed as text, the body is the server's answer (its parsed
          // result is at hand); otherwise it was built from relay.body.
          const json::object* parsed = relay.text.empty()    ? &relay.body
                                       : call->server_answer ? call->server_answer->body.get()
                                                             : nullptr;
          body = with_modern_members(std::move(body), parsed,
                                     call->gated ? call->gated->method : "tools/call");
        }
        response = response_text(call->client_id, is_error, body);
      }
    } catch (const std::exception& e) {
      return fail_call(call, e.what());
    }
    close_open_questions(*call);
    calls.finish(*call);
    // A request its sender cancelled gets no response (MCP cancellation).
    if (!call->client_cancelled) requester.send_text(response);
  }

  // The gateway itself failed to run the call: the requester hears why.
  void fail_call(const std::shared_ptr<ClientCall>& call, std::string_view what) noexcept {
    close_open_questions(*call);
    try {
      json::object error{{"code", rpc_error::internal_error},
                         {"message", "toolgate failed to run the call: " + std::string(what)}};
      calls.finish(*call);
      if (!call->task_id.empty()) {
        // The client holds a task for this call (its tools/call was answered
        // with it): the failure is the task's, and its waiters hear it.
        for (const auto& r : tasks.finish(call->task_id, true, to_json_text(error)))
          client.send_text(response_text(r.id, r.is_error, r.body_text));
        return;
      }
      if (!call->client_cancelled)
        (call->from_server ? server : client)
            .send_text(to_json_text(make_error_object(call->client_id, std::move(error))));
    } catch (...) {
      spdlog::error("toolgate could not answer a failed call ({})", what);
    }
  }

  // What the tool body keeps for the rounds of one call.
  struct InputRound {
    std::string name;    // the call's: a tool, or mcp/prompts/get ...
    std::string method;  // the request: tools/call, prompts/get or resources/read
    std::string params;  // its params, without any answers
    std::shared_ptr<ClientCall> call;
    std::shared_ptr<Signal> signal;
    RequestEnvelope envelope;  // the capabilities declared to the server
    json::object arguments;    // what sealed states name (the final arguments)
    // What the body makes of the server's last answer.
    std::function<ToolOutput(const Answer&)> finish;
  };

  // The tool body of every server tool: the final arguments to the server.
  // It answers when the server does, and no thread waits meanwhile -- unless
  // the call has a deadline to watch (a timeout wrapper), is a script's
  // sub-call, or the server runs the tool as a task (a second request
  // follows the first).
  void forward_call(const ToolContext& ctx, ToolCompletion done) {
    const std::string name = ctx.call.identity.tool;
    if (pins.on_drift() == OnDrift::ask) {
      // After every guard (a denial outranks this question), before the server.
      if (auto why = pins.drift(name)) {
        const auto answer = approve(ApprovalRequest{ctx.call.identity, ctx.call.arguments, *why,
                                                    "toolgate.mcp/pins", ctx.signal});
        if (answer != ApprovalAnswer::allowed_once) {
          std::string message =
              *why + "; not run: the user did not approve it" +
              (answer == ApprovalAnswer::unavailable ? " (the client cannot be asked)" : "");
          // A 2026-07-28 client's question went into an input_required
          // result (approve_by_round_trip): this failure is what sends it
          // (respond matches the message), and the retry answers it.
          if (answer == ApprovalAnswer::unavailable)
            if (auto c = calls.by_call_id(ctx.call.identity.call_id); c && c->input_required)
              c->input_message = message;
          return std::move(done).complete(ToolOutput::failure(std::move(message)));
        }
      }
    }
    auto call = calls.by_call_id(ctx.call.identity.call_id);
    // A task for the client: a 2025-11-25 client asked for one; a
    // 2026-07-28 client that declared the tasks extension gets one for a
    // tool that may run as a task (the receiver decides, in that era).
    if (call && call->task_id.empty() &&
        (call->as_task || (call->modern_tasks && tools.task_capable(name)))) {
      // Every check passed: the client gets its task now, and the result
      // when this call ends (client_tasks.hpp).
      auto id = tasks.create(call->call_id, call->task_ttl, call->modern);
      if (!id)
        return std::move(done).complete(ToolOutput::failure(
            "toolgate holds as many tasks as it keeps (1024) and none has expired; wait for "
            "some to end, or call without \"task\""));
      call->task_id = *id;
      client.send(make_result(call->client_id, tasks.created_result(*id)));
    }
    static const json::object no_params;
    // A tool the server runs only as a task is called as one, and the body
    // waits for that task's result: the pipeline sees the final result.
    const bool server_task = !server_modern && tools.task_required(name);
    auto round = std::make_shared<InputRound>(InputRound{
        name, "tools/call",
        forward_params(call ? std::string_view(call->params_text) : std::string_view(),
                       call ? call->params : no_params, name, ctx.call.arguments, server_task,
                       (call && call->modern) || server_modern),
        call, ctx.signal,
        // Only a 2026-07-28 server reads an envelope: nothing is built per call for another.
        server_modern ? gateway_envelope(answerable(call.get())) : RequestEnvelope{},
        // Named by a sealed state only for a 2026-07-28 client of such a
        // server (relay_questions): not copied for any other call.
        call && call->modern && server_modern ? ctx.call.arguments : json::object{},
        [this, name, call, signal = ctx.signal](const Answer& a) {
          return call_output(a, name, call.get(), *signal);
        }});
    // The params as forwarded; a copy only when a retry adds answers.
    std::string_view params = round->params;
    std::string with_answers;
    if (call && call->modern && server_modern) {
      // A retry that answers the server's questions (relay_questions).
      std::string refused;
      auto answers = retry_answers(*call, name, ctx.call.arguments, &refused);
      if (!refused.empty()) return std::move(done).complete(ToolOutput::failure(refused));
      if (answers) {
        with_answers = with_input_responses(params, answers->answers, answers->server_state);
        params = with_answers;
      }
    }
    // Without a client call behind it (a Code Mode script's sub-call) no
    // waker is poked when the signal is cancelled: only a waiting thread
    // sees it.  (A deadline is watched by the peer's timer.)
    if (server_task || !call) return std::move(done).complete(forward_call_waiting(*round, params));
    auto completion = std::make_shared<ToolCompletion>(std::move(done));
    server.request_text_async(
        "tools/call", params, ctx.signal, call ? &call->waiting : nullptr,
        [this, round, completion](Answer a) {
          // The server's questions are taken on a worker: asking them runs
          // hooks and waits for the client.
          if (asks_for_input(a)) {
            if (!pool.submit([this, round, completion, a] {
                  ToolOutput out;
                  try {
                    out = on_input_required(a, *round);
                  } catch (const std::exception& e) {
                    out =
                        ToolOutput::failure("toolgate failed to take the MCP server's questions: " +
                                            std::string(e.what()));
                  }
                  std::move(*completion).complete(std::move(out));
                }))
              std::move(*completion)
                  .complete(ToolOutput::failure(
                      "toolgate cannot start a thread to take the MCP server's questions for " +
                      round->name + " (the process's thread limit is reached)"));
            return;
          }
          const auto& name = round->name;
          auto out =
              std::make_shared<ToolOutput>(call_output(a, name, round->call.get(), *round->signal));
          // The rest of the call runs here, on the thread that read the
          // answer.  When plugin code runs on the result, reading the
          // server goes on on another thread first (a slow hook must not
          // hold up the server's other answers), or the rest runs on a
          // worker.
          const auto finish = [completion, out] {
            std::move(*completion).complete(std::move(*out));
          };
          if (host.runs_hooks_on_result(name) &&
              (run_where_read(pool, server, finish) || pool.submit(finish)))
            return;
          finish();
        },
        server_modern ? &round->envelope : nullptr);
  }

  // What the body makes of the server's answer to a tools/call.
  ToolOutput call_output(const Answer& a, const std::string& name, ClientCall* call,
                         const Signal& signal) {
    return output_of(a, server, {"tools/call for " + name, name, "tool " + name + " did not run"},
                     signal, call, [&](const json::object& r) {
                       const auto* e = r.if_contains("error");
                       return e ? output_from_rpc_error(*e, name)
                                : output_from_call_result(r.at("result"), name);
                     });
  }

  // The same call, waited for on this thread.
  ToolOutput forward_call_waiting(const InputRound& round, std::string_view params) {
    const auto& name = round.name;
    const auto& call = round.call;
    const auto& signal = round.signal;
    const bool server_task = !server_modern && tools.task_required(name);
    // A task's creation is answered at once.  Cancelled meanwhile, the
    // call still takes that answer for a moment (server_task_grace): it
    // names the task, which is then cancelled below (dropped, the task
    // would run on unseen).
    auto a = server.request_text_and_wait(
        "tools/call", params, *signal, call ? &call->waiting : nullptr,
        server_modern ? &round.envelope : nullptr,
        server_task ? server_task_grace : std::chrono::milliseconds(0));
    if (asks_for_input(a)) return on_input_required(a, round);
    if (server_task && a.end == Answer::End::answered)
      if (auto task = server_task_id(a.response())) {
        if (signal->fired()) {
          cancel_server_task(*task);
          return call_output(Answer{Answer::End::signalled, a.slot}, name, call.get(), *signal);
        }
        a = server.request_and_wait("tasks/result", json::object{{"taskId", *task}}, *signal,
                                    call ? &call->waiting : nullptr);
        if (a.end == Answer::End::signalled) cancel_server_task(*task);
        auto out = call_output(a, name, call.get(), *signal);
        if (call && call->server_answer) without_server_task_id(*call->server_answer);
        return out;
      }
    return call_output(a, name, call.get(), *signal);
  }

  // How long a server task's creation answer is still awaited after the
  // call's signal fired: well under the drain at shutdown (drain_workers),
  // so a cancelled call still ends in time.
  static constexpr std::chrono::milliseconds server_task_grace{1000};

  // The server's task id in a CreateTaskResult, or nullopt (the server ran
  // the call at once after all, or answered with an error).
  static std::optional<std::string> server_task_id(const json::object& response) {
    const auto* result = response.if_contains("result");
    const auto* task =
        result && result->is_object() ? result->get_object().if_contains("task") : nullptr;
    const auto* id = task && task->is_object() ? task->get_object().if_contains("taskId") : nullptr;
    if (!id || !id->is_string()) return std::nullopt;
    return std::string(id->get_string());
  }

  // The server's task is its business: its id, which a task result names
  // in _meta["io.modelcontextprotocol/related-task"], does not reach the
  // client (whose task, if any, is the gateway's).  The answer is then
  // relayed from values.
  static void without_server_task_id(ServerAnswer& a) {
    const auto* meta = a.body->if_contains("_meta");
    if (!meta || !meta->is_object() ||
        !meta->get_object().contains("io.modelcontextprotocol/related-task"))
      return;
    auto body = std::make_shared<json::object>(*a.body);  // shared: changed in a copy
    auto& own_meta = body->at("_meta").as_object();
    own_meta.erase("io.modelcontextprotocol/related-task");
    if (own_meta.empty()) body->erase("_meta");
    a.body = std::move(body);
    a.text.clear();
  }

  // The call was cancelled while the server's task ran: tell the server to
  // stop it (the cancelled tasks/result alone does not).  Nothing waits for
  // the answer, and nothing withdraws the request: a server too busy to
  // answer in time still gets it (a 2 s wait that then cancelled it left
  // a loaded server's task running).
  void cancel_server_task(const std::string& task) {
    server.request_text_async("tasks/cancel", to_json_text(json::object{{"taskId", task}}),
                              Signal::make(), nullptr, [](Answer) {});
  }

  // ---- a 2026-07-28 server's questions (input_requests.hpp) -------------------------
  // Such a server asks the client mid-call by answering tools/call with
  // input_required.  Each question runs through the pipeline as the 2025
  // server's request of its method would (mcp/elicitation/create,
  // mcp/sampling/createMessage; roots/list is relayed as under 2025):
  //   - a 2025 client is asked here, by that request, and the call is
  //     retried with the answers (at most max_input_rounds times);
  //   - a 2026-07-28 client gets the questions that passed as the call's
  //     input_required result, the gateway's requestState sealed over them,
  //     and its retry's answers go through the rest of their pipeline
  //     (Host::complete_call) before the server sees them.
  // A question the policy refuses ends the call with that refusal: the
  // server cannot be told "no" in its own terms, and fails closed.
  static constexpr int max_input_rounds = 8;
  // Questions in one input_required result: each is a call of the pipeline
  // held open until the client answers (Host's split calls are bounded).
  static constexpr std::size_t max_questions = 16;

  // The client capabilities the gateway declares to a 2026-07-28 server
  // for a call: what the client can answer.  A Code Mode script's call, or
  // a client that declared none, can answer nothing.
  json::object answerable(const ClientCall* call) const {
    if (!call) return {};
    if (call->modern) return answerable_capabilities(envelope_capabilities(call->params));
    std::lock_guard lock(state_mutex);
    return legacy_answerable;
  }

  // Only a 2026-07-28 server asks this way: a 2025 server's result that
  // says "input_required" is a tool result like any other.
  bool asks_for_input(const Answer& a) const {
    if (!server_modern || a.end != Answer::End::answered) return false;
    const auto* r = a.response().if_contains("result");
    return r && r->is_object() && is_input_required(r->get_object());
  }

  ToolOutput on_input_required(Answer a, const InputRound& round) {
    const auto& name = round.name;
    for (int n = 1; asks_for_input(a); ++n) {
      const auto& text = a.slot->text();
      auto span = find_path(text, {"result"});
      InputRequired q;
      try {
        q = read_input_required(a.response().at("result").as_object(),
                                span ? span->value.of(text) : std::string_view(),
                                answerable(round.call.get()));
      } catch (const std::invalid_argument& e) {
        return ToolOutput::failure(
            "the MCP server asked for input in a way toolgate cannot take (" +
            std::string(e.what()) + "); tool " + name + " did not complete");
      }
      if (q.requests.size() > max_questions)
        return ToolOutput::failure("the MCP server asked " + std::to_string(q.requests.size()) +
                                   " questions at once for " + name + "; toolgate takes at most " +
                                   std::to_string(max_questions));
      if (!round.call)
        return ToolOutput::failure("the MCP server asked for input for " + name +
                                   ", which a Code Mode script's call cannot give; call it "
                                   "directly");
      if (round.call->modern) return relay_questions(q, round);
      if (n > max_input_rounds)
        return ToolOutput::failure("the MCP server asked for input " +
                                   std::to_string(max_input_rounds) + " times in one call of " +
                                   name + "; toolgate gave up on it");
      std::vector<std::pair<std::string, std::string>> answers;
      if (auto why = ask_client(q, round, answers)) return ToolOutput::failure(*why);
      a = server.request_text_and_wait(round.method,
                                       with_input_responses(round.params, answers, q.request_state),
                                       *round.signal, &round.call->waiting, &round.envelope);
    }
    return round.finish(a);
  }

  // A 2025 client answers each question now, through the pipeline; the
  // answers (as JSON text) in `answers`.  The reason when one cannot be had.
  std::optional<std::string> ask_client(const InputRequired& q, const InputRound& round,
                                        std::vector<std::pair<std::string, std::string>>& answers) {
    ClientCall& parent = *round.call;
    for (const auto& r : q.requests) {
      const std::string what = "the MCP server's question \"" + r.key + "\" (" + r.method + ")";
      if (r.method == "roots/list") {
        auto a = client.request_text_and_wait(
            "roots/list", r.params_text.empty() ? to_json_text(r.params) : r.params_text,
            *round.signal, &parent.waiting);
        if (a.end != Answer::End::answered)
          return what + " could not be put to the client: " +
                 (a.end == Answer::End::failed      ? a.failure()
                  : a.end == Answer::End::signalled ? cancel_reason(*round.signal)
                                                    : client.unwritable());
        auto span = find_path(a.slot->text(), {"result"});
        if (!span) return what + ": the client answered " + text_of(a.response());
        answers.emplace_back(r.key, std::string(span->value.of(a.slot->text())));
        continue;
      }
      // The question as a server's request of the client (on_gated_request).
      auto sub = std::make_shared<ClientCall>();
      sub->gated = gated_method(r.method, false);
      sub->from_server = true;
      sub->client_id = json::string(parent.call_id + "/" + r.key);
      sub->tool = std::string(sub->gated->name);
      sub->params = r.params;  // its arguments go straight into the ToolCall below
      sub->params_text = r.params_text;
      sub->signal = round.signal;
      sub->call_id = opt.session_id + "-" + std::to_string(++call_counter);
      if (!calls.add(sub)) return what + " was asked twice at once";
      BatchResult b = host.call_batch({ToolCall{
          {sub->call_id, sub->tool, opt.session_id, "", "mcp", ""}, r.params, sub->signal}});
      calls.finish(*sub);
      Relay relay = reply_for_request(b.results.at(0), sub->server_answer, *sub->gated,
                                      b.additional_contexts);
      if (relay.kind == Relay::Kind::rpc_error) {
        const auto* message = relay.body.if_contains("message");
        return what + " was not answered: " +
               (message && message->is_string() ? std::string(message->get_string())
                                                : to_json_text(relay.body));
      }
      answers.emplace_back(r.key, relay.text.empty() ? to_json_text(relay.body) : relay.text);
    }
    return std::nullopt;
  }

  // Ends a question begun for a 2026-07-28 client that will not be answered.
  void close_question(const std::string& split_id, const std::string& why) noexcept {
    try {
      host.complete_call(split_id, ToolResult::failure(error_code::tool_error, why,
                                                       stage::tool_body, "toolgate.mcp"));
    } catch (...) {
      // Already ended (expired): nothing is waiting on it.
    }
  }

  // The questions for a 2026-07-28 client: the call ends with them (respond
  // sends call->input_required), each one begun through its pipeline.
  ToolOutput relay_questions(const InputRequired& q, const InputRound& round) {
    ClientCall& call = *round.call;
    const auto& name = round.name;
    json::object requests, questions;
    std::vector<std::string> begun;
    auto refuse = [&](const std::string& why) {
      for (const auto& id : begun) close_question(id, "another question of the call was refused");
      return ToolOutput::failure(why + "; tool " + name + " did not complete");
    };
    // The client holds a task of the gateway's for this call: its result
    // is the task's, and a task cannot carry questions (tasks/update is
    // not offered).
    if (!call.task_id.empty())
      return refuse(
          "the MCP server asked for input while the call runs as a task of the "
          "gateway's, which cannot carry questions; call it without the tasks extension");
    // Rounds of one call are bounded, as for a 2025 client (each round may
    // carry the call's approval).
    const int round_no = call.question_round + 1;
    if (round_no > max_input_rounds)
      return refuse("the MCP server asked for input " + std::to_string(max_input_rounds) +
                    " times in one call; toolgate gave up on it");
    for (const auto& r : q.requests) {
      const std::string what = "the MCP server's question \"" + r.key + "\" (" + r.method + ")";
      json::object question{{"method", r.method}};
      if (r.method == "roots/list") {
        question["params"] = r.params;
        questions[r.key] = json::object{{"method", r.method}};
        requests[r.key] = std::move(question);
        continue;
      }
      const GatedMethod* g = gated_method(r.method, false);
      SplitBeginOptions o;
      o.caller_approves = true;
      SplitBegin b =
          host.begin_call(ToolCall{{opt.session_id + "-" + std::to_string(++call_counter),
                                    std::string(g->name), opt.session_id, "", "mcp", ""},
                                   r.params,
                                   call.signal},
                          o);
      if (b.verdict == SplitBegin::Verdict::ask) {
        close_question(b.call_id, "its approval cannot be asked");
        return refuse(what + " needs the user's approval (" + b.reason +
                      "), which toolgate cannot ask a 2026-07-28 client inside another question");
      }
      if (b.verdict == SplitBegin::Verdict::deny) return refuse(what + " was refused: " + b.reason);
      begun.push_back(b.call_id);
      questions[r.key] = json::object{{"method", r.method}, {"call", b.call_id}};
      question["params"] = std::move(b.arguments);
      requests[r.key] = std::move(question);
    }
    json::object claims{{"kind", "input"},
                        {"tool", name},
                        {"args", arguments_hash(round.arguments)},
                        {"session", seal_scope},
                        {"nonce", random_nonce()},
                        {"questions", std::move(questions)},
                        {"round", round_no}};
    if (q.request_state) claims["server_state"] = *q.request_state;
    if (!call.approved_question.empty()) claims["approved"] = call.approved_question;
    json::object result{{"resultType", "input_required"}};
    if (!requests.empty()) result["inputRequests"] = std::move(requests);
    result["requestState"] = sealer.seal(std::move(claims), approval_ttl);
    call.input_required = std::move(result);
    call.input_message = "the MCP server asked the client for input (an input_required result)";
    call.open_questions = std::move(begun);
    return ToolOutput::failure(call.input_message);
  }

  // The questions begun for a call whose input_required result is not what
  // its client gets (a hook replaced it, the call failed): nothing will
  // answer them.
  void close_open_questions(ClientCall& call) noexcept {
    for (const auto& id : call.open_questions)
      close_question(id, "the call ended without passing its questions on");
    call.open_questions.clear();
  }

  // The claims of a retry's sealed state when it is the gateway's state
  // for the server's questions (relay_questions) and names this call.
  std::optional<json::object> question_claims(const ClientCall& call, const std::string& tool,
                                              const json::object& arguments) const {
    const auto* state = call.params.if_contains("requestState");
    if (!state || !state->is_string()) return std::nullopt;
    std::string why;
    auto claims = sealer.open(state->get_string(), &why);
    auto claim_is = [&](std::string_view key, std::string_view value) {
      const auto* v = claims ? claims->if_contains(key) : nullptr;
      return v && v->is_string() && v->get_string() == value;
    };
    if (!claim_is("kind", "input")) return std::nullopt;
    if (!claim_is("tool", tool) || !claim_is("args", arguments_hash(arguments)) ||
        !claim_is("session", seal_scope))
      return std::nullopt;
    return claims;
  }

  // The answers a 2026-07-28 client's retry gives to the server's
  // questions, after each passed the rest of its pipeline; nullopt when the
  // retry answers none (no state of the gateway's, or one for another call,
  // spent or expired: the server is called without answers and asks
  // again).  *refused when a hook blocked an answer.
  struct RetryAnswers {
    std::vector<std::pair<std::string, std::string>> answers;
    std::optional<std::string> server_state;
  };
  std::optional<RetryAnswers> retry_answers(ClientCall& call, const std::string& tool,
                                            const json::object& arguments, std::string* refused) {
    auto claims = question_claims(call, tool, arguments);
    if (!claims) return std::nullopt;
    const auto* nonce = claims->if_contains("nonce");
    const auto* exp = claims->if_contains("exp");
    std::string why = "it names no nonce";
    if (!nonce || !nonce->is_string() ||
        !used_states.claim(std::string(nonce->get_string()),
                           exp && exp->is_int64() ? exp->get_int64() : 0, &why)) {
      spdlog::warn(
          "a retry of {} answered the MCP server's questions with a state toolgate cannot "
          "accept ({}); the server is called without the answers",
          tool, why);
      return std::nullopt;
    }
    RetryAnswers out;
    if (const auto* r = claims->if_contains("round"); r && r->is_int64())
      call.question_round = static_cast<int>(r->get_int64());
    if (const auto* s = claims->if_contains("server_state"); s && s->is_string())
      out.server_state = std::string(s->get_string());
    const auto* given = call.params.if_contains("inputResponses");
    const auto* responses = given && given->is_object() ? &given->get_object() : nullptr;
    const auto* questions = claims->if_contains("questions");
    if (!questions || !questions->is_object()) return out;
    for (const auto& kv : questions->get_object()) {
      const std::string key(kv.key());
      // {"method", "call": the question's split call (none for roots/list)}
      const auto* question = kv.value().if_object();
      const auto* call_of = question ? question->if_contains("call") : nullptr;
      const auto* method = question ? question->if_contains("method") : nullptr;
      const std::string split_id(call_of && call_of->is_string() ? call_of->get_string() : "");
      const GatedMethod* gated =
          method && method->is_string() ? gated_method(method->get_string(), false) : nullptr;
      const auto* answer = responses ? responses->if_contains(key) : nullptr;
      auto answer_text = [&]() -> std::string {
        auto span = find_path(call.params_text, {"inputResponses", key});
        return span ? std::string(span->value.of(call.params_text)) : to_json_text(*answer);
      };
      if (split_id.empty()) {  // roots/list: relayed as under 2025
        if (answer) out.answers.emplace_back(key, answer_text());
        continue;
      }
      if (!gated || !answer || !answer->is_object() || !refused->empty()) {
        close_question(split_id, !refused->empty() ? "another answer of the call was blocked"
                                                   : "the client gave no answer");
        continue;
      }
      SplitOutcome o;
      try {
        o = host.complete_call(split_id, ToolResult::success(*answer, {}));
      } catch (const std::out_of_range&) {
        continue;  // the question expired: the server asks again
      }
      // What goes back is what a 2025 server's request of that method
      // would get: the answer as given when no hook changed it.
      Relay relay = reply_for_request(
          o.result,
          ServerAnswer{
              std::make_shared<const json::object>(answer->get_object()), false, {}, answer_text()},
          *gated, o.additional_contexts);
      if (relay.kind == Relay::Kind::rpc_error) {
        const auto* message = relay.body.if_contains("message");
        *refused = "the client's answer to the MCP server's question \"" + key +
                   "\" was refused: " +
                   (message && message->is_string() ? std::string(message->get_string())
                                                    : to_json_text(relay.body)) +
                   "; tool " + tool + " did not complete";
        continue;
      }
      out.answers.emplace_back(key, relay.text.empty() ? to_json_text(relay.body) : relay.text);
    }
    return out;
  }

  // The body of the gated requests' reserved calls: the final params to the
  // other peer, as the requester wrote them unless a hook rewrote them.
  ToolOutput forward_request(const ToolContext& ctx) {
    const GatedMethod* g = gated_call(ctx.call.identity.tool);
    if (!g) return ToolOutput::failure("no gated MCP request is named " + ctx.call.identity.tool);
    auto call = calls.by_call_id(ctx.call.identity.call_id);
    Peer& to = g->from_client ? server : client;
    const bool as_sent = call && !call->params_text.empty() && call->params == ctx.call.arguments;
    std::string params = as_sent ? call->params_text : to_json_text(ctx.call.arguments);
    const std::string method(g->method);
    auto finish = [this, method, g, &to, call, signal = ctx.signal](const Answer& a) {
      return output_of(a, to, {method, method, method + " was not sent"}, *signal, call.get(),
                       [&](const json::object& r) { return output_from_response(r, g->method); });
    };
    // Only prompts/get and resources/read may be answered with questions.
    if (!server_modern || &to != &server ||
        (method != "prompts/get" && method != "resources/read")) {
      auto a =
          to.request_text_and_wait(method, params, *ctx.signal, call ? &call->waiting : nullptr);
      return finish(a);
    }
    // To a 2026-07-28 server, which may ask questions (prompts/get and
    // resources/read): the client's own round-trip members are the
    // gateway's business, not the server's; what a sealed state names is
    // the params without them.
    json::object named = ctx.call.arguments;
    for (const char* key : {"inputResponses", "requestState", "_meta"}) named.erase(key);
    for (const char* key : {"inputResponses", "requestState"}) {
      if (!ctx.call.arguments.contains(key)) continue;
      if (auto member = find_member(params, 0, key)) {
        params = remove_member(params, *member);
        continue;
      }
      json::object rebuilt = ctx.call.arguments;
      rebuilt.erase("inputResponses");
      rebuilt.erase("requestState");
      params = to_json_text(rebuilt);
      break;
    }
    InputRound round{std::string(g->name),
                     method,
                     params,
                     call,
                     ctx.signal,
                     gateway_envelope(answerable(call.get())),
                     std::move(named),
                     finish};
    if (call && call->modern) {
      std::string refused;
      auto answers = retry_answers(*call, round.name, round.arguments, &refused);
      if (!refused.empty()) return ToolOutput::failure(refused);
      if (answers) params = with_input_responses(params, answers->answers, answers->server_state);
    }
    auto a = server.request_text_and_wait(method, params, *ctx.signal,
                                          call ? &call->waiting : nullptr, &round.envelope);
    if (asks_for_input(a)) return on_input_required(a, round);
    return finish(a);
  }

  // How a forwarded request is named in failures.
  struct Forwarded {
    std::string request;  // "tools/call for T": "... before answering <request>"
    std::string subject;  // "T": "<subject>: the call was cancelled while ..."
    std::string unsent;   // "tool T did not run": "<why>; <unsent>"
  };

  // What a tool body makes of its request's end.  An answer the peer sent
  // itself is kept beside the call, so that one no hook changed goes back
  // as it came.
  template <class MapAnswer>
  ToolOutput output_of(const Answer& a, Peer& to, const Forwarded& what, const Signal& signal,
                       ClientCall* call, MapAnswer map) {
    switch (a.end) {
      case Answer::End::answered: {
        const auto& r = a.response();
        const auto* e = r.if_contains("error");
        ToolOutput out = map(r);
        const json::value& body = e ? *e : r.at("result");
        const auto* data = e && e->is_object() ? e->get_object().if_contains("data") : nullptr;
        const bool made_here =
            data && data->is_object() && data->get_object().contains(unusable_answer_mark);
        if (call && body.is_object() && !made_here) {
          auto span = find_path(a.slot->text(), {e ? "error" : "result"});
          // The parsed response is kept, not copied: the answer shares it.
          call->server_answer =
              ServerAnswer{std::shared_ptr<const json::object>(a.slot, &body.get_object()),
                           e != nullptr, out.ok ? std::string() : out.message,
                           span ? std::string(span->value.of(a.slot->text())) : std::string()};
        }
        return out;
      }
      case Answer::End::failed:
        return ToolOutput::failure(a.failure() + " before answering " + what.request);
      case Answer::End::signalled: {
        const bool timed_out = signal.state() == SignalState::timed_out;
        return ToolOutput::failure(
            what.subject + ": " + cancel_reason(signal) + " while " + to.name() + " was running it",
            std::string(timed_out ? error_code::timeout : error_code::cancelled));
      }
      case Answer::End::unsent:
        break;
    }
    return ToolOutput::failure(to.unwritable() + "; " + what.unsent);
  }

  // The key of the gateway's question among a round trip's inputRequests.
  static constexpr std::string_view approval_key = "toolgate/approval";
  static constexpr std::chrono::minutes approval_ttl{10};

  // The approver for a 2026-07-28 client, which cannot be asked mid-call:
  // the retry's answer is read when its sealed requestState vouches for
  // exactly this tool, these final arguments and this session; otherwise
  // the call ends with the question (an input_required result, made in
  // run_call from what this leaves in the call) -- or, for a client that
  // cannot elicit or a script's sub-call, as unavailable.
  ApprovalAnswer approve_by_round_trip(const ApprovalRequest& r) {
    auto call = calls.by_call_id(r.identity.call_id);
    if (!call || !call->modern_elicits || call->gated) return ApprovalAnswer::unavailable;
    // One question per call: a state answers the pipeline's approval only
    // (the state cannot carry two answers, so a second ask in the same call
    // -- pinning's, say -- is refused rather than answered by the first).
    if (call->round_trip_used) return ApprovalAnswer::unavailable;
    call->round_trip_used = true;
    const std::string hash = arguments_hash(r.arguments);
    // What the user was asked: the hook and its reason are sealed too, so
    // an answer given to one question never answers another.
    const std::string question_hash =
        sha256_hex(std::string(r.source) + '\n' + std::string(r.reason));
    // A retry that answers the server's questions, asked after the user
    // allowed this very question in the same call (relay_questions seals
    // the approval in): not asked again, and good once.
    if (auto claims = question_claims(*call, r.identity.tool, r.arguments)) {
      const auto* approved = claims->if_contains("approved");
      const auto* nonce = claims->if_contains("nonce");
      const auto* exp = claims->if_contains("exp");
      std::string why;
      if (approved && approved->is_string() && approved->get_string() == question_hash && nonce &&
          nonce->is_string()) {
        if (used_states.claim("approval/" + std::string(nonce->get_string()),
                              exp && exp->is_int64() ? exp->get_int64() : 0, &why)) {
          call->approved_question = question_hash;
          return ApprovalAnswer::allowed_once;
        }
        spdlog::warn("a retry of {} carried an approval toolgate cannot accept ({}); asking again",
                     r.identity.tool, why);
      }
    }
    const auto* state = call->params.if_contains("requestState");
    const auto* responses = call->params.if_contains("inputResponses");
    const auto* answer = responses && responses->is_object()
                             ? responses->get_object().if_contains(approval_key)
                             : nullptr;
    if (state && state->is_string() && answer) {
      std::string why;
      auto claims = sealer.open(state->get_string(), &why);
      auto claim_is = [&](std::string_view key, std::string_view value) {
        const auto* v = claims ? claims->if_contains(key) : nullptr;
        return v && v->is_string() && v->get_string() == value;
      };
      const auto* nonce = claims ? claims->if_contains("nonce") : nullptr;
      if (claim_is("tool", r.identity.tool) && claim_is("args", hash) &&
          claim_is("session", seal_scope) && claim_is("question", question_hash) && nonce &&
          nonce->is_string()) {
        const auto* exp = claims->if_contains("exp");
        // Once: an approval is for one run of the call, not for its replays.
        if (used_states.claim(std::string(nonce->get_string()),
                              exp && exp->is_int64() ? exp->get_int64() : 0, &why)) {
          const auto given = approval_from_response(json::object{{"result", *answer}});
          if (given == ApprovalAnswer::allowed_once) call->approved_question = question_hash;
          return given;
        }
      } else if (claims) {
        why = "it was given for another call, other arguments or another question";
      }
      spdlog::warn("a retry of {} carried an approval toolgate cannot accept ({}); asking again",
                   r.identity.tool, why);
    }
    json::object question{{"method", "elicitation/create"},
                          {"params", elicitation_params(r, modern_version)}};
    call->input_required =
        json::object{{"resultType", "input_required"},
                     {"inputRequests", json::object{{approval_key, std::move(question)}}},
                     {"requestState", sealer.seal({{"tool", r.identity.tool},
                                                   {"args", hash},
                                                   {"session", seal_scope},
                                                   {"question", question_hash},
                                                   {"nonce", random_nonce()}},
                                                  approval_ttl)}};
    return ApprovalAnswer::unavailable;
  }

  // The Host's approver: elicitation/create to the client.
  ApprovalAnswer approve(const ApprovalRequest& r) {
    if (client_era.load() == Era::modern) return approve_by_round_trip(r);
    if (!client_elicits) return ApprovalAnswer::unavailable;
    // A Code Mode script's call belongs to its run_code call: the client's
    // cancellation of that wakes this wait; the call's own signal carries
    // the run's deadline.
    auto call = calls.by_call_id(r.identity.parent_call_id.empty() ? r.identity.call_id
                                                                   : r.identity.parent_call_id);
    auto signal = r.signal ? r.signal : call ? call->signal : Signal::make();
    auto a = client.request_and_wait("elicitation/create", elicitation_params(r, version()),
                                     *signal, call ? &call->waiting : nullptr);
    switch (a.end) {
      case Answer::End::answered:
        return approval_from_response(a.response());
      case Answer::End::failed:     // the client has gone
      case Answer::End::signalled:  // the call was cancelled; the client was told
        return ApprovalAnswer::cancelled;
      case Answer::End::unsent:
        break;
    }
    return ApprovalAnswer::unavailable;
  }

  // ---- lifetime ---------------------------------------------------------------------
  void read_server() {
    server.read_loop(&readers);
    if (shutting_down) return;
    // The server closed its output: it exited (or will be made to).
    auto st = server_process.wait_for(std::chrono::milliseconds(500));
    if (!st) {
      server_process.send_signal(SIGKILL);
      st = server_process.wait_for(std::chrono::milliseconds(2000));
    }
    server.set_gone("the MCP server " +
                    (st ? server_process.describe_end(*st) : std::string("closed its output")));
    server.stop_writing();
    server.fail_pending(server.gone_reason());
    client.wake();
  }

  void stop_server() {
    shutting_down = true;
    server.shut_output();  // no write is in progress after this, and none follows
    server_process.close_stdin();
    auto st = server_process.wait_for(opt.shutdown_grace);
    if (!st) {
      spdlog::info("the MCP server did not exit after its input closed; sending SIGTERM");
      server_process.send_signal(SIGTERM);
      st = server_process.wait_for(opt.terminate_grace);
    }
    if (!st) {
      spdlog::warn("the MCP server ignored SIGTERM; sending SIGKILL");
      server_process.send_signal(SIGKILL);
      server_process.wait_for(std::chrono::milliseconds(5000));
    }
    server.wake();  // a grandchild may still hold its output open
  }

  // Joins the workers once every call has ended, or gives up on them after
  // call_drain_grace (a hook looping forever); false when it gave up.
  bool drain_workers() {
    if (calls.wait_drained(opt.call_drain_grace)) {
      pool.shutdown();
      server_request_pool.shutdown();
      return true;
    }
    const auto [n, list] = calls.still_running(8);
    {
      std::lock_guard lock(state_mutex);
      abandoned = std::to_string(n) + " call(s) still running " +
                  std::to_string(opt.call_drain_grace.count()) +
                  " ms after they were cancelled at shutdown: " + list +
                  "; a hook or tool body that never returns cannot be interrupted in process, so "
                  "the gateway stops without it (fix the hook: check its signal, bound its work)";
    }
    spdlog::error("{}", abandoned_text());
    pool.abandon();
    server_request_pool.abandon();
    return false;
  }

  int run() {
    host.set_approver([this](const ApprovalRequest& r) { return approve(r); });
    server_thread = std::thread([this] { read_server(); });
    if (server_modern) listen_for_tool_changes();
    client.read_loop(&readers);
    int status = 0;
    bool drained = true;
    if (server.gone()) {
      // Calls waiting on the server have failed; let them answer the client.
      calls.wait_drained(std::chrono::milliseconds(2000));
      calls.cancel_all();
      drained = drain_workers();
      status = 1;
    } else {
      // The client closed its input (or its output broke): nothing more can
      // be asked of it.  Calls in flight are cancelled (the server is told),
      // then the server is shut down the way MCP's stdio transport says.
      client.set_gone(std::string(client_gone_text));
      client.fail_pending(std::string(client_gone_text));
      calls.cancel_all();
      drained = drain_workers();
      stop_server();
      if (!drained) status = 1;
    }
    server_thread.join();
    server.stop_deadlines();
    client.stop_deadlines();
    // Both peers' reading has ended; a reader thread still running a call
    // is one drain_workers gave up on.
    if (drained)
      readers.shutdown();
    else
      readers.abandon();
    return status;
  }
};

Gateway::Gateway(Host& host, int client_in, int client_out, ServerLink& server,
                 GatewayOptions options)
    : impl_(std::make_unique<Impl>(host, client_in, client_out, server, std::move(options))) {}

Gateway::~Gateway() {
  if (impl_->server_thread.joinable()) {
    impl_->shutting_down = true;
    impl_->server.wake();
    impl_->server_thread.join();
  }
}

int Gateway::run() { return impl_->run(); }

// The client reader's wake pipe ends its read loop: the same path as the
// client's end of input.
void Gateway::request_stop() { impl_->client.wake(); }

std::string Gateway::exit_reason() const {
  std::string why = impl_->server.gone() ? impl_->server.gone_reason() : "";
  if (auto stuck = impl_->abandoned_text(); !stuck.empty())
    why += (why.empty() ? "" : "; ") + stuck;
  return why;
}

bool Gateway::abandoned_calls() const { return !impl_->abandoned_text().empty(); }

}  // namespace toolgate::mcp
