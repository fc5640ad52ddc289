// host_api.cpp -- the host API table handed to every plugin (toolgate.h §6).
//
// Over 400 lines on purpose: one function per table entry, in table order,
// so that this file reads side by side with toolgate.h section 6 (like
// sqlite3ext.h and its loadext.c).  Splitting it would scatter the table.
//
// Every entry is noexcept in effect: C callers cannot handle exceptions, so
// each function catches everything and answers with a status.
#include "host_api.hpp"

#include "../pipeline/fs_gate.hpp"

#include "../json_util.hpp"
#include "abi_types.hpp"
#include "visit_strings.hpp"

#include <spdlog/spdlog.h>
#include <boost/json/serialize.hpp>
#include <toolgate/events.hpp>
#include <toolgate/json.hpp>

#include <cmath>
#include <cstring>

namespace toolgate::detail {
namespace {

namespace json = boost::json;

std::string_view sv(tg_str s) {
  return s.data ? std::string_view(s.data, s.size) : std::string_view();
}
tg_str ts(std::string_view s) { return tg_str{s.data(), s.size()}; }

// Runs `fn`, mapping any exception to TG_ERROR.
template <class Fn>
tg_status safely(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (...) {
    return TG_ERROR;
  }
}

// Parses JSON handed over by a plugin; records why on failure.
std::optional<json::value> parse_from_plugin(tg_call* c, tg_str text, const char* what) {
  std::string why;
  auto v = parse_untrusted(sv(text), 64, &why);
  if (!v) LockedAnswers(c)->malformed = std::string(what) + " is not valid JSON (" + why + ")";
  return v;
}

bool valid_hook_name(const char* name) {
  if (!name || !*name) return false;
  for (const char* p = name; *p; ++p) {
    char ch = *p;
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.';
    if (!ok) return false;
  }
  return true;
}

// One registration path for every hook kind: `fn` holds the callback in
// its kind's alternative.
tg_status register_hook(tg_init_ctx* ctx, const tg_hook_options* o, CHookFn fn) {
  return safely([&]() -> tg_status {
    if (!ctx) return TG_INVALID_ARGUMENT;
    const auto& kind = info(static_cast<HookKind>(fn.index()));
    const std::string noun(kind.noun);
    auto err = [&](std::string m) {
      ctx->errors.push_back(std::move(m));
      return TG_INVALID_ARGUMENT;
    };
    if (!o || o->struct_size < offsetof(tg_hook_options, user_data) + sizeof(void*))
      return err("registering a " + noun +
                 ": tg_hook_options is missing or its struct_size is too small");
    if (o->struct_size > sizeof(tg_hook_options))
      return err("tg_hook_options is larger than this host knows (struct_size " +
                 std::to_string(o->struct_size) + ")");
    std::string name = o->name ? o->name : "";
    if (!valid_hook_name(o->name))
      return err("a " + noun + " name \"" + name +
                 "\" is empty or has characters outside [A-Za-z0-9._-]");
    if (std::visit([](auto f) { return f == nullptr; }, fn))
      return err(noun + " \"" + name + "\" has a NULL callback");
    if (!(ctx->plugin->capabilities & kind.capability))
      return err("registered " + noun + " \"" + name +
                 "\" but did not declare that capability in its descriptor");
    for (const auto& h : ctx->hooks)
      if (h.name == name) return err("hook name \"" + name + "\" is registered twice");
    std::vector<std::string> tools;
    if (o->tool_filter && *o->tool_filter) tools.emplace_back(o->tool_filter);
    ctx->hooks.push_back({name, std::move(tools), o->priority, o->user_data, fn});
    return TG_OK;
  });
}

// The table's register_* entries: each puts its callback in its kind's
// alternative (by index: two kinds share a C type).
template <HookKind K>
tg_status reg(tg_init_ctx* c, const tg_hook_options* o, CFnOf<K> f) {
  return register_hook(c, o, CHookFn(std::in_place_index<static_cast<std::size_t>(K)>, f));
}

// An execute wrapper's two forms share its kind's alternative.
tg_status reg_wrapper(tg_init_ctx* c, const tg_hook_options* o, tg_execute_wrapper_fn f) {
  constexpr auto k = static_cast<std::size_t>(HookKind::execute_wrapper);
  return register_hook(c, o, CHookFn(std::in_place_index<k>, CWrapperFns{f, nullptr, nullptr}));
}
tg_status reg_wrapper_halves(tg_init_ctx* c, const tg_hook_options* o, tg_wrapper_before_fn before,
                             tg_wrapper_after_fn after) {
  constexpr auto k = static_cast<std::size_t>(HookKind::execute_wrapper);
  return register_hook(c, o, CHookFn(std::in_place_index<k>, CWrapperFns{nullptr, before, after}));
}

tg_status reg_tool(tg_init_ctx* ctx, const tg_tool_definition* d) {
  return safely([&]() -> tg_status {
    if (!ctx) return TG_INVALID_ARGUMENT;
    auto err = [&](std::string m) {
      ctx->errors.push_back(std::move(m));
      return TG_INVALID_ARGUMENT;
    };
    if (!d || d->struct_size < offsetof(tg_tool_definition, user_data) + sizeof(void*))
      return err("tg_tool_definition is missing or its struct_size is too small");
    if (d->struct_size > sizeof(tg_tool_definition))
      return err("tg_tool_definition is larger than this host knows");
    if (!(ctx->plugin->capabilities & TG_CAP_TOOLS))
      return err("registered a tool but did not declare TG_CAP_TOOLS");
    if (!valid_hook_name(d->name)) return err("a tool name is empty or invalid");
    if (!d->execute) return err(std::string("tool \"") + d->name + "\" has no execute callback");
    tg_init_ctx::PendingTool t{d->name,        d->description ? d->description : "",
                               nullptr,        nullptr,
                               d->annotations, d->execute,
                               d->render,      d->finalize_content,
                               d->user_data};
    // Appended in 1.4: an older plugin's shorter struct ends before them.
    if (d->struct_size >= offsetof(tg_tool_definition, present_result) + sizeof(void*)) {
      t.present_call = d->present_call;
      t.present_result = d->present_result;
    }
    std::string why;
    if (d->input_schema_json.size) {
      auto v = parse_untrusted(sv(d->input_schema_json), 64, &why);
      if (!v) return err(std::string("tool \"") + d->name + "\" input schema: " + why);
      t.input_schema = std::move(*v);
    }
    if (d->output_schema_json.size) {
      auto v = parse_untrusted(sv(d->output_schema_json), 64, &why);
      if (!v) return err(std::string("tool \"") + d->name + "\" output schema: " + why);
      t.output_schema = std::move(*v);
    }
    ctx->tools.push_back(std::move(t));
    return TG_OK;
  });
}

void init_error(tg_init_ctx* ctx, const char* message) {
  safely([&] {
    if (ctx) ctx->errors.emplace_back(message ? message : "(no message)");
    return TG_OK;
  });
}

void reject_config(tg_init_ctx* ctx, const char* pointer, const char* message) {
  safely([&] {
    if (ctx)
      ctx->config_rejection.emplace(pointer ? pointer : "", message ? message : "(no message)");
    return TG_OK;
  });
}

// ---- reading ----------------------------------------------------------------

tg_status call_info(const tg_call* c, tg_call_info* out) {
  if (!c || !out || out->struct_size < offsetof(tg_call_info, attempt) + sizeof(uint32_t))
    return TG_INVALID_ARGUMENT;
  const auto& id = c->view.identity;
  out->tool_name = ts(id.tool);
  out->call_id = ts(id.call_id);
  out->session_id = ts(id.session_id);
  out->parent_token = ts(id.parent_token);
  out->stage = ts(c->view.stage);
  out->annotations = c->view.annotations;
  out->attempt = c->view.attempt;
  // Appended in 1.3: written only when the plugin's struct has room for
  // them; an older plugin's shorter struct ends at `attempt`.
  if (out->struct_size >= offsetof(tg_call_info, client) + sizeof(tg_str))
    out->client = ts(id.client);
  if (out->struct_size >= offsetof(tg_call_info, agent_id) + sizeof(tg_str))
    out->agent_id = ts(id.agent_id);
  // Appended in 1.5.
  if (out->struct_size >= offsetof(tg_call_info, parent_call_id) + sizeof(tg_str))
    out->parent_call_id = ts(id.parent_call_id);
  if (out->struct_size >= offsetof(tg_call_info, depth) + sizeof(uint32_t)) out->depth = id.depth;
  return TG_OK;
}

tg_status arguments_json(const tg_call* c, tg_str* out) {
  return safely([&]() -> tg_status {
    if (!c || !out) return TG_INVALID_ARGUMENT;
    LockedAnswers a(c);
    if (!a->arguments_text) a->arguments_text = to_json_text(c->view.arguments);
    *out = ts(*a->arguments_text);
    return TG_OK;
  });
}

// The member `key` of `o`.  A call's arguments are a handful of short
// keys: a scan comparing lengths, then bytes in place, beats hashing the
// key and calling memcmp.  A large object is looked up through its index
// (a hostile one with many keys costs no more per lookup than Boost.JSON's
// own find).  Inlined, like lookup below, into the few readers: a guard
// reading one argument pays for no calls between them.
[[gnu::always_inline]] inline const json::value* member(const json::object& o,
                                                        std::string_view key) {
  if (o.size() > 16) return o.if_contains(key);
  for (const auto& kv : o) {
    const json::string_view k = kv.key();
    if (k.size() != key.size()) continue;
    std::size_t i = 0;
    while (i < key.size() && k[i] == key[i]) ++i;
    if (i == key.size()) return &kv.value();
  }
  return nullptr;
}

// A pointer's first token with its escapes undone (RFC 6901: ~1 is '/',
// ~0 is '~'): the rare path, kept out of the common one.
std::string unescape_token(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// One value by RFC 6901 JSON Pointer inside `root`, without a copy: the
// arguments of a call (arg_get) and the config of a plugin (config_get) are
// both objects the host keeps parsed, read by this one lookup.  Returns
// nullptr with *st set when nothing is there; `whole` is set for "", the
// object itself.
[[gnu::always_inline]] inline const json::value* lookup(const json::object* root,
                                                        const char* pointer, tg_status* st,
                                                        bool* whole) {
  *whole = false;
  if (!root || !pointer) {
    *st = TG_INVALID_ARGUMENT;
    return nullptr;
  }
  if (pointer[0] == '\0') {
    *whole = true;
    *st = TG_OK;
    return nullptr;
  }
  if (pointer[0] != '/') {
    *st = TG_INVALID_ARGUMENT;
    return nullptr;
  }
  // The first token, in one pass: where it ends and whether it holds an
  // escape.  (Hooks read "/path" or "/command" on every call: this lookup
  // is a large part of what a small guard costs.)
  const char* end = pointer + 1;
  bool escaped = false;
  for (; *end && *end != '/'; ++end) escaped |= *end == '~';
  const std::string_view token(pointer + 1, static_cast<std::size_t>(end - pointer - 1));
  const json::value* v = escaped ? member(*root, unescape_token(token)) : member(*root, token);
  // find_pointer works on a value: the rest of the pointer is looked up on
  // the member, so no copy of the root is made.
  if (v && *end) {
    boost::system::error_code ec;
    v = v->find_pointer(json::string_view(end), ec);
  }
  *st = v ? TG_OK : TG_NOT_FOUND;
  return v;
}

// arg_get and config_get: one value by pointer as a tg_json_value.  A
// problem with `out` itself is explained in *why (the caller puts it where
// the plugin author will read it).
tg_status get_value(const json::object* root, const char* pointer, tg_json_value* out,
                    std::string* why) {
  constexpr std::size_t need = offsetof(tg_json_value, size) + sizeof(size_t);
  if (!out) {
    *why = "the tg_json_value pointer is NULL";
    return TG_INVALID_ARGUMENT;
  }
  if (out->struct_size < need) {
    *why = "tg_json_value.struct_size is " + std::to_string(out->struct_size) +
           ", smaller than a tg_json_value (" + std::to_string(need) +
           " bytes): set it to sizeof(tg_json_value) before the call";
    return TG_INVALID_ARGUMENT;
  }
  tg_status st;
  bool whole = false;
  const json::value* v = lookup(root, pointer, &st, &whole);
  if (!v && !whole) return st;
  out->boolean = 0;
  out->integer = 0;
  out->number = 0;
  out->string = tg_str{nullptr, 0};
  out->size = 0;
  if (whole) {
    out->type = TG_JSON_OBJECT;
    out->size = root->size();
    return TG_OK;
  }
  switch (v->kind()) {
    case json::kind::null:
      out->type = TG_JSON_NULL;
      break;
    case json::kind::bool_:
      out->type = TG_JSON_BOOL;
      out->boolean = v->get_bool();
      break;
    case json::kind::int64:
      out->type = TG_JSON_INT;
      out->integer = v->get_int64();
      out->number = static_cast<double>(v->get_int64());
      break;
    case json::kind::uint64:
      if (v->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
        out->type = TG_JSON_INT;
        out->integer = static_cast<std::int64_t>(v->get_uint64());
      } else {
        out->type = TG_JSON_DOUBLE;
      }
      out->number = static_cast<double>(v->get_uint64());
      break;
    case json::kind::double_: {
      // An integral double that fits (5.0) is TG_JSON_INT, as the header
      // defines it: a config schema's "integer" accepts 5.0, and a C plugin
      // trusting the schema reads `integer`.
      const double d = v->get_double();
      out->number = d;
      if (std::trunc(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        out->type = TG_JSON_INT;
        out->integer = static_cast<std::int64_t>(d);
      } else {
        out->type = TG_JSON_DOUBLE;
      }
      break;
    }
    case json::kind::string:
      out->type = TG_JSON_STRING;
      out->string = ts(v->get_string());
      break;
    case json::kind::array:
      out->type = TG_JSON_ARRAY;
      out->size = v->get_array().size();
      break;
    case json::kind::object:
      out->type = TG_JSON_OBJECT;
      out->size = v->get_object().size();
      break;
  }
  return TG_OK;
}

// arg_string and config_string.
tg_status get_string(const json::object* root, const char* pointer, tg_str* out) {
  if (!out) return TG_INVALID_ARGUMENT;
  tg_status st;
  bool whole = false;
  const json::value* v = lookup(root, pointer, &st, &whole);
  if (whole) return TG_TYPE_MISMATCH;  // the object is not a string
  if (!v) return st;
  if (!v->is_string()) return TG_TYPE_MISMATCH;
  *out = ts(v->get_string());
  return TG_OK;
}

tg_status arg_get(const tg_call* c, const char* pointer, tg_json_value* out) {
  return safely([&]() -> tg_status {
    std::string why;
    tg_status st = get_value(c ? &c->view.arguments : nullptr, pointer, out, &why);
    // The call's error message is what the host reports if the callback
    // then fails; a message of the plugin's own is kept.
    if (!why.empty() && c) {
      LockedAnswers a(c);
      if (a->error.empty()) a->error = "arg_get: " + why;
    }
    return st;
  });
}

tg_status client_context_get(const tg_call* c, const char* pointer, tg_json_value* out) {
  return safely([&]() -> tg_status {
    static const json::object nothing;
    const auto& context = c ? c->view.identity.client_context : nullptr;
    std::string why;
    tg_status st = get_value(context ? context.get() : &nothing, pointer, out, &why);
    if (!why.empty() && c) {
      LockedAnswers a(c);
      if (a->error.empty()) a->error = "client_context_get: " + why;
    }
    return st;
  });
}

tg_status arg_string(const tg_call* c, const char* pointer, tg_str* out) {
  return safely(
      [&]() -> tg_status { return get_string(c ? &c->view.arguments : nullptr, pointer, out); });
}

int32_t current_decision(const tg_call* c) {
  if (!c) return TG_PRE_DENY;
  switch (c->view.decision) {
    case Decision::allow:
      return TG_PRE_ALLOW;
    case Decision::ask:
      return TG_PRE_ASK;
    case Decision::deny:
      return TG_PRE_DENY;
  }
  return TG_PRE_DENY;
}

int32_t call_outcome(const tg_call* c) {
  return c && !c->view.denied ? TG_OUTCOME_EXECUTED : TG_OUTCOME_DENIED;
}

tg_status result_json(const tg_call* c, tg_str* out) {
  return safely([&]() -> tg_status {
    if (!c || !out) return TG_INVALID_ARGUMENT;
    LockedAnswers a(c);
    if (!a->result_text) {
      if (c->stage == AbiStage::observer && c->outcome)
        a->result_text = to_json_text(c->outcome->to_json());
      else if ((c->stage == AbiStage::tool_finalize || c->stage == AbiStage::tool_present_result) &&
               c->finalize_input)
        a->result_text = to_json_text(c->finalize_input->to_json());
      else if (const auto* candidate =
                   c->stage == AbiStage::post_execute ? c->view.candidate() : nullptr)
        a->result_text = to_json_text(*candidate);
      else
        return TG_WRONG_STAGE;
    }
    *out = ts(*a->result_text);
    return TG_OK;
  });
}

tg_status value_json(const tg_call* c, tg_str* out) {
  return safely([&]() -> tg_status {
    if (!c || !out) return TG_INVALID_ARGUMENT;
    if (c->stage != AbiStage::tool_render || !c->render_value) return TG_WRONG_STAGE;
    LockedAnswers a(c);
    if (!a->value_text) a->value_text = to_json_text(*c->render_value);
    *out = ts(*a->value_text);
    return TG_OK;
  });
}

// ---- answering ----------------------------------------------------------------

void set_error(const tg_call* c, const char* message) {
  safely([&] {
    // No status to refuse with: invalid UTF-8 is replaced (U+FFFD), not kept.
    if (c) LockedAnswers(c)->error = to_valid_utf8(message ? message : "");
    return TG_OK;
  });
}

// Whether the callback `c` was made for may change what `right` names.
bool may(const tg_call* c, std::uint32_t right) { return abi_rights(c->stage) & right; }

tg_status set_reason(const tg_call* c, tg_str reason) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::set_reason)) return TG_WRONG_STAGE;
    if (!valid_utf8(sv(reason))) return TG_INVALID_ARGUMENT;
    LockedAnswers(c)->reason = std::string(sv(reason));
    return TG_OK;
  });
}

