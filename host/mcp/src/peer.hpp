// peer.hpp -- one side of the gateway: an MCP peer on a pair of descriptors.
//
// The gateway has two peers, the client (our stdin/stdout) and the server
// (a child process), and relays between them the same way in both
// directions: a Peer reads its messages, answers what it cannot read, gives
// every request it sends a fresh id (its IdMap) and maps the answer back.
// What the gateway does *itself* with a message -- a client's tools/call
// runs the pipeline, a server's tools/list result registers tools -- it
// decides in a PeerHandler, asked before anything is relayed.
#pragma once

#include "deadline_timer.hpp"
#include "framing.hpp"
#include "id_map.hpp"
#include "jsonrpc.hpp"
#include "request_envelope.hpp"
#include "worker_pool.hpp"

#include <toolgate/signal.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace toolgate::mcp {

class Peer;

// What the gateway does with a peer's messages before (or instead of)
// relaying them to the other peer.  Called on the peer's reader thread,
// except write_failed (any thread that sends).
class PeerHandler {
 public:
  virtual ~PeerHandler() = default;
  // A request from `from`.  true: the gateway answered it (or will) itself;
  // false: it is relayed, and `note` travels with it to its answer.
  virtual bool take_request(Peer& from, Message& m, boost::json::object& note) = 0;
  // A notification (notifications/*) from `from`; true: consumed here.
  virtual bool take_notification(Peer& from, Message& m) = 0;
  // `from` answered a relayed request with a result object, which goes on
  // to the other peer after this -- as it came, or, when this returns one,
  // replaced by another result (written from values).
  virtual std::optional<boost::json::object> saw_result(Peer& from, const PendingRequest& request,
                                                        const boost::json::object& result) = 0;
  // Members to add to a relayed result from `from` (the gateway translating
  // between protocol eras: "resultType" for a 2026-07-28 client).  Keys the
  // result already has are left alone; the rest go in at its front, by a
  // text edit when the result is relayed as text.
  virtual boost::json::object result_members(Peer& from, const PendingRequest& request) {
    (void)from;
    (void)request;
    return {};
  }
  // Members whose values replace the relayed result's own (a cache policy
  // the gateway must decide, whatever the server said).
  virtual boost::json::object result_overrides(Peer& from, const PendingRequest& request) {
    (void)from;
    (void)request;
    return {};
  }
  // The first write to `to` failed (its end is closed).
  virtual void write_failed(Peer& to) = 0;
  // Checked after each message from `from`: false ends its read loop.
  virtual bool keep_reading(const Peer& from) = 0;
};

// Slots to wake when a signal they are waited on with fires: Signal has no
// callbacks, so whoever fires it pokes the slots registered here.
class SlotWaker {
 public:
  void add(const std::shared_ptr<ResponseSlot>& slot);
  void remove(const std::shared_ptr<ResponseSlot>& slot);
  void poke_all();

 private:
  std::mutex mutex_;
  std::vector<std::shared_ptr<ResponseSlot>> slots_;
};

// Why the gateway gave up on a request it sent for a call whose signal
// fired: "the call's deadline passed" or "the call was cancelled".
std::string cancel_reason(const Signal& signal);

// How one of the gateway's own requests ended (Peer::request_and_wait).
// The `data` key of an error response the gateway made up for an answer it
// could not use (over the size limit, not valid): it is not the peer's.
inline constexpr std::string_view unusable_answer_mark = "toolgate/unusable_answer";

struct Answer {
  enum class End {
    answered,   // response(): the peer's JSON-RPC response (a result or an error)
    failed,     // failure(): no answer will come (the peer is gone)
    signalled,  // the signal fired first; the peer was told (notifications/cancelled)
    unsent,     // the peer is gone or cannot be written to; nothing was sent
  } end = End::unsent;
  std::shared_ptr<ResponseSlot> slot;

  const boost::json::object& response() const { return *slot->response(); }
  const std::string& failure() const { return slot->failure(); }
};

class Peer {
 public:
  // `name` is how logs and errors call it ("the client", "the MCP
  // server").  Reads from `in_fd`, writes to `out_fd`; owns neither.
  Peer(std::string name, int in_fd, int out_fd, std::size_t max_message_bytes,
       std::chrono::milliseconds signal_check);
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;

  // Relays to `other`; `handler` sees every message first.  Before use.
  void connect(Peer& other, PeerHandler& handler);
  // A peer that speaks MCP 2026-07-28 (before use): every request sent to
  // it -- relayed or the gateway's own -- carries `envelope` in
  // params._meta (request_envelope.hpp), and a result it sends is usable
  // only when complete -- or, for a tools/call, when it asks for input
  // (input_requests.hpp: the gateway's tool body takes the questions): a
  // result that hands out a task (which the gateway never declared it
  // could take), or asks on any other request, ends its request with an
  // error instead of reaching anyone.
  void speak_modern(RequestEnvelope envelope);

  const std::string& name() const { return name_; }
  IdMap& ids() { return ids_; }  // the requests sent to this peer

  // Reads and handles messages until end of stream, wake(), or the
  // handler's keep_reading() says stop, and returns once the reading has
  // ended.  With `readers`, the reading runs on a thread of it (and may
  // move to others: pass_reading) while this one only waits; otherwise,
  // or when no thread can start, on this thread, which then never passes
  // it on -- it must come back to its caller, whatever a handler does.
  void read_loop(WorkerPool* readers = nullptr);
  // Leader/follower, for a handler about to do long work (plugin code) on
  // a message this thread read: the reading goes on on a thread of
  // `successors`, started now, and this thread keeps the work, the
  // message's data still in its caches.  Handing the work to a waiting
  // thread instead costs a wake-up before it starts, which on a small VM
  // costs more than the work (docs/design.md §3.2).  false, and nothing
  // changed, when this thread is not the one reading, when the next
  // message is already waiting (under load the reading stays here), or
  // when no thread can start now.  After true, this thread reads no more (it returns from
  // the handler as usual).
  bool pass_reading(WorkerPool& successors);
  void wake() { reader_.wake(); }
  // At shutdown: no request is poked at its deadline any more (the
  // gateway's state such a poke would reach is going away).
  void stop_deadlines() { deadlines_.stop(); }

