// serve.cpp -- `toolgate serve M... [--socket PATH] [--group NAME]
//                [--allow-user USER]... [limits]`
// The resident daemon (docs/design.md §16): loads the manifest stack once,
// hot-reloads it, and answers split-phase requests (serve/protocol.hpp)
// from agents' hooks and runtimes over a Unix socket.  Every call is
// denied until the stack has loaded; a failed reload leaves the old
// generation serving.  SIGHUP reloads; SIGINT / SIGTERM stop.
#include "options.hpp"
#include "stop_signals.hpp"

#include "../serve/protocol.hpp"
#include "../serve/socket_server.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>

namespace toolgate::cli {

namespace {

uid_t user_id(const std::string& name) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos)
    return static_cast<uid_t>(number_option("--allow-user", name, 0, 4294967294u, "uid"));
  passwd pw{}, *found = nullptr;
  char buf[4096];
  if (::getpwnam_r(name.c_str(), &pw, buf, sizeof buf, &found) != 0 || !found)
    throw UsageError("--allow-user: no user \"" + name + "\" (give a user name or a uid)");
  return pw.pw_uid;
}

gid_t group_id(const std::string& name) {
  group gr{}, *found = nullptr;
  char buf[4096];
  if (::getgrnam_r(name.c_str(), &gr, buf, sizeof buf, &found) != 0 || !found)
    throw UsageError("--group: no group \"" + name + "\"");
  return gr.gr_gid;
}

void say(const std::string& line) {
  std::fprintf(stderr, "toolgate serve: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

int run_serve(const Args& args) {
  CommonOptions o;
  auto rest = parse_common(args, o,
                           {"--socket", "--group", "--allow-user", "--max-message-bytes",
                            "--max-connections", "--idle-timeout-ms", "--split-expiry-ms"},
                           {"--no-probe"});
  serve::ServerOptions so;
  if (auto s = flag_value(rest, "--socket")) {
    so.socket_path = *s;
  } else {
    std::string why;
    auto p = serve::default_socket_path(&why);
    if (!p) throw UsageError(why);
    so.socket_path = *p;
  }
  if (auto g = flag_value(rest, "--group")) so.group = group_id(*g);
  for (std::size_t i = 0; i + 1 < rest.size(); ++i)
    if (rest[i] == "--allow-user") so.allowed_uids.push_back(user_id(rest[i + 1]));
  so.max_message_bytes = number_option("--max-message-bytes",
                                       flag_value(rest, "--max-message-bytes").value_or("8388608"),
                                       1024, 1u << 30, "bytes");
  so.max_connections = number_option(
      "--max-connections", flag_value(rest, "--max-connections").value_or("256"), 1, 65536, "");
  so.idle_timeout = std::chrono::milliseconds(
      number_option("--idle-timeout-ms", flag_value(rest, "--idle-timeout-ms").value_or("60000"),
                    10, 86400000, "ms"));
  HostOptions ho;
  ho.deny_until_loaded = true;  // never answer allow without the stack's guards
  ho.split_call_expiry = std::chrono::milliseconds(
      number_option("--split-expiry-ms", flag_value(rest, "--split-expiry-ms").value_or("900000"),
                    10, 86400000, "ms"));
  use_default_manifests_if_none(o);

  std::unique_ptr<Host> host;
  std::unique_ptr<serve::SocketServer> server;
  std::atomic<bool> loaded{false};
  StopSignals signals("serve", std::chrono::seconds(10),
                      {[&] {
                         if (loaded) host->reload();
                       },
                       [&](int) {
                         if (server) server->stop();
                       },
                       nullptr});
  host = std::make_unique<Host>(ho);
  ReloadOptions ro;
  ro.manifests.assign(o.manifests.begin(), o.manifests.end());
  ro.load = o.load;
  if (!has_flag(rest, "--no-probe")) ro.probe_command = {self_exe(), "__probe"};
  ro.on_reload = [](const ReloadReport& r) {
    if (!r.ok)
      say(r.calls_denied ? "load failed, every call is denied until it loads: " + r.error
                         : "reload failed, generation " + std::to_string(r.generation) +
                               " keeps serving: " + r.error);
    else if (r.changed)
      say(std::string(r.initial ? "loaded" : "reloaded") + ", generation " +
          std::to_string(r.generation));
  };
  host->enable_reload(ro);
  loaded = true;
  serve::Protocol protocol(*host);
  server = std::make_unique<serve::SocketServer>(so, protocol);
  say("serving on " + so.socket_path.string());
  if (signals.received() == 0) server->run();
  server.reset();
  loaded = false;  // a SIGHUP from here on finds no host to reload
  host.reset();
  signals.finish();
  return 0;
}

}  // namespace toolgate::cli
