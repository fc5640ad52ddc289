// commands.hpp -- the toolgate CLI's commands, one file each.
#pragma once

#include <string>
#include <vector>

namespace toolgate::cli {

using Args = std::vector<std::string>;

int run_demo(const Args& args);   // demo.cpp
int run_check(const Args& args);  // check.cpp
int run_plan(const Args& args);   // plan.cpp
int run_call(const Args& args);   // call.cpp
int run_tools(const Args& args);  // tools.cpp
int run_watch(const Args& args);  // watch.cpp
int run_audit(const Args& args);  // audit.cpp
int run_mcp(const Args& args);    // mcp.cpp
// The options of `toolgate mcp` that take a value (its parser and --help both
// read them).
const std::vector<std::string>& mcp_value_flags();  // mcp.cpp
int run_inspect(const Args& args);                  // inspect.cpp
int run_new_plugin(const Args& args);               // new_plugin.cpp
int run_serve(const Args& args);                    // serve.cpp
int run_hook(const Args& args);                     // hook.cpp

}  // namespace toolgate::cli
