#include "raw_json.hpp"

namespace toolgate::mcp {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view t, std::size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

// `i` at a string's opening quote: the index after its closing quote.
std::size_t skip_string(std::string_view t, std::size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\')
      ++i;
    else if (t[i] == '"')
      return i + 1;
  }
  return t.size();
}

// `i` at a value's first byte: the index after its last.  Containers are
// walked with a depth count (strings skipped whole, so brackets inside them
// do not count); scalars end at the first byte that cannot be in one.
std::size_t skip_value(std::string_view t, std::size_t i) {
  if (i >= t.size()) return t.size();
  if (t[i] == '"') return skip_string(t, i);
  if (t[i] == '{' || t[i] == '[') {
    std::size_t depth = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (c == '"') {
        i = skip_string(t, i);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return t.size();
  }
  while (i < t.size() && !is_space(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
  return i;
}

}  // namespace

std::optional<MemberSpan> find_member(std::string_view t, std::size_t open, std::string_view key) {
  // Keys are compared as written: a key holding a backslash could equal
  // another key's escaped spelling, so it is never found (callers then
  // work from the parsed value).
  if (key.find('\\') != std::string_view::npos) return std::nullopt;
  if (open >= t.size() || t[open] != '{') return std::nullopt;
  std::size_t i = skip_space(t, open + 1);
  while (i < t.size() && t[i] == '"') {
    const std::size_t key_begin = i;
    const std::size_t key_end = skip_string(t, i);  // after the closing quote
    const std::string_view raw_key = t.substr(key_begin + 1, key_end - key_begin - 2);
    i = skip_space(t, key_end);
    if (i >= t.size() || t[i] != ':') return std::nullopt;
    const std::size_t value_begin = skip_space(t, i + 1);
    const std::size_t value_end = skip_value(t, value_begin);
    if (raw_key == key) return MemberSpan{{key_begin, value_end}, {value_begin, value_end}};
    i = skip_space(t, value_end);
    if (i >= t.size() || t[i] != ',') return std::nullopt;  // the object ends
    i = skip_space(t, i + 1);
  }
  return std::nullopt;
}

bool has_escaped_key(std::string_view t, std::size_t open) {
  if (open >= t.size() || t[open] != '{') return false;
  std::size_t i = skip_space(t, open + 1);
  while (i < t.size() && t[i] == '"') {
    const std::size_t key_end = skip_string(t, i);
    if (t.substr(i, key_end - i).find('\\') != std::string_view::npos) return true;
    i = skip_space(t, key_end);
    if (i >= t.size() || t[i] != ':') return false;
    i = skip_space(t, skip_value(t, skip_space(t, i + 1)));
    if (i >= t.size() || t[i] != ',') return false;
    i = skip_space(t, i + 1);
  }
  return false;
}

std::optional<MemberSpan> find_path(std::string_view t,
                                    std::initializer_list<std::string_view> path) {
  std::size_t open = skip_space(t, 0);
  std::optional<MemberSpan> m;
  for (auto key : path) {
    m = find_member(t, open, key);
    if (!m) return std::nullopt;
    open = m->value.begin;
  }
  return m;
}

std::string replace_span(std::string_view t, TextSpan span, std::string_view with) {
  std::string out;
  out.reserve(t.size() - (span.end - span.begin) + with.size());
  out.append(t.substr(0, span.begin));
  out.append(with);
  out.append(t.substr(span.end));
  return out;
}

std::string remove_member(std::string_view t, const MemberSpan& m) {
  // The comma after it goes with it; for the last member, the one before.
  std::size_t after = skip_space(t, m.member.end);
  if (after < t.size() && t[after] == ',')
    return replace_span(t, {m.member.begin, skip_space(t, after + 1)}, "");
  std::size_t before = m.member.begin;
  while (before > 0 && is_space(t[before - 1])) --before;
  if (before > 0 && t[before - 1] == ',') return replace_span(t, {before - 1, m.member.end}, "");
  return replace_span(t, m.member, "");
}

std::string insert_first_member(std::string_view t, std::size_t open, std::string_view key_text,
                                std::string_view value_text) {
  const std::size_t first = skip_space(t, open + 1);
  const bool empty = first < t.size() && t[first] == '}';
  std::string member;
  member.reserve(key_text.size() + value_text.size() + 2);
  member.append(key_text).append(":").append(value_text);
  if (!empty) member += ',';
  return replace_span(t, {open + 1, open + 1}, member);
}

}  // namespace toolgate::mcp
