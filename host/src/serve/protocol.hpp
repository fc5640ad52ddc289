// protocol.hpp -- the split-phase protocol of `toolgate serve`
// (docs/design.md §16): one JSON request per line, one JSON answer per
// line, over a Unix socket.  This file is the protocol without the socket:
// a request's text in, the answer's text out, so it is tested directly.
//
//   -> {"id":1,"op":"begin","call":{"tool":"Bash","arguments":{...},
//        "call_id":"toolu_1","session_id":"s","client":"claude-code",
//        "agent_id":""},"caller_approves":true}
//   <- {"id":1,"ok":true,"verdict":"allow","call_id":"toolu_1",
//        "arguments":{...},"rewritten":false,"reason":"","additional_contexts":[]}
//   -> {"id":2,"op":"complete","call_id":"toolu_1","result":{"isError":false,"content":[...]}}
//   <- {"id":2,"ok":true,"outcome":"accepted","result":{...},"additional_contexts":[]}
//   -> {"id":3,"op":"ping"}
//   <- {"id":3,"ok":true,"generation":4,"pending":0,"protocol":1}
//   any error: {"id":...,"ok":false,"error":{"code":"bad_request","message":"..."}}
#pragma once

#include <toolgate/host.hpp>

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace toolgate::serve {

inline constexpr int protocol_version = 1;

// Error codes of the protocol itself (not of calls: a denied call is an
// ok answer whose verdict is deny).
namespace protocol_error {
inline constexpr std::string_view bad_request = "bad_request";    // not a request
inline constexpr std::string_view unknown_call = "unknown_call";  // complete: no such begun call
inline constexpr std::string_view too_large = "too_large";        // over the message limit
inline constexpr std::string_view not_allowed = "not_allowed";    // peer credentials refused
}  // namespace protocol_error

class Protocol {
 public:
  Protocol(Host& host, std::size_t max_json_depth = 64) : host_(host), max_depth_(max_json_depth) {}
  // Answers one request line (without its newline).  Never throws; every
  // failure is an error answer naming what was wrong and how to fix it.
  // `peer` names the connecting user when it is not the daemon's own
  // ("u1001:"): its call ids live in a namespace of their own, so one user
  // can neither complete nor block another's calls by naming their ids.
  std::string answer(std::string_view line, std::string_view peer = {});
  // An error answer for a request that was never read (too large, refused).
  static std::string error_answer(std::string_view code, std::string_view message);

 private:
  // Calls without an id (agents whose hooks carry none, e.g. Gemini CLI)
  // are completed by what they were called with: the client, session, tool
  // and arguments (original or final) name the oldest matching begun call.
  std::string match_key(std::string_view peer, std::string_view client, std::string_view session,
                        std::string_view tool, const boost::json::object& arguments) const;
  // Remembers a begun call under each of its keys.
  void remember(const std::vector<std::string>& keys, const std::string& call_id);
  // The oldest call remembered under `key`, forgotten under all its keys.
  std::string take_match(const std::string& key);
  void forget(const std::string& call_id);  // mutex_ held

  Host& host_;
  std::size_t max_depth_;
  std::mutex mutex_;
  // Guarded by mutex_: key -> call ids, oldest first; call id -> its keys;
  // call ids oldest first (bounded: the oldest are forgotten first).
  std::map<std::string, std::deque<std::string>> by_match_;
  std::map<std::string, std::vector<std::string>> keys_of_;
  std::deque<std::string> match_order_;
};

}  // namespace toolgate::serve
