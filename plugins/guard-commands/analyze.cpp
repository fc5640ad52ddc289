#include "analyze.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

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
  // A command line a wrapper runs through a shell of its own -- env -S
  // STRING, watch ARGS..., flock FILE -c STRING -- parsed and checked like
  // sh -c's script.
  std::optional<std::string> wrapped_script;
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
  static const std::set<std::string> exec = {"-a"};
  static const std::set<std::string> watch = {"-n", "--interval", "-d", "-q", "--equexit"};
  static const std::set<std::string> trace = {"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-P",
                                              "-I", "-b", "-X", "-O", "-S", "-n", "-A", "-F"};
  static const std::set<std::string> flock = {"-w", "--timeout", "-E", "--conflict-exit-code"};
  if (wrapper == "env") return env.count(opt) > 0;
  if (wrapper == "exec") return exec.count(opt) > 0;
  if (wrapper == "watch") return watch.count(opt) > 0;
  if (wrapper == "strace" || wrapper == "ltrace") return trace.count(opt) > 0;
  if (wrapper == "flock") return flock.count(opt) > 0;
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

// Words that open or continue a compound command: the program is the word
// after them ("if sudo id", "then rm -rf /", "! sudo id", "coproc sudo id").
const std::set<std::string> kReservedWords = {"!",     "if",    "then", "else",   "elif",
                                              "while", "until", "do",   "coproc", "{"};

// The text env -S / --split-string runs, if `t` (at words[i]) is that option.
std::optional<std::string> split_string(const Command& c, std::size_t& i) {
  const std::string& t = c.words[i].text;
  if ((t == "-S" || t == "--split-string") && i + 1 < c.words.size()) return c.words[++i].text;
  if (t.rfind("--split-string=", 0) == 0) return t.substr(15);
  if (t.size() > 2 && t.rfind("-S", 0) == 0) return t.substr(2);
  return std::nullopt;
}

// The words from `from` on, joined by spaces: what watch runs with sh -c.
std::string joined(const Command& c, std::size_t from) {
  std::string out;
  for (std::size_t k = from; k < c.words.size(); ++k)
    out += (out.empty() ? "" : " ") + c.words[k].text;
  return out;
}

// Whether bash would brace-expand `t` ("{a,b}", "{1..3}", "x{a,b}y").
bool brace_expansion(const std::string& t) {
  const auto open = t.find('{');
  const auto close = open == std::string::npos ? open : t.find('}', open);
  if (close == std::string::npos) return false;
  const std::string inside = t.substr(open + 1, close - open - 1);
  return inside.find(',') != std::string::npos || inside.find("..") != std::string::npos;
}

