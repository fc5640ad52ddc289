// audit.cpp -- `toolgate audit verify [--no-genesis] FILE...`: checks the
// hash chain of audit logs written by plugins/audit, across the files in the
// order given (oldest rotated file first, the active file last), and
// reports the first broken, missing or altered record.  The chain logic is
// plugins/audit/chain.cpp (library toolgate_audit_chain).
#include "options.hpp"

#include <chain.hpp>

#include <cstdio>

namespace toolgate::cli {

int run_audit(const Args& args) {
  if (args.empty()) throw UsageError("audit needs a subcommand: verify FILE...");
  if (args[0] != "verify")
    throw UsageError("unknown audit subcommand \"" + args[0] + "\" (try verify)");
  bool genesis = true;
  std::vector<std::string> files;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--no-genesis")
      genesis = false;
    else if (args[i].size() > 1 && args[i][0] == '-')
      throw UsageError("unknown option " + args[i]);
    else
      files.push_back(args[i]);
  }
  if (files.empty()) throw UsageError("audit verify needs at least one file (oldest first)");
  tgp::audit::Verifier v(genesis);
  for (const auto& f : files)
    if (!v.feed_file(f)) break;
  if (const auto& p = v.problem()) {
    std::printf("FAIL %s%s: %s\n", p->file.c_str(),
                p->line ? (":" + std::to_string(p->line)).c_str() : "", p->what.c_str());
    std::printf("%llu record%s verified before it\n", static_cast<unsigned long long>(v.records()),
                v.records() == 1 ? "" : "s");
    return 1;
  }
  std::printf("ok: %llu record%s in %zu file%s; head seq %llu hash %s\n",
              static_cast<unsigned long long>(v.records()), v.records() == 1 ? "" : "s",
              files.size(), files.size() == 1 ? "" : "s",
              static_cast<unsigned long long>(v.head().seq), v.head().hash.c_str());
  return 0;
}

}  // namespace toolgate::cli
