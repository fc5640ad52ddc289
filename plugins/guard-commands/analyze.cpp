#include "analyze.hpp"

#include <algorithm>
#include <set>

namespace tgp::shell {

namespace {

const std::set<std::string> kPrivilege = {"sudo", "doas", "su", "pkexec", "run0", "sudoedit"};
const std::set<std::string> kShells = {"sh",   "bash", "dash", "zsh", "ksh",
                                       "mksh", "ash",  "fish", "csh", "tcsh"};
const std::set<std::string> kInterpreters = {"python", "python2", "python3", "perl", "ruby",
                                             "node",   "nodejs",  "php",     "lua"};
const std::set<std::string> kDownloaders = {"curl", "wget",  "fetch",       "aria2c",
                                            "http", "https", "lwp-request", "GET"};
const std::set<std::string> kFormatters = {"wipefs", "blkdiscard", "mkswap"};
const std::set<std::string> kSystemDirs = {"/",    "/bin",   "/boot",  "/dev", "/etc",  "/home",
                                           "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root",
                                           "/run", "/sbin",  "/srv",   "/sys", "/usr",  "/var"};
const std::set<std::string> kHarmlessBuiltins = {
    "cd",     "pwd",   "echo", "printf", "true", "false", "test",  "[",      "exit",
    "export", "unset", "set",  "shift",  "read", "wait",  "local", "return", ":"};

bool interpreter(const std::string& p) {
  if (kShells.count(p) || kInterpreters.count(p)) return true;
  // python3.11, perl5.36 ...
  for (const char* base : {"python", "perl", "ruby", "php"})
    if (p.rfind(base, 0) == 0) return true;
  return false;
}

bool assignment(const Word& w) {
  auto eq = w.text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  for (std::size_t i = 0; i < eq; ++i) {
    char c = w.text[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool is_option(const std::string& s) { return s.size() > 1 && s[0] == '-'; }

// One simple command with its wrappers peeled off: "sudo env X=1 nice -n 5
// rm -rf /" has the chain {sudo, env, nice, rm} and the argv of rm.
struct Invocation {
  std::vector<std::string> chain;  // every program on the way (basenames)
  std::string program;             // the last one
  bool dynamic = false;            // the program comes from an expansion
  std::vector<const Word*> args;   // words after the program
};

// Options of wrapper programs that take a separate value.
bool takes_value(const std::string& wrapper, const std::string& opt) {
  static const std::set<std::string> env = {"-u",      "--unset", "-C",
                                            "--chdir", "-S",      "--split-string"};
  static const std::set<std::string> nice = {"-n", "--adjustment"};
  static const std::set<std::string> timeout = {"-s", "--signal", "-k", "--kill-after"};
  static const std::set<std::string> ionice = {"-c", "-n", "-p", "--class", "--classdata"};
  static const std::set<std::string> xargs = {
      "-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter"};
  static const std::set<std::string> sudo = {"-u", "-g", "-U", "-C", "-h", "-p", "-r", "-t", "-D"};
  if (wrapper == "env") return env.count(opt) > 0;
  if (wrapper == "nice") return nice.count(opt) > 0;
  if (wrapper == "timeout") return timeout.count(opt) > 0;
  if (wrapper == "ionice") return ionice.count(opt) > 0;
  if (wrapper == "xargs") return xargs.count(opt) > 0;
  if (kPrivilege.count(wrapper)) return sudo.count(opt) > 0;
  return false;
}

const std::set<std::string> kWrappers = {
    "env",    "command", "builtin", "exec",     "nohup", "time",    "nice",      "ionice", "setsid",
    "stdbuf", "timeout", "xargs",   "unbuffer", "chrt",  "taskset", "busybox",   "sudo",   "doas",
    "pkexec", "run0",    "strace",  "ltrace",   "watch", "flock",   "caffeinate"};

Invocation unwrap(const Command& c) {
  Invocation inv;
  std::size_t i = 0;
  while (i < c.words.size() && assignment(c.words[i])) ++i;
  while (i < c.words.size()) {
    const Word& w = c.words[i];
    std::string prog = basename_of(w.text);
    inv.chain.push_back(prog);
    inv.program = prog;
    inv.dynamic = w.dynamic;
    ++i;
    if (w.dynamic || !kWrappers.count(prog)) break;
    // Skip the wrapper's options (and their values), assignments (env) and
    // positional parameters (timeout's duration, taskset's mask, chrt's
    // priority, flock's file).
    while (i < c.words.size()) {
      const std::string& t = c.words[i].text;
      if (t == "--") {
        ++i;
        break;
      }
      if (is_option(t)) {
        ++i;
        if (takes_value(prog, t) && i < c.words.size()) ++i;
        continue;
      }
      if (prog == "env" && assignment(c.words[i])) {
        ++i;
        continue;
      }
      break;
    }
    if ((prog == "timeout" || prog == "taskset" || prog == "chrt" || prog == "flock") &&
        i < c.words.size())
      ++i;
    if (i >= c.words.size()) {
      inv.args.clear();
      return inv;  // "sudo" alone, "env" alone
    }
  }
  for (; i < c.words.size(); ++i) inv.args.push_back(&c.words[i]);
  return inv;
}

bool block_device(const std::string& p) {
  static const char* prefixes[] = {"/dev/sd",   "/dev/hd",     "/dev/vd",    "/dev/xvd",
                                   "/dev/nvme", "/dev/mmcblk", "/dev/disk/", "/dev/mapper/",
                                   "/dev/dm-",  "/dev/md",     "/dev/loop",  "/dev/sr",
                                   "/dev/mtd",  "/dev/zram",   "/dev/fd0",   "/dev/block/",
                                   "/dev/mem",  "/dev/kmem",   "/dev/port"};
  std::string n = p;
  while (n.find("//") != std::string::npos) n.erase(n.find("//"), 1);
  for (const char* pre : prefixes)
    if (n.rfind(pre, 0) == 0) return true;
  return false;
}

// rm's target after stripping "/*", "/." and trailing slashes: is it the
// root, a home, a bare variable (empty means "/"), or a system directory?
bool dangerous_rm_target(const Word& w) {
  std::string t = w.text;
  while (t.find("//") != std::string::npos) t.erase(t.find("//"), 1);
  while (true) {
    if (t.size() >= 2 &&
        (t.compare(t.size() - 2, 2, "/*") == 0 || t.compare(t.size() - 2, 2, "/.") == 0)) {
      t.resize(t.size() - 2);
      continue;
    }
    if (t.size() > 1 && t.back() == '/') {
      t.pop_back();
      continue;
    }
    break;
  }
  if (t.empty() || t == "/") return true;
  if (t == "~" || t == "$HOME" || t == "${HOME}" || t == "~root") return true;
  if (t.rfind("~", 0) == 0 && t.find('/') == std::string::npos) return true;  // ~user
  if (kSystemDirs.count(t)) return true;
  if (t.rfind("/home/", 0) == 0 && t.find('/', 6) == std::string::npos) return true;
  // A bare variable ("$DIR", "${DIR}"): if it is empty, rm sees "/".
  if (w.dynamic && t.size() > 1 && t[0] == '$') {
    std::string name = t.substr(1);
    if (name.size() > 2 && name.front() == '{' && name.back() == '}')
      name = name.substr(1, name.size() - 2);
    if (!name.empty() &&
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
            std::string::npos)
      return true;
  }
  return false;
}

std::string check_rm(const Invocation& inv) {
  bool recursive = false, no_preserve = false, options = true;
  std::vector<const Word*> targets;
  for (const Word* w : inv.args) {
    const std::string& t = w->text;
    if (options && t == "--") {
      options = false;
      continue;
    }
    if (options && t.rfind("--", 0) == 0) {
      if (t == "--recursive") recursive = true;
      if (t == "--no-preserve-root") no_preserve = true;
      continue;
    }
    if (options && is_option(t)) {
      if (t.find_first_of("rR") != std::string::npos) recursive = true;
      continue;
    }
    targets.push_back(w);
  }
  if (no_preserve) return "rm --no-preserve-root";
  if (!recursive) return "";
  for (const Word* w : targets)
    if (dangerous_rm_target(*w)) return "recursive rm of \"" + w->text + "\"";
  return "";
}

// Options after which an interpreter takes its program from argv, not stdin.
bool code_option(const std::string& program, const std::string& opt) {
  if (kShells.count(program))
    return opt.rfind("--", 0) != 0 && opt[0] == '-' && opt.find('c') != std::string::npos;
  if (program.rfind("python", 0) == 0) return opt == "-c" || opt == "-m";
  if (program.rfind("perl", 0) == 0 || program.rfind("ruby", 0) == 0)
    return opt == "-e" || opt == "-E";
  if (program == "node" || program == "nodejs")
    return opt == "-e" || opt == "-p" || opt == "--eval" || opt == "--print";
  if (program.rfind("php", 0) == 0) return opt == "-r";
  if (program == "lua") return opt == "-e";
  return false;
}

// Shell options that take a separate value ("bash -o pipefail -c ...").
bool shell_option_with_value(const std::string& t) {
  return t == "-o" || t == "+o" || t == "-O" || t == "+O";
}

// A shell or interpreter that reads its program from stdin: no script
// argument, "-", or "-s".
bool reads_program_from_stdin(const Invocation& inv) {
  for (std::size_t i = 0; i < inv.args.size(); ++i) {
    const std::string& t = inv.args[i]->text;
    if (t == "-" || t == "-s") return true;
    if (is_option(t) || (t.size() > 1 && t[0] == '+')) {
      if (code_option(inv.program, t)) return false;
      if (shell_option_with_value(t)) ++i;
      continue;
    }
    return false;  // a script file
  }
  return true;
}

// The script that "sh -c SCRIPT" / "bash -o pipefail -lc SCRIPT" runs.
const Word* shell_c_script(const Invocation& inv) {
  if (!kShells.count(inv.program)) return nullptr;
  bool c = false;
  for (std::size_t i = 0; i < inv.args.size(); ++i) {
    const std::string& t = inv.args[i]->text;
    if (is_option(t) || (t.size() > 1 && t[0] == '+')) {
      if (code_option(inv.program, t)) c = true;
      if (shell_option_with_value(t)) ++i;
      continue;
    }
    if (c) return inv.args[i];
    return nullptr;  // a script file
  }
  return nullptr;
}

bool runs_downloader(const Script& s, const std::vector<std::size_t>& commands, int budget = 64);

bool word_downloads(const Script& s, const Word& w, int budget) {
  return !w.substitutions.empty() && runs_downloader(s, w.substitutions, budget);
}

bool runs_downloader(const Script& s, const std::vector<std::size_t>& commands, int budget) {
  if (budget <= 0) return true;  // too deep to tell: assume the worst
  for (std::size_t k : commands) {
    Invocation inv = unwrap(s.commands[k]);
    for (const auto& p : inv.chain)
      if (kDownloaders.count(p)) return true;
  }
  return false;
}

}  // namespace

std::string basename_of(const std::string& word) {
  auto slash = word.find_last_of('/');
  if (slash == std::string::npos || slash + 1 == word.size()) return word;
  return word.substr(slash + 1);
}

std::string analyze(const Script& script, const Rules& rules, std::size_t depth) {
  if (depth > rules.max_depth)
    return "nests sh -c / eval more than " + std::to_string(rules.max_depth) + " levels deep";
  const NameGlobs deny(rules.deny_programs), allow(rules.allow_programs);
  const bool allow_mode = !rules.allow_programs.empty();

  std::vector<Invocation> invs;
  invs.reserve(script.commands.size());
  for (const auto& c : script.commands) invs.push_back(unwrap(c));

  for (std::size_t k = 0; k < script.commands.size(); ++k) {
    const Command& c = script.commands[k];
    const Invocation& inv = invs[k];

    if (rules.block_devices) {
      for (const auto& r : c.redirects)
        if (r.writes() && block_device(r.target.text))
          return "writes to the block device " + r.target.text;
    }
    if (inv.chain.empty()) continue;  // only assignments / redirections

    if (inv.dynamic && (rules.dynamic_programs || allow_mode))
      return "runs a program whose name comes from an expansion (\"" + inv.program + "\")";
    for (const auto& p : inv.chain) {
      if (rules.privilege && kPrivilege.count(p))
        return "runs a command as another user (" + p + ")";
      if (!rules.deny_programs.empty() && deny.matches(p)) return "runs the denied program " + p;
      if (allow_mode && !allow.matches(p) && !kHarmlessBuiltins.count(p))
        return "runs " + p + ", which is not in the allowed programs";
    }
    if (rules.rm_rf_root && inv.program == "rm") {
      std::string why = check_rm(inv);
      if (!why.empty()) return why;
    }
    if (rules.block_devices) {
      if (kFormatters.count(inv.program) || inv.program.rfind("mkfs", 0) == 0)
        return "formats or wipes a device (" + inv.program + ")";
      for (const Word* w : inv.args) {
        std::string t = w->text;
        if (t.rfind("of=", 0) == 0) t = t.substr(3);
        if (block_device(t)) return inv.program + " on the block device " + t;
      }
    }
    if (rules.fork_bomb) {
      for (const auto& f : c.functions)
        if (f == inv.program)
          return "defines a function that calls itself (" + f + "), the fork-bomb pattern";
    }
    if (rules.pipe_to_shell && interpreter(inv.program)) {
      // Code from a download fed to an interpreter: through a pipe...
      if (reads_program_from_stdin(inv)) {
        for (const auto& [pipeline, stage] : c.pipelines) {
          if (stage == 0) continue;
          for (std::size_t j = 0; j < script.commands.size(); ++j) {
            for (const auto& [p2, s2] : script.commands[j].pipelines)
              if (p2 == pipeline && s2 < stage)
                for (const auto& prog : invs[j].chain)
                  if (kDownloaders.count(prog))
                    return "pipes a download (" + prog + ") into " + inv.program;
          }
        }
      }
      // ...or through a substitution in its arguments or redirections.
      for (const Word* w : inv.args)
        if (word_downloads(script, *w, 64)) return "runs downloaded code with " + inv.program;
      for (const auto& r : c.redirects)
        if (word_downloads(script, r.target, 64)) return "runs downloaded code with " + inv.program;
    }
    if (rules.pipe_to_shell &&
        (inv.program == "eval" || inv.program == "source" || inv.program == ".")) {
      for (const Word* w : inv.args)
        if (word_downloads(script, *w, 64)) return "runs downloaded code with " + inv.program;
    }

    // Scripts inside arguments run too: parse and check them.
    std::string nested;
    bool has_nested = false;
    if (const Word* w = shell_c_script(inv)) {
      nested = w->text;
      has_nested = true;
    } else if (inv.program == "eval") {
      for (const Word* w : inv.args) nested += (nested.empty() ? "" : " ") + w->text;
      has_nested = true;
    }
    if (has_nested) {
      std::string error;
      auto sub = parse(nested, &error);
      if (!sub) return "runs a script that cannot be parsed (" + error + ")";
      std::string why = analyze(*sub, rules, depth + 1);
      if (!why.empty()) return why;
    }
  }
  return "";
}

}  // namespace tgp::shell
