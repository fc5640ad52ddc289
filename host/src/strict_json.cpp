#include "strict_json.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <vector>

namespace toolgate::detail {

namespace json = boost::json;

namespace {

// Builds the value exactly as Boost.JSON's own parser does (a value_stack),
// and checks each object's keys when the object closes.  Small objects are
// compared pairwise; large ones are sorted, so a hostile object with many
// keys costs n log n, not n squared.
//
// The open objects' keys are kept as views: into the text being parsed
// when the parser hands a key over whole from it (the usual case: no
// escapes), or into a copy kept for the parse when it came in pieces.  A
// typical call's keys and nesting fit the inline buffers: the check
// allocates nothing.
class Handler {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  Handler(unsigned char* temp, std::size_t temp_size) : st(json::storage_ptr(), temp, temp_size) {}

  // The text the parser is given: a key inside it is kept as a view.
  void set_input(std::string_view text) { input_ = text; }

  json::value_stack st;

  // Set after a duplicate is found: which object (its ordinal in document
  // order), which key, and the object's JSON Pointer.
  bool duplicate = false;
  std::string duplicate_key, duplicate_pointer;
  std::size_t duplicate_object = 0;

  // The passes locating the copies set `locating` and count how many times
  // `duplicate_key` closes in object `duplicate_object`.
  bool locating = false;
  std::size_t found = 0;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }

  bool on_object_begin(json::error_code&) {
    note_value();
    frames_.push_back({true, keys_.size(), objects_seen_++, 0, owned_keys_.size()});
    return true;
  }
  bool on_object_end(std::size_t n, json::error_code& ec) {
    if (!locating && has_duplicate(frames_.back().first_key)) {
      duplicate = true;
      duplicate_object = frames_.back().ordinal;
      duplicate_pointer = pointer_of_top();
      ec = json::error::syntax;  // stops the parser; `duplicate` says why
      return false;
    }
    // The closed object's keys are the last ones (and the copies of its
    // keys that came in pieces, the last owned ones).
    keys_.resize(frames_.back().first_key);
    if (owned_keys_.size() > frames_.back().first_owned)
      owned_keys_.resize(frames_.back().first_owned);
    frames_.pop_back();
    st.push_object(n);
    return true;
  }
  bool on_array_begin(json::error_code&) {
    note_value();
    frames_.push_back({false, 0, 0, 0, 0});
    return true;
  }
  bool on_array_end(std::size_t n, json::error_code&) {
    frames_.pop_back();
    st.push_array(n);
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    key_part_.append(s.data(), s.size());
    st.push_chars(s);
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    const bool in_input = key_part_.empty() && s.data() >= input_.data() &&
                          s.data() + s.size() <= input_.data() + input_.size();
    if (in_input) {
      keys_.emplace_back(s.data(), s.size());
    } else {
      key_part_.append(s.data(), s.size());
      keys_.emplace_back(
          *owned_keys_.emplace_back(std::make_unique<std::string>(std::move(key_part_))));
      key_part_.clear();
    }
    if (locating && frames_.back().ordinal == duplicate_object &&
        key(keys_.size() - 1) == duplicate_key)
      ++found;
    ++frames_.back().count;
    st.push_key(s);
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    note_value();
    st.push_string(s);
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    note_value();
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    note_value();
    st.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view s, json::error_code& ec) {
    // Boost.JSON 1.81's own reading is not correctly rounded (55 of 200
    // random doubles came out one ulp off, 0.00011133861541748047 as ...048;
    // 1.7976931348623158e308, the largest double, as infinity), so the
    // number is read again from its text, which std::from_chars reads
    // correctly rounded.  (`s` is the whole number here: the text is
    // written in one piece.)  Out of range: a number too small for a double
    // is the zero it rounds to; one too large is refused, since JSON cannot
    // write the infinity it would become, and a guard comparing it sees
    // neither more nor less.
    double exact = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), exact);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) {
      d = exact;
    } else if (r.ec == std::errc::result_out_of_range && std::abs(d) < 1) {
      d = !s.empty() && s[0] == '-' ? -0.0 : 0.0;
    } else {
      ec = json::error::exponent_overflow;
      return false;
    }
    note_value();
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, json::error_code&) {
    note_value();
    st.push_bool(b);
    return true;
  }
  bool on_null(json::error_code&) {
    note_value();
    st.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  struct Frame {
    bool object;
    std::size_t first_key;    // objects: where this object's keys start in keys_
    std::size_t ordinal;      // objects: the how-manieth object of the document
    std::size_t count;        // keys read (object) or values read (array)
    std::size_t first_owned;  // objects: where its put-together keys start
  };

  // An array counts its elements so that a pointer can name the index.
  void note_value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().count;
  }

  // The i-th open key.
  std::string_view key(std::size_t i) const { return keys_[i]; }

  bool has_duplicate(std::size_t first) {
    const std::size_t n = keys_.size() - first;
    if (n < 2) return false;
    if (n <= 16) {
      for (std::size_t i = first; i < keys_.size(); ++i)
        for (std::size_t j = i + 1; j < keys_.size(); ++j)
          if (key(i) == key(j)) {
            duplicate_key = std::string(key(i));
            return true;
          }
      return false;
    }
    sorted_.clear();
    for (std::size_t i = first; i < keys_.size(); ++i) sorted_.push_back(key(i));
    std::sort(sorted_.begin(), sorted_.end());
    auto it = std::adjacent_find(sorted_.begin(), sorted_.end());
    if (it == sorted_.end()) return false;
    duplicate_key = std::string(*it);
    return true;
  }

  // The JSON Pointer of the innermost open value (the object being closed).
  std::string pointer_of_top() const {
    std::string out;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      // Appended piece by piece: "/" + a temporary string trips GCC 12's
      // -Wrestrict (a false positive in operator+(const char*, string&&)).
      out += '/';
      if (f.object)
        out += pointer_token(key(f.first_key + f.count - 1));
      else
        out += std::to_string(f.count - 1);
    }
    return out;
  }

  // The keys of every open object, outermost first (a closed object's are
  // the last, and go).
  std::string_view input_;
  boost::container::small_vector<std::string_view, 32> keys_;
  // Keys that came in pieces (escapes, or split by the parser's buffer),
  // put together; each on its own, so the views of earlier ones stay valid
  // (and a parse without such keys allocates nothing here, where a deque
  // allocated two blocks up front).
  std::vector<std::unique_ptr<std::string>> owned_keys_;
  std::string key_part_;  // the pieces of the key being read, so far
  boost::container::small_vector<Frame, 8> frames_;
  std::vector<std::string_view> sorted_;
  std::size_t objects_seen_ = 0;
};

