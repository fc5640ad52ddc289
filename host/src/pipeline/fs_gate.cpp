// The fs gate (docs/design.md §2.13).  A tool body declares a mutation; the
// host resolves the path the mutation will really touch, checks that an
// existing file was read in this session with the content it has now, and
// runs the fs guards (deny or abstain, fail closed).  A refusal is also
// kept on the call: whatever the body returns after it, the call ends as
// that refusal (execute.cpp), so a body that ignores the answer cannot turn
// a denied write into a success.
#include "fs_gate.hpp"

#include "../json_util.hpp"
#include "invoke.hpp"
#include "stages.hpp"

#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <mutex>

namespace toolgate::detail {

namespace fs = std::filesystem;

void FsObservations::record(const std::string& session, const std::string& path, std::string hash) {
  std::lock_guard lock(mutex_);
  auto it = by_session_.find(session);
  if (it == by_session_.end()) {
    if (by_session_.size() >= max_sessions) {
      by_session_.erase(order_.front());
      order_.pop_front();
    }
    it = by_session_.emplace(session, std::map<std::string, std::string>{}).first;
    order_.push_back(session);
  }
  auto& paths = it->second;
  if (paths.size() >= max_paths_per_session && !paths.count(path)) paths.erase(paths.begin());
  paths[path] = std::move(hash);
}

std::optional<std::string> FsObservations::seen(const std::string& session,
                                                const std::string& path) const {
  std::lock_guard lock(mutex_);
  auto it = by_session_.find(session);
  if (it == by_session_.end()) return std::nullopt;
  auto p = it->second.find(path);
  if (p == it->second.end()) return std::nullopt;
  return p->second;
}

std::optional<std::string> file_content_hash(const std::string& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size > (256u << 20)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  if (!md) return std::nullopt;
  EVP_DigestInit_ex(md, EVP_sha256(), nullptr);
  char buf[65536];
  while (in) {
    in.read(buf, sizeof buf);
    if (in.gcount() > 0) EVP_DigestUpdate(md, buf, static_cast<std::size_t>(in.gcount()));
  }
  unsigned char digest[32];
  unsigned int n = 0;
  EVP_DigestFinal_ex(md, digest, &n);
  EVP_MD_CTX_free(md);
  if (in.bad()) return std::nullopt;
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

namespace {

// The path a mutation of `requested` really touches: absolute, `.` and
// `..` collapsed, every existing symbolic link followed (the last
// component's too: writing through a link writes its target).
struct Resolved {
  std::string path;
  bool exists = false;
  bool via_link = false;
};
std::optional<Resolved> resolve(std::string_view requested, std::string* why) {
  if (requested.empty()) {
    *why = "the path is empty";
    return std::nullopt;
  }
  if (requested.find('\0') != std::string_view::npos) {
    *why = "the path contains a NUL character";
    return std::nullopt;
  }
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(std::string(requested)), ec);
  if (ec) {
    *why = "cannot make the path absolute: " + ec.message();
    return std::nullopt;
  }
  Resolved r;
  r.via_link = fs::is_symlink(fs::symlink_status(p, ec));
  // The last component's links are followed by hand: weakly_canonical
  // stops at a link whose target does not exist yet, and writing through
  // that dangling link creates its target -- the path that matters.
  for (int hops = 0; fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    fs::path target = fs::read_symlink(p, ec);
    if (ec || hops == 40) {
      *why = ec ? "cannot read the link " + p.string() + ": " + ec.message()
                : "too many levels of symbolic links at " + p.string();
      return std::nullopt;
    }
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fs::path canonical = fs::weakly_canonical(p, ec);
  if (ec) {
    *why = "cannot resolve the path: " + ec.message();
    return std::nullopt;
  }
  r.path = canonical.string();
  r.exists = fs::exists(canonical, ec);
  if (r.exists && fs::is_directory(canonical, ec)) {
    *why = "the path names a folder, not a file";
    return std::nullopt;
  }
  return r;
}

std::string_view intent_event(FsIntentKind k) {
  return k == FsIntentKind::write ? "fs/write-intent" : "fs/edit-intent";
}

}  // namespace

FsDecision fs_intent(const HookCall& call, FsIntentKind kind, std::string_view requested) {
  FsDecision d;
  CallState* s = call.context ? call.context->state : nullptr;
  if (!s || call.stage != stage::tool_body) {
    d.reason = "a file mutation can only be declared from a tool body the host is running";
    d.source = "host";
    return d;
  }
  // One intent at a time per call (CallState::fs_mutex).  No fs guard can
  // come back here: an intent is declared from a tool body only.
  std::lock_guard lock(s->fs_mutex);
  // The first refusal of the call stands: a later intent cannot clear it.
  auto refuse = [&](std::string reason, std::string source) {
    d.allowed = false;
    d.reason = to_valid_utf8(reason);
    d.source = std::move(source);
    if (!s->fs_refusal)
      s->fs_refusal = ErrorInfo{
          std::string(error_code::denied), d.reason, std::string(stage::fs_guard), d.source, {}};
    return d;
  };
  std::string why;
  auto r = resolve(requested, &why);
  boost::json::object event{{"requested", to_valid_utf8(requested)}};
  auto log = [&](std::string_view verdict) {
    if (!s->bus.active()) return;
    event["verdict"] = verdict;
    if (!d.allowed) {
      event["reason"] = d.reason;
      event["source"] = d.source;
    }
    s->emit(intent_event(kind), std::move(event));
  };
  if (!r) {
    refuse("cannot check the file " + std::string(requested) + ": " + why, "host");
    log("deny");
    return d;
  }
  d.path = r->path;
  event["path"] = r->path;
  event["exists"] = r->exists;
  event["via_link"] = r->via_link;
  std::string hash;
  if (r->exists) {
    auto h = file_content_hash(r->path);
    if (!h) {
      refuse("cannot read " + r->path + " to check it before changing it", "host");
      log("deny");
      return d;
    }
    hash = *h;
    event["content_hash"] = hash;
    // Read-before-edit: an existing file is changed only as the session
    // last saw it.  A new file needs no observation.
    auto seen = s->gen.fs_observations
                    ? s->gen.fs_observations->seen(s->identity.session_id, r->path)
                    : std::nullopt;
    if (!seen) {
      refuse(r->path + " was not read in this session; read it first, then change it",
             "host/read-before-edit");
      log("deny");
      return d;
    }
    if (*seen != hash) {
      refuse(r->path + " changed since this session read it; read it again, then change it",
             "host/read-before-edit");
      log("deny");
      return d;
    }
  }

  FsIntent intent{kind, r->path, requested, r->exists, r->via_link, hash};
  const auto& info_ = info(HookKind::fs_guard);
  std::string message, first;
  const auto deadline = s->options.guard_deadline;
  for (const auto& g : s->gen.fs_guards) {
    std::optional<std::string> reason;
    const auto started = deadline.count() > 0 ? coarse_now() : std::chrono::milliseconds{};
    auto run = invoke_hook(*s, info_.stage, g, [&] {
      HookCall view = s->view(info_.stage);
      reason = g.fn(FsGuardCall{view, intent});
    });
    if (!run.ran) continue;
    // The guards' deadline holds here too: an answer over it does not
    // count, whatever it was, and the mutation is refused (fail closed).
    if (const auto spent = coarse_now() - started; deadline.count() > 0 && spent > deadline) {
      s->record(info_.stage, g.id, "timeout", run.took, {{"ms", spent.count()}});
      if (!message.empty()) message += "; ";
      message += "fs guard " + g.id + " took " + std::to_string(spent.count()) + " ms, over its " +
                 std::to_string(deadline.count()) + " ms deadline";
      if (first.empty()) first = g.id;
      continue;
    }
    if (!run.ok) {
      // Fail closed: a guard that cannot answer denies the mutation.
      // Shadow mode included, as for guards: that is a broken invariant.
      s->record(info_.stage, g.id, "failed", run.took, {{"error", run.error}});
      if (!message.empty()) message += "; ";
      message += "fs guard " + g.id + " failed: " + run.error;
      if (first.empty()) first = g.id;
      continue;
    }
    if (!reason) {
      s->record(info_.stage, g.id, "abstain", run.took, {{"path", r->path}});
      continue;
    }
    if (reason->empty()) *reason = "denied by fs guard " + g.id;
    *reason = to_valid_utf8(*reason);
    if (g.shadow) {
      s->record(info_.stage, g.id, "would-deny", run.took,
                {{"reason", *reason}, {"path", r->path}, {"shadow", true}});
      continue;
    }
    s->record(info_.stage, g.id, "deny", run.took, {{"reason", *reason}, {"path", r->path}});
    if (!message.empty()) message += "; ";
    message += *reason;
    if (first.empty()) first = g.id;
  }
  if (!first.empty()) {
    refuse(message, first);
    log("deny");
    return d;
  }
  d.allowed = true;
  log("allow");
  return d;
}

void fs_observed(const HookCall& call, std::string_view path, std::string_view content_hash) {
  CallState* s = call.context ? call.context->state : nullptr;
  if (!s || !s->gen.fs_observations) return;
  std::lock_guard lock(s->fs_mutex);
  std::string why;
  auto r = resolve(path, &why);
  if (!r || !r->exists) return;
  std::string hash(content_hash);
  if (hash.empty()) {
    auto h = file_content_hash(r->path);
    if (!h) return;
    hash = *h;
  }
  s->gen.fs_observations->record(s->identity.session_id, r->path, hash);
  if (s->bus.active()) s->emit("fs/observed", {{"path", r->path}, {"content_hash", hash}});
}

}  // namespace toolgate::detail

namespace toolgate {

FsDecision ToolContext::write_intent(std::string_view path) const {
  return detail::fs_intent(call, FsIntentKind::write, path);
}
FsDecision ToolContext::edit_intent(std::string_view path) const {
  return detail::fs_intent(call, FsIntentKind::edit, path);
}
void ToolContext::observed(std::string_view path, std::string_view content_hash) const {
  detail::fs_observed(call, path, content_hash);
}

}  // namespace toolgate
