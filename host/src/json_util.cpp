#include "json_util.hpp"

#include "strict_json.hpp"

#include <boost/container/small_vector.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace toolgate::detail {

namespace json = boost::json;

// The length of the well-formed UTF-8 sequence at p (1-4), or 0 if the
// bytes there are not one (overlong forms, surrogates and values past
// U+10FFFF included).
static std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  unsigned c = *p;
  int n;
  unsigned min;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 1;
    min = 0x80;
    c &= 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 2;
    min = 0x800;
    c &= 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 3;
    min = 0x10000;
    c &= 0x07;
  } else {
    return 0;
  }
  if (end - p <= n) return 0;
  for (int i = 1; i <= n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (p[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return static_cast<std::size_t>(n) + 1;
}

// Eight bytes at a time: SWAR tests over a 64-bit word, each exact as an
// "any byte" test.  Most text in a tool call is plain ASCII, and walking it
// byte by byte, twice, was a large part of normalizing an empty call's
// result.
constexpr std::uint64_t ones = 0x0101010101010101ULL;
constexpr std::uint64_t highs = 0x8080808080808080ULL;
static std::uint64_t load8(const unsigned char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
// A byte below n (n <= 128) in w.
static constexpr std::uint64_t has_less(std::uint64_t w, std::uint64_t n) {
  return (w - ones * n) & ~w & highs;
}
static constexpr std::uint64_t has_byte(std::uint64_t w, std::uint64_t b) {
  return has_less(w ^ (ones * b), 1);
}
// None of the eight needs a look of its own in a JSON string literal: all
// ASCII, no control character, no quote, no backslash.
static bool plain8(std::uint64_t w) {
  return ((w & highs) | has_less(w, 0x20) | has_byte(w, '"') | has_byte(w, '\\')) == 0;
}

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes;  // s[cut] is the first byte left out
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut);
}

bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (end - p >= 8 && (load8(p) & highs) == 0) {
      p += 8;  // eight ASCII bytes
      continue;
    }
    auto n = utf8_sequence(p, end);
    if (n == 0) return false;
    p += n;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  if (valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    auto n = utf8_sequence(p, end);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for each byte that starts no valid sequence
      ++p;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
      p += n;
    }
  }
  return out;
}

