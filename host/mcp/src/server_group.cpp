// server_group.cpp -- several MCP servers as one (server_group.hpp).
//
// Threads: one reads the gateway's messages and routes them; one per member
// reads that member's and routes them back; one more lists a member's tools
// again after it says they changed (a reader cannot wait for an answer it
// would have to read itself).  Every table is under one mutex; the writers
// (LineWriter) are thread-safe.  What is relayed is edited in place
// (raw_json.hpp): only an id, a requestId or a tool's name changes.
#include <toolgate/json.hpp>
#include <toolgate/mcp/server_group.hpp>

#include "envelope_scanner.hpp"
#include "framing.hpp"
#include "jsonrpc.hpp"
#include "raw_json.hpp"
#include "uri_template.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

// MCP's tool names: 1 to 128 of A-Z a-z 0-9 _ - . (2025-11-25).
bool valid_tool_name(std::string_view n) {
  if (n.empty() || n.size() > 128) return false;
  for (char c : n)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-' || c == '.'))
      return false;
  return true;
}

// What the group serves from several servers: tools and prompts, each
// under its server's prefix, and resources and their templates, under their
// own URIs (a URI names its server already; two servers listing one URI:
// the first in the file's order serves it).
enum Catalog : std::size_t {
  tools_catalog = 0,
  prompts_catalog = 1,
  resources_catalog = 2,
  templates_catalog = 3,
  catalog_count = 4
};
struct CatalogInfo {
  const char* list_method;
  const char* key;  // of the list in its result
  const char* noun;
  const char* changed;     // the notification that it changed
  const char* key_member;  // what names an item, and routes to it
  bool renamed;            // served under the server's prefix
};
constexpr CatalogInfo catalogs[] = {
    {"tools/list", "tools", "tool", "notifications/tools/list_changed", "name", true},
    {"prompts/list", "prompts", "prompt", "notifications/prompts/list_changed", "name", true},
    {"resources/list", "resources", "resource", "notifications/resources/list_changed", "uri",
     false},
    {"resources/templates/list", "resourceTemplates", "resource template",
     "notifications/resources/list_changed", "uriTemplate", false}};
constexpr Catalog all_catalogs[] = {tools_catalog, prompts_catalog, resources_catalog,
                                    templates_catalog};

// The versions the group answers initialize with as asked; any other gets
// the latest of them.
bool known_legacy_version(std::string_view v) {
  return v == "2024-11-05" || v == "2025-03-26" || v == "2025-06-18" || v == "2025-11-25";
}

// A server's input: messages queue here and a thread of the server's own
// writes them, so a server that stops reading holds up itself alone, never
// the group's reader of the gateway.  When the writing ends -- drained after
// close(), at once after abort(), or on a failed write -- the thread calls
// `on_end` (closing the server's input): no other thread closes that
// descriptor, so none can write into a number reused meanwhile.
class QueuedWriter {
 public:
  static constexpr std::size_t max_queued = 4096;  // messages a server may fall behind

  QueuedWriter(int fd, std::function<void()> on_end)
      : writer_(fd), on_end_(std::move(on_end)), thread_([this] { run(); }) {}
  ~QueuedWriter() {
    abort();
    thread_.join();
  }
  QueuedWriter(const QueuedWriter&) = delete;
  QueuedWriter& operator=(const QueuedWriter&) = delete;

  // false when ended, or when the server is too far behind.
  bool write(std::string line) {
    std::lock_guard lock(mutex_);
    if (closing_ || ended_ || queue_.size() >= max_queued) return false;
    queue_.push_back(std::move(line));
    ready_.notify_one();
    return true;
  }
  // What is queued is written, then the input closed.
  void close() {
    std::lock_guard lock(mutex_);
    closing_ = true;
    ready_.notify_one();
  }
  // What is queued is dropped (a write in progress still ends first).
  void abort() {
    std::lock_guard lock(mutex_);
    closing_ = true;
    queue_.clear();
    ready_.notify_one();
  }

 private:
  void run() {
    for (;;) {
      std::string line;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) break;
        line = std::move(queue_.front());
        queue_.pop_front();
      }
      if (!writer_.write(line)) break;
    }
    {
      std::lock_guard lock(mutex_);
      ended_ = true;
      queue_.clear();
    }
    on_end_();
  }

  LineWriter writer_;
  std::function<void()> on_end_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  bool ended_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

}  // namespace

