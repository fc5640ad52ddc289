#include "protocol.hpp"

#include <toolgate/json.hpp>

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>

namespace toolgate::serve {

namespace json = boost::json;

namespace {

// A request that cannot be served; becomes a bad_request answer.
struct BadRequest : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json::string& required_string(const json::object& o, std::string_view key,
                                    std::string_view where) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_string())
    throw BadRequest(std::string(where) + " needs a string \"" + std::string(key) + "\"");
  return v->get_string();
}

std::string optional_string(const json::object& o, std::string_view key, std::string_view where) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return {};
  if (!v->is_string())
    throw BadRequest(std::string(where) + "/" + std::string(key) + " must be a string");
  return std::string(v->get_string());
}

void only_keys(const json::object& o, std::initializer_list<std::string_view> allowed,
               std::string_view where) {
  for (const auto& kv : o) {
    bool known = false;
    for (auto a : allowed) known = known || kv.key() == a;
    if (known) continue;
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw BadRequest("unknown key \"" + std::string(kv.key()) + "\" in " + std::string(where) +
                     " (allowed: " + list + ")");
  }
}

json::array texts(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& t : v) a.push_back(json::string(t));
  return a;
}

std::string_view verdict_name(SplitBegin::Verdict v) {
  switch (v) {
    case SplitBegin::Verdict::allow:
      return "allow";
    case SplitBegin::Verdict::ask:
      return "ask";
    case SplitBegin::Verdict::deny:
      break;
  }
  return "deny";
}

std::string_view outcome_name(SplitOutcome::Kind k) {
  switch (k) {
    case SplitOutcome::Kind::accepted:
      return "accepted";
    case SplitOutcome::Kind::replaced:
      return "replaced";
    case SplitOutcome::Kind::blocked:
      break;
  }
  return "blocked";
}

std::string with_id(json::object answer, const json::value* id) {
  json::object out;
  out["id"] = id ? *id : json::value(nullptr);
  for (auto& kv : answer) out[kv.key()] = std::move(kv.value());
  return to_json_text(out);
}

json::object error_object(std::string_view code, std::string_view message) {
  return {{"ok", false}, {"error", {{"code", code}, {"message", message}}}};
}

// 128 random bits, hex.
std::string random_id() {
  static thread_local std::mt19937_64 bits{[] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }()};
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(bits()),
                static_cast<unsigned long long>(bits()));
  return buf;
}

}  // namespace

std::string Protocol::error_answer(std::string_view code, std::string_view message) {
  return with_id(error_object(code, message), nullptr);
}

std::string Protocol::match_key(std::string_view peer, std::string_view client,
                                std::string_view session, std::string_view tool,
                                const json::object& arguments) const {
  // serialize() writes members in their order: the same call from the same
  // agent serializes the same way in both of its hooks.
  std::string key;
  for (auto part : {peer, client, session, tool}) {
    key += std::to_string(part.size());
    key += ':';
    key += part;
  }
  return key + to_json_text(arguments);
}

void Protocol::forget(const std::string& call_id) {
  auto k = keys_of_.find(call_id);
  if (k == keys_of_.end()) return;
  for (const auto& key : k->second) {
    auto it = by_match_.find(key);
    if (it == by_match_.end()) continue;
    std::erase(it->second, call_id);
    if (it->second.empty()) by_match_.erase(it);
  }
  keys_of_.erase(k);
}

void Protocol::remember(const std::vector<std::string>& keys, const std::string& call_id) {
  std::lock_guard lock(mutex_);
  for (const auto& key : keys) {
    auto& ids = by_match_[key];
    if (std::find(ids.begin(), ids.end(), call_id) == ids.end()) ids.push_back(call_id);
  }
  keys_of_[call_id] = keys;
  match_order_.push_back(call_id);
  // Bounded like the host's table of pending calls: the oldest entries,
  // whose calls have long been completed or expired, go first.
  while (match_order_.size() > 20000) {
    forget(match_order_.front());
    match_order_.pop_front();
  }
}

std::string Protocol::take_match(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = by_match_.find(key);
  if (it == by_match_.end()) return {};
  std::string id = it->second.front();
  forget(id);  // under every key: a rewritten call was remembered twice
  return id;
}

