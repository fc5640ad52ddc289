#include "client_calls.hpp"

#include "jsonrpc.hpp"

#include <vector>

namespace toolgate::mcp {

namespace {
// The two peers' ids live apart: the server's request 5 is not the client's.
std::string requester_key(const boost::json::value& id, bool from_server) {
  return (from_server ? "S" : "C") + id_key(id);
}
}  // namespace

bool ClientCalls::add(const std::shared_ptr<ClientCall>& call) {
  std::lock_guard lock(mutex_);
  auto key = requester_key(call->client_id, call->from_server);
  if (by_client_id_.count(key)) return false;
  by_client_id_.emplace(std::move(key), call);
  by_call_id_.emplace(call->call_id, call);
  return true;
}

void ClientCalls::finish(const ClientCall& call) {
  std::lock_guard lock(mutex_);
  by_client_id_.erase(requester_key(call.client_id, call.from_server));
  by_call_id_.erase(call.call_id);
  drained_.notify_all();
}

std::shared_ptr<ClientCall> ClientCalls::by_client_id(const boost::json::value& id,
                                                      bool from_server) {
  std::lock_guard lock(mutex_);
  auto it = by_client_id_.find(requester_key(id, from_server));
  return it == by_client_id_.end() ? nullptr : it->second;
}

std::shared_ptr<ClientCall> ClientCalls::by_call_id(const std::string& call_id) {
  std::lock_guard lock(mutex_);
  auto it = by_call_id_.find(call_id);
  return it == by_call_id_.end() ? nullptr : it->second;
}

void ClientCalls::cancel_all() {
  std::vector<std::shared_ptr<ClientCall>> calls;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, c] : by_client_id_) calls.push_back(c);
  }
  for (auto& c : calls) c->cancel();
}

bool ClientCalls::wait_drained(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return drained_.wait_for(lock, timeout, [&] { return by_client_id_.empty(); });
}

std::pair<std::size_t, std::string> ClientCalls::still_running(std::size_t most) {
  std::lock_guard lock(mutex_);
  std::string list;
  std::size_t n = 0;
  for (const auto& [key, c] : by_client_id_) {
    if (++n <= most)
      list += std::string(list.empty() ? "" : ", ") + "tool \"" + c->tool + "\" (call " +
              c->call_id + ")";
  }
  return {n, list};
}

}  // namespace toolgate::mcp