struct ServerGroup::Impl {
  struct MemberState {
    std::string name, prefix;
    std::unique_ptr<ServerLink> link;
    // Around every call of `link`'s lifetime functions: a member's reader
    // (member_ended) and the gateway's shutdown may both call them.
    std::mutex link_mutex;
    std::unique_ptr<QueuedWriter> to;
    std::unique_ptr<LineReader> from;
    std::thread reader;
    bool alive = true;  // under mutex
    bool offers_prompts = false;
    bool offers_resources = false;
    json::array lists[catalog_count];  // each catalog as it last listed it; under mutex
    std::string instructions;
  };
  // A request the group sent a member: the gateway's (its id as the
  // gateway wrote it, to put back) or the group's own (answered through
  // `own`).
  struct Pending {
    std::size_t member = 0;
    std::string gateway_id;
    std::string progress_token;  // the call's _meta.progressToken as written, or empty
    std::shared_ptr<std::promise<json::object>> own;
  };
  // A member's request to the client, sent on to the gateway.
  struct MemberRequest {
    std::size_t member = 0;
    std::string member_id;  // as the member wrote it
  };
  struct Route {
    std::size_t member = 0;
    std::string own_name;
  };

  Impl(std::vector<Member> ms, std::chrono::milliseconds t, std::size_t max)
      : timeout(t), max_bytes(max) {
    for (auto& m : ms) {
      auto s = std::make_unique<MemberState>();
      s->name = std::move(m.name);
      s->prefix = std::move(m.prefix);
      s->link = std::move(m.link);
      members.push_back(std::move(s));
    }
  }
  ~Impl() { stop(); }

