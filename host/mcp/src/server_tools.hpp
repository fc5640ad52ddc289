// server_tools.hpp -- the MCP server's tools, registered in the Host.
//
// They come from tools/list results: the client's as they pass (a complete
// list -- no cursor in, none out -- replaces the set; pages add to it), or
// the gateway's own when a call names a tool not seen yet or the server
// said notifications/tools/list_changed.  A server tool whose name a
// plugin's tool also has is not registered: calls to it are refused naming
// both (a plugin tool used to shadow the server's silently).
#pragma once

#include "peer.hpp"
#include "tool_pins.hpp"

#include <toolgate/host.hpp>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

class ServerTools {
 public:
  using Body = std::function<ToolOutput(const ToolContext&)>;
  // Registers tools in `host`, each running `body` (which forwards the
  // call to the server), and the gated requests' reserved calls
  // (gated_requests.hpp), running `gated_body`, which stay registered
  // whatever the server lists.
  // Every listed definition is checked against `pins` (tool_pins.hpp).
  // `session_id` is the client's session: whether the policy denies a tool
  // whatever its arguments is asked for that caller (client "mcp").
  ServerTools(Host& host, AsyncExecuteFn body, Body gated_body, ToolPins& pins,
              std::string session_id, std::vector<ToolDefinition> own_tools = {});
  // One of the gateway's own tools (GatewayOptions::own_tools).
  bool is_own(std::string_view tool) const { return own_names_.count(tool) != 0; }

  // A tools/list result the client asked for, with or without a cursor.
  void on_list_result(const boost::json::object& result, bool had_cursor);
  // notifications/tools/list_changed: the next call lists them again.
  void mark_stale();
  // Before a call of `tool`: when it was not seen listed or the list
  // changed, lists every page from `server` first (one refresh at a time).
  void ensure(const std::string& tool, Peer& server, const Signal& signal, SlotWaker* waker);
  // Whether ensure(tool) would return at once (the tool is listed, and the
  // list is current).
  bool ready(const std::string& tool);
  // Before a run_code call: the server's tools are its bindings, so they
  // are listed first when they never were or the list changed.
  void ensure_listed(Peer& server, const Signal& signal, SlotWaker* waker);
  // Whether the server's tool runs only as a task (its definition's
  // execution.taskSupport is "required"): the gateway then calls it as a
  // task and waits for the task's result.
  bool task_required(std::string_view tool);
  // Whether it may run as a task ("required" or "optional"): a 2026-07-28
  // client that declared the tasks extension gets a task for it.
  bool task_capable(std::string_view tool);
  // The refusal for a call of a server tool a plugin tool clashes with.
  std::optional<std::string> clash_for(std::string_view tool);
  // Whether the client is not offered `tool`: a hook denies every call of
  // it by this client whatever the arguments (Host::denied_always) -- a
  // policy rule, or pinning's guard when the tool drifted (OnDrift::block).
  bool hidden(std::string_view tool) const;
  // A tools/list result without the hidden tools, or nullopt when it lists
  // none (relayed as it came).
  std::optional<boost::json::object> without_hidden(const boost::json::object& result) const;

 private:
  void refresh(Peer& server, const Signal& signal, SlotWaker* waker);
  void register_tools(const boost::json::value& tools, bool complete);
  // Tool name -> plugin id, for the tools the loaded plugins register.
  std::map<std::string, std::string, std::less<>> tools_of_plugins() const;

  Host& host_;
  AsyncExecuteFn body_;  // a server's tool answers when the server does
  std::vector<ToolDefinition> gated_;
  std::vector<ToolDefinition> own_;  // kept registered like gated_
  std::set<std::string, std::less<>> own_names_;
  ToolPins& pins_;
  std::string session_id_;
  std::mutex mutex_;
  std::set<std::string, std::less<>> known_;
  // Server tools whose name a plugin's tool also has -> that plugin's id.
  std::map<std::string, std::string, std::less<>> clashing_;
  std::set<std::string, std::less<>> task_required_, task_capable_;
  bool stale_ = false;
  bool listed_ = false;  // a complete list has been registered
  std::mutex refresh_mutex_;
};

}  // namespace toolgate::mcp
