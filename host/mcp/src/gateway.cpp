#include <toolgate/mcp/gateway.hpp>

#include "framing.hpp"

#include "id_map.hpp"
#include "jsonrpc.hpp"
#include "tool_mapping.hpp"
#include "worker_pool.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>

#include <atomic>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

// One tools/call from the client, from arrival until its response.
struct ClientCall {
  json::value client_id;
  std::string call_id;
  std::string tool;
  json::value arguments;
  json::object params;  // the client's params (its _meta travels on)
  std::shared_ptr<Signal> signal = Signal::make();
  std::atomic<bool> client_cancelled{false};
  std::mutex mutex;
  std::vector<std::shared_ptr<ResponseSlot>> waiting;  // slots to wake on cancel

  void add(const std::shared_ptr<ResponseSlot>& s) {
    std::lock_guard lock(mutex);
    waiting.push_back(s);
  }
  void remove(const std::shared_ptr<ResponseSlot>& s) {
    std::lock_guard lock(mutex);
    std::erase(waiting, s);
  }
  void cancel() {
    signal->cancel();
    std::lock_guard lock(mutex);
    for (auto& s : waiting) s->poke();
  }
};

// Ties a response slot to the client call it serves for as long as the
// gateway waits on it, so cancelling the client call can fail the slot.
struct SlotRegistration {
  ClientCall* call;
  std::shared_ptr<ResponseSlot> slot;
  ~SlotRegistration() {
    if (call) call->remove(slot);
  }
};

enum class WaitEnd { answered, failed, signalled };

// Elicitation in form mode: 2025-06-18 declares `elicitation: {}`;
// 2025-11-25 may list modes ({form: {}, url: {}}), and an empty object still
// means form.
bool client_can_elicit_forms(const json::object& init_params) {
  const auto* caps = init_params.if_contains("capabilities");
  if (!caps || !caps->is_object()) return false;
  const auto* e = caps->get_object().if_contains("elicitation");
  if (!e || !e->is_object()) return false;
  const auto& o = e->get_object();
  return o.empty() || o.contains("form") || !o.contains("url");
}

std::string text_of(const json::value& v) { return json::serialize(v); }

}  // namespace

struct Gateway::Impl {
  Impl(Host& h, int client_in, int client_out, ChildProcess& s, GatewayOptions o)
      : host(h),
        server(s),
        opt(std::move(o)),
        client_reader(client_in, opt.max_message_bytes),
        server_reader(s.stdout_fd(), opt.max_message_bytes),
        to_client(client_out),
        to_server(s.stdin_fd()),
        pool(opt.max_calls_in_flight) {}

  Host& host;
  ChildProcess& server;
  GatewayOptions opt;
  LineReader client_reader;
  LineReader server_reader;
  LineWriter to_client;
  LineWriter to_server;
  IdMap server_ids;  // requests we sent to the server
  IdMap client_ids;  // requests we sent to the client
  WorkerPool pool;
  std::thread server_thread;

  std::atomic<bool> client_elicits{false};
  std::atomic<bool> client_gone{false};
  std::atomic<bool> server_gone{false};
  std::atomic<bool> shutting_down{false};
  mutable std::mutex state_mutex;
  std::string protocol_version;  // as the server answered initialize
  std::string server_exit;       // why the server is gone
  std::string abandoned;         // calls given up on at shutdown (drain_workers)

  std::mutex calls_mutex;
  std::condition_variable calls_cv;
  std::unordered_map<std::string, std::shared_ptr<ClientCall>> calls_by_client_id;
  std::unordered_map<std::string, std::shared_ptr<ClientCall>> calls_by_call_id;
  std::atomic<std::uint64_t> call_counter{0};

  std::mutex tools_mutex;
  std::set<std::string, std::less<>> known_tools;
  // Server tools whose name a plugin's tool also has, with that plugin's
  // id: calls to them are refused (a plugin tool used to shadow the
  // server's silently).
  std::map<std::string, std::string, std::less<>> clashing_tools;
  bool tools_stale = false;
  std::mutex refresh_mutex;