  void open_pipes() {
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("cannot make the server group's pipes: ") +
                               std::strerror(errno));
    from_gateway = std::make_unique<LineReader>(in_pipe[0], max_bytes);
    to_gateway = std::make_unique<LineWriter>(out_pipe[1]);
  }

  void start_members() {
    for (std::size_t i = 0; i < members.size(); ++i) {
      auto& m = *members[i];
      m.to = std::make_unique<QueuedWriter>(m.link->stdin_fd(), [&m] {
        std::lock_guard lock(m.link_mutex);
        m.link->close_stdin();
      });
      m.from = std::make_unique<LineReader>(m.link->stdout_fd(), max_bytes);
      m.reader = std::thread([this, i] { read_member(i); });
    }
    std::string failures;
    for (std::size_t i = 0; i < members.size(); ++i) {
      std::string why;
      if (initialize(i, &why)) continue;
      spdlog::error("the MCP server \"{}\" of the group is not served: {}", members[i]->name, why);
      failures += "; \"" + members[i]->name + "\": " + why;
      withdraw(i);
    }
    if (alive_count() == 0)
      throw std::runtime_error("no MCP server of the group could be started" + failures);
    if (auto collision = rebuild(true)) throw std::runtime_error(*collision);
    gateway_reader = std::thread([this] { read_gateway(); });
    control = std::thread([this] { relist_loop(); });
  }

  void stop() {
    std::vector<std::shared_ptr<std::promise<json::object>>> waiting;
    {
      std::lock_guard lock(mutex);
      if (stopping) return;
      stopping = true;
      for (auto& [id, p] : pending)
        if (p.own) waiting.push_back(std::move(p.own));
      pending.clear();
      by_gateway_id.clear();
    }
    // The group's own requests still waiting (a list after list_changed)
    // end now instead of at their timeout.
    for (auto& w : waiting)
      w->set_value(json::object{{"error", json::object{{"code", rpc_error::internal_error},
                                                       {"message", "the group is stopping"}}}});
    control_cv.notify_all();
    // A writer blocked on a gateway that no longer reads: its read end
    // closed, the write fails and the writer returns.
    if (out_pipe[0] >= 0) ::close(std::exchange(out_pipe[0], -1));
    if (to_gateway) to_gateway->shut();
    if (from_gateway) from_gateway->wake();
    for (auto& m : members) {
      if (m->from) m->from->wake();
      if (m->to) m->to->abort();
      // A server still running now is not stopping in order (the gateway
      // has done that, or the start failed): killed, so that a write still
      // blocked on its input fails and its writer ends.
      std::lock_guard lock(m->link_mutex);
      m->link->send_signal(SIGKILL);
    }
    if (gateway_reader.joinable()) gateway_reader.join();
    if (control.joinable()) control.join();
    for (auto& m : members) {
      if (m->reader.joinable()) m->reader.join();
      m->to.reset();  // joins its writer
    }
    std::lock_guard lock(mutex);
    for (int* fd : {&in_pipe[0], &in_pipe[1], &out_pipe[1]})
      if (*fd >= 0) ::close(std::exchange(*fd, -1));
  }

  // ---- the group's own requests to a member -------------------------------------
  // The response (its "result" or "error"), or nullopt and *why.
  std::optional<json::object> ask(std::size_t i, std::string_view method, json::object params,
                                  std::string* why) {
    auto promise = std::make_shared<std::promise<json::object>>();
    auto answer = promise->get_future();
    std::uint64_t id;
    {
      std::lock_guard lock(mutex);
      if (!members[i]->alive || stopping) {
        *why = stopping ? "the group is stopping" : "it has ended";
        return std::nullopt;
      }
      id = next_id++;
      pending[id] = Pending{i, "", "", promise};
    }
    if (!members[i]->to->write(request_text(json::value(id), method, to_json_text(params)))) {
      forget(id);
      *why = "it does not read its input";
      return std::nullopt;
    }
    if (answer.wait_for(timeout) != std::future_status::ready) {
      forget(id);
      *why = "no answer to " + std::string(method) + " within " + std::to_string(timeout.count()) +
             " ms";
      return std::nullopt;
    }
    auto response = answer.get();
    if (const auto* e = response.if_contains("error")) {
      *why = std::string(method) + " failed: " + text_of(*e);
      return std::nullopt;
    }
    return response;
  }

  void forget(std::uint64_t id) {
    std::lock_guard lock(mutex);
    pending.erase(id);
  }

  bool initialize(std::size_t i, std::string* why) {
    auto r = ask(i, "initialize",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object{}},
                  {"clientInfo", json::object{{"name", "toolgate"}, {"version", "1"}}}},
                 why);
    if (!r) return false;
    const auto* result = r->if_contains("result");
    const auto* o = result ? result->if_object() : nullptr;
    if (!o || !o->contains("protocolVersion")) {
      *why = "its initialize result is not one: " + text_of(r->at("result"));
      return false;
    }
    if (const auto* ins = o->if_contains("instructions"); ins && ins->is_string())
      members[i]->instructions = std::string(ins->get_string());
    members[i]->to->write(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    const auto* caps = o->if_contains("capabilities");
    const auto offers = [&](const char* what) {
      return caps && caps->is_object() && caps->get_object().contains(what);
    };
    members[i]->offers_prompts = offers("prompts");
    members[i]->offers_resources = offers("resources");
    json::array lists[catalog_count];
    for (Catalog c : all_catalogs) {
      if (c == prompts_catalog && !members[i]->offers_prompts) continue;
      if ((c == resources_catalog || c == templates_catalog) && !members[i]->offers_resources)
        continue;
      auto items = list(i, c, why);
      if (!items && c == templates_catalog) {
        // Templates are optional: a server without them may not know the method.
        spdlog::info("the MCP server \"{}\" lists no resource templates ({})", members[i]->name,
                     *why);
        continue;
      }
      if (!items) return false;
      lists[c] = std::move(*items);
    }
    std::lock_guard lock(mutex);
    for (Catalog c : all_catalogs) members[i]->lists[c] = std::move(lists[c]);
    return true;
  }

  // Every page of a member's tools/list or prompts/list.
  std::optional<json::array> list(std::size_t i, Catalog c, std::string* why) {
    const auto& info = catalogs[c];
    json::array all;
    json::value cursor;
    for (int page = 0; page < 1000; ++page) {
      json::object params;
      if (!cursor.is_null()) params["cursor"] = cursor;
      auto r = ask(i, info.list_method, std::move(params), why);
      if (!r) return std::nullopt;
      const auto* result = r->at("result").if_object();
      const auto* items = result ? result->if_contains(info.key) : nullptr;
      if (!items || !items->is_array()) {
        *why = std::string("its ") + info.list_method + " result has no \"" + info.key + "\" array";
        return std::nullopt;
      }
      for (const auto& t : items->get_array()) all.push_back(t);
      const auto* next = result->if_contains("nextCursor");
      if (!next || !next->is_string()) return all;
      cursor = *next;
    }
    *why = std::string("its ") + info.list_method + " did not end within 1000 pages";
    return std::nullopt;
  }

  // ---- the table of tools ------------------------------------------------------------
  // Rebuilds the routing table and the list the gateway gets from the live
  // members.  A name two tools would share: at start, the error (nothing is
  // served); later, the first in the fixed order keeps it and the other is
  // not served (logged).
  std::optional<std::string> rebuild(bool at_start) {
    std::lock_guard lock(mutex);
    for (Catalog c : all_catalogs) {
      const auto& info = catalogs[c];
      std::map<std::string, Route, std::less<>> next;
      json::array listed_now;
      for (std::size_t i = 0; i < members.size(); ++i) {
        const auto& m = *members[i];
        if (!m.alive) continue;
        for (const auto& t : m.lists[c]) {
          const auto* o = t.if_object();
          const auto* n = o ? o->if_contains(info.key_member) : nullptr;
          if (!n || !n->is_string()) {
            spdlog::warn("ignoring a {} of the MCP server \"{}\" without a {}: {}", info.noun,
                         m.name, info.key_member, text_of(t));
            continue;
          }
          const std::string own(n->get_string());
          const std::string name = info.renamed ? m.prefix + own : own;
          // Tool names have rules of their own; a prompt's name any text.
          if (c == tools_catalog ? !valid_tool_name(name) : own.empty()) {
            spdlog::warn(
                "the MCP server \"{}\"'s {} \"{}\" is not served: \"{}\" is not a valid MCP "
                "{} name",
                m.name, info.noun, own, name, info.noun);
            continue;
          }
          if (auto it = next.find(name); it != next.end() && !info.renamed) {
            spdlog::warn("the MCP servers \"{}\" and \"{}\" both list the {} {}; \"{}\" serves it",
                         members[it->second.member]->name, m.name, info.noun, name,
                         members[it->second.member]->name);
            continue;
          } else if (it != next.end()) {
            const auto& first = *members[it->second.member];
            std::string why = std::string("the ") + info.noun + " name \"" + name +
                              "\" would be served by two MCP servers: \"" + first.name +
                              "\" (its " + info.noun + " \"" + it->second.own_name + "\") and \"" +
                              m.name + "\" (its " + info.noun + " \"" + own + "\"); " + info.noun +
                              " names must be unique -- keep both servers' prefixes "
                              "(drop \"prefix\": false) or rename one";
            if (at_start) return why;
            spdlog::error("{}; \"{}\" keeps it", why, first.name);
            continue;
          }
          next.emplace(name, Route{i, own});
          json::object served = *o;
          if (info.renamed) served["name"] = name;
          listed_now.push_back(std::move(served));
        }
      }
      tables[c] = std::move(next);
      listed[c] = std::move(listed_now);
    }
    return std::nullopt;
  }

  std::size_t alive_count() {
    std::lock_guard lock(mutex);
    std::size_t n = 0;
    for (const auto& m : members) n += m->alive;
    return n;
  }

  // ---- the gateway's messages ------------------------------------------------------
  void read_gateway() {
    while (auto f = from_gateway->next()) {
      if (f->kind != Frame::Kind::message) continue;  // the gateway keeps its own limits
      Message m = read_message(std::move(f->text));
      switch (m.kind) {
        case Message::Kind::request:
          on_gateway_request(m);
          break;
        case Message::Kind::notification:
          if (m.method() == "notifications/cancelled") cancel_for_gateway(m);
          break;
        case Message::Kind::response:
          answer_member(m);
          break;
        case Message::Kind::invalid:
          break;
      }
    }
    // The gateway closed its side: no more messages for any member (what
    // is queued for one still reaches it, then its input closes).
    closing = true;
    for (auto& m : members) m->to->close();
  }

  void reply(const json::value& id, const json::value& result) {
    to_gateway->write(response_text(id, false, to_json_text(result)));
  }
  void reply_error(const json::value& id, std::int64_t code, std::string_view message) {
    to_gateway->write(error_text(to_json_text(id), code, message));
  }

  void on_gateway_request(const Message& m) {
    const auto method = m.method();
    if (method == "initialize") return reply(m.id(), initialize_result(m.params()));
    if (method == "ping") return reply(m.id(), json::object{});
    for (Catalog c : all_catalogs)
      if (method == catalogs[c].list_method) {
        json::array items;
        {
          std::lock_guard lock(mutex);
          items = listed[c];
        }
        return reply(m.id(), json::object{{catalogs[c].key, std::move(items)}});
      }
    if (method == "tools/call") return forward(m, tools_catalog, {"params", "name"});
    if (method == "prompts/get") return forward(m, prompts_catalog, {"params", "name"});
    // Completion of a prompt's argument goes to the prompt's server.
    if (method == "completion/complete") {
      const auto* ref = m.params().if_contains("ref");
      const auto* type = ref && ref->is_object() ? ref->get_object().if_contains("type") : nullptr;
      if (type && type->is_string() && type->get_string() == "ref/prompt")
        return forward(m, prompts_catalog, {"params", "ref", "name"});
      if (type && type->is_string() && type->get_string() == "ref/resource")
        return forward(m, templates_catalog, {"params", "ref", "uri"});
    }
    if (method == "resources/read") return forward(m, resources_catalog, {"params", "uri"});
    reply_error(m.id(), rpc_error::method_not_found,
                "toolgate's server group relays tools, prompts and resources; " +
                    std::string(method) + " is not passed to its servers");
  }

  json::object initialize_result(const json::object& params) {
    bool prompts = false, resources = false;
    {
      std::lock_guard lock(mutex);
      for (const auto& m : members) {
        prompts |= m->alive && m->offers_prompts;
        resources |= m->alive && m->offers_resources;
      }
    }
    json::object capabilities{{"tools", json::object{{"listChanged", true}}}};
    if (prompts) capabilities["prompts"] = json::object{{"listChanged", true}};
    if (resources) capabilities["resources"] = json::object{{"listChanged", true}};
    const auto* asked = params.if_contains("protocolVersion");
    const std::string version =
        asked && asked->is_string() && known_legacy_version(asked->get_string())
            ? std::string(asked->get_string())
            : std::string("2025-11-25");
    std::string instructions;
    {
      std::lock_guard lock(mutex);
      for (const auto& m : members)
        if (m->alive && !m->instructions.empty())
          instructions += (instructions.empty() ? "" : "\n\n") + std::string("[") + m->name +
                          (m->prefix.empty() ? "" : ", tools " + m->prefix + "*") + "] " +
                          m->instructions;
    }
    json::object result{
        {"protocolVersion", version},
        {"capabilities", std::move(capabilities)},
        {"serverInfo", json::object{{"name", "toolgate-server-group"}, {"version", "1"}}}};
    if (!instructions.empty()) result["instructions"] = instructions;
    return result;
  }

  // The server of a served name; a resource URI no server lists is the
  // first server's whose template it expands (under the mutex).
  std::optional<Route> route_for(Catalog c, const std::string& name) {
    if (auto it = tables[c].find(name); it != tables[c].end()) return it->second;
    if (c != resources_catalog) return std::nullopt;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (!members[i]->alive) continue;
      for (const auto& t : members[i]->lists[templates_catalog]) {
        const auto* o = t.if_object();
        const auto* u = o ? o->if_contains("uriTemplate") : nullptr;
        if (u && u->is_string() && uri_template_matches(u->get_string(), name))
          return Route{i, name};
      }
    }
    return std::nullopt;
  }

  // A request naming one server's tool, prompt or resource (at
  // `name_path`): to that server under its own name.
  void forward(const Message& m, Catalog c, std::initializer_list<std::string_view> name_path) {
    const auto name_span = find_path(m.text, name_path);
    std::string name;
    if (name_span)
      if (auto v = parse_untrusted(name_span->value.of(m.text), 2); v && v->is_string())
        name = std::string(v->get_string());
    std::uint64_t id = 0;
    Route route;
    const auto id_span = find_path(m.text, {"id"});
    bool routed = false;
    {
      // Routed and registered under one lock: a server that ends fails
      // every call registered for it (member_ended), so none is orphaned.
      std::lock_guard lock(mutex);
      const auto found = route_for(c, name);
      // (Unescaped keys are what the gateway writes; anything else is not routed.)
      routed = found && members[found->member]->alive && name_span && id_span;
      if (routed) {
        route = *found;
        id = next_id++;
        Pending p;
        p.member = route.member;
        p.gateway_id = std::string(id_span->value.of(m.text));
        if (const auto token = find_path(m.text, {"params", "_meta", "progressToken"}))
          p.progress_token = std::string(token->value.of(m.text));
        by_gateway_id[p.gateway_id] = id;
        pending[id] = std::move(p);
      }
    }
    if (!routed) {
      reply_error(m.id(), rpc_error::invalid_params,
                  std::string("unknown ") + catalogs[c].noun + " \"" + name + "\"");
      return;
    }
    // Edited back to front, so the first span stays where it was.  A URI is
    // sent as written: only a renamed item's name changes.
    std::string text = m.text;
    if (catalogs[c].renamed) {
      const bool id_first = id_span->value.begin < name_span->value.begin;
      const auto& later = id_first ? *name_span : *id_span;
      const auto& earlier = id_first ? *id_span : *name_span;
      const std::string later_text =
          id_first ? to_json_text(json::value(route.own_name)) : std::to_string(id);
      const std::string earlier_text =
          id_first ? std::to_string(id) : to_json_text(json::value(route.own_name));
      text = replace_span(text, later.value, later_text);
      text = replace_span(text, earlier.value, earlier_text);
    } else {
      text = replace_span(text, id_span->value, std::to_string(id));
    }
    if (!members[route.member]->to->write(text)) {
      std::string gateway_id;
      {
        std::lock_guard lock(mutex);
        auto it = pending.find(id);
        if (it == pending.end()) return;  // failed meanwhile by the member's end
        gateway_id = it->second.gateway_id;
        by_gateway_id.erase(gateway_id);
        pending.erase(it);
      }
      to_gateway->write(error_text(
          gateway_id, rpc_error::internal_error,
          "the MCP server \"" + members[route.member]->name + "\" does not read its input"));
    }
  }

  // notifications/cancelled for a call the group sent on: to its member,
  // under the group's id.
  void cancel_for_gateway(const Message& m) {
    const auto span = find_path(m.text, {"params", "requestId"});
    if (!span) return;
    std::size_t member;
    std::uint64_t id;
    {
      std::lock_guard lock(mutex);
      auto it = by_gateway_id.find(std::string(span->value.of(m.text)));
      if (it == by_gateway_id.end()) return;
      id = it->second;
      const auto p = pending.find(id);
      if (p == pending.end()) return;
      member = p->second.member;
    }
    members[member]->to->write(replace_span(m.text, span->value, std::to_string(id)));
  }

  // The gateway's answer to a member's request: back to that member, under
  // its own id.
  void answer_member(const Message& m) {
    const auto span = find_path(m.text, {"id"});
    if (!span || !m.id().is_int64()) return;
    MemberRequest r;
    {
      std::lock_guard lock(mutex);
      auto it = member_requests.find(static_cast<std::uint64_t>(m.id().get_int64()));
      if (it == member_requests.end()) return;
      r = std::move(it->second);
      member_requests.erase(it);
      if (!members[r.member]->alive) return;
    }
    members[r.member]->to->write(replace_span(m.text, span->value, r.member_id));
  }

  // ---- a member's messages -----------------------------------------------------------
  void read_member(std::size_t i) {
    auto& me = *members[i];
    while (auto f = me.from->next()) {
      if (f->kind != Frame::Kind::message) {
        spdlog::warn("the MCP server \"{}\" wrote a message over the limit ({} bytes): dropped",
                     me.name, f->bytes);
        if (f->answer_id && f->answer_id->is_int64())
          fail_pending(static_cast<std::uint64_t>(f->answer_id->get_int64()), i,
                       "the MCP server \"" + me.name + "\"'s answer is over the message limit");
        continue;
      }
      Message m = read_message(std::move(f->text));
      {
        // A server left out (or ended) reaches no one.
        std::lock_guard lock(mutex);
        if (!me.alive) continue;
      }
      switch (m.kind) {
        case Message::Kind::response:
          on_member_response(i, m);
          break;
        case Message::Kind::request:
          on_member_request(i, m);
          break;
        case Message::Kind::notification:
          on_member_notification(i, m);
          break;
        case Message::Kind::invalid:
          spdlog::warn("the MCP server \"{}\" wrote a message that is not JSON-RPC ({}): dropped",
                       me.name, m.problem);
          // An answer dropped must still end its request, or the caller
          // waits for ever.
          if (auto id = answer_id_of(m.text); id && id->is_int64())
            fail_pending(static_cast<std::uint64_t>(id->get_int64()), i,
                         "the MCP server \"" + me.name + "\"'s answer is not valid: " + m.problem);
          break;
      }
    }
    {
      std::lock_guard lock(mutex);
      if (stopping) return;
    }
    member_ended(i);
  }

  // An answer counts only from the server the request went to: ids are a
  // counter, and one server must not answer (or fail) another's calls.
  void on_member_response(std::size_t i, const Message& m) {
    if (!m.id().is_int64()) return;
    const auto id = static_cast<std::uint64_t>(m.id().get_int64());
    Pending p;
    {
      std::lock_guard lock(mutex);
      auto it = pending.find(id);
      if (it == pending.end()) return;  // given up on (a timeout)
      if (it->second.member != i) {
        spdlog::warn("the MCP server \"{}\" answered a request it was not sent: dropped",
                     members[i]->name);
        return;
      }
      p = std::move(it->second);
      pending.erase(it);
      if (!p.own) by_gateway_id.erase(p.gateway_id);
    }
    if (p.own) return p.own->set_value(m.body);
    const auto span = find_path(m.text, {"id"});
    if (span) to_gateway->write(replace_span(m.text, span->value, p.gateway_id));
  }

  void on_member_request(std::size_t i, const Message& m) {
    const auto span = find_path(m.text, {"id"});
    if (!span) return;
    std::uint64_t id;
    {
      std::lock_guard lock(mutex);
      id = next_id++;
      member_requests[id] = MemberRequest{i, std::string(span->value.of(m.text))};
    }
    to_gateway->write(replace_span(m.text, span->value, std::to_string(id)));
  }

  void on_member_notification(std::size_t i, const Message& m) {
    for (Catalog c : all_catalogs)
      if (m.method() == catalogs[c].changed) {
        {
          std::lock_guard lock(mutex);
          relist.emplace_back(i, c);
          if (c == resources_catalog) relist.emplace_back(i, templates_catalog);
        }
        control_cv.notify_all();
        return;
      }
    if (m.method() == "notifications/cancelled") {
      // The member withdraws its own request to the client.
      const auto span = find_path(m.text, {"params", "requestId"});
      if (!span) return;
      const std::string theirs(span->value.of(m.text));
      std::optional<std::uint64_t> ours;
      {
        std::lock_guard lock(mutex);
        for (const auto& [id, r] : member_requests)
          if (r.member == i && r.member_id == theirs) ours = id;
      }
      if (ours) to_gateway->write(replace_span(m.text, span->value, std::to_string(*ours)));
      return;
    }
    if (m.method() == "notifications/progress") {
      // Only for a call of its own: a token names another server's call too.
      const auto token = find_path(m.text, {"params", "progressToken"});
      bool its_own = false;
      if (token) {
        const std::string_view t = token->value.of(m.text);
        std::lock_guard lock(mutex);
        for (const auto& [id, p] : pending)
          its_own |= p.member == i && !p.own && p.progress_token == t;
      }
      if (!its_own) return;
    }
    // Progress, log messages, resource updates: as they are.
    to_gateway->write(m.text);
  }

  void fail_pending(std::uint64_t id, std::size_t member, const std::string& why) {
    Pending p;
    {
      std::lock_guard lock(mutex);
      auto it = pending.find(id);
      if (it == pending.end() || it->second.member != member) return;
      p = std::move(it->second);
      pending.erase(it);
      if (!p.own) by_gateway_id.erase(p.gateway_id);
    }
    if (p.own)
      return p.own->set_value(json::object{
          {"error", json::object{{"code", rpc_error::internal_error}, {"message", why}}}});
    to_gateway->write(error_text(p.gateway_id, rpc_error::internal_error, why));
  }

  // A member no longer served: marked ended, asked to end.
  void withdraw(std::size_t i) {
    {
      std::lock_guard lock(mutex);
      members[i]->alive = false;
    }
    members[i]->to->abort();
  }

  void member_ended(std::size_t i) {
    auto& me = *members[i];
    std::string how = "closed its output";
    {
      std::lock_guard lock(me.link_mutex);
      if (auto status = me.link->wait_for(std::chrono::milliseconds(200)))
        how = me.link->describe_end(*status);
    }
    std::vector<std::uint64_t> in_flight;
    bool was_alive, last;
    {
      std::lock_guard lock(mutex);
      was_alive = me.alive;
      me.alive = false;
      last = was_alive &&
             std::none_of(members.begin(), members.end(), [](const auto& m) { return m->alive; });
      for (const auto& [id, p] : pending)
        if (p.member == i) in_flight.push_back(id);
      for (auto it = member_requests.begin(); it != member_requests.end();)
        it = it->second.member == i ? member_requests.erase(it) : std::next(it);
    }
    const std::string why = "the MCP server \"" + me.name + "\" ended (" + how + ")";
    for (auto id : in_flight) fail_pending(id, i, why + " before it answered");
    me.to->abort();
    if (!was_alive) return;
    rebuild(false);
    if (last) {
      if (closing)
        spdlog::info("{}; the group has stopped", why);
      else
        spdlog::error("{}; it was the group's last server", why);
      // The gateway sees its server's output end.  Only here and in stop()
      // (after every thread is joined) is the descriptor closed.
      to_gateway->shut();
      std::lock_guard lock(mutex);
      if (out_pipe[1] >= 0) ::close(std::exchange(out_pipe[1], -1));
      return;
    }
    if (closing)  // asked to: the gateway is shutting down
      spdlog::info("{}", why);
    else
      spdlog::error("{}: its tools are withdrawn; the group's other servers keep serving", why);
    to_gateway->write(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})");
    if (me.offers_prompts)
      to_gateway->write(R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})");
    if (me.offers_resources)
      to_gateway->write(R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");
  }

  // ---- lists again after a member's list_changed -----------------------------------
  void relist_loop() {
    for (;;) {
      std::size_t i;
      Catalog c;
      {
        std::unique_lock lock(mutex);
        control_cv.wait(lock, [&] { return stopping || !relist.empty(); });
        if (stopping) return;
        std::tie(i, c) = relist.front();
        relist.pop_front();
      }
      std::string why;
      auto items = list(i, c, &why);
      if (!items) {
        spdlog::warn("cannot list the MCP server \"{}\"'s {}s again: {}; its last list stays",
                     members[i]->name, catalogs[c].noun, why);
        continue;
      }
      {
        std::lock_guard lock(mutex);
        members[i]->lists[c] = std::move(*items);
      }
      rebuild(false);
      to_gateway->write(std::string(R"({"jsonrpc":"2.0","method":")") + catalogs[c].changed +
                        "\"}");
    }
  }

  std::chrono::milliseconds timeout;
  std::size_t max_bytes;
  std::vector<std::unique_ptr<MemberState>> members;
  int in_pipe[2] = {-1, -1};   // the gateway writes [1], the group reads [0]
  int out_pipe[2] = {-1, -1};  // the group writes [1], the gateway reads [0]
  std::unique_ptr<LineReader> from_gateway;
  std::unique_ptr<LineWriter> to_gateway;

  std::mutex mutex;
  bool stopping = false;
  // The gateway closed the group's input: servers ending now were asked to.
  std::atomic<bool> closing{false};
  std::uint64_t next_id = 1;
  std::map<std::uint64_t, Pending> pending;                // the group's requests to members
  std::map<std::string, std::uint64_t> by_gateway_id;      // for the gateway's cancellations
  std::map<std::uint64_t, MemberRequest> member_requests;  // members' requests to the client
  // Per catalog: served name -> member and its own name; what the list answers.
  std::map<std::string, Route, std::less<>> tables[catalog_count];
  json::array listed[catalog_count];
  std::deque<std::pair<std::size_t, Catalog>> relist;
  std::condition_variable control_cv;
  std::thread gateway_reader, control;
  std::string end_text;
};

