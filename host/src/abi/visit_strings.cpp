// visit_strings.cpp -- host->visit_strings (ABI 1.8; toolgate.h documents
// what each `which` covers).  Why it exists: a post-execute hook that only
// looks at the result's text (redact, which almost always finds nothing)
// used to have it written as JSON by the host and parsed again in the
// plugin -- two thirds of what redact cost a call.  Walking the values the
// engine already holds costs a few instructions per string.
#include "visit_strings.hpp"

#include "abi_types.hpp"

#include <boost/container/small_vector.hpp>

#include <string_view>

namespace toolgate::detail {

namespace {

namespace json = boost::json;

// Hands fn the strings of values in document order: every string value
// and, with `keys`, every object key (a key right before its value).
// Iterative, with its own stack: a deep value cannot exhaust the thread's.
// Each function returns false once fn asked to stop.
class StringWalk {
 public:
  StringWalk(tg_string_visitor_fn fn, void* user_data) : fn_(fn), user_data_(user_data) {}

  bool text(std::string_view s) { return fn_(user_data_, tg_str{s.data(), s.size()}) == 0; }

  bool value(const json::value& v, bool keys) {
    todo_.push_back({&v, {}});
    return drain(keys);
  }

  bool array(const json::array& a, bool keys) {
    for (auto it = a.rbegin(); it != a.rend(); ++it) todo_.push_back({&*it, {}});
    return drain(keys);
  }

  // The result as the engine holds it outside post-execute: its content
  // blocks and value whole, its error's strings (not the error's keys,
  // which are the result shape's own names).
  bool result(const ToolResult& r) {
    if (!array(r.content, true)) return false;
    if (r.value && !value(*r.value, true)) return false;
    if (!r.error) return true;
    const auto& e = *r.error;
    return text(e.code) && text(e.message) && text(e.stage) && text(e.source) &&
           array(e.denials, false);
  }

  // The same for post-execute's candidate, held in the result shape
  // ({"isError", "content", "value", "error"}).
  bool result_shape(const json::value& r) {
    const auto* o = r.if_object();
    if (!o) return value(r, true);  // not the shape: everything in it
    if (const auto* c = o->if_contains("content"); c && !value(*c, true)) return false;
    if (const auto* v = o->if_contains("value"); v && !value(*v, true)) return false;
    if (const auto* e = o->if_contains("error"); e && !value(*e, false)) return false;
    return true;
  }

 private:
  bool drain(bool keys) {
    while (!todo_.empty()) {
      const Item item = todo_.back();
      todo_.pop_back();
      if (!item.v) {
        if (!text(item.key)) return stop();
        continue;
      }
      switch (item.v->kind()) {
        case json::kind::string:
          if (!text(item.v->get_string())) return stop();
          break;
        case json::kind::array: {
          const auto& a = item.v->get_array();
          for (auto it = a.rbegin(); it != a.rend(); ++it) todo_.push_back({&*it, {}});
          break;
        }
        case json::kind::object: {
          // Pushed last to first, each value before its key: popped in
          // document order, each key first.
          const auto& o = item.v->get_object();
          for (auto it = o.end(); it != o.begin();) {
            --it;
            todo_.push_back({&it->value(), {}});
            if (keys) todo_.push_back({nullptr, it->key()});
          }
          break;
        }
        default:
          break;  // numbers, booleans, null: no text
      }
    }
    return true;
  }
  bool stop() {
    todo_.clear();
    return false;
  }

  struct Item {
    const json::value* v;  // nullptr: `key` is the text
    std::string_view key;
  };
  tg_string_visitor_fn fn_;
  void* user_data_;
  boost::container::small_vector<Item, 32> todo_;
};

}  // namespace

tg_status visit_strings(const tg_call* c, int32_t which, tg_string_visitor_fn fn,
                        void* user_data) noexcept {
  try {
    if (!c || !fn) return TG_INVALID_ARGUMENT;
    StringWalk walk(fn, user_data);
    if (which == TG_STRINGS_ARGUMENTS) {
      for (const auto& kv : c->view.arguments)
        if (!walk.text(kv.key()) || !walk.value(kv.value(), true)) break;
      return TG_OK;
    }
    if (which != TG_STRINGS_RESULT) return TG_INVALID_ARGUMENT;
    if (c->stage == AbiStage::observer && c->outcome)
      walk.result(c->outcome->result);
    else if ((c->stage == AbiStage::tool_finalize || c->stage == AbiStage::tool_present_result) &&
             c->finalize_input)
      walk.result(*c->finalize_input);
    else if (c->stage == AbiStage::post_execute) {
      // The candidate's JSON is built on first use: under the answer
      // block's lock, as result_json builds it (another thread of the same
      // callback may be asking at once).  Built, it does not change while
      // the callback runs.
      const json::value* candidate = nullptr;
      {
        LockedAnswers answers(c);
        candidate = c->view.candidate();
      }
      if (!candidate) return TG_WRONG_STAGE;
      walk.result_shape(*candidate);
    } else {
      return TG_WRONG_STAGE;
    }
    return TG_OK;
  } catch (...) {
    return TG_ERROR;  // an allocation for a deep value's stack failed
  }
}

}  // namespace toolgate::detail
