// One run of run_code (docs/design.md §17): start a runner, hand it the
// program, serve its tool calls one at a time through the pipeline, and
// turn what it returns into the run_code result.
#include "code_run.hpp"

#include "../json_util.hpp"

#include <toolgate/json.hpp>

#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>

namespace toolgate::detail {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

// The run keeps a key per refused call for as long as it runs: a digest,
// not the arguments' text, which a script can make megabytes long.
std::string call_key(std::string_view tool, const json::object& arguments) {
  std::string text(tool);
  text += '\n';
  // Two argument objects that differ only in key order are the same call.
  append_canonical_json_text(text, json::value(arguments));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr))
    throw std::runtime_error("cannot hash a sub-call's arguments");
  return std::string(reinterpret_cast<const char*>(digest), n);
}

// A refusal as the run keeps it (the refusals list at its end, "refused
// again" for a repeat): its message cut at 1 KiB.  The script got the whole
// message when the call was refused; a guard that quotes a large argument
// must not make the host hold every one until the run ends.
ErrorInfo kept(const ErrorInfo& e) {
  constexpr std::size_t limit = 1024;
  ErrorInfo k = e;
  k.denials = {};
  if (k.message.size() > limit) {
    const std::size_t cut = utf8_prefix(k.message, limit).size();
    k.message = k.message.substr(0, cut) + "... (" + std::to_string(e.message.size() - cut) +
                " more bytes)";
  }
  return k;
}

// The host's token for one run: what marks its sub-calls (and only them).
std::string new_run_token() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes for a token");
  static constexpr char hex[] = "0123456789abcdef";
  std::string t = "run-";
  for (unsigned char b : bytes) {
    t += hex[b >> 4];
    t += hex[b & 15];
  }
  return t;
}

json::object error_json(const ErrorInfo& e) {
  return {{"code", e.code}, {"message", e.message}, {"stage", e.stage}, {"source", e.source}};
}

// Ends the runner when the run must end, even while a sub-call runs on the
// run's thread: at the deadline, on cancellation, and -- when the runner
// dies by itself -- by cancelling the run's signal, so the sub-call in
// flight is told through its own.
class Watchdog {
 public:
  Watchdog(RunnerProcess& runner, std::shared_ptr<Signal> run_signal)
      : runner_(runner), signal_(std::move(run_signal)) {
    pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, runner_.pid(), 0));
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_, &one, sizeof one);
    thread_.join();
    if (pidfd_ >= 0) ::close(pidfd_);
    ::close(wake_);
  }
  bool runner_died() const { return died_.load(); }

 private:
  void watch() {
    while (true) {
      pollfd p[2] = {{wake_, POLLIN, 0}, {pidfd_, POLLIN, 0}};
      ::poll(p, pidfd_ >= 0 ? 2 : 1, 20);
      if (p[0].revents & POLLIN) return;
      if (pidfd_ >= 0 && (p[1].revents & POLLIN)) {
        died_ = true;
        signal_->cancel();
        return;
      }
      if (signal_->fired()) {
        runner_.signal_kill();
        return;
      }
    }
  }
  RunnerProcess& runner_;
  std::shared_ptr<Signal> signal_;
  int pidfd_ = -1;
  int wake_ = -1;
  std::atomic<bool> died_{false};
  std::thread thread_;
};

struct Denial {
  std::uint64_t seq;
  std::string tool;
  ErrorInfo error;
};

class Run {
 public:
  Run(const CodeRunHost& host, const CodeModeOptions& o, const ToolContext& ctx)
      : host_(host), o_(o), ctx_(ctx) {}
  ToolOutput go(RunnerPool& pool, const std::vector<std::string>& tools);

 private:
  ToolOutput failure(std::string message, std::string code = "tool_error");
  ToolOutput ended_early(RunnerProcess::Io io, std::string_view waiting_for);
  ToolOutput success(json::value value);
  std::optional<ToolOutput> serve_call(json::object& msg);
  std::string output_text() const;
  std::string denial_text() const;

  const CodeRunHost& host_;
  const CodeModeOptions& o_;
  const ToolContext& ctx_;
  std::unique_ptr<RunnerProcess> runner_;
  std::shared_ptr<Signal> signal_;
  Clock::time_point deadline_;
  std::chrono::milliseconds timeout_{0};
  std::string token_;
  std::uint64_t calls_ = 0;
  std::string output_;
  std::size_t output_dropped_ = 0;
  std::vector<Denial> denials_;
  std::map<std::string, ErrorInfo, std::less<>> refused_;  // call_key -> first denial
  const Watchdog* watchdog_ = nullptr;
  std::set<std::string, std::less<>> bindings_;  // the tools a script may call
};