tg_status set_arguments(tg_call* c, tg_str text) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::set_arguments)) return TG_WRONG_STAGE;
    auto v = parse_from_plugin(c, text, "replacement arguments");
    if (!v) return TG_INVALID_ARGUMENT;
    if (!v->is_object()) {
      LockedAnswers(c)->malformed = "replacement arguments must be a JSON object";
      return TG_INVALID_ARGUMENT;
    }
    LockedAnswers(c)->new_arguments = std::move(v->get_object());
    return TG_OK;
  });
}

tg_status set_result(tg_call* c, tg_str text) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::set_result)) return TG_WRONG_STAGE;
    auto v = parse_from_plugin(c, text, "the replacement result");
    if (!v) return TG_INVALID_ARGUMENT;
    LockedAnswers(c)->new_result = std::move(*v);
    return TG_OK;
  });
}

tg_status add_context(tg_call* c, tg_str text) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::add_context)) return TG_WRONG_STAGE;
    if (!valid_utf8(sv(text))) return TG_INVALID_ARGUMENT;
    LockedAnswers(c)->contexts.emplace_back(sv(text));
    return TG_OK;
  });
}

tg_status set_value(tg_call* c, tg_str text) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::set_value)) return TG_WRONG_STAGE;
    auto v = parse_from_plugin(c, text, "the tool's value");
    if (!v) return TG_INVALID_ARGUMENT;
    LockedAnswers(c)->value = std::move(*v);
    return TG_OK;
  });
}

