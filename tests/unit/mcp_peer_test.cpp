// Peer: the relay between two MCP peers over pipes, the same code in both
// directions -- fresh ids mapped back, cancellations rewritten, request
// methods sent as notifications dropped, unusable answers still ending
// their request, and the gateway's own requests (request_and_wait).
#include "test_support.hpp"

#include "peer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

using namespace tgtest;
using namespace toolgate::mcp;

namespace {

constexpr std::size_t kMaxBytes = 4096;

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int f[2];
    if (::pipe2(f, O_CLOEXEC) == 0) r = f[0], w = f[1];
  }
  ~Pipe() {
    for (int fd : {r, w})
      if (fd >= 0) ::close(fd);
  }
};

void put(int fd, const json::object& message) {
  std::string line = json::serialize(message) + "\n";
  ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
}

// The next line written to `fd`, parsed; an empty object after 5 s.
json::object get(int fd) {
  std::string line;
  char c;
  while (true) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1 || ::read(fd, &c, 1) != 1) {
      ADD_FAILURE() << "no message arrived; got so far: " << line;
      return {};
    }
    if (c == '\n') return json::parse(line).as_object();
    line += c;
  }
}

// Two peers relaying to each other; the test plays both far ends.  The
// handler takes nothing, so everything goes through the relay.
struct Rig : PeerHandler {
  Pipe a_in, a_out, b_in, b_out;  // *_in: the test writes what the peer reads
  Peer a{"peer A", a_in.r, a_out.w, kMaxBytes, std::chrono::milliseconds(5)};
  Peer b{"peer B", b_in.r, b_out.w, kMaxBytes, std::chrono::milliseconds(5)};
  std::thread ta, tb;
  std::atomic<bool> a_ended{false};  // peer A's read_loop has returned
  std::mutex mutex;
  std::vector<std::string> results;

  // With `readers`, the peers read on its threads (Peer::pass_reading).
  explicit Rig(WorkerPool* readers = nullptr) : readers(readers) {
    a.connect(b, *this);
    b.connect(a, *this);
    ta = std::thread([this, readers] {
      a.read_loop(readers);
      a_ended = true;
    });
    tb = std::thread([this, readers] { b.read_loop(readers); });
  }
  ~Rig() override {
    a.wake();
    b.wake();
    // A former reader may still be returning from its handler: joined
    // before the peers go.
    if (readers) readers->shutdown();
    ta.join();
    tb.join();
  }
  WorkerPool* readers;
  // Set before any message is sent: what the gateway would take itself.
  std::function<bool(Peer&, Message&)> on_request;
  bool take_request(Peer& from, Message& m, json::object&) override {
    return on_request && on_request(from, m);
  }
  bool take_notification(Peer&, Message&) override { return false; }
  std::optional<json::object> saw_result(Peer& from, const PendingRequest& p,
                                         const json::object&) override {
    std::lock_guard lock(mutex);
    results.push_back(from.name() + " answered " + p.method);
    return std::nullopt;
  }
  void write_failed(Peer&) override {}
  bool keep_reading(const Peer&) override { return true; }
};

json::object request(json::value id, std::string_view method) {
  return make_request(std::move(id), method, {});
}

}  // namespace

TEST(McpPeer, RelaysRequestsAndAnswersBothWaysWithFreshIds) {
  Rig rig;
  struct Side {
    int in, out;
  };
  const std::vector<std::pair<Side, Side>> directions{
      {{rig.a_in.w, rig.a_out.r}, {rig.b_in.w, rig.b_out.r}},
      {{rig.b_in.w, rig.b_out.r}, {rig.a_in.w, rig.a_out.r}}};
  for (const auto& [from, to] : directions) {
    put(from.in, request(7, "ping"));  // both ends use id 7
    auto relayed = get(to.out);
    EXPECT_EQ(relayed.at("method"), "ping");
    EXPECT_NE(relayed.at("id"), json::value(7));
    put(to.in, make_result(relayed.at("id"), json::object{{"pong", true}}));
    auto answer = get(from.out);
    EXPECT_EQ(answer.at("id"), json::value(7));
    EXPECT_EQ(answer.at("result").at("pong"), true);
  }
  EXPECT_EQ(rig.results,
            (std::vector<std::string>{"peer B answered ping", "peer A answered ping"}));
}