  bool send(const boost::json::object& message);
  bool send_text(const std::string& text);
  void reply_error(const boost::json::value& id, std::int64_t code, std::string_view message);

  // Sends one of the gateway's own requests and waits for its answer,
  // re-checking `signal` at least every signal_check (and at its
  // deadline); a slot registered in `waker` is woken at once.  When the
  // signal fires first, a late answer is dropped and the peer is told with
  // notifications/cancelled.
  Answer request_and_wait(std::string_view method, const boost::json::object& params,
                          const Signal& signal, SlotWaker* waker = nullptr);
  // The same with params that are already JSON text (a client's own,
  // relayed byte for byte: raw_json.hpp).
  // `envelope`, when given, is this request's instead of the peer's.
  // `grace`: after the signal fires, an answer is still awaited that long
  // (for one that names something to undo, such as a task the server
  // created; the caller sees it answered and undoes it).
  Answer request_text_and_wait(std::string_view method, std::string_view params_text,
                               const Signal& signal, SlotWaker* waker = nullptr,
                               const RequestEnvelope* envelope = nullptr,
                               std::chrono::milliseconds grace = {});
  // The same without a waiting thread: `on_end` gets the answer once, on
  // the thread that ends the request -- this peer's reader (the answer, or
  // its end of stream), the thread that fires the signal and pokes
  // `waker`, this peer's deadline timer (the signal's deadline passed), or
  // this one (unsent).  `waker` must
  // outlive the request (on_end may hold what owns it).  Returns the id the
  // request was sent with (0 when it was not sent).
  std::int64_t request_text_async(std::string_view method, std::string_view params_text,
                                  std::shared_ptr<const Signal> signal, SlotWaker* waker,
                                  std::function<void(Answer)> on_end,
                                  const RequestEnvelope* envelope = nullptr);

  // Gone: nothing more can be asked of this peer (request_and_wait is
  // unsent, requests relayed to it are answered with `why`).  The first
  // call returns true and sets the reason.
  bool set_gone(std::string why);
  bool gone() const { return gone_; }
  std::string gone_reason() const;
  // Why a message could not be written: the reason it is gone, else that
  // its end is closed.
  std::string unwritable() const;
  // Every pending request fails with `why`: the gateway's own see it in
  // their slot, relayed ones are answered with an error to their sender.
  void fail_pending(const std::string& why);
  // Every later send fails at once, without waiting for a write in
  // progress (the peer has exited).
  void stop_writing() { writes_stopped_ = true; }
  // Every later send fails; returns once no write is in progress, so the
  // descriptor can then be closed.
  void shut_output() { writer_.shut(); }

 private:
  // Reads until end of stream (then ends the reading: read_loop returns)
  // or until this thread passes the reading on.
  void read_frames();
  void on_frame(Frame& f);
  void on_request(Message& m);
  void on_notification(Message& m);
  void on_response(Message& m);
  void add_result_members(Message& m, const boost::json::object& members,
                          const boost::json::object& overrides);
  // A request to this peer, in the envelope it needs.
  bool send_request_text(std::string text, const RequestEnvelope* envelope = nullptr);
  // speak_modern: why a response's result cannot be used, or "".
  // `own`: a request of the gateway's (whose caller takes questions).
  std::string incomplete_result(const Message& m, std::string_view method, bool own) const;
  // An answer over the size limit or that does not parse still ends the
  // request it answers (found by EnvelopeScanner): its originator gets a
  // JSON-RPC error now instead of waiting for its deadline.
  void fail_unusable_answer(const boost::json::value& id, const std::string& why);
  // Relays `m` to the other peer with the member at `path` set to `value`
  // (its id, a cancellation's requestId): the message's own text with that
  // member edited, or, when its text does not hold the member as a plain
  // key, the parsed message written again.
  bool relay_edited(Message& m, std::initializer_list<std::string_view> path,
                    const boost::json::value& value);
  // The text relay_edited sends.
  static std::string edited_text(Message& m, std::initializer_list<std::string_view> path,
                                 const boost::json::value& value);

  std::string name_;
  std::size_t max_message_bytes_;
  std::chrono::milliseconds signal_check_;
  LineReader reader_;  // used by the one thread reading (reading_thread_)
  std::atomic<std::thread::id> reading_thread_{};
  std::atomic<std::thread::id> loop_thread_{};  // read_loop's caller, reading itself
  std::mutex reading_mutex_;
  std::condition_variable reading_ended_cv_;
  bool reading_ended_ = false;
  LineWriter writer_;
  IdMap ids_;
  Peer* other_ = nullptr;
  PeerHandler* handler_ = nullptr;
  RequestEnvelope envelope_;
  bool modern_ = false;
  std::atomic<bool> gone_{false};
  std::atomic<bool> write_failed_{false};
  std::atomic<bool> writes_stopped_{false};
  mutable std::mutex mutex_;
  std::string gone_reason_;
  // Last: destroyed first, so nothing is poked into a peer being destroyed.
  DeadlineTimer deadlines_;
};

}  // namespace toolgate::mcp