tg_status set_content(tg_call* c, tg_str text) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (!may(c, abi_right::set_content)) return TG_WRONG_STAGE;
    auto v = parse_from_plugin(c, text, "the content");
    if (!v) return TG_INVALID_ARGUMENT;
    if (!v->is_array()) {
      LockedAnswers(c)->malformed = "content must be a JSON array of content blocks";
      return TG_INVALID_ARGUMENT;
    }
    LockedAnswers(c)->content = std::move(v->get_array());
    return TG_OK;
  });
}

// ---- wrappers and signals --------------------------------------------------------

tg_status call_next(const tg_next* n, const tg_signal* s, const tg_result** out) {
  return safely([&]() -> tg_status {
    if (!n || !s || !out) return TG_INVALID_ARGUMENT;
    auto* next = const_cast<tg_next*>(n);
    const ExecResult& r = (*next->next)(s->signal);
    *out = &next->results.emplace_back(tg_result{&r});
    return TG_OK;
  });
}

int32_t result_is_error(const tg_result* r) { return !r || r->result->is_error; }

tg_str result_error_code(const tg_result* r) {
  if (!r) return ts(error_code::plugin_error);
  return ts(r->result->error_code);
}

const tg_signal* signal_child(const tg_signal* parent, uint64_t timeout_ns) {
  try {
    if (!parent) return nullptr;
    auto child = parent->signal->child(std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::min<uint64_t>(timeout_ns, INT64_MAX / 2))));
    return parent->arena->add(std::move(child));
  } catch (...) {
    return nullptr;
  }
}