std::string Protocol::answer(std::string_view line, std::string_view peer) {
  std::string why;
  auto parsed = parse_untrusted(line, max_depth_, &why);
  if (!parsed)
    return error_answer(protocol_error::bad_request, "the request is not valid JSON: " + why);
  const json::value* id = nullptr;
  try {
    if (!parsed->is_object()) throw BadRequest("a request must be a JSON object");
    auto& req = parsed->get_object();
    id = req.if_contains("id");
    const auto& op = required_string(req, "op", "the request");

    if (op == "ping") {
      only_keys(req, {"id", "op"}, "a ping");
      return with_id({{"ok", true},
                      {"generation", host_.generation()},
                      {"pending", host_.pending_split_calls()},
                      {"protocol", protocol_version}},
                     id);
    }

    if (op == "begin") {
      only_keys(req, {"id", "op", "call", "caller_approves"}, "a begin request");
      auto* call_v = req.if_contains("call");
      if (!call_v || !call_v->is_object())
        throw BadRequest("a begin request needs a \"call\" object");
      auto& call = call_v->get_object();
      only_keys(call, {"tool", "arguments", "call_id", "session_id", "client", "agent_id"},
                "\"call\"");
      ToolCall c;
      c.identity.tool = required_string(call, "tool", "\"call\"");
      if (c.identity.tool.empty()) throw BadRequest("\"call\"/tool must not be empty");
      c.identity.call_id = optional_string(call, "call_id", "\"call\"");
      const bool matched = c.identity.call_id.empty();
      // Ids the caller did not choose are random: nobody can guess the
      // next one to block or complete it.
      if (matched) c.identity.call_id = "call-" + random_id();
      c.identity.call_id.insert(0, peer);
      c.identity.session_id = optional_string(call, "session_id", "\"call\"");
      c.identity.client = optional_string(call, "client", "\"call\"");
      c.identity.agent_id = optional_string(call, "agent_id", "\"call\"");
      if (auto* a = call.if_contains("arguments")) c.arguments = std::move(*a);
      SplitBeginOptions how;
      if (auto* ca = req.if_contains("caller_approves")) {
        if (!ca->is_bool()) throw BadRequest("\"caller_approves\" must be true or false");
        how.caller_approves = ca->get_bool();
      }
      // Calls without an id of the caller's are matched on completion by
      // what they were called with (see match_key).
      json::object original;
      if (matched && c.arguments.is_object()) original = c.arguments.get_object();
      std::string client = c.identity.client, session = c.identity.session_id,
                  tool = c.identity.tool;
      SplitBegin b = host_.begin_call(std::move(c), how);
      json::object out{{"ok", true},
                       {"verdict", verdict_name(b.verdict)},
                       {"call_id", b.call_id.substr(peer.size())},
                       {"reason", b.reason},
                       {"additional_contexts", texts(b.additional_contexts)}};
      if (b.verdict == SplitBegin::Verdict::deny) {
        out["result"] = b.result.to_json();
      } else {
        out["arguments"] = b.arguments;
        out["rewritten"] = b.rewritten;
        if (matched) {
          std::vector<std::string> keys{match_key(peer, client, session, tool, original)};
          if (b.rewritten) keys.push_back(match_key(peer, client, session, tool, b.arguments));
          remember(keys, b.call_id);
        }
      }
      return with_id(std::move(out), id);
    }

    if (op == "complete") {
      only_keys(req, {"id", "op", "call_id", "match", "result"}, "a complete request");
      auto* result_v = req.if_contains("result");
      if (!result_v) throw BadRequest("a complete request needs a \"result\" (the result shape)");
      std::string shape_problem;
      auto reported = ToolResult::from_json(std::move(*result_v), &shape_problem);
      if (!reported) throw BadRequest("\"result\" is not a result: " + shape_problem);
      std::string call_id = optional_string(req, "call_id", "the request");
      std::optional<SplitOutcome> o;
      if (!call_id.empty()) {
        call_id.insert(0, peer);
        try {
          o = host_.complete_call(call_id, std::move(*reported));
        } catch (const std::out_of_range& e) {
          return with_id(error_object(protocol_error::unknown_call, e.what()), id);
        }
        std::lock_guard lock(mutex_);
        forget(call_id);  // in case it was begun without an id
      } else {
        auto* m = req.if_contains("match");
        if (!m || !m->is_object())
          throw BadRequest(
              "a complete request needs a \"call_id\", or a \"match\" object (client, "
              "session_id, tool, arguments) for a call begun without one");
        auto& mo = m->get_object();
        only_keys(mo, {"client", "session_id", "tool", "arguments"}, "\"match\"");
        static const json::object none;
        const auto* args = mo.if_contains("arguments");
        if (args && !args->is_object()) throw BadRequest("\"match\"/arguments must be an object");
        const std::string key =
            match_key(peer, optional_string(mo, "client", "\"match\""),
                      optional_string(mo, "session_id", "\"match\""),
                      required_string(mo, "tool", "\"match\""), args ? args->get_object() : none);
        // The oldest matching call still pending: one that expired since is
        // skipped (its entry is only forgotten when taken).
        while (!o) {
          call_id = take_match(key);
          if (call_id.empty())
            return with_id(error_object(protocol_error::unknown_call,
                                        "no begun call matches this client, session, tool and "
                                        "arguments (it was denied, completed or expired)"),
                           id);
          try {
            o = host_.complete_call(call_id, *reported);
          } catch (const std::out_of_range&) {
          }
        }
      }
      return with_id({{"ok", true},
                      {"outcome", outcome_name(o->kind)},
                      {"call_id", call_id.substr(peer.size())},
                      {"result", o->result.to_json()},
                      {"additional_contexts", texts(o->additional_contexts)}},
                     id);
    }
    throw BadRequest("unknown op \"" + std::string(op) + "\" (the ops: begin, complete, ping)");
  } catch (const BadRequest& e) {
    return with_id(error_object(protocol_error::bad_request, e.what()), id);
  } catch (const std::exception& e) {
    // Nothing a request holds may take the daemon down.
    return with_id(error_object(protocol_error::bad_request,
                                std::string("the request could not be served: ") + e.what()),
                   id);
  }
}

}  // namespace toolgate::serve
