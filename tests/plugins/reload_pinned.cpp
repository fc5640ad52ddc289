// reload_pinned.cpp -- a guard that touches a thread_local with a
// destructor.  glibc keeps such an image loaded until every thread that
// touched it exits, so after a reload it stays mapped: the host must notice
// and report it ("plugin/pinned") instead of claiming it unloaded.
#include <toolgate/plugin.hpp>

#include <string>

namespace sdk = toolgate::sdk;

namespace {
struct PerThread {
  std::string scratch = "x";
  ~PerThread() { scratch.clear(); }
};
thread_local PerThread per_thread;
}  // namespace

class Pinned {
 public:
  explicit Pinned(sdk::Init& init) {
    init.guard("guard", [](const sdk::Call&) {
      per_thread.scratch += "y";  // registers the thread_local's destructor
      return sdk::GuardVerdict::abstain();
    });
  }
};

TOOLGATE_PLUGIN(Pinned, "reload.guard", "pinned", TG_CAP_GUARD, 0)
