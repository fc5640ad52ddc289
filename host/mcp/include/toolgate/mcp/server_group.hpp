// server_group.hpp -- several MCP servers behind one gateway
// (`toolgate mcp --servers FILE`; README "Many servers").
//
// A ServerGroup is one ServerLink made of many: the gateway speaks to it as
// to one server, and it routes.  Each member's tools are offered under a
// prefix -- its name and a separator ("fs.read_file") -- so two servers'
// tools cannot be confused, and manifest hooks can target one server with
// a tool filter ("fs.*").  The group initializes every member itself at
// start (MCP 2025-11-25, declaring no client capabilities), lists their
// tools, and refuses to start when two tools would have the same name,
// naming both servers.  Lists are in a fixed order: the configuration's
// order of servers, then each server's own order.
//
// At run time: tools/list is answered from the group's table, tools/call
// goes to the tool's server under the tool's own name, answers come back
// byte for byte (only the id is put back), a member's requests to the
// client (elicitation, sampling) and its notifications pass through, and
// cancellations reach the right member.  A member that ends is reported,
// its calls in flight fail, its tools are withdrawn and the client is told
// (notifications/tools/list_changed); the others keep serving.  When every
// member has ended, the group ends (the gateway sees its server exit).
// Tools, prompts and resources are relayed: prompts named like tools,
// resources under their own URIs (a read goes to the server that lists the
// URI or whose template it expands).  Resource subscriptions are refused
// (-32601) and not declared.
#pragma once

#include <toolgate/mcp/server_link.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::mcp {

// The servers file: {"toolgate_servers": 1, "separator": ".", "servers":
// [{"name": "fs", "command": ["npx", ...]}, {"name": "notes", "url":
// "https://...", "token_file": F, "ca_file": F}, ...]}.  Strict JSON;
// unknown keys and wrong types are refused with their JSON Pointer.  Its
// JSON Schema: sdk/schema/toolgate-servers.schema.json.
struct ServerGroupConfig {
  struct Server {
    std::string name;                  // 1-64 of A-Z a-z 0-9 _ -, unique
    bool prefixed = true;              // "prefix": false offers its tools under their own names
    std::vector<std::string> command;  // a process on stdio, or
    std::string url;                   // a server over Streamable HTTP
    std::filesystem::path token_file;  // url: the gateway's bearer token (first line)
    std::filesystem::path ca_file;     // https: trust these CAs
  };
  std::string separator = ".";  // 1-2 of . _ -
  std::vector<Server> servers;  // at least one
};

// nullopt and *why ("/servers/1/name: ...") when `text` is not a servers
// file.
std::optional<ServerGroupConfig> parse_server_group_config(std::string_view text, std::string* why);
// Reads one; std::runtime_error naming the file, the place and the fix.
ServerGroupConfig read_server_group_config(const std::filesystem::path& file);

class ServerGroup final : public ServerLink {
 public:
  struct Member {
    std::string name;
    std::string prefix;  // "" for none; else name + separator
    std::unique_ptr<ServerLink> link;
  };
  // Initializes each member and lists its tools, waiting `timeout` for each
  // answer.  A member that does not answer usably is reported and left
  // out; std::runtime_error when none answered, or when two tools would
  // share a name (naming both servers).  SIGPIPE must be ignored.
  static std::unique_ptr<ServerGroup> start(std::vector<Member> members,
                                            std::chrono::milliseconds timeout,
                                            std::size_t max_message_bytes);
  ~ServerGroup() override;
  ServerGroup(const ServerGroup&) = delete;
  ServerGroup& operator=(const ServerGroup&) = delete;

  int stdin_fd() const override;
  int stdout_fd() const override;
  void close_stdin() override;
  std::optional<int> wait_for(std::chrono::milliseconds timeout) override;
  void send_signal(int sig) override;
  std::string describe_end(int status) const override;

  struct Impl;  // server_group.cpp

 private:
  explicit ServerGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolgate::mcp
