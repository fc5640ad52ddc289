#include "peer.hpp"

#include "envelope_scanner.hpp"
#include "raw_json.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>
#include <system_error>
#include <toolgate/json.hpp>

namespace toolgate::mcp {

namespace json = boost::json;

std::string cancel_reason(const Signal& signal) {
  return signal.state() == SignalState::timed_out ? "the call's deadline passed"
                                                  : "the call was cancelled";
}

// ---- SlotWaker ---------------------------------------------------------------------------

void SlotWaker::add(const std::shared_ptr<ResponseSlot>& slot) {
  std::lock_guard lock(mutex_);
  slots_.push_back(slot);
}

void SlotWaker::remove(const std::shared_ptr<ResponseSlot>& slot) {
  std::lock_guard lock(mutex_);
  std::erase(slots_, slot);
}

void SlotWaker::poke_all() {
  // Poked outside the lock: a poke may end a request, which removes its
  // slot from here (Peer::request_text_async).
  std::vector<std::shared_ptr<ResponseSlot>> slots;
  {
    std::lock_guard lock(mutex_);
    slots = slots_;
  }
  for (auto& s : slots) s->poke();
}

// ---- Peer: state and writing --------------------------------------------------------------

Peer::Peer(std::string name, int in_fd, int out_fd, std::size_t max_message_bytes,
           std::chrono::milliseconds signal_check)
    : name_(std::move(name)),
      max_message_bytes_(max_message_bytes),
      signal_check_(signal_check),
      reader_(in_fd, max_message_bytes),
      writer_(out_fd) {}

void Peer::connect(Peer& other, PeerHandler& handler) {
  other_ = &other;
  handler_ = &handler;
}

void Peer::speak_modern(RequestEnvelope envelope) {
  envelope_ = std::move(envelope);
  modern_ = true;
}

bool Peer::send(const json::object& message) { return send_text(to_json_text(message)); }

bool Peer::send_request_text(std::string text, const RequestEnvelope* envelope) {
  return send_text(modern_ ? with_envelope(text, envelope ? *envelope : envelope_) : text);
}

bool Peer::send_text(const std::string& text) {
  if (writes_stopped_) return false;
  if (writer_.write(text)) return true;
  if (!write_failed_.exchange(true)) handler_->write_failed(*this);
  return false;
}

std::string Peer::edited_text(Message& m, std::initializer_list<std::string_view> path,
                              const json::value& value) {
  if (!m.text.empty())
    if (auto span = find_path(m.text, path))
      return replace_span(m.text, span->value, to_json_text(value));
  json::object* at = &m.body;
  for (auto it = path.begin(); it + 1 != path.end(); ++it) at = &(*at)[*it].as_object();
  (*at)[*(path.end() - 1)] = value;
  return to_json_text(m.body);
}

bool Peer::relay_edited(Message& m, std::initializer_list<std::string_view> path,
                        const json::value& value) {
  return other_->send_text(edited_text(m, path, value));
}

void Peer::reply_error(const json::value& id, std::int64_t code, std::string_view message) {
  send(make_error(id, code, message));
}

bool Peer::set_gone(std::string why) {
  std::lock_guard lock(mutex_);
  if (gone_) return false;
  gone_reason_ = std::move(why);
  gone_ = true;
  return true;
}

std::string Peer::gone_reason() const {
  std::lock_guard lock(mutex_);
  return gone_reason_;
}

std::string Peer::unwritable() const { return gone_ ? gone_reason() : "cannot write to " + name_; }

void Peer::fail_pending(const std::string& why) {
  for (auto& p : ids_.take_all()) {
    if (p.kind == PendingRequest::Kind::own)
      p.slot->fail(why);
    else
      other_->reply_error(p.peer_id, rpc_error::internal_error, why);
  }
}

// ---- the gateway's own requests ------------------------------------------------------------

Answer Peer::request_and_wait(std::string_view method, const json::object& params,
                              const Signal& signal, SlotWaker* waker) {
  return request_text_and_wait(method, to_json_text(params), signal, waker);
}

Answer Peer::request_text_and_wait(std::string_view method, std::string_view params_text,
                                   const Signal& signal, SlotWaker* waker,
                                   const RequestEnvelope* envelope,
                                   std::chrono::milliseconds grace) {
  Answer a;
  if (gone_) return a;
  a.slot = std::make_shared<ResponseSlot>();
  const auto id = ids_.add_own(std::string(method), a.slot);
  if (waker) waker->add(a.slot);
  struct Unregister {
    SlotWaker* waker;
    std::shared_ptr<ResponseSlot> slot;
    ~Unregister() {
      if (waker) waker->remove(slot);
    }
  } unregister{waker, a.slot};
  if (!send_request_text(request_text(id, method, params_text), envelope)) {
    ids_.erase(id);
    return a;
  }
  std::optional<Signal::Clock::time_point> grace_until;
  while (true) {
    if (a.slot->done()) {
      a.end = a.slot->response() ? Answer::End::answered : Answer::End::failed;
      return a;
    }
    if (signal.fired()) {
      // An answer that names something to undo (a task the server made)
      // is still taken for `grace` after the signal fired.
      const auto now = Signal::Clock::now();
      if (!grace_until) grace_until = now + grace;
      if (now >= *grace_until) break;
      a.slot->wait_until(*grace_until);
      continue;
    }
    auto until = Signal::Clock::now() + signal_check_;
    if (auto d = signal.deadline(); d && *d < until) until = *d;
    a.slot->wait_until(until);
  }
  ids_.erase(id);  // a late answer is dropped
  send(make_notification("notifications/cancelled",
                         {{"requestId", id}, {"reason", cancel_reason(signal)}}));
  a.end = Answer::End::signalled;
  return a;
}

std::int64_t Peer::request_text_async(std::string_view method, std::string_view params_text,
                                      std::shared_ptr<const Signal> signal, SlotWaker* waker,
                                      std::function<void(Answer)> on_end,
                                      const RequestEnvelope* envelope) {
  Answer a;
  if (gone_) {
    on_end(std::move(a));
    return 0;
  }
  a.slot = std::make_shared<ResponseSlot>();
  // Whoever gets here first -- the answer, the peer's end, or a poke after
  // the signal fired -- ends the request; the rest find it ended.
  struct State {
    std::atomic<bool> ended{false};
    std::int64_t id = 0;  // set before the waker can poke (the only reader)
    std::function<void(Answer)> on_end;
    bool claim() { return !ended.exchange(true); }
    // The timer's entry for the signal's deadline, set after the request is
    // sent while the answer may already be ending it: both under the lock.
    std::mutex deadline_mutex;
    std::optional<DeadlineTimer::Key> deadline;
    void forget_deadline(DeadlineTimer& timer) {
      std::lock_guard lock(deadline_mutex);
      if (deadline) timer.cancel(*deadline);
      deadline.reset();
    }
  };
  auto state = std::make_shared<State>();
  state->on_end = std::move(on_end);
  std::weak_ptr<ResponseSlot> weak_slot = a.slot;
  // Set before the slot is in the id map, where the peer's end can fail it.
  a.slot->on_change([this, state, weak_slot, signal, waker] {
    auto slot = weak_slot.lock();
    if (!slot) return;
    Answer end;
    end.slot = slot;
    if (slot->done())
      end.end = slot->response() ? Answer::End::answered : Answer::End::failed;
    else if (signal->fired())
      end.end = Answer::End::signalled;
    else
      return;  // poked for nothing
    if (!state->claim()) return;
    if (waker) waker->remove(slot);
    state->forget_deadline(deadlines_);
    if (end.end == Answer::End::signalled) {
      ids_.erase(state->id);  // a late answer is dropped
      send(make_notification("notifications/cancelled",
                             {{"requestId", state->id}, {"reason", cancel_reason(*signal)}}));
    }
    auto f = std::move(state->on_end);
    f(std::move(end));
  });
  state->id = ids_.add_own(std::string(method), a.slot);
  if (!send_request_text(request_text(state->id, method, params_text), envelope)) {
    ids_.erase(state->id);
    if (!state->claim()) return 0;
    auto f = std::move(state->on_end);
    f(std::move(a));  // unsent
    return 0;
  }
  // What ends the request early -- the waker (a client's cancellation) and
  // the timer (the deadline) -- is registered after it is sent: either
  // sends notifications/cancelled, which must follow the request.
  if (waker) {
    waker->add(a.slot);
    if (state->ended) waker->remove(a.slot);  // answered already
  }
  if (auto d = signal->deadline()) {
    try {
      const auto key = deadlines_.at(*d, weak_slot);
      std::lock_guard lock(state->deadline_mutex);
      // Ended meanwhile (answered, or already past its deadline and
      // poked): the entry is not needed.
      if (state->ended)
        deadlines_.cancel(key);
      else
        state->deadline = key;
    } catch (...) {
      // Nothing can watch the deadline (the timer's thread cannot start):
      // the request ends now rather than run past it, and the peer is told.
      const std::string why = "toolgate cannot watch the call's deadline";
      if (!state->ended) {
        ids_.erase(state->id);
        send(make_notification("notifications/cancelled",
                               {{"requestId", state->id}, {"reason", why}}));
      }
      a.slot->fail(why);
    }
  }
  // The signal may have fired before the waker and the timer knew of it.
  if (signal->fired()) a.slot->poke();
  return state->id;
}

// ---- reading and relaying ------------------------------------------------------------------

void Peer::read_loop(WorkerPool* readers) {
  if (!readers || !readers->start_now([this] { read_frames(); })) {
    loop_thread_ = std::this_thread::get_id();
    read_frames();
  }
  std::unique_lock lock(reading_mutex_);
  reading_ended_cv_.wait(lock, [&] { return reading_ended_; });
}

void Peer::read_frames() {
  const auto me = std::this_thread::get_id();
  reading_thread_ = me;
  try {
    // keep_reading is asked before each message, so a successor asks it
    // too before the frames its predecessor had already read.
    while (handler_->keep_reading(*this)) {
      auto f = reader_.next();
      if (!f) break;
      on_frame(*f);
      // Passed on while the message was handled: another thread reads now.
      if (reading_thread_.load() != me) return;
    }
  } catch (const std::exception& e) {
    // Nothing is left that would read this peer: the reading ends as at
    // the end of its stream, so read_loop's caller goes on (shuts down)
    // instead of waiting for ever.
    spdlog::error("reading {} stopped: {}", name_, e.what());
    if (reading_thread_.load() != me) return;  // passed on before it threw
  } catch (...) {
    spdlog::error("reading {} stopped: an unknown error", name_);
    if (reading_thread_.load() != me) return;
  }
  reading_thread_ = std::thread::id();  // nothing left to pass on
  // Notified under the lock: read_loop's caller may go on as soon as it
  // sees the flag.  (A former reader may still be returning from its
  // handler: whoever destroys this peer joins the reading threads first.)
  std::lock_guard lock(reading_mutex_);
  reading_ended_ = true;
  reading_ended_cv_.notify_all();
}

bool Peer::pass_reading(WorkerPool& successors) {
  const auto me = std::this_thread::get_id();
  if (reading_thread_.load() != me || loop_thread_.load() == me) return false;
  // Under load the next message is already here: this thread reads it at
  // once, and the work goes to a worker, rather than every message
  // waiting for a successor to wake before it is read.
  if (reader_.more_waiting()) return false;
  // Cleared first: the successor may start (and pass it on again) before
  // start_now returns, and this thread must then see that it is not the
  // one reading.
  reading_thread_ = std::thread::id();
  if (successors.start_now([this] { read_frames(); })) return true;
  reading_thread_ = me;
  return false;
}

void Peer::on_frame(Frame& f) {
  if (f.kind == Frame::Kind::oversize) {
    spdlog::warn("{} sent a message of {} bytes or more; the limit is {}", name_, f.bytes,
                 max_message_bytes_);
    const auto sizes = std::to_string(f.bytes) + " bytes or more";
    reply_error(nullptr, rpc_error::parse_error,
                "message too large: " + sizes + ", limit " + std::to_string(max_message_bytes_));
    if (f.answer_id)
      fail_unusable_answer(*f.answer_id, name_ + "'s answer was " + sizes + ", over the " +
                                             std::to_string(max_message_bytes_) + "-byte limit");
    return;
  }
  Message m = read_message(std::move(f.text));
  switch (m.kind) {
    case Message::Kind::invalid:
      spdlog::warn("invalid message from {}: {}", name_, m.problem);
      reply_error(m.reply_id, m.error_code, m.problem);
      if (auto id = answer_id_of(m.text))
        fail_unusable_answer(*id, name_ + "'s answer is not valid: " + m.problem);
      break;
    case Message::Kind::request:
      on_request(m);
      break;
    case Message::Kind::notification:
      on_notification(m);
      break;
    case Message::Kind::response:
      on_response(m);
      break;
  }
}

void Peer::fail_unusable_answer(const json::value& id, const std::string& why) {
  spdlog::warn("{} (id {})", why, text_of(id));
  json::object response = make_error(id, rpc_error::internal_error, why);
  // Made here, not sent by the peer: never relayed as the peer's own error.
  response["error"].as_object()["data"] = json::object{{std::string(unusable_answer_mark), true}};
  Message m = classify(std::move(response));
  on_response(m);
}

void Peer::on_request(Message& m) {
  json::object note;
  if (handler_->take_request(*this, m, note)) return;
  Peer& to = *other_;
  if (to.gone()) return reply_error(m.id(), rpc_error::internal_error, to.gone_reason());
  auto id = to.ids_.add_forwarded(m.id(), std::string(m.method()), std::move(note));
  if (!id) return reply_error(m.id(), rpc_error::invalid_request, id_in_use_text(m.id()));
  json::value from_id = m.id();
  if (!to.send_request_text(edited_text(m, {"id"}, *id))) {
    to.ids_.erase(*id);
    reply_error(from_id, rpc_error::internal_error, to.unwritable());
  }
}

void Peer::on_notification(Message& m) {
  // Only notifications pass: a request method sent without an id (a
  // "tools/call" notification) would reach a peer that dispatches on the
  // method without passing the pipeline.  JSON-RPC gives a notification no
  // answer, so it is dropped and logged.
  if (!m.method().starts_with("notifications/")) {
    spdlog::warn(
        "dropping a message from {}: \"{}\" sent as a notification (no \"id\"); "
        "only notifications/* may be sent without an id",
        name_, m.method());
    return;
  }
  if (handler_->take_notification(*this, m)) return;
  if (m.method() == "notifications/cancelled") {
    // It names a request this peer sent, which the other peer knows by
    // the id we gave it.
    const auto* rid = m.params().if_contains("requestId");
    if (!rid) return;
    auto ours = other_->ids_.find_forwarded(*rid);
    if (!ours) return;  // already answered: the race the spec allows
    other_->ids_.erase(*ours);
    relay_edited(m, {"params", "requestId"}, *ours);
    return;
  }
  // Relayed as it came.
  m.text.empty() ? other_->send(m.body) : other_->send_text(m.text);
}

void Peer::add_result_members(Message& m, const json::object& members,
                              const json::object& overrides) {
  auto& result = m.body.at("result").as_object();  // at: no rehash (see on_response)
  for (const auto& kv : overrides) {
    const auto* had = result.if_contains(kv.key());
    if (!had) continue;  // added below
    if (*had == kv.value()) continue;
    if (!m.text.empty()) {
      auto span = find_path(m.text, {"result", kv.key()});
      if (span)
        m.text = replace_span(m.text, span->value, to_json_text(kv.value()));
      else
        m.text.clear();
    }
    result[kv.key()] = kv.value();
  }
  json::object all = members;
  for (const auto& kv : overrides)
    if (!result.contains(kv.key())) all[kv.key()] = kv.value();
  for (auto it = all.end(); it != all.begin();) {
    --it;  // backwards, each in front: they keep their order
    if (result.contains(it->key())) continue;
    if (!m.text.empty()) {
      if (auto span = find_path(m.text, {"result"}); span && m.text[span->value.begin] == '{')
        m.text =
            insert_first_member(m.text, span->value.begin, to_json_text(json::string(it->key())),
                                to_json_text(it->value()));
      else
        m.text.clear();
    }
    result[it->key()] = it->value();
  }
}

std::string Peer::incomplete_result(const Message& m, std::string_view method, bool own) const {
  if (!modern_) return {};
  const auto* result = m.body.if_contains("result");
  const auto* type =
      result && result->is_object() ? result->get_object().if_contains("resultType") : nullptr;
  // An absent resultType means complete (MCP 2026-07-28).
  if (!type || (type->is_string() && type->get_string() == "complete")) return {};
  // The gateway takes the questions of the requests that may ask them
  // (input_requests.hpp): its bodies of tools/call, prompts/get and
  // resources/read.
  if (type->is_string() && type->get_string() == "input_required" && own &&
      (method == "tools/call" || method == "prompts/get" || method == "resources/read"))
    return {};
  return name_ + " answered " + std::string(method) + " with a result of type " + text_of(*type) +
         ", which toolgate cannot use: a server may ask questions (input_required) only on "
         "tools/call, prompts/get and resources/read, and toolgate declares no task support, so "
         "only a complete result can be judged by the policy and relayed";
}

void Peer::on_response(Message& m) {
  auto p = ids_.take(m.id());
  if (!p) {
    // A late answer to a request that was cancelled (or never ours).
    spdlog::debug("dropping a response from {} to no pending request (id {})", name_,
                  text_of(m.id()));
    return;
  }
  if (auto why = incomplete_result(m, p->method, p->kind == PendingRequest::Kind::own);
      !why.empty()) {
    spdlog::warn("{}", why);
    json::object error = make_error(m.id(), rpc_error::internal_error, why);
    error["error"].as_object()["data"] = json::object{{std::string(unusable_answer_mark), true}};
    m = classify(std::move(error));
  }
  if (p->kind == PendingRequest::Kind::own)
    return p->slot->deliver(std::move(m.body), std::move(m.text));
  if (const auto* result = m.body.if_contains("result"); result && result->is_object()) {
    if (auto replaced = handler_->saw_result(*this, *p, result->get_object())) {
      m.body["result"] = std::move(*replaced);
      m.text.clear();  // relayed from the changed value, not the text
    }
    add_result_members(m, handler_->result_members(*this, *p),
                       handler_->result_overrides(*this, *p));
  }
  relay_edited(m, {"id"}, p->peer_id);
}

}  // namespace toolgate::mcp
