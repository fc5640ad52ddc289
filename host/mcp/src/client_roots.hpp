// client_roots.hpp -- the MCP client's roots, as a client context for calls.
//
// A client that declares the "roots" capability names the folders it has
// open (roots/list; notifications/roots/list_changed when they change).
// The gateway asks for them itself, before the first call and after each
// change, and hands every call they run as CallIdentity::client_context
// {"roots": [absolute paths]} -- what guard-paths' "client_roots":
// "intersect" narrows its roots to (docs/design.md §2.14, plugins/README).
//
// Only file:// URIs of this machine name a folder; any other root is left
// out, which only narrows.  A client that declared roots but does not
// answer roots/list (an error, gone, cancelled) counts as naming none --
// with "intersect" nothing is inside then (fail closed) -- and is asked
// again at the next call.  A client that declared no roots gets no context
// at all: the manifest's roots hold alone.
#pragma once

#include "peer.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace toolgate::mcp {

// The absolute path a file:// URI names (percent-decoded; host empty or
// "localhost"), or nullopt for anything else.
std::optional<std::string> path_of_file_uri(std::string_view uri);

// A roots/list result -> {"roots": [paths]}; roots that are not local
// file:// URIs are left out (and logged).
boost::json::object roots_context(const boost::json::object& result);

class ClientRoots {
 public:
  // The client's initialize params: did it declare roots?
  void on_initialize(const boost::json::object& params);
  // notifications/roots/list_changed from the client.
  void mark_stale();
  // The client context for a call: nullptr when the client declared no
  // roots; otherwise its roots, asked for first when not known or stale.
  std::shared_ptr<const boost::json::object> context(Peer& client, const Signal& signal,
                                                     SlotWaker* waker);
  // The same when it needs no asking (the client declared no roots, or
  // they are known and current); nullopt when context() would ask.
  std::optional<std::shared_ptr<const boost::json::object>> known_context();

 private:
  std::mutex mutex_;
  bool declared_ = false;
  bool stale_ = true;
  std::uint64_t changes_ = 0;  // list_changed seen: a list asked before is stale
  std::shared_ptr<const boost::json::object> context_;
  std::mutex refresh_mutex_;  // one roots/list at a time
};

}  // namespace toolgate::mcp
