// parked_tool.hpp -- a tool body that answers later, for the tests of
// Host::call_async and of what runs around such a body: "later" parks its
// completion (with the arguments and signal it got) until the test
// answers it, and Outcomes collects what call_async's `done` received.
#pragma once

#include "test_support.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <thread>

namespace tgtest {

struct Parked {
  std::mutex mutex;
  std::vector<ToolCompletion> completions;
  std::vector<json::object> arguments;
  std::vector<std::shared_ptr<Signal>> signals;
  std::size_t size() {
    std::lock_guard lock(mutex);
    return completions.size();
  }
  ToolCompletion take() {
    std::lock_guard lock(mutex);
    auto c = std::move(completions.back());
    completions.pop_back();
    return c;
  }
};

inline void register_later(Host& host, const std::shared_ptr<Parked>& parked) {
  ToolDefinition t;
  t.name = "later";
  t.execute_async = [parked](const ToolContext& ctx, ToolCompletion done) {
    std::lock_guard lock(parked->mutex);
    parked->arguments.push_back(ctx.call.arguments);
    parked->signals.push_back(ctx.signal);
    parked->completions.push_back(std::move(done));
  };
  host.register_tool(std::move(t));
}
inline std::shared_ptr<Parked> register_later(Host& host) {
  auto parked = std::make_shared<Parked>();
  register_later(host, parked);
  return parked;
}

// Another thread completes the first parked body with `out` (for calls
// that wait on the caller's thread).
inline std::thread answer_when_parked(const std::shared_ptr<Parked>& parked, ToolOutput out) {
  return std::thread([parked, out = std::move(out)]() mutable {
    while (parked->size() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    parked->take().complete(std::move(out));
  });
}

inline ToolCall later(json::object args = {{"x", 1}}) {
  ToolCall c;
  c.identity.tool = "later";
  c.identity.session_id = "test";
  c.arguments = std::move(args);
  return c;
}

struct Outcomes {
  std::mutex mutex;
  std::vector<ToolResult> results;
  std::vector<std::vector<std::string>> contexts;
  std::size_t size() {
    std::lock_guard lock(mutex);
    return results.size();
  }
  Host::CallDone sink() {
    return [this](ToolResult r, std::vector<std::string> c) {
      std::lock_guard lock(mutex);
      results.push_back(std::move(r));
      contexts.push_back(std::move(c));
    };
  }
};

}  // namespace tgtest