  // ---- sending -----------------------------------------------------------------
  bool send_client(const json::object& m) {
    if (to_client.write(json::serialize(m))) return true;
    if (!client_gone.exchange(true)) {
      spdlog::warn("cannot write to the client (its end is closed); shutting down");
      client_reader.wake();
    }
    return false;
  }
  bool send_server(const json::object& m) {
    if (server_gone) return false;
    return to_server.write(json::serialize(m));
  }
  std::string server_exit_text() const {
    std::lock_guard lock(state_mutex);
    return server_exit;
  }
  std::string version() const {
    std::lock_guard lock(state_mutex);
    return protocol_version;
  }

  // ---- waiting for a response, watching a signal ---------------------------------
  WaitEnd wait(ResponseSlot& slot, const Signal& signal) {
    while (true) {
      if (slot.done()) return slot.response() ? WaitEnd::answered : WaitEnd::failed;
      if (signal.fired()) return WaitEnd::signalled;
      auto until = Signal::Clock::now() + opt.signal_check;
      if (auto d = signal.deadline(); d && *d < until) until = *d;
      slot.wait_until(until);
    }
  }

  std::shared_ptr<ClientCall> find_call(const std::string& call_id) {
    std::lock_guard lock(calls_mutex);
    auto it = calls_by_call_id.find(call_id);
    return it == calls_by_call_id.end() ? nullptr : it->second;
  }

  // ---- the tool body: forward to the server, wait --------------------------------
  ToolOutput forward_call(const ToolContext& ctx) {
    const auto& name = ctx.call.identity.tool;
    auto call = find_call(ctx.call.identity.call_id);
    if (server_gone)
      return ToolOutput::failure(server_exit_text() + "; tool " + name + " did not run");
    json::object params;
    if (call) params = call->params;
    // Task-augmented execution (2025-11-25) would answer with a task, not a
    // CallToolResult: the gateway runs every call to completion.
    params.erase("task");
    params["name"] = name;
    params["arguments"] = ctx.call.arguments;
    auto slot = std::make_shared<ResponseSlot>();
    auto id = server_ids.add_own("tools/call", slot);
    if (call) call->add(slot);
    SlotRegistration unregister{call.get(), slot};
    if (!send_server(make_request(id, "tools/call", std::move(params)))) {
      server_ids.erase(id);
      if (server_gone)
        return ToolOutput::failure(server_exit_text() + "; tool " + name + " did not run");
      return ToolOutput::failure("cannot write to the MCP server; tool " + name + " did not run");
    }
    switch (wait(*slot, *ctx.signal)) {
      case WaitEnd::answered: {
        const auto& r = *slot->response();
        if (const auto* e = r.if_contains("error")) return output_from_rpc_error(*e, name);
        return output_from_call_result(r.at("result"), name);
      }
      case WaitEnd::failed:
        return ToolOutput::failure(slot->failure() + " before answering tools/call for " + name);
      case WaitEnd::signalled: {
        server_ids.erase(id);  // a late answer is dropped
        bool timed_out = ctx.signal->state() == SignalState::timed_out;
        std::string why = timed_out ? "the call's deadline passed" : "the call was cancelled";
        send_server(
            make_notification("notifications/cancelled", {{"requestId", id}, {"reason", why}}));
        return ToolOutput::failure(
            name + ": " + why + " while the MCP server was running it",
            std::string(timed_out ? error_code::timeout : error_code::cancelled));
      }
    }
    return ToolOutput::failure("unreachable");
  }

