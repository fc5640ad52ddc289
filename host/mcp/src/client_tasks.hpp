// client_tasks.hpp -- the tasks the gateway runs for the client (MCP
// 2025-11-25 task-augmented tools/call).
//
// A client that sends tools/call with a "task" gets a task of the
// gateway's own, never the server's: the call runs the whole pipeline on a
// worker, as any call does, and the task's result is the pipeline's final
// result -- post-execute, redaction and observers included -- not whatever
// the server would hand out for its own task id.  So the client's
// tasks/get, tasks/result, tasks/cancel and tasks/list are answered here
// from this table and never reach the server, whose own tasks (if the
// gateway uses one for a tool that requires it) the client never sees.
//
// The task is created when the call's tool body starts, i.e. after
// pre-execute, approval and every guard allowed it: a call refused before
// that is answered with a JSON-RPC error instead of a task.  tasks/result
// on a task still working holds no thread: the request is parked here and
// answered when the call ends.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace toolgate::mcp {

class ClientTasks {
 public:
  using Clock = std::chrono::system_clock;
  // Whoever answers a parked tasks/result: the client's request id and the
  // JSON-RPC response's body text (a result or an error object).
  struct Reply {
    boost::json::value id;
    bool is_error = false;
    std::string body_text;
  };

  // At most this many tasks/result requests wait on one task; another is
  // refused (a client asking without end must not grow the table).
  static constexpr std::size_t max_waiting_per_task = 64;

  explicit ClientTasks(std::size_t max_tasks = 1024) : max_tasks_(max_tasks) {}

  // A new working task for call `call_id`, kept `ttl` from now (the
  // client's, clamped to [1 s, 24 h]; 1 h when it gave none).  nullopt
  // when the table is full of tasks still working or within their ttl.
  // `modern`: the task is a 2026-07-28 client's (the tasks extension):
  // its results take that era's shapes.
  std::optional<std::string> create(const std::string& call_id, std::optional<std::int64_t> ttl_ms,
                                    bool modern = false);
  // CreateTaskResult for `task_id`: {"task": {...}} (2025-11-25), or the
  // flat {"resultType": "task", "taskId", ...} (2026-07-28).
  boost::json::object created_result(const std::string& task_id);
  // The call ended: its final response body.  Returns the parked
  // tasks/result requests to answer now.  A task cancelled meanwhile stays
  // cancelled (its waiters were answered then).
  std::vector<Reply> finish(const std::string& task_id, bool is_error, std::string body_text);

  // The client's requests.  Each returns the reply to send now, or nullopt
  // when tasks/result was parked (answered by finish or cancel later).
  // `cancel_call` is run for a working task the client cancels.
  Reply get(const boost::json::value& id, const boost::json::object& params);
  std::optional<Reply> result(const boost::json::value& id, const boost::json::object& params);
  // The cancel reply first, then the parked tasks/result requests, which
  // get a "task cancelled" error.
  std::vector<Reply> cancel(const boost::json::value& id, const boost::json::object& params,
                            const std::function<void(const std::string& call_id)>& cancel_call);
  Reply list(const boost::json::value& id, const boost::json::object& params);
  // 2026-07-28's tasks/update: input for a task waiting for it.  The
  // gateway's tasks never wait (approval comes before the task exists).
  Reply update(const boost::json::value& id, const boost::json::object& params);

 private:
  struct Task {
    std::string call_id;
    bool modern = false;             // 2026-07-28 shapes
    std::string status = "working";  // working, completed, failed, cancelled
    std::string status_message;
    Clock::time_point created, updated;
    std::int64_t ttl_ms = 0;
    bool is_error = false;
    std::string body_text;  // terminal: the response body tasks/result sends
    std::vector<boost::json::value> waiting;
  };
  boost::json::object describe(const std::string& id, const Task& t) const;
  // Tasks past their ttl that are no longer working leave the table.
  void expire(Clock::time_point now);
  // The task `params.taskId` names, or the error reply for `id`.
  Task* find(const boost::json::object& params, std::string* task_id);
  static Reply unknown(const boost::json::value& id, const boost::json::object& params);

  std::mutex mutex_;
  std::size_t max_tasks_;
  std::map<std::string, Task> tasks_;  // by id: random, so list order is not creation order
};

}  // namespace toolgate::mcp
