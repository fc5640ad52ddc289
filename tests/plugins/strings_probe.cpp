// strings_probe.cpp -- lists what sdk::Call::for_each_string (ABI 1.8,
// toolgate.h visit_strings) hands a plugin, as events the tests read:
//   "strings/args" and "strings/result" from its post-execute hook,
//   "strings/observed" from its observer: {"list": [...], "complete": bool};
//   "strings/guard" from its guard, which asks for the result where there
//   is none: {"error": what the SDK threw};
//   "strings/throws" from its post-execute hook, whose visitor throws:
//   {"what": what reached the hook}.
//   "strings/threads" from its post-execute hook with "threads": true, after
//   four threads of the one callback each called add_context 500 times and
//   read result_json, arguments_json and the result's strings between:
//   {"same": every read saw what the first did}.
// Config: "stop_after": N stops each walk after N strings (0: all);
// "old_host": true hands the SDK the host's table cut short before
// visit_strings, as a 1.7 host's would be, so the SDK reads the same
// strings from the JSON text.  The descriptor asks for ABI 1.7 only.
#include <toolgate/plugin.hpp>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sdk = toolgate::sdk;
namespace json = boost::json;

namespace {

tg_host_api older;  // lives as long as the plugin: the SDK's slots point at it

// Stands in for visit_strings in the table handed to the SDK as a 1.7
// host's: the SDK must not call it (the table's size says it is not there).
tg_status not_in_this_host(const tg_call*, int32_t, tg_string_visitor_fn, void*) {
  return TG_ERROR;
}

void list(const sdk::Call& call, sdk::Call::Strings which, std::size_t stop_after,
          const char* type) {
  json::array seen;
  // A named callable (F deduced as a reference), as plugin authors write.
  auto note = [&](std::string_view s) {
    seen.emplace_back(json::string_view(s.data(), s.size()));
    return stop_after == 0 || seen.size() < stop_after;
  };
  const bool complete = call.for_each_string(which, note);
  call.emit(type, {{"list", std::move(seen)}, {"complete", complete}});
}

// The host's functions are thread-safe (toolgate.h), within one callback
// too: four threads answer and read at once.
void threads(const sdk::Call& call) {
  const tg_host_api* api = call.api();
  tg_call* c = const_cast<tg_call*>(call.handle());
  auto text = [&](tg_status (*fn)(const tg_call*, tg_str*)) {
    tg_str s{};
    return fn(c, &s) == TG_OK ? std::string(s.data, s.size) : std::string("(failed)");
  };
  auto strings = [&] {
    std::string all;
    call.for_each_string(sdk::Call::Strings::result, [&](std::string_view s) {
      all.append(s).push_back('|');
      return true;
    });
    return all;
  };
  const std::string result = text(api->result_json), args = text(api->arguments_json),
                    listed = strings();
  std::atomic<bool> same{true};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t)
    workers.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        const std::string note = "t" + std::to_string(t) + "-" + std::to_string(i);
        api->add_context(c, sdk::to_tg(note));
        if (i % 20 == 0 && (text(api->result_json) != result || text(api->arguments_json) != args ||
                            strings() != listed))
          same = false;
      }
    });
  for (auto& w : workers) w.join();
  call.emit("strings/threads", {{"same", same.load()}});
}

class Probe {
 public:
  explicit Probe(sdk::Init& init) {
    const auto* n = init.config().if_contains("stop_after");
    const std::size_t stop = n && n->is_int64() ? static_cast<std::size_t>(n->get_int64()) : 0;
    init.guard("guard", [](const sdk::Call& call) {
      try {
        call.for_each_string(sdk::Call::Strings::result, [](std::string_view) { return true; });
        call.emit("strings/guard", {{"error", ""}});
      } catch (const std::exception& e) {
        call.emit("strings/guard", {{"error", e.what()}});
      }
      return sdk::GuardVerdict::abstain();
    });
    const auto* t = init.config().if_contains("threads");
    const bool in_threads = t && t->is_bool() && t->get_bool();
    init.post_execute("post", [stop, in_threads](const sdk::Call& call) {
      if (in_threads) {
        threads(call);
        return sdk::PostVerdict::accept();
      }
      list(call, sdk::Call::Strings::arguments, stop, "strings/args");
      list(call, sdk::Call::Strings::result, stop, "strings/result");
      // What the visitor throws reaches the hook, not "nothing found".
      try {
        call.for_each_string(sdk::Call::Strings::result, [](std::string_view) -> bool {
          throw std::runtime_error("thrown by the visitor");
        });
        call.emit("strings/throws", {{"what", ""}});
      } catch (const std::exception& e) {
        call.emit("strings/throws", {{"what", e.what()}});
      }
      return sdk::PostVerdict::accept();
    });
    init.result_observer("observer", [stop](const sdk::Call& call) {
      list(call, sdk::Call::Strings::result, stop, "strings/observed");
    });
  }
};

tg_status init(const tg_host_api* api, tg_init_ctx* ctx, tg_str config, void** state) {
  const auto c = json::parse(sdk::from_tg(config));
  const auto* old = c.is_object() ? c.get_object().if_contains("old_host") : nullptr;
  if (old && old->is_bool() && old->get_bool()) {
    older = *api;
    older.struct_size = static_cast<std::uint32_t>(offsetof(tg_host_api, visit_strings));
    older.visit_strings = &not_in_this_host;
    older.abi_minor = 7;
    api = &older;
  }
  return sdk::detail::init<Probe>(api, ctx, config, state);
}

const tg_plugin_descriptor descriptor = {
    sizeof(tg_plugin_descriptor),
    TOOLGATE_ABI_MAJOR,
    7,
    "test.strings-probe",
    "1.0.0",
    TG_CAP_GUARD | TG_CAP_POST_EXECUTE | TG_CAP_RESULT_OBSERVER,
    0,
    &init,
    &sdk::detail::shutdown<Probe>,
    nullptr,
    nullptr,
    nullptr};

}  // namespace

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