std::string Run::output_text() const {
  std::string t = output_;
  if (output_dropped_)
    t += "[toolgate: " + std::to_string(output_dropped_) + " more bytes of output dropped (limit " +
         std::to_string(o_.max_output_bytes) + ")]\n";
  return t;
}

std::string Run::denial_text() const {
  if (denials_.empty()) return {};
  std::string t = "toolgate refused " + std::to_string(denials_.size()) +
                  " tool call(s) made by this script; a refusal binds for the whole run:";
  for (const auto& d : denials_)
    t += "\n- call #" + std::to_string(d.seq) + " " + d.tool + ": " + d.error.code + " at " +
         d.error.stage + " by " + d.error.source + ": " + d.error.message;
  return t;
}

ToolOutput Run::failure(std::string message, std::string code) {
  std::string out = output_text();
  if (!out.empty()) message += "\nconsole output before it ended:\n" + out;
  std::string denied = denial_text();
  if (!denied.empty()) message += "\n" + denied;
  return ToolOutput::failure(to_valid_utf8(message), std::move(code));
}

ToolOutput Run::success(json::value value) {
  json::array content;
  if (!value.is_null()) content.push_back(text_block(to_json_text(value)));
  if (o_.return_output && (!output_.empty() || output_dropped_))
    content.push_back(text_block("console output:\n" + output_text()));
  std::string denied = denial_text();
  if (!denied.empty()) content.push_back(text_block(denied));
  if (content.empty()) content.push_back(text_block("the script returned nothing"));
  return ToolOutput::success(std::move(value), std::move(content));
}

// Why the channel stopped: the deadline, a cancellation, a dead runner.
ToolOutput Run::ended_early(RunnerProcess::Io io, std::string_view waiting_for) {
  auto state = signal_->state();
  const bool died = watchdog_ && watchdog_->runner_died();
  if (!died && (io == RunnerProcess::Io::timed_out || state == SignalState::timed_out)) {
    runner_->kill();
    return failure("the script ran past its deadline of " + std::to_string(timeout_.count()) +
                       " ms and was stopped",
                   "timeout");
  }
  if (!died && state == SignalState::cancelled) {
    runner_->kill();
    return failure("the run was cancelled", "cancelled");
  }
  if (io == RunnerProcess::Io::too_long) {
    runner_->kill();
    return failure("the runner sent a message longer than " + std::to_string(o_.max_message_bytes) +
                   " bytes (a tool call's arguments, a log line or the return value); the run is "
                   "stopped");
  }
  std::string how = runner_->how_it_ended(std::chrono::milliseconds(200));
  std::string err = runner_->stderr_tail();
  std::string m = "the runner " + how + " while " + std::string(waiting_for);
  if (err.find("heap out of memory") != std::string::npos ||
      err.find("Reached heap limit") != std::string::npos)
    m = "the script ran out of memory (the limit is " + std::to_string(o_.memory_bytes >> 20) +
        " MiB of address space) and was stopped";
  else if (!err.empty())
    m += "; it wrote: " + std::string(utf8_prefix(err, 2000));
  return failure(m);
}

bool is_refusal_stage(std::string_view stage) {
  return stage == stage::pre_execute || stage == stage::approval || stage == stage::guard ||
         stage == stage::post_execute || stage == stage::fs_guard;
}

}  // namespace

bool is_refusal(const ToolResult& r) {
  if (!r.is_error || !r.error) return false;
  const auto& e = *r.error;
  return e.code == error_code::denied || e.code == error_code::approval_rejected ||
         e.code == error_code::approval_cancelled || e.code == error_code::approval_unavailable ||
         is_refusal_stage(e.stage);
}