Invocation unwrap(const Command& c) {
  Invocation inv;
  std::size_t i = 0;
  while (i < c.words.size() && assignment(c.words[i])) ++i;
  while (i < c.words.size() && kReservedWords.count(c.words[i].text)) ++i;
  while (i < c.words.size()) {
    const Word& w = c.words[i];
    std::string prog = basename_of(w.text);
    inv.chain.push_back(prog);
    inv.program = prog;
    // "{sudo,id}" is brace-expanded into "sudo id" before it runs: a name
    // made by an expansion, like "$x".
    inv.dynamic = w.dynamic || brace_expansion(w.text);
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
      if (prog == "env") {
        if (auto text = split_string(c, i)) {
          // env runs the split string as a command line (and the words
          // after it as its arguments): checked as a script.
          inv.wrapped_script = *text + (i + 1 < c.words.size() ? " " + joined(c, i + 1) : "");
          inv.args.clear();
          return inv;
        }
      }
      if (prog == "flock" && (t == "-c" || t == "--command")) {
        inv.wrapped_script = i + 1 < c.words.size() ? c.words[i + 1].text : "";
        return inv;
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
    if (prog == "watch") {
      // watch runs its arguments, joined, with sh -c: "watch 'sudo id'".
      inv.wrapped_script = joined(c, i);
      return inv;
    }
    if ((prog == "timeout" || prog == "taskset" || prog == "chrt" || prog == "flock") &&
        i < c.words.size())
      ++i;
    // flock FILE -c COMMAND: the command line after the file.
    if (prog == "flock" && i < c.words.size() &&
        (c.words[i].text == "-c" || c.words[i].text == "--command")) {
      inv.wrapped_script = i + 1 < c.words.size() ? c.words[i + 1].text : "";
      return inv;
    }
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
// An absolute path with "." and ".." taken out, lexically (the names as
// written): "/./usr" and "/bin/../usr" are "/usr".  A relative path comes
// back as it is.
std::string lexically_normal(const std::string& t) {
  if (t.empty() || t[0] != '/') return t;
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at <= t.size()) {
    std::size_t next = t.find('/', at);
    if (next == std::string::npos) next = t.size();
    std::string part = t.substr(at, next - at);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    at = next + 1;
  }
  std::string out;
  for (const auto& part : parts) out += "/" + part;
  if (out.empty()) out = "/";
  if (t.size() > 1 && t.back() == '/' && out != "/") out += '/';
  return out;
}

bool dangerous_rm_target(const Word& w) {
  std::string t = lexically_normal(w.text);
  // A pattern in the first folder under the root ("/[a-z]*", "/?in"): it
  // can name every top-level folder.
  if (t.size() > 1 && t[0] == '/') {
    const std::string first = t.substr(1, t.find('/', 1) - 1);
    if (first.find_first_of("*?[") != std::string::npos) return true;
  }
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
      // GNU rm takes any unambiguous start of a long option: "--recursiv",
      // "--r"; "--no-p" is --no-preserve-root.
      auto abbreviates = [&](std::string_view full, std::size_t shortest) {
        return t.size() >= shortest && std::string_view(full).substr(0, t.size()) == t;
      };
      if (abbreviates("--recursive", 3)) recursive = true;
      if (abbreviates("--no-preserve-root", 5)) no_preserve = true;
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
    if (t == "-" || t == "-s" || t == "/dev/stdin" || t == "/dev/fd/0" || t == "/proc/self/fd/0")
      return true;
    if (is_option(t) || (t.size() > 1 && t[0] == '+')) {
      if (code_option(inv.program, t)) return false;
      if (shell_option_with_value(t)) ++i;
      continue;
    }
    return false;  // a script file
  }
  return true;
}

// A shell's -c: whether it has one, and the script after it ("sh -c
// SCRIPT", "bash -o pipefail -lc SCRIPT"); a -c with no script after it
// gets its commands from elsewhere ("... | xargs -0 bash -c").
struct ShellC {
  bool c = false;
  const Word* script = nullptr;
};

ShellC shell_c(const Invocation& inv) {
  ShellC out;
  if (!kShells.count(inv.program)) return out;
  for (std::size_t i = 0; i < inv.args.size(); ++i) {
    const std::string& t = inv.args[i]->text;
    if (is_option(t) || (t.size() > 1 && t[0] == '+')) {
      if (code_option(inv.program, t)) out.c = true;
      if (shell_option_with_value(t)) ++i;
      continue;
    }
    if (!out.c) return out;  // a script file
    out.script = inv.args[i];
    return out;
  }
  return out;
}

// Programs whose output piped into a shell is a file's content or the
// shell's own input passed on (cat FILE | sh is like sh FILE).
const std::set<std::string> kPassThrough = {"cat", "tee", "head", "tail"};

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

namespace {

// The text echo or printf writes: its arguments joined, "\n" as the newline
// printf (and echo -e) makes of it.
std::string echoed_text(const Invocation& inv) {
  std::string text;
  for (const Word* w : inv.args) text += (text.empty() ? "" : " ") + w->text;
  for (std::size_t at; (at = text.find("\\n")) != std::string::npos;) text.replace(at, 2, "\n");
  return text;
}

// What the earlier stages of each pipeline feed a later one, computed once
// per script in one pass over each pipeline (looking back from every stage
// made "perl|perl|...|perl" quadratic: 24 s for 13,000 stages):
//   - the first downloader before the stage (pipes a download),
//   - the last program before it whose output a shell cannot be checked on
//     (anything but echo/printf, whose text is checked, and cat/tee/head/
//     tail, which pass a file's content on),
//   - the echo/printf commands before it.
class PipelineFeeds {
 public:
  struct Before {
    const std::string* downloader = nullptr;
    const std::string* unchecked = nullptr;
    // The first `echo_count` of the pipeline's echo/printf commands (a
    // count, not a copy: a pipeline of many echoes stays linear).
    const std::vector<std::size_t>* echoes = nullptr;
    std::size_t echo_count = 0;
  };

  PipelineFeeds(const Script& script, const std::vector<Invocation>& invs) {
    std::map<int, std::vector<std::pair<int, std::size_t>>> members;
    for (std::size_t j = 0; j < script.commands.size(); ++j)
      for (const auto& [pipeline, stage] : script.commands[j].pipelines)
        members[pipeline].emplace_back(stage, j);
    for (auto& [pipeline, list] : members) {
      std::sort(list.begin(), list.end());
      std::vector<std::size_t>& echoes = echoes_[pipeline];
      Before so_far;
      so_far.echoes = &echoes;
      for (std::size_t m = 0; m < list.size();) {
        const int stage = list[m].first;
        if (stage > 0) before_[{pipeline, stage}] = so_far;
        for (; m < list.size() && list[m].first == stage; ++m) {
          const Invocation& inv = invs[list[m].second];
          if (inv.chain.empty()) continue;
          for (const auto& p : inv.chain)
            if (!so_far.downloader && kDownloaders.count(p)) so_far.downloader = &p;
          if (inv.program == "echo" || inv.program == "printf") {
            echoes.push_back(list[m].second);
            so_far.echo_count = echoes.size();
          } else if (!kPassThrough.count(inv.program))
            so_far.unchecked = &inv.program;
        }
      }
    }
  }

  // What the stages before `stage` of `pipeline` feed it; nullptr at stage 0.
  const Before* before(int pipeline, int stage) const {
    auto it = before_.find({pipeline, stage});
    return it == before_.end() ? nullptr : &it->second;
  }

 private:
  std::map<int, std::vector<std::size_t>> echoes_;  // per pipeline, in stage order
  std::map<std::pair<int, int>, Before> before_;
};

}  // namespace

std::string analyze(const Script& script, const Rules& rules, std::size_t depth) {
  if (depth > rules.max_depth)
    return "nests sh -c / eval more than " + std::to_string(rules.max_depth) + " levels deep";
  const NameGlobs deny(rules.deny_programs), allow(rules.allow_programs);
  const bool allow_mode = !rules.allow_programs.empty();

  std::vector<Invocation> invs;
  invs.reserve(script.commands.size());
  for (const auto& c : script.commands) invs.push_back(unwrap(c));
  const PipelineFeeds feeds(script, invs);
  std::set<std::size_t> checked_echoes;

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
      if (reads_program_from_stdin(inv))
        for (const auto& [pipeline, stage] : c.pipelines)
          if (const auto* before = feeds.before(pipeline, stage); before && before->downloader)
            return "pipes a download (" + *before->downloader + ") into " + inv.program;
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
    std::vector<std::string> nested;
    if (inv.wrapped_script) nested.push_back(*inv.wrapped_script);
    if (const ShellC sc = shell_c(inv); sc.script) {
      nested.push_back(sc.script->text);
    } else if (sc.c) {
      // "sh -c" with nothing after it gets its script from elsewhere
      // ("... | xargs -0 bash -c"): nothing here to check.
      return inv.program +
             " -c without a script: its commands come from elsewhere and cannot "
             "be checked";
    } else if (inv.program == "eval") {
      std::string text;
      for (const Word* w : inv.args) text += (text.empty() ? "" : " ") + w->text;
      nested.push_back(std::move(text));
    }
    if (kShells.count(inv.program) && reads_program_from_stdin(inv)) {
      // A shell reading its commands from its input: a here-string's text
      // is checked as a script, and so is text echoed into it through a
      // pipe; the output of any other program (sed, base64 -d, ...) cannot
      // be checked.  A file's content (cat FILE | sh) is like sh FILE.
      for (const auto& r : c.redirects)
        if (r.op == "<<<") nested.push_back(r.target.text);
      if (rules.pipe_to_shell)
        for (const auto& [pipeline, stage] : c.pipelines) {
          const auto* before = feeds.before(pipeline, stage);
          if (!before) continue;
          if (before->unchecked)
            return "pipes the output of " + *before->unchecked + " into " + inv.program +
                   ", which runs it unchecked";
          // Text echoed into the pipeline: each text is checked once, for
          // however many shells it may reach.
          for (std::size_t e = 0; e < before->echo_count; ++e)
            if (const std::size_t j = (*before->echoes)[e]; checked_echoes.insert(j).second)
              nested.push_back(echoed_text(invs[j]));
        }
    }
    for (const auto& text : nested) {
      std::string error;
      auto sub = parse(text, &error);
      if (!sub) return "runs a script that cannot be parsed (" + error + ")";
      std::string why = analyze(*sub, rules, depth + 1);
      if (!why.empty()) return why;
    }
  }
  return "";
}

}  // namespace tgp::shell