TEST(McpPeer, CancellationsAreRewrittenAndRequestMethodsWithoutIdAreDropped) {
  Rig rig;
  put(rig.a_in.w, request("r1", "slow"));
  auto relayed = get(rig.b_out.r);
  // A request method without an id never reaches the other side, either way.
  put(rig.a_in.w, make_notification("tools/call", {{"name", "x"}}));
  put(rig.a_in.w, make_notification("notifications/cancelled", {{"requestId", "r1"}}));
  auto cancelled = get(rig.b_out.r);
  EXPECT_EQ(cancelled.at("method"), "notifications/cancelled");
  EXPECT_EQ(cancelled.at("params").at("requestId"), relayed.at("id"));
  // B's late answer to the cancelled request goes nowhere; so does its own
  // request method without an id; a real notification passes unchanged.
  put(rig.b_in.w, make_result(relayed.at("id"), json::object{}));
  put(rig.b_in.w, make_notification("sampling/createMessage", {}));
  put(rig.b_in.w, make_notification("notifications/progress", {{"progress", 1}}));
  auto next = get(rig.a_out.r);
  EXPECT_EQ(next.at("method"), "notifications/progress");
  EXPECT_EQ(next.at("params").at("progress"), 1);
}

TEST(McpPeer, AnIdStillPendingIsRefusedAndAGonePeerIsNamed) {
  Rig rig;
  put(rig.a_in.w, request(5, "x"));
  get(rig.b_out.r);
  put(rig.a_in.w, request(5, "y"));
  auto refused = get(rig.a_out.r);
  EXPECT_EQ(refused.at("id"), json::value(5));
  EXPECT_EQ(refused.at("error").at("code"), rpc_error::invalid_request);
  EXPECT_EQ(refused.at("error").at("message"), json::value(id_in_use_text(json::value(5))));

  rig.b.set_gone("peer B exited with status 3");
  put(rig.a_in.w, request(6, "z"));
  auto gone = get(rig.a_out.r);
  EXPECT_EQ(gone.at("error").at("code"), rpc_error::internal_error);
  EXPECT_EQ(gone.at("error").at("message"), "peer B exited with status 3");
  EXPECT_EQ(rig.b.request_and_wait("ping", {}, *Signal::make()).end, Answer::End::unsent);
}

TEST(McpPeer, AnAnswerOverTheLimitStillEndsItsRequest) {
  Rig rig;
  put(rig.a_in.w, request("big", "tools/list"));
  auto relayed = get(rig.b_out.r);
  put(rig.b_in.w,
      make_result(relayed.at("id"), json::object{{"pad", std::string(kMaxBytes, 'x')}}));
  auto told = get(rig.b_out.r);  // B hears that its line was too large
  EXPECT_EQ(told.at("error").at("code"), rpc_error::parse_error);
  auto failed = get(rig.a_out.r);
  EXPECT_EQ(failed.at("id"), json::value("big"));
  EXPECT_EQ(failed.at("error").at("code"), rpc_error::internal_error);
  const std::string why(failed.at("error").at("message").as_string());
  EXPECT_EQ(why.rfind("peer B's answer was ", 0), 0u) << why;
  EXPECT_NE(why.find(" bytes or more, over the 4096-byte limit"), std::string::npos) << why;
}