json::parse_options parser_options(const StrictJsonOptions& o) {
  json::parse_options opt;
  opt.max_depth = o.max_depth;
  opt.allow_comments = o.allow_comments;
  opt.allow_trailing_commas = o.allow_trailing_commas;
  return opt;
}

void set_position(std::string_view text, std::size_t offset, std::size_t* line,
                  std::size_t* column) {
  offset = std::min(offset, text.size());
  *line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  std::size_t nl = offset ? text.rfind('\n', offset - 1) : std::string_view::npos;
  *column = offset - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
}

// A key's closing quote at `close`: where its opening quote is (a quote
// after an odd number of backslashes is part of the key).
std::size_t key_start(std::string_view text, std::size_t close) {
  for (std::size_t i = close; i-- > 0;) {
    if (text[i] != '"') continue;
    std::size_t slashes = 0;
    while (i > slashes && text[i - 1 - slashes] == '\\') ++slashes;
    if (slashes % 2 == 0) return i;
  }
  return 0;
}

// How many copies of the duplicated key the first `n` bytes of the text
// hold in the object that repeats it (the prefix written whole, as if more
// were to come).
std::size_t copies_within(std::string_view text, std::size_t n, const StrictJsonOptions& options,
                          const Handler& first_pass) {
  unsigned char temp[256];
  json::basic_parser<Handler> p(parser_options(options), temp, sizeof temp);
  Handler& h = p.handler();
  h.set_input(text);
  h.locating = true;
  h.duplicate_key = first_pass.duplicate_key;
  h.duplicate_object = first_pass.duplicate_object;
  json::error_code ec;
  p.write_some(true, text.data(), n, ec);
  return h.found;
}

// Only after a duplicate was found: where the first two copies of the key
// close.  The shortest prefix holding k copies ends with the k-th copy's
// closing quote (one byte closes at most one key), found by bisection.
// Prefixes are written whole: fed a byte at a time, Boost.JSON 1.81
// misreads a value right after a comment, failing or (on a number)
// asserting and reading past its buffer.
std::vector<std::size_t> locate_copies(std::string_view text, const StrictJsonOptions& options,
                                       const Handler& first_pass) {
  std::vector<std::size_t> out;
  std::size_t lo = 0;  // copies_within(lo) < k
  for (std::size_t k = 1; k <= 2; ++k) {
    std::size_t hi = text.size();
    if (copies_within(text, hi, options, first_pass) < k) break;
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (copies_within(text, mid, options, first_pass) >= k ? hi : lo) = mid;
    }
    out.push_back(hi - 1);
    lo = hi;
  }
  return out;
}