// Builds the JSON Pointer of the first invalid string (slow path, only run
// once a failure is known to exist).
static std::optional<std::string> locate_invalid_utf8(const json::value& root) {
  std::vector<std::pair<const json::value*, std::string>> stack{{&root, ""}};
  while (!stack.empty()) {
    auto [v, path] = std::move(stack.back());
    stack.pop_back();
    if (v->is_string()) {
      if (!valid_utf8(v->get_string())) return path.empty() ? "/" : path;
    } else if (v->is_array()) {
      const auto& a = v->get_array();
      for (std::size_t i = 0; i < a.size(); ++i)
        stack.emplace_back(&a[i], path + "/" + std::to_string(i));
    } else if (v->is_object()) {
      for (const auto& kv : v->get_object()) {
        if (!valid_utf8(kv.key())) return path + "/<key>";
        stack.emplace_back(&kv.value(), path + "/" + pointer_token(kv.key()));
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_invalid_utf8(const json::value& root) {
  // Fast path: no allocation for a usual result (inline stack of pointers).
  boost::container::small_vector<const json::value*, 32> stack{&root};
  while (!stack.empty()) {
    const json::value* v = stack.back();
    stack.pop_back();
    if (v->is_string()) {
      if (!valid_utf8(v->get_string())) return locate_invalid_utf8(root);
    } else if (v->is_array()) {
      for (const auto& x : v->get_array()) stack.push_back(&x);
    } else if (v->is_object()) {
      for (const auto& kv : v->get_object()) {
        if (!valid_utf8(kv.key())) return locate_invalid_utf8(root);
        stack.push_back(&kv.value());
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_non_finite(const json::value& root) {
  boost::container::small_vector<const json::value*, 32> stack{&root};
  while (!stack.empty()) {
    const json::value* v = stack.back();
    stack.pop_back();
    if (v->is_double()) {
      if (!std::isfinite(v->get_double())) {
        try {
          to_json_text(root);  // slow path, once one is known to exist: where is it
        } catch (const NonFiniteNumber& e) {
          return e.pointer().empty() ? "/" : e.pointer();
        }
      }
    } else if (v->is_array()) {
      for (const auto& x : v->get_array()) stack.push_back(&x);
    } else if (v->is_object()) {
      for (const auto& kv : v->get_object()) stack.push_back(&kv.value());
    }
  }
  return std::nullopt;
}

std::string non_finite_in_result(std::string_view where) {
  return "a non-finite number (NaN or infinity) at " + std::string(where) +
         ": JSON cannot carry it; return null or a string instead";
}

// Bytes of a JSON string literal, quotes included, with Boost.JSON's
// escapes: \" \\ \b \f \n \r \t take two bytes, other control characters
// six (\u00XX), everything else is written as is.
// The size of `s` written as a JSON string literal; `valid` cleared when
// it is not valid UTF-8.  One walk for both (normalization's scan).
static std::size_t string_literal_size(std::string_view s, bool& valid) {
  std::size_t n = 2 + s.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    if (end - p >= 8 && plain8(load8(p))) {
      p += 8;
      continue;
    }
    const unsigned char c = *p;
    if (c >= 0x80) {
      // Multi-byte characters are written as they are: only validity counts.
      const auto k = utf8_sequence(p, end);
      if (k == 0) valid = false;
      p += k ? k : 1;
      continue;
    }
    if (c == '"' || c == '\\')
      n += 1;
    else if (c < 0x20)
      n += (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') ? 1 : 5;
    ++p;
  }
  return n;
}

static std::size_t digits(std::uint64_t u) {
  std::size_t n = 1;
  while (u >= 10) {
    u /= 10;
    ++n;
  }
  return n;
}

JsonScan scan_json(const json::value& root, std::size_t stop_after) {
  JsonScan r;
  // Iterative: deep input cannot blow the stack.  Inline room for the
  // usual shallow result (no allocation); it grows only for large ones.
  boost::container::small_vector<const json::value*, 32> stack;
  stack.push_back(&root);
  while (!stack.empty() && r.bytes <= stop_after) {
    const json::value* v = stack.back();
    stack.pop_back();
    switch (v->kind()) {
      case json::kind::null:
        r.bytes += 4;
        break;
      case json::kind::bool_:
        r.bytes += v->get_bool() ? 4 : 5;
        break;
      case json::kind::int64: {
        auto i = v->get_int64();
        r.bytes += i < 0 ? 1 + digits(0 - static_cast<std::uint64_t>(i))
                         : digits(static_cast<std::uint64_t>(i));
        break;
      }
      case json::kind::uint64:
        r.bytes += digits(v->get_uint64());
        break;
      case json::kind::double_: {
        char buf[32];
        const std::size_t n = write_double(v->get_double(), buf);
        if (n == 0) r.finite = false;
        r.bytes += n;
        break;
      }
      case json::kind::string: {
        r.bytes += string_literal_size(v->get_string(), r.valid_utf8);
        break;
      }
      case json::kind::array: {
        const auto& a = v->get_array();
        r.bytes += 2 + (a.empty() ? 0 : a.size() - 1);  // brackets, commas
        for (const auto& x : a) stack.push_back(&x);
        break;
      }
      case json::kind::object: {
        const auto& o = v->get_object();
        r.bytes += 2 + (o.empty() ? 0 : o.size() - 1) + o.size();  // braces, commas, colons
        for (const auto& kv : o) {
          r.bytes += string_literal_size(kv.key(), r.valid_utf8);
          stack.push_back(&kv.value());
        }
        break;
      }
    }
  }
  return r;
}

std::string check_content_block(const json::value& block) {
  const auto* o = block.if_object();
  if (!o) return "a content block must be an object";
  auto str = [&](std::string_view k) {
    const auto* v = o->if_contains(k);
    return v && v->is_string();
  };
  if (!str("type")) return "a content block needs a string \"type\"";
  std::string_view type = o->at("type").get_string();
  if (type == "text") return str("text") ? "" : "a text block needs a string \"text\"";
  if (type == "image" || type == "audio")
    return str("data") && str("mimeType")
               ? ""
               : "an " + std::string(type) + " block needs \"data\" and \"mimeType\" strings";
  if (type == "resource_link")
    return str("uri") && str("name") ? ""
                                     : "a resource_link block needs \"uri\" and \"name\" strings";
  if (type == "resource") {
    const auto* r = o->if_contains("resource");
    return r && r->is_object() && r->get_object().if_contains("uri") &&
                   r->get_object().at("uri").is_string()
               ? ""
               : "a resource block needs a \"resource\" object with a string \"uri\"";
  }
  return "unknown content block type \"" + std::string(type) +
         "\" (text, image, audio, resource_link, resource)";
}

}  // namespace toolgate::detail

namespace toolgate {

std::optional<boost::json::value> parse_untrusted(std::string_view text, std::size_t max_depth,
                                                  std::string* why) {
  return parse_untrusted(text, max_depth, why, {});
}

std::optional<boost::json::value> parse_untrusted(std::string_view text, std::size_t max_depth,
                                                  std::string* why,
                                                  boost::json::storage_ptr storage) {
  detail::StrictJsonOptions opt;
  opt.max_depth = max_depth;
  opt.storage = std::move(storage);
  detail::StrictJsonError error;
  auto v = detail::parse_strict(text, opt, &error);
  if (!v && why) *why = (error.duplicate_key ? "invalid JSON: " : "invalid JSON ") + error.message;
  return v;
}

std::optional<std::string> replace_lone_surrogates(std::string_view text) {
  return detail::replace_lone_surrogates(text);
}

}  // namespace toolgate
