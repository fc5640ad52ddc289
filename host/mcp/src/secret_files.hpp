// secret_files.hpp -- files that hold secrets: bearer tokens (--token-file,
// --upstream-token-file), the sealing key replicas share (--seal-key-file)
// and the shared store's password (--redis-password-file).
//
// One rule for all of them, checked before a byte is read: a regular file
// owned by this user that no one else can read or write (mode 0600 or
// stricter).  A secret others can read is no secret, and the gateway says
// so at start instead of serving with it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace toolgate::mcp {

// The secrets in `file`, one per line: blank lines and lines starting with
// '#' skipped, surrounding spaces trimmed; each at least `min_length`
// characters of visible ASCII.  At least one.  `what` names the file in
// errors ("token file"); std::runtime_error says which rule it broke and
// how to fix it.
std::vector<std::string> read_secret_lines(const std::filesystem::path& file, std::string_view what,
                                           std::size_t min_length);

}  // namespace toolgate::mcp