// An answer the strict parser refuses (here: a repeated key) must still end
// the request it answers, or the client waits for ever: the relay reads the
// answer's id from the text it could not parse.
TEST(McpPeer, AnAnswerThatIsNotValidStillEndsItsRequest) {
  Rig rig;
  put(rig.a_in.w, request("dup", "tools/list"));
  auto relayed = get(rig.b_out.r);
  const std::string line = R"({"jsonrpc":"2.0","id":)" + json::serialize(relayed.at("id")) +
                           R"(,"result":{"tools":[],"tools":[{"name":"x"}]}})" + "\n";
  ASSERT_EQ(::write(rig.b_in.w, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  auto failed = get(rig.a_out.r);
  EXPECT_EQ(failed.at("id"), json::value("dup"));
  EXPECT_EQ(failed.at("error").at("code"), rpc_error::internal_error);
  const std::string why(failed.at("error").at("message").as_string());
  EXPECT_EQ(why.rfind("peer B's answer is not valid: ", 0), 0u) << why;
  EXPECT_NE(why.find("duplicate key \"tools\""), std::string::npos) << why;
}

TEST(McpPeer, RequestAndWaitAnswersOrTellsThePeerWhenTheSignalFires) {
  Rig rig;
  Answer answered;
  std::thread asker(
      [&] { answered = rig.a.request_and_wait("elicitation/create", {}, *Signal::make()); });
  auto req = get(rig.a_out.r);
  EXPECT_EQ(req.at("method"), "elicitation/create");
  put(rig.a_in.w, make_result(req.at("id"), json::object{{"action", "accept"}}));
  asker.join();
  ASSERT_EQ(answered.end, Answer::End::answered);
  EXPECT_EQ(answered.response().at("result").at("action"), "accept");

  auto signal = Signal::make();
  SlotWaker waker;
  Answer cancelled;
  std::thread waiter(
      [&] { cancelled = rig.a.request_and_wait("tools/call", {}, *signal, &waker); });
  auto call = get(rig.a_out.r);
  signal->cancel();
  waker.poke_all();
  waiter.join();
  EXPECT_EQ(cancelled.end, Answer::End::signalled);
  auto note = get(rig.a_out.r);
  EXPECT_EQ(note.at("method"), "notifications/cancelled");
  EXPECT_EQ(note.at("params").at("requestId"), call.at("id"));
  EXPECT_EQ(note.at("params").at("reason"), "the call was cancelled");
}

TEST(McpPeer, FailPendingEndsOwnAndRelayedRequests) {
  Rig rig;
  put(rig.a_in.w, request(3, "tools/list"));
  get(rig.b_out.r);
  Answer failed;
  std::thread waiter([&] { failed = rig.b.request_and_wait("ping", {}, *Signal::make()); });
  get(rig.b_out.r);  // the ping
  rig.b.fail_pending("peer B exited");
  waiter.join();
  EXPECT_EQ(failed.end, Answer::End::failed);
  EXPECT_EQ(failed.failure(), "peer B exited");
  auto relayed = get(rig.a_out.r);
  EXPECT_EQ(relayed.at("id"), json::value(3));
  EXPECT_EQ(relayed.at("error").at("message"), "peer B exited");
}

// The same without a waiting thread: the answer, a cancellation or the
// peer's end calls back once, on the thread that brings it.
struct AsyncAnswers {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<Answer> answers;
  std::vector<std::thread::id> threads;
  std::function<void(Answer)> sink() {
    return [this](Answer a) {
      std::lock_guard lock(mutex);
      answers.push_back(std::move(a));
      threads.push_back(std::this_thread::get_id());
      cv.notify_all();
    };
  }
  std::size_t size_now() {
    std::lock_guard lock(mutex);
    return answers.size();
  }
  bool wait_for(std::size_t n) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(5), [&] { return answers.size() >= n; });
  }
};

TEST(McpPeer, RequestAsyncAnswersOnTheReaderThreadWithNobodyWaiting) {
  Rig rig;
  AsyncAnswers got;
  rig.a.request_text_async("tools/call", "{\"name\":\"t\"}", Signal::make(), nullptr, got.sink());
  auto req = get(rig.a_out.r);
  EXPECT_EQ(req.at("params").at("name"), "t");
  EXPECT_EQ(got.size_now(), 0u);  // returned before any answer
  put(rig.a_in.w, make_result(req.at("id"), json::object{{"ok", true}}));
  ASSERT_TRUE(got.wait_for(1));
  EXPECT_EQ(got.answers[0].end, Answer::End::answered);
  EXPECT_EQ(got.answers[0].response().at("result").at("ok"), true);
  EXPECT_EQ(got.threads[0], rig.ta.get_id());  // the thread that read it
}

TEST(McpPeer, RequestAsyncEndsOnceWhenCancelledAndALateAnswerIsDropped) {
  Rig rig;
  AsyncAnswers got;
  auto signal = Signal::make();
  SlotWaker waker;
  rig.a.request_text_async("tools/call", "{}", signal, &waker, got.sink());
  auto call = get(rig.a_out.r);
  signal->cancel();
  waker.poke_all();
  ASSERT_TRUE(got.wait_for(1));
  EXPECT_EQ(got.answers[0].end, Answer::End::signalled);
  auto note = get(rig.a_out.r);
  EXPECT_EQ(note.at("method"), "notifications/cancelled");
  EXPECT_EQ(note.at("params").at("requestId"), call.at("id"));
  // The answer that comes anyway, and another poke, change nothing.
  put(rig.a_in.w, make_result(call.at("id"), json::object{}));
  waker.poke_all();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(got.size_now(), 1u);
}

TEST(McpPeer, RequestAsyncFailsWhenThePeerGoes) {
  Rig rig;
  AsyncAnswers got;
  rig.b.request_text_async("ping", "{}", Signal::make(), nullptr, got.sink());
  get(rig.b_out.r);
  rig.b.fail_pending("peer B exited");
  ASSERT_TRUE(got.wait_for(1));
  EXPECT_EQ(got.answers[0].end, Answer::End::failed);
  EXPECT_EQ(got.answers[0].failure(), "peer B exited");
}

