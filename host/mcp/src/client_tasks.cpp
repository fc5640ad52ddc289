#include "client_tasks.hpp"

#include "jsonrpc.hpp"
#include "sealed_state.hpp"

#include <toolgate/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

constexpr std::int64_t default_ttl_ms = 3'600'000;  // 1 h
constexpr std::int64_t min_ttl_ms = 1'000;
constexpr std::int64_t max_ttl_ms = 86'400'000;  // 24 h
constexpr std::int64_t poll_interval_ms = 500;

// ISO 8601 in UTC with milliseconds, as MCP's createdAt / lastUpdatedAt.
std::string iso8601(ClientTasks::Clock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];  // room for any int the compiler can imagine in each field
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

ClientTasks::Reply error_reply(const json::value& id, std::int64_t code, std::string message) {
  auto e = make_error(id, code, message);
  return {id, true, to_json_text(e.at("error"))};
}

bool terminal(const std::string& status) { return status != "working"; }

}  // namespace

std::optional<std::string> ClientTasks::create(const std::string& call_id,
                                               std::optional<std::int64_t> ttl_ms, bool modern) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  expire(now);
  if (tasks_.size() >= max_tasks_) return std::nullopt;
  Task t;
  t.call_id = call_id;
  t.modern = modern;
  t.created = t.updated = now;
  t.ttl_ms = std::clamp(ttl_ms.value_or(default_ttl_ms), min_ttl_ms, max_ttl_ms);
  // 128 random bits: a task id another client could not guess.
  std::string id = "tg-" + random_nonce();
  tasks_.emplace(id, std::move(t));
  return id;
}

json::object ClientTasks::describe(const std::string& id, const Task& t) const {
  json::object o{{"taskId", id},
                 {"status", t.status},
                 {"createdAt", iso8601(t.created)},
                 {"lastUpdatedAt", iso8601(t.updated)},
                 {t.modern ? "ttlMs" : "ttl", t.ttl_ms},  // renamed in 2026-07-28
                 {t.modern ? "pollIntervalMs" : "pollInterval", poll_interval_ms}};
  if (!t.status_message.empty()) o["statusMessage"] = t.status_message;
  return o;
}

json::object ClientTasks::created_result(const std::string& task_id) {
  std::lock_guard lock(mutex_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end()) return {};
  if (!it->second.modern) return json::object{{"task", describe(it->first, it->second)}};
  json::object flat{{"resultType", "task"}};
  for (auto& kv : describe(it->first, it->second)) flat.emplace(kv.key(), kv.value());
  return flat;
}

std::vector<ClientTasks::Reply> ClientTasks::finish(const std::string& task_id, bool is_error,
                                                    std::string body_text) {
  std::lock_guard lock(mutex_);
  auto it = tasks_.find(task_id);
  if (it == tasks_.end() || terminal(it->second.status)) return {};
  Task& t = it->second;
  // A JSON-RPC error is a failed task; a tool result -- isError or not --
  // is what a completed task hands out.
  t.status = is_error ? "failed" : "completed";
  t.updated = Clock::now();
  t.is_error = is_error;
  t.body_text = std::move(body_text);
  std::vector<Reply> out;
  for (auto& id : t.waiting) out.push_back({std::move(id), t.is_error, t.body_text});
  t.waiting.clear();
  return out;
}

ClientTasks::Task* ClientTasks::find(const json::object& params, std::string* task_id) {
  const auto* id = params.if_contains("taskId");
  if (!id || !id->is_string()) return nullptr;
  auto it = tasks_.find(std::string(id->get_string()));
  if (it == tasks_.end()) return nullptr;
  *task_id = it->first;
  return &it->second;
}

ClientTasks::Reply ClientTasks::unknown(const json::value& id, const json::object& params) {
  const auto* task = params.if_contains("taskId");
  if (!task || !task->is_string())
    return error_reply(id, rpc_error::invalid_params, "a string \"taskId\" is required");
  return error_reply(id, rpc_error::invalid_params,
                     "no task " + to_json_text(*task) +
                         " (toolgate knows only the tasks it created in this session, until "
                         "their ttl passes)");
}

