#include "canonical_json.hpp"

#include <toolgate/json.hpp>

#include <openssl/evp.h>
#include <boost/json/object.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

void append_canonical(std::string& out, const json::value& v) {
  if (const auto* o = v.if_object()) {
    std::vector<const json::key_value_pair*> members;
    for (const auto& kv : *o) members.push_back(&kv);
    std::sort(members.begin(), members.end(),
              [](const auto* a, const auto* b) { return a->key() < b->key(); });
    out += '{';
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i) out += ',';
      append_json_text(out, json::string(members[i]->key()));
      out += ':';
      append_canonical(out, members[i]->value());
    }
    out += '}';
  } else if (const auto* a = v.if_array()) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i) out += ',';
      append_canonical(out, (*a)[i]);
    }
    out += ']';
  } else {
    append_json_text(out, v);
  }
}

}  // namespace

std::string canonical_json_text(const json::value& v) {
  std::string out;
  append_canonical(out, v);
  return out;
}

std::string sha256_hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(text.data(), text.size(), digest, &n, EVP_sha256(), nullptr))
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace toolgate::mcp
