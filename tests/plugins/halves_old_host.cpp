// halves_old_host.cpp -- the C++ SDK's execute_wrapper_halves on a host
// older than ABI 1.7: init hands the SDK a copy of the host's table cut
// short before register_execute_wrapper_halves, as a 1.6 host's would be.
// The SDK must then register one wrapper that calls the halves around
// next().  Its halves emit "halves/before" and "halves/after" ({"state":N,
// "error":bool}), and before gives the rest of the chain a 30 ms deadline.
// The descriptor asks for ABI 1.6 only.
#include <toolgate/plugin.hpp>

#include <cstddef>
#include <string>

namespace sdk = toolgate::sdk;

namespace {

tg_host_api older;  // lives as long as the plugin: the SDK's slots point at it

class OldHost {
 public:
  explicit OldHost(sdk::Init& init) {
    init.execute_wrapper_halves(
        "halves",
        [](const sdk::Call& call, const sdk::Signal& signal, std::any& state) {
          state = 41;
          call.api()->emit_event(call.handle(), "halves/before", sdk::to_tg("{}"));
          return signal.child(std::chrono::milliseconds(30));
        },
        [](const sdk::Call& call, const sdk::Result& result, std::any& state) {
          const std::string data = "{\"state\":" + std::to_string(std::any_cast<int>(state) + 1) +
                                   ",\"error\":" + (result.is_error() ? "true" : "false") + "}";
          call.api()->emit_event(call.handle(), "halves/after", sdk::to_tg(data));
        });
  }
};

tg_status init(const tg_host_api* api, tg_init_ctx* ctx, tg_str config, void** state) {
  older = *api;
  older.struct_size =
      static_cast<std::uint32_t>(offsetof(tg_host_api, register_execute_wrapper_halves));
  older.abi_minor = 6;
  return sdk::detail::init<OldHost>(&older, ctx, config, state);
}

const tg_plugin_descriptor descriptor = {sizeof(tg_plugin_descriptor),
                                         TOOLGATE_ABI_MAJOR,
                                         6,
                                         "test.halves-old-host",
                                         "1.0.0",
                                         TG_CAP_EXECUTE_WRAPPER,
                                         0,
                                         &init,
                                         &sdk::detail::shutdown<OldHost>,
                                         nullptr,
                                         nullptr,
                                         nullptr};

}  // namespace

TOOLGATE_PLUGIN_ENTRY { return &descriptor; }
