// audit.cpp -- `toolgate audit verify [--no-genesis] [--key-file F]
// [--anchor F] [--max-line-bytes N] FILE...`: checks the hash chain of audit
// logs written by plugins/audit, across the files in the order given (oldest
// rotated file first, the active file last), and reports the first broken,
// missing or altered record.  With --key-file, a keyed chain's HMACs are
// checked (and every record must be keyed); with --anchor, every head in
// the anchor file must be in the chain and the chain must reach the last.
// The chain logic is sdk/audit/chain.cpp (library toolgate_audit_chain).
//
// Exit status: 0 the chain holds, 1 a problem was found (or the key file
// cannot be used), 2 usage error, 3 a keyed chain verified without its key
// (its links hold, its authenticity is unknown).
#include "options.hpp"

#include <chain.hpp>

#include <cstdio>

namespace toolgate::cli {

namespace {

std::string plural(std::uint64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

int run_audit(const Args& args) {
  if (args.empty()) throw UsageError("audit needs a subcommand: verify FILE...");
  if (args[0] != "verify")
    throw UsageError("unknown audit subcommand \"" + args[0] + "\" (try verify)");
  tgp::audit::VerifyOptions vo;
  std::optional<std::string> key_file, anchor_file;
  std::vector<std::string> files;
  auto value = [&](std::size_t& i) -> std::string {
    if (i + 1 >= args.size() || args[i + 1].empty())
      throw UsageError(args[i] + " needs a value (a file name" +
                       std::string(args[i] == "--max-line-bytes" ? " or a size" : "") + ")");
    return args[++i];
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--no-genesis")
      vo.require_genesis = false;
    else if (args[i] == "--key-file")
      key_file = value(i);
    else if (args[i] == "--anchor")
      anchor_file = value(i);
    else if (args[i] == "--max-line-bytes")
      vo.max_line_bytes = static_cast<std::size_t>(
          number_option("--max-line-bytes", value(i), 1024, std::uint64_t{1} << 34, "bytes"));
    else if (args[i].size() > 1 && args[i][0] == '-')
      throw UsageError("unknown option " + args[i]);
    else
      files.push_back(args[i]);
  }
  if (files.empty()) throw UsageError("audit verify needs at least one file (oldest first)");
  std::unique_ptr<tgp::audit::Key> key;
  if (key_file) key = tgp::audit::read_key_file(*key_file);  // throws: exit 1 with the reason
  vo.key = key.get();
  tgp::audit::Verifier v(vo);
  bool ok = !anchor_file || v.use_anchor_file(*anchor_file);
  for (const auto& f : files)
    if (!(ok = ok && v.feed_file(f))) break;
  if (ok) v.finish();
  if (const auto& p = v.problem()) {
    std::string line;
    if (p->line) line.append(":").append(std::to_string(p->line));
    std::printf("FAIL %s%s: %s\n", p->file.c_str(), line.c_str(), p->what.c_str());
    std::printf("%s verified before it\n", plural(v.records(), "record").c_str());
    return 1;
  }
  const auto& head = v.head();
  std::string anchored;
  if (anchor_file) {
    const auto& a = v.anchors();
    anchored =
        "anchored: " + plural(a.matched, "anchor") + " in " + *anchor_file + " match their records";
    if (a.matched || a.before) anchored += "; the last anchors seq " + std::to_string(a.last_seq);
    if (head.seq > a.last_seq && v.records())
      anchored += "; " + plural(head.seq - a.last_seq, "record") + " after it, to seq " +
                  std::to_string(head.seq) + ", not anchored yet";
    if (a.before)
      anchored += "; " + plural(a.before, "anchor") + " before the first record given not checked";
    anchored += "\n";
  }
  if (v.unauthenticated()) {
    std::printf(
        "UNVERIFIED: %s in %s form a keyed chain (HMAC-SHA256) whose authenticity cannot be "
        "checked without its key: give the key file with --key-file FILE\n",
        plural(v.records(), "record").c_str(), plural(files.size(), "file").c_str());
    std::printf("the links hold: head seq %llu hash %s\n",
                static_cast<unsigned long long>(head.seq), head.hash.c_str());
    std::fputs(anchored.c_str(), stdout);
    return 3;
  }
  std::printf("ok: %s in %s; head seq %llu hash %s\n", plural(v.records(), "record").c_str(),
              plural(files.size(), "file").c_str(), static_cast<unsigned long long>(head.seq),
              head.hash.c_str());
  if (key)
    std::printf("keyed: every record's HMAC-SHA256 checks with the key in %s\n", key_file->c_str());
  else
    std::printf(
        "unkeyed: plain SHA-256 links, which anyone who can write the log can recompute; records "
        "cut off the end, a rewritten chain or an appended record would verify too "
        "(see --key-file and --anchor)\n");
  std::fputs(anchored.c_str(), stdout);
  return 0;
}

}  // namespace toolgate::cli