// Where a syntax error is, when the parser's own answer is unusable.
// Boost.JSON 1.81 reports a stopping point far outside the text when a '/'
// where a value belongs starts no comment (its failure path hands back its
// internal sentinel pointer).  The shortest prefix of the text that the
// parser refuses ends with the offending byte: found by bisection, each
// prefix written whole (fed a byte at a time, Boost.JSON 1.81 reads past
// its buffer after such a '/').  Only comments make a '/' legal, so this
// runs on manifests, never on untrusted calls.
std::size_t locate_error(std::string_view text, const StrictJsonOptions& options) {
  auto refused = [&](std::size_t n) {
    unsigned char temp[256];
    json::basic_parser<Handler> p(parser_options(options), temp, sizeof temp);
    p.handler().set_input(text);
    json::error_code ec;
    p.write_some(true, text.data(), n, ec);
    return static_cast<bool>(ec);
  };
  std::size_t lo = 0, hi = text.size();  // refused(lo) is false
  if (!refused(hi)) return hi;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (refused(mid) ? hi : lo) = mid;
  }
  return hi - 1;
}

}  // namespace

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char ch : key) {
    if (ch == '~')
      out += "~0";
    else if (ch == '/')
      out += "~1";
    else
      out += ch;
  }
  return out;
}

// See strict_json.hpp.  Escapes are walked in order, so "\\ud83d"
// (an escaped backslash, then text) is left alone.
std::optional<std::string> replace_lone_surrogates(std::string_view text) {
  if (text.find("\\u") == std::string_view::npos) return std::nullopt;
  auto hex4 = [&](std::size_t at, unsigned* out) {
    if (at + 4 > text.size()) return false;
    unsigned v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = text[k];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    *out = v;
    return true;
  };
  auto surrogate_escape = [&](std::size_t at, unsigned lo, unsigned hi) {
    unsigned v = 0;
    return at + 1 < text.size() && text[at] == '\\' && text[at + 1] == 'u' && hex4(at + 2, &v) &&
           v >= lo && v <= hi;
  };
  std::optional<std::string> out;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!in_string) {
      in_string = c == '"';
      continue;
    }
    if (c == '"') {
      in_string = false;
    } else if (c == '\\' && i + 1 < text.size()) {
      unsigned v = 0;
      if (text[i + 1] != 'u' || !hex4(i + 2, &v)) {
        ++i;  // a one-character escape (or a malformed one: the parser says)
      } else if (v >= 0xD800 && v <= 0xDBFF && surrogate_escape(i + 6, 0xDC00, 0xDFFF)) {
        i += 11;  // a proper pair
      } else if (v >= 0xD800 && v <= 0xDFFF) {
        if (!out) out.emplace(text);
        out->replace(i, 6, "\\ufffd");
        i += 5;
      } else {
        i += 5;
      }
    }
  }
  return out;
}

std::optional<json::value> parse_strict(std::string_view text, const StrictJsonOptions& options,
                                        StrictJsonError* error) {
  std::optional<std::string> repaired;
  if (!options.allow_comments) repaired = replace_lone_surrogates(text);
  if (repaired) text = *repaired;
  unsigned char temp[BOOST_JSON_STACK_BUFFER_SIZE];
  json::basic_parser<Handler> p(parser_options(options), temp, sizeof temp);
  p.handler().set_input(text);
  p.handler().st.reset(options.storage);
  json::error_code ec;
  std::size_t used = p.write_some(false, text.data(), text.size(), ec);
  if (!ec && used < text.size()) ec = json::error::extra_data;
  if (!ec) return p.handler().st.release();
  if (!error) return std::nullopt;

  StrictJsonError e;
  const Handler& h = p.handler();
  if (h.duplicate) {
    e.duplicate_key = true;
    e.key = h.duplicate_key;
    e.pointer = h.duplicate_pointer;
    auto copies = locate_copies(text, options, h);
    if (copies.size() == 2) {
      set_position(text, key_start(text, copies[0]), &e.first_line, &e.first_column);
      e.offset = key_start(text, copies[1]);
    } else {
      e.offset = used;
    }
    set_position(text, e.offset, &e.line, &e.column);
    e.message = "duplicate key \"" + e.key + "\" in the object at " +
                (e.pointer.empty() ? std::string("the top level") : e.pointer);
    if (e.first_line)
      e.message += " (line " + std::to_string(e.first_line) + ", column " +
                   std::to_string(e.first_column) + ", and again at line " +
                   std::to_string(e.line) + ", column " + std::to_string(e.column) + ")";
  } else {
    e.offset = used <= text.size() ? used : locate_error(text, options);
    set_position(text, e.offset, &e.line, &e.column);
    e.message = "at line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
                ": " + ec.message();
  }
  *error = std::move(e);
  return std::nullopt;
}

}  // namespace toolgate::detail
