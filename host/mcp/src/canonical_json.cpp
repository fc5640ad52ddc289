#include "canonical_json.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace toolgate::mcp {

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