int32_t to_fired(SignalState s) {
  switch (s) {
    case SignalState::pending:
      return 0;
    case SignalState::cancelled:
      return TG_CANCELLED;
    case SignalState::timed_out:
      return TG_TIMEOUT;
  }
  return TG_CANCELLED;
}

int32_t signal_fired(const tg_signal* s) { return s ? to_fired(s->signal->state()) : TG_CANCELLED; }

int32_t signal_wait(const tg_signal* s, uint64_t timeout_ns) {
  try {
    if (!s) return TG_CANCELLED;
    return to_fired(s->signal->wait_for(std::chrono::nanoseconds(
        static_cast<std::int64_t>(std::min<uint64_t>(timeout_ns, INT64_MAX / 2)))));
  } catch (...) {
    return TG_CANCELLED;
  }
}

// ---- events and logs -----------------------------------------------------------------

tg_status emit_event(const tg_call* c, const char* type, tg_str data) {
  return safely([&]() -> tg_status {
    if (!c || !type || !*type) return TG_INVALID_ARGUMENT;
    // Host event types cannot be forged by a plugin.
    if (reserved_event_type(type) || !valid_utf8(type)) return TG_INVALID_ARGUMENT;
    std::string why;
    auto v = parse_untrusted(sv(data), 64, &why);
    if (!v || !v->is_object()) return TG_INVALID_ARGUMENT;
    auto obj = std::move(v->get_object());
    obj["plugin"] = c->plugin ? c->plugin->id : "";
    c->view.emit(type, std::move(obj));
    return TG_OK;
  });
}

