// testkit.cpp -- a plugin whose every hook misbehaves on request, to test
// that the host turns each kind of failure into its fail-closed outcome.
// Config (all optional):
//   "pre":      keep | allow | ask | deny | rewrite | throw | bad-verdict | bad-json
//   "guard":    abstain | deny | throw | bad-verdict | loop (never returns)
//   "wrapper":  pass | retry | skip | fabricate | throw
//   "post":     accept | replace | block | context | throw | bad-verdict | bad-json
//   "observer": ok | throw | forge
// (Error *statuses* from plain C callbacks are exercised by c_status.c.)
// plus "reject": "/some/pointer" to reject the config, "fail_init": "msg",
// "init": "loop" (init never returns), "print": "text" (init and the guard
// write it to stdout, as a careless plugin would).
#include <toolgate/plugin.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace sdk = toolgate::sdk;
namespace json = boost::json;

namespace {

std::string opt(const json::object& c, const char* key, const char* def) {
  const auto* v = c.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : def;
}

tg_call* writable(const sdk::Call& c) { return const_cast<tg_call*>(c.handle()); }

}  // namespace

class Testkit {
 public:
  explicit Testkit(sdk::Init& init) {
    const auto& c = init.config();
    if (auto r = opt(c, "reject", ""); !r.empty())
      throw sdk::ConfigError(r, "testkit rejects this");
    if (auto f = opt(c, "fail_init", ""); !f.empty()) throw std::runtime_error(f);
    if (opt(c, "init", "") == "loop")
      for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string print = opt(c, "print", "");
    if (!print.empty()) {
      std::printf("%s\n", print.c_str());
      std::fflush(stdout);
    }

    init.pre_execute("pre", [m = opt(c, "pre", "keep")](const sdk::Call& call) {
      if (m == "allow") return sdk::PreVerdict::allow();
      if (m == "ask") return sdk::PreVerdict::ask("testkit asks");
      if (m == "deny") return sdk::PreVerdict::deny("testkit denies");
      if (m == "rewrite") {
        auto args = call.arguments();
        args["rewritten"] = true;
        return sdk::PreVerdict::keep().with_arguments(std::move(args));
      }
      if (m == "throw") throw std::runtime_error("testkit pre threw");
      if (m == "bad-verdict") return sdk::PreVerdict{42, {}, {}};
      if (m == "bad-json") {
        call.api()->set_arguments(writable(call), sdk::to_tg("{not json"));
        return sdk::PreVerdict::keep();
      }
      return sdk::PreVerdict::keep();
    });
    init.guard("guard", [m = opt(c, "guard", "abstain"), print](const sdk::Call&) {
      if (!print.empty()) {
        std::printf("%s\n", print.c_str());
        std::fflush(stdout);
      }
      if (m == "loop")
        for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (m == "deny") return sdk::GuardVerdict::deny("testkit guard denies");
      if (m == "throw") throw std::runtime_error("testkit guard threw");
      if (m == "bad-verdict") return sdk::GuardVerdict{7, {}};
      return sdk::GuardVerdict::abstain();
    });
    init.execute_wrapper("wrapper",
                         [m = opt(c, "wrapper", "pass")](const sdk::Call&, const sdk::Signal& s,
                                                         const sdk::Next& next) {
                           if (m == "throw") throw std::runtime_error("testkit wrapper threw");
                           if (m == "skip") throw std::runtime_error("circuit open");
                           if (m == "fabricate") {
                             next(s);
                             static const int fake = 0;
                             return sdk::Result(nullptr, reinterpret_cast<const tg_result*>(&fake));
                           }
                           sdk::Result r = next(s);
                           if (m == "retry" && r.is_error()) r = next(s);
                           return r;
                         });
    init.post_execute("post", [m = opt(c, "post", "accept")](const sdk::Call& call) {
      if (m == "replace") {
        return sdk::PostVerdict::replace(json::object{
            {"content", json::array{json::object{{"type", "text"}, {"text", "replaced"}}}}});
      }
      if (m == "block") return sdk::PostVerdict::block("testkit blocks");
      if (m == "context") return sdk::PostVerdict::accept().add_context("testkit context");
      if (m == "throw") throw std::runtime_error("testkit post threw");
      if (m == "bad-verdict") return sdk::PostVerdict{9, nullptr, {}, {}};
      if (m == "bad-json") {
        call.api()->set_result(writable(call), sdk::to_tg("[1,"));
        return sdk::PostVerdict{TG_POST_REPLACE, nullptr, {}, {}};
      }
      return sdk::PostVerdict::accept();
    });
    init.result_observer("observer", [m = opt(c, "observer", "ok")](const sdk::Call& call) {
      if (m == "throw") throw std::runtime_error("testkit observer threw");
      if (m == "forge") {
        // Host event types are reserved: this must be refused.
        auto st = call.api()->emit_event(call.handle(), "tool/result", sdk::to_tg("{}"));
        call.emit("testkit/forge-status", {{"status", st}});
      }
    });
  }
};

TOOLGATE_PLUGIN(Testkit, "test.kit", "1.0.0",
                TG_CAP_PRE_EXECUTE | TG_CAP_GUARD | TG_CAP_EXECUTE_WRAPPER | TG_CAP_POST_EXECUTE |
                    TG_CAP_RESULT_OBSERVER,
                TG_PLUGIN_SERIALIZED)
