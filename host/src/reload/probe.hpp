// probe.hpp -- load a plugin candidate in a short-lived child process first.
//
// The child checks the entry symbol, the ABI and runs init with the config,
// then exits.  A plugin that crashes (or hangs) in init is rejected without
// taking the host down.  The child is any program that runs probe_main():
// the toolgate CLI does, as `toolgate __probe PLUGIN ID` (config on stdin).
#pragma once

#include <boost/json/object.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::detail {

// Runs `command... PLUGIN ID` with the config on stdin; returns an empty
// string on success, else why the candidate is rejected.
std::string run_probe(const std::vector<std::string>& command, const std::filesystem::path& plugin,
                      const std::string& id, const boost::json::object& config,
                      std::chrono::milliseconds timeout);

// A probe child's last words on stderr, which run_probe requires: a child
// that exits without saying either (a plugin calling exit() in init, a crash
// turned into an exit status by a handler) counts as a crash.  Any program
// run through run_probe ends with one of these.
void probe_say_ok();
void probe_say_rejected(std::string_view why);

// The child side: argv = {PLUGIN, ID}; reads the config from stdin.  Exit
// status 0 if the plugin loads and initialises; 1 and the reason on stderr
// otherwise.
int probe_main(const std::vector<std::string>& args);

}  // namespace toolgate::detail
