// json_text.cpp -- the engine's JSON writer (toolgate/json.hpp).
//
// Boost.JSON 1.81 writes 0.5 as "5E-1" (valid, but every number re-spelled
// in transit) and a NaN as "NaN" (not JSON at all).  Strings are escaped
// exactly as Boost.JSON escapes them, so scan_json's byte count
// (json_util.cpp) and this writer agree.
#include <toolgate/json.hpp>

#include "strict_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace toolgate {

namespace json = boost::json;

NonFiniteNumber::NonFiniteNumber(std::string pointer)
    : std::invalid_argument("a non-finite number (NaN or infinity) at " +
                            (pointer.empty() ? std::string("the top level") : pointer) +
                            ": JSON cannot carry it"),
      pointer_(std::move(pointer)) {}

std::size_t write_double(double d, char* buf) {
  if (!std::isfinite(d)) return 0;
  auto r = std::to_chars(buf, buf + 30, d);  // shortest round trip: at most 24 bytes
  std::size_t n = static_cast<std::size_t>(r.ptr - buf);
  // "2" or "-0" would read back as an integer: keep the value a double.
  if (std::memchr(buf, '.', n) == nullptr && std::memchr(buf, 'e', n) == nullptr) {
    buf[n++] = '.';
    buf[n++] = '0';
  }
  return n;
}

namespace {

void append_string(std::string& out, std::string_view s) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    out += '\\';
    switch (c) {
      case '"':
        out += '"';
        break;
      case '\\':
        out += '\\';
        break;
      case '\b':
        out += 'b';
        break;
      case '\f':
        out += 'f';
        break;
      case '\n':
        out += 'n';
        break;
      case '\r':
        out += 'r';
        break;
      case '\t':
        out += 't';
        break;
      default:
        out += "u00";
        out += hex[c >> 4];
        out += hex[c & 0xF];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

// One open array or object: where the writer is inside it.
struct Frame {
  const json::array* array = nullptr;
  const json::object* object = nullptr;
  std::size_t index = 0;
};

std::string pointer_of(const std::vector<Frame>& frames) {
  std::string p;
  for (const auto& f : frames) {
    p += '/';
    if (f.array)
      p += std::to_string(f.index - 1);
    else
      p += detail::pointer_token((f.object->begin() + (f.index - 1))->key());
  }
  return p;
}

// Writes a scalar, or opens a container (pushing its frame).
void write_value(std::string& out, const json::value& v, std::vector<Frame>& frames) {
  switch (v.kind()) {
    case json::kind::null:
      out += "null";
      break;
    case json::kind::bool_:
      out += v.get_bool() ? "true" : "false";
      break;
    case json::kind::int64: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, v.get_int64());
      out.append(buf, r.ptr);
      break;
    }
    case json::kind::uint64: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, v.get_uint64());
      out.append(buf, r.ptr);
      break;
    }
    case json::kind::double_: {
      char buf[32];
      std::size_t n = write_double(v.get_double(), buf);
      if (n == 0) throw NonFiniteNumber(pointer_of(frames));
      out.append(buf, n);
      break;
    }
    case json::kind::string:
      append_string(out, v.get_string());
      break;
    case json::kind::array:
      out += '[';
      frames.push_back({&v.get_array(), nullptr, 0});
      break;
    case json::kind::object:
      out += '{';
      frames.push_back({nullptr, &v.get_object(), 0});
      break;
  }
}

// Writes the open containers to their end.
void write_open(std::string& out, std::vector<Frame>& frames) {
  while (!frames.empty()) {
    Frame& f = frames.back();
    const std::size_t size = f.array ? f.array->size() : f.object->size();
    if (f.index == size) {
      out += f.array ? ']' : '}';
      frames.pop_back();
      continue;
    }
    if (f.index > 0) out += ',';
    const json::value* next;
    if (f.array) {
      next = &(*f.array)[f.index];
    } else {
      const auto& kv = *(f.object->begin() + f.index);
      append_string(out, kv.key());
      out += ':';
      next = &kv.value();
    }
    ++f.index;
    write_value(out, *next, frames);  // may push: `f` is not used after this
  }
}

}  // namespace

void append_json_text(std::string& out, const json::value& v) {
  std::vector<Frame> frames;
  write_value(out, v, frames);
  write_open(out, frames);
}

void append_canonical_json_text(std::string& out, const json::value& v) {
  if (const auto* o = v.if_object()) {
    std::vector<const json::key_value_pair*> members;
    members.reserve(o->size());
    for (const auto& kv : *o) members.push_back(&kv);
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) out += ',';
      append_json_text(out, json::string(members[i]->key()));
      out += ':';
      append_canonical_json_text(out, members[i]->value());
    }
    out += '}';
  } else if (const auto* a = v.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i) out += ',';
      append_canonical_json_text(out, (*a)[i]);
    }
    out += ']';
  } else {
    append_json_text(out, v);
  }
}

std::string canonical_json_text(const json::value& v) {
  std::string out;
  append_canonical_json_text(out, v);
  return out;
}

std::string to_json_text(const json::value& v) {
  std::string out;
  append_json_text(out, v);
  return out;
}

// A container is written without wrapping it in a json::value (a copy).
std::string to_json_text(const json::object& o) {
  std::string out = "{";
  std::vector<Frame> frames{{nullptr, &o, 0}};
  write_open(out, frames);
  return out;
}

std::string to_json_text(const json::array& a) {
  std::string out = "[";
  std::vector<Frame> frames{{&a, nullptr, 0}};
  write_open(out, frames);
  return out;
}

}  // namespace toolgate