  // ---- approval: elicitation/create to the client --------------------------------
  ApprovalAnswer approve(const ApprovalRequest& r) {
    if (!client_elicits || client_gone) return ApprovalAnswer::unavailable;
    auto call = find_call(r.identity.call_id);
    auto signal = call ? call->signal : Signal::make();
    std::string message =
        "toolgate: approval needed -- " + std::string(r.reason) + "\n\nTool: " + r.identity.tool +
        "\nArguments: " + json::serialize(r.arguments) + "\nAsked by: " + std::string(r.source) +
        "\n\nAccept to run this call once; decline to refuse it.";
    json::object params{{"message", message},
                        {"requestedSchema", {{"type", "object"}, {"properties", json::object{}}}}};
    if (version() >= "2025-11-25") params["mode"] = "form";
    auto slot = std::make_shared<ResponseSlot>();
    auto id = client_ids.add_own("elicitation/create", slot);
    if (call) call->add(slot);
    SlotRegistration unregister{call.get(), slot};
    if (!send_client(make_request(id, "elicitation/create", std::move(params)))) {
      client_ids.erase(id);
      return ApprovalAnswer::unavailable;
    }
    switch (wait(*slot, *signal)) {
      case WaitEnd::answered: {
        const auto& resp = *slot->response();
        if (const auto* e = resp.if_contains("error")) {
          spdlog::warn("the client answered elicitation/create with an error: {}", text_of(*e));
          return ApprovalAnswer::unavailable;
        }
        const auto* result = resp.at("result").if_object();
        const auto* action = result ? result->if_contains("action") : nullptr;
        if (action && action->is_string()) {
          auto a = action->get_string();
          if (a == "accept") return ApprovalAnswer::allowed_once;
          if (a == "decline") return ApprovalAnswer::rejected;
          if (a == "cancel") return ApprovalAnswer::cancelled;
        }
        spdlog::warn("the client answered elicitation/create without a known action: {}",
                     text_of(resp.at("result")));
        return ApprovalAnswer::rejected;  // never allow on an answer we do not understand
      }
      case WaitEnd::failed:
        return ApprovalAnswer::cancelled;
      case WaitEnd::signalled:
        client_ids.erase(id);
        send_client(
            make_notification("notifications/cancelled",
                              {{"requestId", id}, {"reason", "the tool call was cancelled"}}));
        return ApprovalAnswer::cancelled;
    }
    return ApprovalAnswer::unavailable;
  }

  // ---- the server's tools -------------------------------------------------------
  void register_tools(const json::value& tools, bool complete) {
    const auto* list = tools.if_array();
    if (!list) {
      spdlog::warn("the MCP server's tools/list result has no \"tools\" array");
      return;
    }
    std::vector<ToolDefinition> defs;
    std::set<std::string, std::less<>> names;
    std::map<std::string, std::string, std::less<>> clashes;
    const auto plugin_tools = tools_of_plugins();
    for (const auto& t : *list) {
      std::string why;
      auto def = tool_definition(t, &why);
      if (!def) {
        spdlog::warn("ignoring a tool in the MCP server's tools/list: {}: {}", why, text_of(t));
        continue;
      }
      if (!names.insert(def->name).second) {
        spdlog::warn("the MCP server lists tool \"{}\" twice; keeping the first", def->name);
        continue;
      }
      if (auto it = plugin_tools.find(def->name); it != plugin_tools.end()) {
        spdlog::error("{}", clash_text(def->name, it->second));
        clashes.emplace(def->name, it->second);
        continue;
      }
      def->execute = [this](const ToolContext& c) { return forward_call(c); };
      defs.push_back(std::move(*def));
    }
    try {
      host.set_tools(std::move(defs), complete);
    } catch (const std::exception& e) {
      spdlog::error("cannot register the MCP server's tools: {}", e.what());
      return;
    }
    std::lock_guard lock(tools_mutex);
    if (complete) {
      known_tools = std::move(names);
      clashing_tools = std::move(clashes);
      tools_stale = false;
    } else {
      known_tools.merge(names);
      clashing_tools.merge(clashes);
    }
  }

  // Tool name -> plugin id, for the tools the loaded plugins register.
  std::map<std::string, std::string, std::less<>> tools_of_plugins() const {
    std::map<std::string, std::string, std::less<>> out;
    const auto d = host.describe();
    if (const auto* owners = d.if_contains("tool_owners"); owners && owners->is_object())
      for (const auto& [name, owner] : owners->get_object())
        if (owner.is_string() && owner.get_string() != "host")
          out.emplace(std::string(name), std::string(owner.get_string()));
    return out;
  }
  static std::string clash_text(std::string_view tool, std::string_view plugin) {
    return "the MCP server's tool \"" + std::string(tool) +
           "\" has the same name as a tool of plugin \"" + std::string(plugin) +
           "\"; toolgate serves neither: rename one, or disable the plugin";
  }
  std::optional<std::string> clash_for(std::string_view tool) {
    std::lock_guard lock(tools_mutex);
    auto it = clashing_tools.find(tool);
    if (it == clashing_tools.end()) return std::nullopt;
    return clash_text(tool, it->second);
  }

