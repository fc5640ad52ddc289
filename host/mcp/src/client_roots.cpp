#include "client_roots.hpp"

#include "jsonrpc.hpp"

#include <spdlog/spdlog.h>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> path_of_file_uri(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.size() < scheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)  // the scheme is case-insensitive
    if (std::tolower(static_cast<unsigned char>(uri[i])) != scheme[i]) return std::nullopt;
  uri.remove_prefix(scheme.size());
  const auto slash = uri.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto host = uri.substr(0, slash);
  if (!host.empty() && host != "localhost") return std::nullopt;  // another machine's
  uri.remove_prefix(slash);
  // A query or fragment is not part of a folder.
  if (uri.find_first_of("?#") != std::string_view::npos) return std::nullopt;
  std::string path;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      path += uri[i];
      continue;
    }
    if (i + 2 >= uri.size()) return std::nullopt;
    int hi = hex_value(uri[i + 1]), lo = hex_value(uri[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return std::nullopt;  // no path holds a NUL
    path += c;
    i += 2;
  }
  return path;
}

json::object roots_context(const json::object& result) {
  json::array paths;
  if (const auto* roots = result.if_contains("roots"); roots && roots->is_array())
    for (const auto& r : roots->get_array()) {
      const auto* o = r.if_object();
      const auto* uri = o ? o->if_contains("uri") : nullptr;
      std::optional<std::string> path;
      if (uri && uri->is_string()) path = path_of_file_uri(uri->get_string());
      if (path)
        paths.emplace_back(*path);
      else
        spdlog::warn("the client's root {} is not a local file:// folder; left out", text_of(r));
    }
  return json::object{{"roots", std::move(paths)}};
}

void ClientRoots::on_initialize(const json::object& params) {
  const auto* caps = params.if_contains("capabilities");
  const bool declared = caps && caps->is_object() && caps->get_object().contains("roots");
  std::lock_guard lock(mutex_);
  declared_ = declared;
  stale_ = true;
  ++changes_;
}

void ClientRoots::mark_stale() {
  std::lock_guard lock(mutex_);
  stale_ = true;
  ++changes_;
}

std::optional<std::shared_ptr<const json::object>> ClientRoots::known_context() {
  std::lock_guard lock(mutex_);
  if (!declared_) return std::shared_ptr<const json::object>();
  if (!stale_) return context_;
  return std::nullopt;
}

std::shared_ptr<const json::object> ClientRoots::context(Peer& client, const Signal& signal,
                                                         SlotWaker* waker) {
  std::uint64_t asked_at = 0;
  auto known = [&]() -> std::optional<std::shared_ptr<const json::object>> {
    std::lock_guard lock(mutex_);
    if (!declared_) return std::shared_ptr<const json::object>();
    if (!stale_) return context_;
    asked_at = changes_;
    return std::nullopt;
  };
  if (auto c = known()) return *c;
  std::lock_guard refresh(refresh_mutex_);
  if (auto c = known()) return *c;
  // Bounded on its own, at 5 s: the other calls wait on refresh_mutex_
  // meanwhile, and a client that never answers must not hold them all for
  // longer (nor can one call's cancellation end the others' question).
  (void)signal;
  auto bound = Signal::make()->child(std::chrono::seconds(5));
  auto answer = client.request_and_wait("roots/list", json::object{}, *bound, waker);
  const json::object* result = nullptr;
  if (answer.end == Answer::End::answered)
    if (const auto* r = answer.response().if_contains("result"); r && r->is_object())
      result = &r->get_object();
  if (!result) {
    // Named none, and asked again next time: a guard narrowing to the
    // client's roots lets nothing through meanwhile.
    spdlog::warn("the client declared roots but did not list them ({}); counting none for now",
                 answer.end == Answer::End::answered ? text_of(answer.response())
                                                     : std::string("no answer"));
    return std::make_shared<const json::object>(json::object{{"roots", json::array{}}});
  }
  auto context = std::make_shared<const json::object>(roots_context(*result));
  std::lock_guard lock(mutex_);
  // A change announced while we asked: this list may be the old one; use
  // it for this call and ask again for the next.
  if (changes_ == asked_at) {
    context_ = context;
    stale_ = false;
  }
  return context;
}

}  // namespace toolgate::mcp