// A tool body's file mutations (fs_gate.cpp does the work).
tg_status fs_intent(tg_call* c, int32_t kind, tg_str path, tg_str* out_path, tg_str* out_reason) {
  return safely([&]() -> tg_status {
    if (!c || (kind != TG_FS_WRITE && kind != TG_FS_EDIT)) return TG_INVALID_ARGUMENT;
    if (c->stage != AbiStage::tool_execute) return TG_WRONG_STAGE;
    auto d = detail::fs_intent(
        c->view, kind == TG_FS_WRITE ? FsIntentKind::write : FsIntentKind::edit, sv(path));
    LockedAnswers a(c);
    const std::string& resolved = a->fs_texts.emplace_back(std::move(d.path));
    const std::string& refusal =
        a->fs_texts.emplace_back(d.allowed ? std::string() : d.reason + " (" + d.source + ")");
    if (out_path) *out_path = ts(resolved);
    if (out_reason) *out_reason = ts(refusal);
    return d.allowed ? TG_OK : TG_DENIED;
  });
}

tg_status fs_observed(tg_call* c, tg_str path, tg_str content_hash) {
  return safely([&]() -> tg_status {
    if (!c) return TG_INVALID_ARGUMENT;
    if (c->stage != AbiStage::tool_execute) return TG_WRONG_STAGE;
    detail::fs_observed(c->view, sv(path), sv(content_hash));
    return TG_OK;
  });
}