namespace {

// One {"type":"call"} from the runner: the pipeline runs it, the runner
// gets its result.  nullopt: go on; otherwise the run ends with that.
std::optional<ToolOutput> Run::serve_call(json::object& msg) {
  const json::value* id = msg.if_contains("id");
  const json::value* tool = msg.if_contains("tool");
  json::value* args = msg.if_contains("arguments");
  if (!id || !id->is_int64() || !tool || !tool->is_string() || !args || !args->is_object())
    return failure(
        "the runner sent a tool call without an integer id, a string tool and an object of "
        "arguments; the run is stopped");
  if (++calls_ > o_.max_sub_calls) {
    runner_->kill();
    return failure("the script made more than " + std::to_string(o_.max_sub_calls) +
                   " tool calls, the limit for one run; the run is stopped");
  }
  const CallIdentity& parent = ctx_.call.identity;
  CallIdentity identity{new_call_id(), std::string(tool->get_string()), parent.session_id, token_};
  identity.client = parent.client;
  identity.agent_id = parent.agent_id;
  identity.client_context = parent.client_context;
  identity.parent_call_id = parent.call_id;
  identity.depth = parent.depth + 1;
  if (host_.listening()) {
    Event e;
    e.type = "tool/code-dispatch";
    e.session_id = identity.session_id;
    e.call_id = identity.call_id;
    e.data = {{"parent_call_id", parent.call_id},
              {"call_id", identity.call_id},
              {"seq", calls_},
              {"tool", identity.tool}};
    host_.emit(std::move(e));
  }

  SubCallBinding binding;
  const std::string tool_name = identity.tool;
  auto again = [&](const ErrorInfo& first) {
    ErrorInfo e = first;
    e.message =
        "refused again without running the hooks: an earlier call of this run with the "
        "same arguments was refused (" +
        first.message + ")";
    e.denials = {};
    return e;
  };
  std::string sent_key = call_key(tool_name, args->get_object());
  if (auto it = refused_.find(sent_key); it != refused_.end())
    binding.refuse_now = again(it->second);
  if (!bindings_.count(tool_name))
    // Not one of the script's tools: the host's plumbing, a tool whose
    // definition is not trusted, or no tool at all.
    binding.refuse_now = ErrorInfo{
        std::string(error_code::denied),
        "\"" + tool_name + "\" is not one of the tools a script can call" +
            (bindings_.empty() ? std::string() : " (see run_code's description for the list)"),
        std::string(stage::call),
        "host/code-mode",
        {}};
  binding.check = [&](const json::object& final_arguments) -> std::optional<ErrorInfo> {
    auto it = refused_.find(call_key(tool_name, final_arguments));
    if (it == refused_.end()) return std::nullopt;
    return again(it->second);
  };
  auto left = std::max(deadline_ - Clock::now(), Clock::duration(1));
  ToolCall call{std::move(identity), std::move(*args), signal_->child(left)};
  ToolResult r = host_.dispatch(std::move(call), binding);

  json::object reply{{"type", "result"}, {"id", id->get_int64()}};
  if (is_refusal(r)) {
    const ErrorInfo refusal = kept(*r.error);
    denials_.push_back(Denial{calls_, tool_name, refusal});
    // Read-before-edit's refusal depends on what the session has read, and
    // says "read it first": binding it would refuse the very retry it asks
    // for.  The host checks it again on the next call, before any write.
    if (refusal.source != "host/read-before-edit") {
      refused_.try_emplace(sent_key, refusal);
      refused_.try_emplace(call_key(tool_name, binding.final_arguments), refusal);
    }
    reply["ok"] = false;
    reply["denied"] = true;
    reply["error"] = error_json(*r.error);
  } else if (r.is_error && r.error) {
    reply["ok"] = false;
    reply["denied"] = false;
    reply["error"] = error_json(*r.error);
  } else {
    reply["ok"] = true;
    // The structured value when there is one, else the content blocks.
    if (r.value && !r.value->is_null())
      reply["value"] = std::move(*r.value);
    else
      reply["value"] = std::move(r.content);
  }
  auto io = runner_->write_line(to_json_text(reply), deadline_, signal_.get());
  if (io != RunnerProcess::Io::ok) return ended_early(io, "a tool call's result was sent to it");
  return std::nullopt;
}

ToolOutput Run::go(RunnerPool& pool, const std::vector<std::string>& tools) {
  const auto& args = ctx_.call.arguments;
  for (const auto& kv : args)
    if (kv.key() != "code" && kv.key() != "timeout_ms")
      return ToolOutput::failure("unknown argument \"" + std::string(kv.key()) +
                                 "\": run_code takes \"code\" and, optionally, \"timeout_ms\"");
  const json::value* code = args.if_contains("code");
  if (!code || !code->is_string() || code->get_string().empty())
    return ToolOutput::failure(
        "run_code needs \"code\": the JavaScript program to run, as a non-empty string");
  timeout_ = o_.default_timeout;
  if (const json::value* t = args.if_contains("timeout_ms")) {
    auto ms = t->is_int64() ? t->get_int64()
              : t->is_uint64()
                  ? static_cast<std::int64_t>(std::min<std::uint64_t>(t->get_uint64(), INT64_MAX))
                  : -1;
    if (ms < 1 || ms > o_.max_timeout.count())
      return ToolOutput::failure("\"timeout_ms\" must be an integer from 1 to " +
                                 std::to_string(o_.max_timeout.count()));
    timeout_ = std::chrono::milliseconds(ms);
  }
  if (ctx_.call.identity.depth > 0)
    return ToolOutput::failure("run_code cannot be called from inside a script");
  if (o_.sandbox == CodeModeOptions::Sandbox::none)
    spdlog::warn("code mode: run {} runs unconfined (sandbox \"none\")",
                 ctx_.call.identity.call_id);

  deadline_ = Clock::now() + timeout_;
  signal_ = ctx_.signal->child(timeout_);
  token_ = new_run_token();
  try {
    runner_ = pool.take();
  } catch (const RunnerUnavailable& e) {
    return ToolOutput::failure(e.what());
  }
  Watchdog watchdog(*runner_, signal_);
  watchdog_ = &watchdog;

  json::array names;
  for (const auto& t : tools) {
    names.emplace_back(t);
    bindings_.insert(t);
  }
  json::object start{{"type", "start"},
                     {"code", code->get_string()},
                     {"tools", std::move(names)},
                     {"max_output", o_.max_output_bytes}};
  auto io = runner_->write_line(to_json_text(start), deadline_, signal_.get());
  if (io != RunnerProcess::Io::ok) return ended_early(io, "starting");

  bool ready = false;
  std::string line;
  while (true) {
    io = runner_->read_line(line, o_.max_message_bytes, deadline_, signal_.get());
    if (io != RunnerProcess::Io::ok) {
      if (!ready && io == RunnerProcess::Io::closed) {
        std::string how = runner_->how_it_ended(std::chrono::milliseconds(200));
        std::string err = runner_->stderr_tail();
        return failure(
            "the Code Mode sandbox did not start (the runner " + how + ")" +
            (err.empty() ? std::string() : ": " + std::string(utf8_prefix(err, 2000))) +
            ". If bubblewrap cannot create namespaces, this kernel or container forbids "
            "unprivileged user namespaces: allow them (sysctl kernel.unprivileged_userns_clone=1, "
            "or the container's seccomp/AppArmor profile), or run scripts unconfined with the "
            "sandbox \"none\" where the scripts are trusted");
      }
      return ended_early(io, ready ? "the script ran" : "starting");
    }
    // Past the deadline (or cancelled) nothing more counts, not even a
    // "done" that arrived just in time for the read: fail closed.
    // (The run's own signal is not asked: the watchdog cancels it when the
    // runner exits, which it does right after a "done".)
    if (ctx_.signal->state() == SignalState::cancelled) {
      runner_->kill();
      return failure("the run was cancelled", "cancelled");
    }
    if (Clock::now() >= deadline_ || ctx_.signal->fired()) {
      runner_->kill();
      return failure("the script ran past its deadline of " + std::to_string(timeout_.count()) +
                         " ms and was stopped",
                     "timeout");
    }
    std::string why;
    auto parsed = parse_untrusted(line, 128, &why);
    if (!parsed || !parsed->is_object() || !parsed->get_object().if_contains("type") ||
        !parsed->get_object().at("type").is_string()) {
      runner_->kill();
      return failure("the runner sent a message that is not a JSON object with a \"type\" (" +
                     (parsed ? std::string("wrong shape") : why) + "): " +
                     std::string(utf8_prefix(to_valid_utf8(line), 200)) + "; the run is stopped");
    }
    auto& msg = parsed->get_object();
    std::string_view type = msg.at("type").get_string();
    if (type == "ready" && !ready) {
      ready = true;
    } else if (!ready) {
      runner_->kill();
      return failure("the runner did not start properly: its first message was not \"ready\"");
    } else if (type == "log") {
      const json::value* text = msg.if_contains("text");
      if (!text || !text->is_string()) continue;
      std::string_view t = text->get_string();
      if (output_dropped_) {  // once cut, nothing more is appended
        output_dropped_ += t.size() + 1;
        continue;
      }
      std::size_t room =
          o_.max_output_bytes > output_.size() ? o_.max_output_bytes - output_.size() : 0;
      std::string_view kept = utf8_prefix(t, room > 0 ? room - 1 : 0);
      if (room > 0 && kept.size() == t.size()) {
        output_.append(t);
        output_ += '\n';
      } else {
        output_.append(kept);
        output_dropped_ += t.size() + 1 - kept.size();
      }
    } else if (type == "call") {
      if (auto end = serve_call(msg)) return std::move(*end);
    } else if (type == "done") {
      const json::value* ok = msg.if_contains("ok");
      runner_->kill();
      if (ok && ok->is_bool() && ok->get_bool()) {
        const json::value* v = msg.if_contains("value");
        return success(v ? *v : json::value());
      }
      const json::value* err = msg.if_contains("error");
      std::string text = err && err->is_string() ? std::string(err->get_string()) : "(no message)";
      return failure("the script failed: " + text);
    } else {
      runner_->kill();
      return failure("the runner sent a message of unknown type \"" +
                     std::string(utf8_prefix(type, 100)) + "\"; the run is stopped");
    }
  }
}

}  // namespace

ToolOutput run_code(const CodeRunHost& host, const CodeModeOptions& options, RunnerPool& pool,
                    const ToolContext& ctx, const std::vector<std::string>& tools) {
  Run run(host, options, ctx);
  return run.go(pool, tools);
}

}  // namespace toolgate::detail
