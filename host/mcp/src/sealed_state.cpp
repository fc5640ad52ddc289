#include "sealed_state.hpp"

#include "canonical_json.hpp"
#include "shared_store.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <boost/json/parse.hpp>

#include <cstring>
#include <stdexcept>

namespace toolgate::mcp {

namespace json = boost::json;

namespace {

constexpr std::string_view prefix = "tg1.";
constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(std::string_view in) {
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += alphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    if (i + 1 < in.size()) out += alphabet[(v >> 6) & 63];
  }
  return out;
}

std::optional<std::string> from_base64url(std::string_view in) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = c ? std::strchr(alphabet, c) : nullptr;
    if (!p) return std::nullopt;
    v = (v << 6) | static_cast<unsigned>(p - alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return out;
}

std::int64_t unix_ms(StateSealer::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

}  // namespace

StateSealer::StateSealer() {
  std::string key(32, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1)
    throw std::runtime_error("no random bytes for the requestState key (OpenSSL RAND_bytes)");
  keys_.push_back(std::move(key));
}

StateSealer::StateSealer(std::vector<std::string> keys) : keys_(std::move(keys)) {
  if (keys_.empty()) throw std::invalid_argument("StateSealer needs at least one key");
}

std::string StateSealer::mac(const std::string& key, std::string_view text) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(text.data()), text.size(), out, &n))
    throw std::runtime_error("HMAC-SHA256 failed (OpenSSL)");
  return std::string(reinterpret_cast<const char*>(out), n);
}

std::string StateSealer::seal(json::object claims, std::chrono::milliseconds ttl) const {
  claims["exp"] = unix_ms(Clock::now() + ttl);
  std::string body = std::string(prefix) + base64url(canonical_json_text(claims));
  return body + "." + base64url(mac(keys_.front(), body));
}

std::optional<json::object> StateSealer::open(std::string_view state, std::string* why,
                                              Clock::time_point now) const {
  auto fail = [&](const char* w) -> std::optional<json::object> {
    *why = w;
    return std::nullopt;
  };
  if (!state.starts_with(prefix)) return fail("it is not a state toolgate made");
  const auto dot = state.rfind('.');
  if (dot < prefix.size()) return fail("it is not a state toolgate made");
  const auto body = state.substr(0, dot);
  const auto given = from_base64url(state.substr(dot + 1));
  bool sealed_here = false;
  for (const auto& key : keys_) {
    const std::string expected = mac(key, body);
    sealed_here |= given && given->size() == expected.size() &&
                   CRYPTO_memcmp(given->data(), expected.data(), expected.size()) == 0;
  }
  if (!sealed_here) return fail("its seal does not match (changed, or sealed by another gateway)");
  const auto text = from_base64url(body.substr(prefix.size()));
  if (!text) return fail("it is not a state toolgate made");
  boost::system::error_code ec;
  auto v = json::parse(*text, ec);
  if (ec || !v.is_object()) return fail("it is not a state toolgate made");
  const auto* exp = v.get_object().if_contains("exp");
  if (!exp || !exp->is_int64() || exp->get_int64() < unix_ms(now)) return fail("it has expired");
  return std::move(v.get_object());
}

bool UsedNonces::claim(const std::string& nonce, std::int64_t expires_unix_ms, std::string* why) {
  if (shared_) {
    std::string error;
    const auto fresh = shared_->spend_once(nonce, expires_unix_ms, &error);
    if (!fresh)
      *why = "the replicas' shared store " + shared_->where() +
             " did not answer, so it cannot be spent once (" + error + ")";
    else if (!*fresh)
      *why = "it was used already, on this replica or another (an approval is for one run)";
    return fresh.value_or(false);
  }
  const auto now = unix_ms(StateSealer::Clock::now());
  std::lock_guard lock(mutex_);
  for (auto it = used_.begin(); it != used_.end();)
    it = it->second < now ? used_.erase(it) : std::next(it);
  if (used_.emplace(nonce, expires_unix_ms).second) return true;
  *why = "it was used already (an approval is for one run)";
  return false;
}

std::string random_nonce() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    throw std::runtime_error("no random bytes for a nonce (OpenSSL RAND_bytes)");
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

std::string arguments_hash(const json::object& arguments) {
  return "sha256:" + sha256_hex(canonical_json_text(arguments));
}

}  // namespace toolgate::mcp