tg_status set_tool_verdict(tg_init_ctx* ctx, const char* hook_name, tg_tool_verdict_fn fn) {
  return safely([&]() -> tg_status {
    if (!ctx) return TG_INVALID_ARGUMENT;
    auto err = [&](std::string m) {
      ctx->errors.push_back("set_tool_verdict: " + std::move(m));
      return TG_INVALID_ARGUMENT;
    };
    std::string name = hook_name ? hook_name : "";
    if (!fn) return err("hook \"" + name + "\" was given a NULL verdict function");
    for (auto& h : ctx->hooks) {
      if (h.name != name) continue;
      auto kind = static_cast<HookKind>(h.fn.index());
      if (kind != HookKind::pre_execute && kind != HookKind::guard)
        return err("\"" + name + "\" is a " + std::string(info(kind).noun) +
                   "; only pre-execute hooks and guards have a static verdict");
      if (h.verdict) return err("hook \"" + name + "\" already has a static verdict");
      h.verdict = fn;
      return TG_OK;
    }
    return err("no hook named \"" + name +
               "\" is registered yet; register the pre-execute hook or guard first");
  });
}

void log(const tg_call* c, int32_t level, tg_str message) {
  safely([&] {
    std::string_view who = c && c->plugin ? std::string_view(c->plugin->id) : "plugin";
    auto lvl = level <= TG_LOG_DEBUG  ? spdlog::level::debug
               : level == TG_LOG_INFO ? spdlog::level::info
               : level == TG_LOG_WARN ? spdlog::level::warn
                                      : spdlog::level::err;
    spdlog::log(lvl, "[{}] {}", who, sv(message));
    return TG_OK;
  });
}