  // Lists every page of the server's tools itself (a call arrived for a tool
  // it has not seen listed, or the list changed since).
  void refresh_tools(const Signal& signal) {
    json::array all;
    json::value cursor;
    for (int page = 0; page < 1000; ++page) {
      json::object params;
      if (!cursor.is_null()) params["cursor"] = cursor;
      auto slot = std::make_shared<ResponseSlot>();
      auto id = server_ids.add_own("tools/list", slot);
      if (!send_server(make_request(id, "tools/list", std::move(params)))) {
        server_ids.erase(id);
        return;
      }
      if (wait(*slot, signal) != WaitEnd::answered) {
        server_ids.erase(id);
        return;
      }
      const auto& resp = *slot->response();
      const auto* result = resp.if_contains("result");
      if (!result || !result->is_object()) {
        spdlog::warn("the MCP server refused tools/list: {}", text_of(resp));
        return;
      }
      if (const auto* t = result->get_object().if_contains("tools"); t && t->is_array())
        for (const auto& x : t->get_array()) all.push_back(x);
      const auto* next = result->get_object().if_contains("nextCursor");
      if (!next || !next->is_string()) break;
      cursor = *next;
    }
    register_tools(all, true);
  }

  void ensure_tool(const ClientCall& call) {
    auto need = [&] {
      std::lock_guard lock(tools_mutex);
      return tools_stale || !known_tools.count(call.tool);
    };
    if (!need()) return;
    std::lock_guard lock(refresh_mutex);
    if (need()) refresh_tools(*call.signal);
  }

  // ---- client -> gateway ------------------------------------------------------------
  void reply_error(const json::value& id, std::int64_t code, std::string_view message) {
    send_client(make_error(id, code, message));
  }

  void on_client_call(Message& m) {
    const auto& p = m.params();
    const auto* name = p.if_contains("name");
    if (!name || !name->is_string() || name->get_string().empty())
      return reply_error(m.id(), rpc_error::invalid_params, "tools/call needs a string \"name\"");
    auto call = std::make_shared<ClientCall>();
    call->client_id = m.id();
    call->tool = std::string(name->get_string());
    const auto* args = p.if_contains("arguments");
    call->arguments = args ? *args : json::value(json::object{});
    call->params = p;
    call->call_id = opt.session_id + "-" + std::to_string(++call_counter);
    {
      std::lock_guard lock(calls_mutex);
      auto key = id_key(call->client_id);
      if (calls_by_client_id.count(key) || server_ids.find_forwarded(call->client_id))
        return reply_error(
            m.id(), rpc_error::invalid_request,
            "request id " + text_of(m.id()) + " is already in use by a pending request");
      calls_by_client_id.emplace(std::move(key), call);
      calls_by_call_id.emplace(call->call_id, call);
    }
    pool.submit([this, call] { run_call(call); });
  }

  void finish_call(const ClientCall& call) {
    std::lock_guard lock(calls_mutex);
    calls_by_client_id.erase(id_key(call.client_id));
    calls_by_call_id.erase(call.call_id);
    calls_cv.notify_all();
  }

  void run_call(const std::shared_ptr<ClientCall>& call) {
    json::object response;
    try {
      ensure_tool(*call);
      if (auto clash = clash_for(call->tool)) {
        finish_call(*call);
        if (!call->client_cancelled)
          send_client(make_error(call->client_id, rpc_error::invalid_params, *clash));
        return;
      }
      std::vector<ToolCall> batch;
      batch.push_back(
          ToolCall{{call->call_id, call->tool, opt.session_id, ""}, call->arguments, call->signal});
      // A batch of one: its contexts come back with it (see add_contexts).
      BatchResult b = host.call_batch(std::move(batch));
      json::object result = call_result_from(b.results.at(0));
      add_contexts(result, b.additional_contexts);
      response = make_result(call->client_id, std::move(result));
    } catch (const std::exception& e) {
      response = make_error(call->client_id, rpc_error::internal_error,
                            std::string("toolgate failed to run the call: ") + e.what());
    }
    finish_call(*call);
    // A request the client cancelled gets no response (MCP cancellation).
    if (!call->client_cancelled) send_client(response);
  }