// Leader/follower (Peer::pass_reading): a handler that keeps long work on
// the thread that read its message hands the reading on first, so the
// messages after it are read and relayed while the work goes on; the
// reading ends, and read_loop returns, only at the end of the stream.
TEST(McpPeer, AHandlerThatPassesTheReadingOnDoesNotHoldUpLaterMessages) {
  std::mutex m;  // before the rig: its handlers use them until it is gone
  std::condition_variable cv;
  WorkerPool successors(8);  // outlives the rig's reading threads
  Rig rig(&successors);
  bool released = false;
  std::thread::id held_on;
  std::atomic<int> passes{0};
  std::atomic<int> entered{0};
  rig.on_request = [&](Peer& from, Message& msg) {
    if (msg.method() != "hold") return false;
    held_on = std::this_thread::get_id();
    if (from.pass_reading(successors)) ++passes;
    ++entered;
    // Long work: until the test lets it go.
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return released; });
    from.send(make_result(msg.id(), json::object{{"held", true}}));
    return true;
  };
  put(rig.a_in.w, request(1, "hold"));
  // Sent once "hold" is being handled: a message already waiting keeps
  // the reading where it is (TheReadingIsNotPassedOnWhileTheNextMessageIsWaiting).
  for (int i = 0; i < 5000 && entered == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  put(rig.a_in.w, request(2, "ping"));
  // Relayed while "hold" is still held (without the pass, peer A's only
  // reader would be stuck in the handler and this would time out).
  auto ping = get(rig.b_out.r);
  EXPECT_EQ(ping.at("method"), "ping");
  put(rig.b_in.w, make_result(ping.at("id"), json::object{}));
  EXPECT_EQ(get(rig.a_out.r).at("id"), json::value(2));
  EXPECT_EQ(passes, 1);
  EXPECT_NE(held_on, std::thread::id());
  EXPECT_NE(held_on, rig.ta.get_id());  // read_loop's caller only waits
  // Only the thread reading may pass it on.
  EXPECT_FALSE(rig.a.pass_reading(successors));
  {
    std::lock_guard lock(m);
    released = true;
  }
  cv.notify_all();
  auto held = get(rig.a_out.r);
  EXPECT_EQ(held.at("id"), json::value(1));
  EXPECT_EQ(held.at("result").at("held"), true);
  // The reading went on after the held work ended, and passes again.
  put(rig.a_in.w, request(3, "hold"));
  EXPECT_EQ(get(rig.a_out.r).at("id"), json::value(3));
  EXPECT_EQ(passes, 2);
}

// The thread that called read_loop without readers reads itself and must
// come back to its caller: it never passes the reading on.
TEST(McpPeer, ReadLoopsOwnThreadNeverPassesTheReadingOn) {
  WorkerPool successors(8);
  Rig rig;
  std::atomic<int> refused{0};
  rig.on_request = [&](Peer& from, Message& msg) {
    if (!from.pass_reading(successors)) ++refused;
    from.send(make_result(msg.id(), json::object{}));
    return true;
  };
  put(rig.a_in.w, request(1, "hold"));
  EXPECT_EQ(get(rig.a_out.r).at("id"), json::value(1));
  EXPECT_EQ(refused, 1);
}

// A handler that throws on a reading thread of the pool ends the reading,
// as the end of the stream would: read_loop's caller goes on instead of
// waiting for a reader that no longer exists.
TEST(McpPeer, AnErrorOnAReadingThreadEndsTheReadingInsteadOfHangingIt) {
  WorkerPool successors(8);
  Rig rig(&successors);
  rig.on_request = [](Peer&, Message&) -> bool { throw std::runtime_error("a handler broke"); };
  put(rig.a_in.w, request(1, "boom"));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!rig.a_ended && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(rig.a_ended);
}

// Under load the reading stays where it is: a message whose next one has
// already arrived is not handled where it was read (its work would go to
// a worker), so the next one is read at once instead of after a
// successor wakes; the last one of a burst is.
TEST(McpPeer, TheReadingIsNotPassedOnWhileTheNextMessageIsWaiting) {
  WorkerPool successors(8);
  Rig rig(&successors);
  std::mutex m;
  std::vector<int> passed;  // by request id: 1 passed, 0 refused
  rig.on_request = [&](Peer& from, Message& msg) {
    const bool p = from.pass_reading(successors);
    {
      std::lock_guard lock(m);
      passed.push_back(p ? 1 : 0);
    }
    from.send(make_result(msg.id(), json::object{}));
    return true;
  };
  // Both lines in one write: read together.
  std::string burst =
      json::serialize(request(1, "a")) + "\n" + json::serialize(request(2, "b")) + "\n";
  ASSERT_EQ(::write(rig.a_in.w, burst.data(), burst.size()), static_cast<ssize_t>(burst.size()));
  get(rig.a_out.r);
  get(rig.a_out.r);
  std::lock_guard lock(m);
  EXPECT_EQ(passed, (std::vector<int>{0, 1}));
}