std::unique_ptr<ServerGroup> ServerGroup::start(std::vector<Member> members,
                                                std::chrono::milliseconds timeout,
                                                std::size_t max_message_bytes) {
  if (members.empty()) throw std::invalid_argument("a server group needs at least one server");
  auto impl = std::make_unique<Impl>(std::move(members), timeout, max_message_bytes);
  impl->open_pipes();
  impl->start_members();
  return std::unique_ptr<ServerGroup>(new ServerGroup(std::move(impl)));
}

ServerGroup::ServerGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ServerGroup::~ServerGroup() = default;

int ServerGroup::stdin_fd() const { return impl_->in_pipe[1]; }
int ServerGroup::stdout_fd() const { return impl_->out_pipe[0]; }

void ServerGroup::close_stdin() {
  if (impl_->in_pipe[1] >= 0) ::close(std::exchange(impl_->in_pipe[1], -1));
}

std::optional<int> ServerGroup::wait_for(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  std::string text;
  int worst = 0;
  for (auto& m : impl_->members) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    std::lock_guard lock(m->link_mutex);
    auto status = m->link->wait_for(std::max(left, std::chrono::milliseconds(0)));
    if (!status) return std::nullopt;
    text += (text.empty() ? "" : "; ") + std::string("\"") + m->name + "\" " +
            m->link->describe_end(*status);
    if (*status != 0 && worst == 0) worst = *status;
  }
  impl_->end_text = text;
  return worst;
}

void ServerGroup::send_signal(int sig) {
  for (auto& m : impl_->members) {
    std::lock_guard lock(m->link_mutex);
    m->link->send_signal(sig);
  }
}

std::string ServerGroup::describe_end(int) const {
  return "ended with every server of the group (" + impl_->end_text + ")";
}

}  // namespace toolgate::mcp