  void on_client_request(Message& m) {
    auto method = m.method();
    if (method == "tools/call") return on_client_call(m);
    if (server_gone) return reply_error(m.id(), rpc_error::internal_error, server_exit_text());
    if (method == "initialize") client_elicits = client_can_elicit_forms(m.params());
    json::object note;
    if (method == "tools/list") note["had_cursor"] = m.params().contains("cursor");
    {
      std::lock_guard lock(calls_mutex);
      if (calls_by_client_id.count(id_key(m.id())))
        return reply_error(
            m.id(), rpc_error::invalid_request,
            "request id " + text_of(m.id()) + " is already in use by a pending request");
    }
    auto id = server_ids.add_forwarded(m.id(), std::string(method), std::move(note));
    if (!id)
      return reply_error(
          m.id(), rpc_error::invalid_request,
          "request id " + text_of(m.id()) + " is already in use by a pending request");
    json::value client_id = m.id();
    m.body["id"] = *id;
    if (!send_server(m.body)) {
      server_ids.erase(*id);
      reply_error(client_id, rpc_error::internal_error,
                  server_gone ? server_exit_text() : "cannot write to the MCP server");
    }
  }

  void on_client_notification(Message& m) {
    // Only notifications pass: a request method sent without an id (a
    // "tools/call" notification) would reach a server that dispatches on
    // the method without passing the pipeline.  JSON-RPC gives a
    // notification no answer, so it is dropped and logged.
    if (m.method().rfind("notifications/", 0) != 0) {
      spdlog::warn(
          "dropping a message from the client: \"{}\" sent as a notification (no \"id\"); "
          "only notifications/* may be sent without an id",
          m.method());
      return;
    }
    if (m.method() == "notifications/cancelled") {
      const auto* rid = m.params().if_contains("requestId");
      if (!rid) return;
      std::shared_ptr<ClientCall> call;
      {
        std::lock_guard lock(calls_mutex);
        auto it = calls_by_client_id.find(id_key(*rid));
        if (it != calls_by_client_id.end()) call = it->second;
      }
      if (call) {
        // The tool body tells the server (with its own request id).
        call->client_cancelled = true;
        call->cancel();
        return;
      }
      auto ours = server_ids.find_forwarded(*rid);
      if (!ours) return;  // already answered: the race the spec allows
      server_ids.erase(*ours);
      m.body["params"].as_object()["requestId"] = *ours;
    }
    send_server(m.body);
  }

  void on_client_response(Message& m) {
    auto p = client_ids.take(m.id());
    if (!p) {
      spdlog::warn("dropping a response from the client to no pending request (id {})",
                   text_of(m.id()));
      return;
    }
    if (p->kind == PendingRequest::Kind::own) return p->slot->deliver(std::move(m.body));
    m.body["id"] = p->peer_id;
    send_server(m.body);
  }

  // ---- answers that cannot be used ---------------------------------------------
  // An answer over the size limit or that does not parse still ends the
  // request it answers (found by EnvelopeScanner): its originator gets a
  // JSON-RPC error now instead of waiting for its deadline.  A tools/call
  // body sees it as the server's error and fails the call (tool_error).
  void fail_unusable_answer(bool from_server, const json::value& id, const std::string& why) {
    spdlog::warn("{} (id {})", why, text_of(id));
    Message m = classify(make_error(id, rpc_error::internal_error, why));
    if (from_server)
      on_server_response(m);
    else
      on_client_response(m);
  }
  std::string too_large_answer(const char* who, std::size_t bytes) const {
    return std::string(who) + "'s answer was " + std::to_string(bytes) +
           " bytes or more, over the " + std::to_string(opt.max_message_bytes) + "-byte limit";
  }
  static std::optional<json::value> answer_id_of(std::string_view text) {
    EnvelopeScanner scanner;
    scanner.feed(text);
    return scanner.answer_id();
  }

  void client_loop() {
    while (auto f = client_reader.next()) {
      if (f->kind == Frame::Kind::oversize) {
        spdlog::warn("the client sent a message of {} bytes or more; the limit is {}", f->bytes,
                     opt.max_message_bytes);
        reply_error(nullptr, rpc_error::parse_error,
                    "message too large: " + std::to_string(f->bytes) + " bytes or more, limit " +
                        std::to_string(opt.max_message_bytes));
        if (f->answer_id)
          fail_unusable_answer(false, *f->answer_id, too_large_answer("the client", f->bytes));
        continue;
      }
      Message m = parse_message(f->text);
      switch (m.kind) {
        case Message::Kind::invalid:
          spdlog::warn("invalid message from the client: {}", m.problem);
          reply_error(m.reply_id, m.error_code, m.problem);
          if (auto id = answer_id_of(f->text))
            fail_unusable_answer(false, *id, "the client's answer is not valid: " + m.problem);
          break;
        case Message::Kind::request:
          on_client_request(m);
          break;
        case Message::Kind::notification:
          on_client_notification(m);
          break;
        case Message::Kind::response:
          on_client_response(m);
          break;
      }
      if (client_gone || server_gone) break;
    }
  }

