// client_calls.hpp -- the client's tools/call requests in flight.
//
// Each runs Host::call on a worker; the table finds it by the client's id
// (a notifications/cancelled) and by its call id (the tool body and the
// approver, which only see the call's identity), and lets shutdown cancel
// every call and wait for them to end.
#pragma once

#include "tool_mapping.hpp"

#include <optional>

#include "peer.hpp"

#include <toolgate/signal.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace toolgate::mcp {

struct GatedMethod;

// One tools/call from the client -- or one gated request (gated_requests.hpp)
// from either peer -- from arrival until its response.
struct ClientCall {
  boost::json::value client_id;        // the requester's id (the server's, when from_server)
  const GatedMethod* gated = nullptr;  // a gated request, not a tools/call
  bool from_server = false;            // a gated request the server sent
  std::string call_id;
  std::string tool;
  boost::json::value arguments;
  boost::json::object params;  // the client's params (its _meta travels on)
  std::string params_text;     // the same as the client wrote them (empty if unknown)
  std::shared_ptr<Signal> signal = Signal::make();
  std::atomic<bool> client_cancelled{false};
  SlotWaker waiting;  // what the gateway waits on for this call
  // The server's last answer to this call (tool_mapping.hpp: relay_for).
  // Written by the tool body and read after the pipeline, both on the
  // call's worker thread.
  std::optional<ServerAnswer> server_answer;
  // A task-augmented tools/call (client_tasks.hpp): the client's ttl, and
  // the gateway's task for it, made when the tool body starts (so written
  // and read on the call's worker thread, like server_answer).
  bool as_task = false;
  // A 2026-07-28 client's call: whether its request's capabilities include
  // elicitation (an ask can then be a multi round-trip question), and the
  // input_required result the approver made when it asked (sealed_state.hpp).
  bool modern = false;
  bool modern_elicits = false;
  bool modern_tasks = false;  // it declared the tasks extension
  std::optional<boost::json::object> input_required;
  bool round_trip_used = false;  // the call's one question was asked or answered
  // The approval question (its hash) the client answered "allow" to in
  // this run: a server's questions asked after it carry it in their
  // sealed state, so the retry that answers them is not asked again.
  std::string approved_question;
  // The tool body's failure when it passed the server's questions on as
  // input_required (gateway.cpp, relay_questions): that result is the
  // questions, unless a hook made it something else.
  std::string input_message;
  // The questions' pipeline calls begun for it (Host::begin_call), closed
  // when the questions do not reach the client after all; and which round
  // of questions the call's retry answers (they are bounded).
  std::vector<std::string> open_questions;
  int question_round = 0;
  std::optional<std::int64_t> task_ttl;
  std::string task_id;

  // Fires the signal and wakes every wait of this call at once.
  void cancel() {
    signal->cancel();
    waiting.poke_all();
  }
};

class ClientCalls {
 public:
  // false when a call with the same client id is still running.
  bool add(const std::shared_ptr<ClientCall>& call);
  // The call ended: it leaves the table.
  void finish(const ClientCall& call);
  // The call the client (or, with from_server, the server) knows as `id`.
  std::shared_ptr<ClientCall> by_client_id(const boost::json::value& id, bool from_server = false);
  std::shared_ptr<ClientCall> by_call_id(const std::string& call_id);

  void cancel_all();
  // Whether every call has ended within `timeout`.
  bool wait_drained(std::chrono::milliseconds timeout);
  // How many calls are still running, and the first `most` of them as
  // `tool "T" (call C)`, comma-separated.
  std::pair<std::size_t, std::string> still_running(std::size_t most);

 private:
  std::mutex mutex_;
  std::condition_variable drained_;
  std::unordered_map<std::string, std::shared_ptr<ClientCall>> by_client_id_;  // id_key
  std::unordered_map<std::string, std::shared_ptr<ClientCall>> by_call_id_;
};

}  // namespace toolgate::mcp