ClientTasks::Reply ClientTasks::get(const json::value& id, const json::object& params) {
  std::lock_guard lock(mutex_);
  expire(Clock::now());
  std::string task_id;
  const Task* t = find(params, &task_id);
  if (!t) return unknown(id, params);
  if (!t->modern) return {id, false, to_json_text(describe(task_id, *t))};
  // 2026-07-28: the result (or the error) travels inside tasks/get once the
  // task is done; there is no tasks/result.
  std::string text = to_json_text(describe(task_id, *t));
  text.insert(1, R"("resultType":"complete",)");
  if (t->status == "completed" || t->status == "failed") {
    text.pop_back();
    text += t->is_error ? R"(,"error":)" : R"(,"result":)";
    text += t->body_text;
    text += '}';
  }
  return {id, false, std::move(text)};
}

std::optional<ClientTasks::Reply> ClientTasks::result(const json::value& id,
                                                      const json::object& params) {
  std::lock_guard lock(mutex_);
  expire(Clock::now());
  std::string task_id;
  Task* t = find(params, &task_id);
  if (!t) return unknown(id, params);
  if (t->status == "cancelled")
    return error_reply(id, rpc_error::invalid_params, "task " + task_id + " was cancelled");
  if (!terminal(t->status)) {
    if (t->waiting.size() >= max_waiting_per_task)
      return error_reply(id, rpc_error::invalid_request,
                         std::to_string(max_waiting_per_task) +
                             " tasks/result requests are already waiting on task " + task_id +
                             "; wait for their answers instead of asking again");
    t->waiting.push_back(heap_copy(id));  // parked until the task ends
    return std::nullopt;
  }
  return Reply{id, t->is_error, t->body_text};
}

std::vector<ClientTasks::Reply> ClientTasks::cancel(
    const json::value& id, const json::object& params,
    const std::function<void(const std::string& call_id)>& cancel_call) {
  std::vector<Reply> out;
  std::string call_id;
  {
    std::lock_guard lock(mutex_);
    std::string task_id;
    Task* t = find(params, &task_id);
    if (!t) return {unknown(id, params)};
    if (terminal(t->status)) {
      return {
          error_reply(id, rpc_error::invalid_params,
                      "task " + task_id + " is already " + t->status + "; it cannot be cancelled")};
    }
    t->status = "cancelled";
    t->status_message = "cancelled by the client";
    t->updated = Clock::now();
    call_id = t->call_id;
    out.push_back({id, false,
                   t->modern ? std::string(R"({"resultType":"complete"})")
                             : to_json_text(describe(task_id, *t))});
    for (auto& w : t->waiting)
      out.push_back(
          error_reply(w, rpc_error::invalid_params, "task " + task_id + " was cancelled"));
    t->waiting.clear();
  }
  cancel_call(call_id);  // outside the lock: it wakes the call's waits
  return out;
}

ClientTasks::Reply ClientTasks::list(const json::value& id, const json::object& params) {
  if (params.contains("cursor"))
    return error_reply(id, rpc_error::invalid_params,
                       "toolgate lists every task on one page and gave no cursor");
  std::lock_guard lock(mutex_);
  expire(Clock::now());
  std::vector<std::pair<Clock::time_point, const std::string*>> order;
  for (const auto& [task_id, t] : tasks_) order.emplace_back(t.created, &task_id);
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });  // newest first
  json::array tasks;
  for (const auto& [created, task_id] : order)
    tasks.push_back(describe(*task_id, tasks_.at(*task_id)));
  return {id, false, to_json_text(json::object{{"tasks", std::move(tasks)}})};
}

ClientTasks::Reply ClientTasks::update(const json::value& id, const json::object& params) {
  std::lock_guard lock(mutex_);
  std::string task_id;
  const Task* t = find(params, &task_id);
  if (!t) return unknown(id, params);
  return error_reply(id, rpc_error::invalid_params,
                     "task " + task_id + " is " + t->status +
                         ", not waiting for input (toolgate asks for approval before it makes "
                         "a task)");
}

void ClientTasks::expire(Clock::time_point now) {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    const auto& t = it->second;
    if (terminal(t.status) && now > t.created + std::chrono::milliseconds(t.ttl_ms))
      it = tasks_.erase(it);
    else
      ++it;
  }
}

}  // namespace toolgate::mcp