  // ---- server -> gateway ---------------------------------------------------------
  void on_server_request(Message& m) {
    json::value server_id = m.id();
    if (client_gone) {
      send_server(make_error(server_id, rpc_error::internal_error, "the MCP client has gone"));
      return;
    }
    auto id = client_ids.add_forwarded(server_id, std::string(m.method()));
    if (!id) {
      send_server(make_error(
          server_id, rpc_error::invalid_request,
          "request id " + text_of(server_id) + " is already in use by a pending request"));
      return;
    }
    m.body["id"] = *id;
    if (!send_client(m.body)) client_ids.erase(*id);
  }

  void on_server_notification(Message& m) {
    auto method = m.method();
    if (method == "notifications/cancelled") {
      const auto* rid = m.params().if_contains("requestId");
      if (!rid) return;
      auto ours = client_ids.find_forwarded(*rid);
      if (!ours) return;
      client_ids.erase(*ours);
      m.body["params"].as_object()["requestId"] = *ours;
    } else if (method == "notifications/tools/list_changed") {
      std::lock_guard lock(tools_mutex);
      tools_stale = true;
    }
    send_client(m.body);
  }

  void on_server_response(Message& m) {
    auto p = server_ids.take(m.id());
    if (!p) {
      // A late answer to a request that was cancelled (or never ours).
      spdlog::debug("dropping a response from the MCP server to no pending request (id {})",
                    text_of(m.id()));
      return;
    }
    if (p->kind == PendingRequest::Kind::own) return p->slot->deliver(std::move(m.body));
    if (const auto* result = m.body.if_contains("result"); result && result->is_object()) {
      const auto& r = result->get_object();
      if (p->method == "tools/list") {
        bool had_cursor = p->note.contains("had_cursor") && p->note.at("had_cursor").as_bool();
        const auto* next = r.if_contains("nextCursor");
        bool complete = !had_cursor && !(next && next->is_string());
        const auto* tools = r.if_contains("tools");
        register_tools(tools ? *tools : json::value(), complete);
      } else if (p->method == "initialize") {
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
      }
    }
    m.body["id"] = p->peer_id;
    send_client(m.body);
  }

  void server_loop() {
    while (auto f = server_reader.next()) {
      if (f->kind == Frame::Kind::oversize) {
        spdlog::warn("the MCP server sent a message of {} bytes or more; the limit is {}", f->bytes,
                     opt.max_message_bytes);
        send_server(make_error(nullptr, rpc_error::parse_error,
                               "message too large: " + std::to_string(f->bytes) +
                                   " bytes or more, limit " +
                                   std::to_string(opt.max_message_bytes)));
        if (f->answer_id)
          fail_unusable_answer(true, *f->answer_id, too_large_answer("the MCP server", f->bytes));
        continue;
      }
      Message m = parse_message(f->text);
      switch (m.kind) {
        case Message::Kind::invalid:
          spdlog::warn("invalid message from the MCP server: {}", m.problem);
          send_server(make_error(m.reply_id, m.error_code, m.problem));
          if (auto id = answer_id_of(f->text))
            fail_unusable_answer(true, *id, "the MCP server's answer is not valid: " + m.problem);
          break;
        case Message::Kind::request:
          on_server_request(m);
          break;
        case Message::Kind::notification:
          on_server_notification(m);
          break;
        case Message::Kind::response:
          on_server_response(m);
          break;
      }
    }
    if (shutting_down) return;
    // The server closed its output: it exited (or will be made to).
    auto st = server.wait_for(std::chrono::milliseconds(500));
    if (!st) {
      server.send_signal(SIGKILL);
      st = server.wait_for(std::chrono::milliseconds(2000));
    }
    {
      std::lock_guard lock(state_mutex);
      server_exit =
          "the MCP server " + (st ? ChildProcess::describe(*st) : std::string("closed its output"));
    }
    server_gone = true;
    auto why = server_exit_text();
    for (auto& p : server_ids.take_all()) {
      if (p.kind == PendingRequest::Kind::own)
        p.slot->fail(why);
      else
        send_client(make_error(p.peer_id, rpc_error::internal_error, why));
    }
    client_reader.wake();
  }