// ---- reading the config (init only) ------------------------------------------

tg_status config_get(tg_init_ctx* ctx, const char* pointer, tg_json_value* out) {
  return safely([&]() -> tg_status {
    std::string why;
    tg_status st = get_value(ctx ? ctx->config : nullptr, pointer, out, &why);
    if (!why.empty() && ctx) ctx->notes.push_back("config_get: " + why);
    return st;
  });
}

tg_status config_string(tg_init_ctx* ctx, const char* pointer, tg_str* out) {
  return safely(
      [&]() -> tg_status { return get_string(ctx ? ctx->config : nullptr, pointer, out); });
}

}  // namespace

const tg_host_api* host_api() {
  static const tg_host_api table = {
      sizeof(tg_host_api),
      TOOLGATE_ABI_MAJOR,
      TOOLGATE_ABI_MINOR,
      reg<HookKind::pre_execute>,
      reg<HookKind::guard>,
      reg_wrapper,
      reg<HookKind::post_execute>,
      reg<HookKind::result_observer>,
      reg_tool,
      init_error,
      reject_config,
      call_info,
      arguments_json,
      arg_get,
      arg_string,
      current_decision,
      call_outcome,
      result_json,
      value_json,
      set_error,
      set_reason,
      set_arguments,
      set_result,
      add_context,
      set_value,
      set_content,
      call_next,
      result_is_error,
      result_error_code,
      signal_child,
      signal_fired,
      signal_wait,
      emit_event,
      log,
      config_get,
      config_string,
      reg<HookKind::fs_guard>,
      fs_intent,
      fs_observed,
      set_tool_verdict,
      client_context_get,
      reg_wrapper_halves,
      visit_strings,
  };
  return &table;
}

}  // namespace toolgate::detail