  // ---- lifetime ---------------------------------------------------------------------
  void cancel_all_calls() {
    std::vector<std::shared_ptr<ClientCall>> calls;
    {
      std::lock_guard lock(calls_mutex);
      for (auto& [k, c] : calls_by_client_id) calls.push_back(c);
    }
    for (auto& c : calls) c->cancel();
  }

  bool wait_calls_drained(std::chrono::milliseconds timeout) {
    std::unique_lock lock(calls_mutex);
    return calls_cv.wait_for(lock, timeout, [&] { return calls_by_client_id.empty(); });
  }

  void stop_server() {
    shutting_down = true;
    to_server.shut();  // no write is in progress after this, and none follows
    server.close_stdin();
    auto st = server.wait_for(opt.shutdown_grace);
    if (!st) {
      spdlog::info("the MCP server did not exit after its input closed; sending SIGTERM");
      server.send_signal(SIGTERM);
      st = server.wait_for(opt.terminate_grace);
    }
    if (!st) {
      spdlog::warn("the MCP server ignored SIGTERM; sending SIGKILL");
      server.send_signal(SIGKILL);
      server.wait_for(std::chrono::milliseconds(5000));
    }
    server_reader.wake();  // a grandchild may still hold its output open
  }

  // Joins the workers once every call has ended, or gives up on them after
  // call_drain_grace (a hook looping forever); false when it gave up.
  bool drain_workers() {
    if (wait_calls_drained(opt.call_drain_grace)) {
      pool.shutdown();
      return true;
    }
    std::string list;
    std::size_t n = 0;
    {
      std::lock_guard lock(calls_mutex);
      for (const auto& [key, c] : calls_by_client_id) {
        if (++n <= 8)
          list += std::string(list.empty() ? "" : ", ") + "tool \"" + c->tool + "\" (call " +
                  c->call_id + ")";
      }
    }
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
    return false;
  }
  std::string abandoned_text() const {
    std::lock_guard lock(state_mutex);
    return abandoned;
  }

  int run() {
    host.set_approver([this](const ApprovalRequest& r) { return approve(r); });
    server_thread = std::thread([this] { server_loop(); });
    client_loop();
    int status = 0;
    if (server_gone) {
      // Calls waiting on the server have failed; let them answer the client.
      wait_calls_drained(std::chrono::milliseconds(2000));
      cancel_all_calls();
      drain_workers();
      status = 1;
    } else {
      // The client closed its input (or its output broke): nothing more can
      // be asked of it.  Calls in flight are cancelled (the server is told),
      // then the server is shut down the way MCP's stdio transport says.
      client_gone = true;
      for (auto& p : client_ids.take_all()) {
        if (p.kind == PendingRequest::Kind::own)
          p.slot->fail("the MCP client has gone");
        else
          send_server(make_error(p.peer_id, rpc_error::internal_error, "the MCP client has gone"));
      }
      cancel_all_calls();
      const bool drained = drain_workers();
      stop_server();
      if (!drained) status = 1;
    }
    server_thread.join();
    return status;
  }
};

Gateway::Gateway(Host& host, int client_in, int client_out, ChildProcess& server,
                 GatewayOptions options)
    : impl_(std::make_unique<Impl>(host, client_in, client_out, server, std::move(options))) {}

Gateway::~Gateway() {
  if (impl_->server_thread.joinable()) {
    impl_->shutting_down = true;
    impl_->server_reader.wake();
    impl_->server_thread.join();
  }
}

int Gateway::run() { return impl_->run(); }

std::string Gateway::exit_reason() const {
  std::string why = impl_->server_gone ? impl_->server_exit_text() : "";
  if (auto stuck = impl_->abandoned_text(); !stuck.empty())
    why += (why.empty() ? "" : "; ") + stuck;
  return why;
}

bool Gateway::abandoned_calls() const { return !impl_->abandoned_text().empty(); }

}  // namespace toolgate::mcp
