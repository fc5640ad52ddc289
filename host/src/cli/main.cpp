// main.cpp -- `toolgate COMMAND ...`: dispatch and usage.
#include "inspect.hpp"
#include "options.hpp"

#include <toolgate/toolgate.h>
#include <toolgate/host.hpp>

#include "../reload/probe.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace {

using toolgate::cli::Args;

// One row per command: `toolgate help` lists them all, `toolgate CMD --help`
// prints one.
// The Code Mode options of call, tools and mcp (options.cpp: code_mode_flags).
// The file tools of call and tools (options.cpp: tool_set_flags).
#define TOOL_SET_HELP                                                                \
  "  --tools fs                    add toolgate's file tools (fs.read, fs.write,\n"  \
  "                                fs.edit, fs.list): every write and edit passes\n" \
  "                                the fs guards and read-before-edit\n"             \
  "  --workspace DIR               the file tools' root (default: this folder)\n"

#define CODE_MODE_HELP                                                                  \
  "  --code-mode                   offer run_code: a JavaScript program whose every\n"  \
  "                                tool call goes through the pipeline (Code Mode)\n"   \
  "  --code-sandbox bubblewrap|none\n"                                                  \
  "                                where programs run (default bubblewrap; none runs\n" \
  "                                them unconfined and warns on every run)\n"

struct Command {
  const char* name;
  const char* synopsis;  // after "toolgate "; continuation lines indented
  const char* summary;   // what it does, pre-wrapped
  const char* options;   // `CMD --help`: each option of its own, pre-wrapped
  bool manifests;        // takes M... and the shared options
  // Options that take a value: a value is never read as --help.
  std::vector<std::string_view> value_flags;
  int (*run)(const Args&);
};

int run_version(const Args&) {
  std::printf("toolgate %s (plugin ABI %d.%d)\n", TOOLGATE_VERSION, TOOLGATE_ABI_MAJOR,
              TOOLGATE_ABI_MINOR);
  return 0;
}
int run_help(const Args&);

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"demo",
       "demo [--samples DIR]",
       "walk the pipeline, one plugin per section",
       "  --samples DIR                 the samples folder (manifests/, plugins/); default:\n"
       "                                the installed samples, else the build tree's\n",
       false,
       {"--samples"},
       toolgate::cli::run_demo},
      {"check",
       "check M... [--strict]",
       "load the manifests without running a call;\nprints ok and a summary, or every error;\n"
       "a plugin built wrong is a warning (--strict: an error)",
       "",
       true,
       {},
       toolgate::cli::run_check},
      {"plan",
       "plan M... [--tool NAME] [--json]",
       "the resolved order of every stage",
       "  --tool NAME                   only the hooks whose tool filter matches NAME\n"
       "  --json                        one JSON object instead of text\n",
       true,
       {"--tool"},
       toolgate::cli::run_plan},
      {"call",
       "call M... --tool NAME [--args JSON] [--stub NAME[:SCHEMA]]...\n"
       "          [--approve yes|no|prompt] [--trace] [--events FILE] [--strict]\n"
       "          [--tools fs [--workspace DIR]] [--code-mode [--code-sandbox bubblewrap|none]]",
       "one call of a sample tool (greet, slow), a stub, or\n"
       "a tool a plugin of the manifests registers; prints\n"
       "the result JSON -- and, when post-execute hooks\n"
       "queued contexts, a second line {\"context_message\":\n"
       "TEXT}, the user message to place after the results\n"
       "-- exit 1 when the call ended as an error",
       "  --tool NAME                   the tool to call\n"
       "  --stub NAME[:SCHEMA]          register a test tool NAME that accepts any\n"
       "                                arguments and echoes them (to exercise a guard\n"
       "                                without writing a tool); SCHEMA, a JSON object or\n"
       "                                @FILE, is its input schema.  Repeatable\n"
       "  --args JSON                   its arguments, a JSON object (default {})\n"
       "  --approve yes|no|prompt       answer a pre-execute ask: allow once, reject,\n"
       "                                or ask on the terminal (default: no approver,\n"
       "                                so an ask ends as approval_unavailable)\n"
       "  --trace                       every hook's verdict, argument change, duration\n"
       "                                and failure message, on stderr\n"
       "  --events FILE                 append the session events as JSON lines\n" TOOL_SET_HELP
           CODE_MODE_HELP,
       true,
       {"--tool", "--args", "--approve", "--events", "--stub", "--code-sandbox", "--tools",
        "--workspace"},
       toolgate::cli::run_call},
      {"tools",
       "tools M... [--typescript] [--json] [--code-mode] [--tools fs [--workspace DIR]]\n"
       "          [--stub NAME[:SCHEMA]]...",
       "the tools a call can reach: the sample tools, stubs\n"
       "and the tools the manifests' plugins register, one\n"
       "per line; --typescript prints the declarations a\n"
       "Code Mode script sees (what run_code's description\n"
       "carries)",
       "  --typescript                  TypeScript declarations of the tools\n"
       "  --json                        name, description and schemas, as JSON\n"
       "  --stub NAME[:SCHEMA]          a test tool that echoes its arguments (as for "
       "call)\n" CODE_MODE_HELP,
       true,
       {"--stub", "--code-sandbox"},
       toolgate::cli::run_tools},
      {"watch",
       "watch M... [--call TOOL --args JSON --every MS] [--stub NAME[:SCHEMA]]...\n"
       "          [--no-probe] [--strict]",
       "reload on every change (and SIGHUP), one timestamped\n"
       "line per load, reload or failure; a build still being\n"
       "written is waited for (up to 3 s), not reported;\n"
       "optionally make a call repeatedly",
       "  --call TOOL                   call TOOL every MS ms; print a one-line summary\n"
       "                                of its outcome when it changes or after a reload\n"
       "  --args JSON                   the call's arguments (default {})\n"
       "  --every MS                    how often to call, 1 to 3600000 (default 1000)\n"
       "  --stub NAME[:SCHEMA]          a test tool that echoes its arguments (as for call)\n"
       "  --no-probe                    load a new build in this process without first\n"
       "                                trying it in a child process\n",
       true,
       {"--call", "--args", "--every", "--stub"},
       toolgate::cli::run_watch},
      {"audit",
       "audit verify [--no-genesis] [--key-file F] [--anchor F] [--max-line-bytes N] FILE...",
       "check audit logs' hash chain (oldest file first);\n"
       "--key-file checks a keyed chain's HMACs, --anchor\n"
       "checks the chain against its anchor file.  Exit 3:\n"
       "a keyed chain checked without its key",
       "  --key-file F                  the key of a keyed chain: every record's HMAC\n"
       "                                must check with it\n"
       "  --anchor F                    check the chain against this anchor file\n"
       "  --no-genesis                  accept a first record that does not start the\n"
       "                                chain (older files archived)\n"
       "  --max-line-bytes N            the longest record line read (default 64 MiB)\n",
       false,
       {"--key-file", "--anchor", "--max-line-bytes"},
       toolgate::cli::run_audit},
      {"mcp",
       "mcp M... [--events FILE] [--max-message-bytes N] [--max-calls-in-flight N]\n"
       "        [--pins FILE] [--code-mode | --code-mode-only] [--code-sandbox S]\n"
       "        [--tools fs [--workspace DIR]]\n"
       "        [--on-drift block|ask|allow] [--server-protocol P] [--no-strict]\n"
       "        [--listen [HOST:]PORT [--token-file F] [--allow-origin O,...]\n"
       "         [--max-connections N] [--http-timeout-ms N] [--question-timeout-ms N]]\n"
       "        [--upstream-token-file F] [--upstream-ca F]\n"
       "        [--redis HOST:PORT --redis-prefix P [--redis-password-file F]\n"
       "         [--seal-key-file F]]\n"
       "        -- CMD ARGS... | -- URL | --servers FILE\n"
       "       toolgate mcp pin [--pins FILE] [--server-protocol P] -- CMD ARGS... | -- URL\n"
       "                        | --servers FILE",
       "MCP gateway: run CMD as an MCP server on stdio (or\n"
       "reach one at an http:// or https:// URL, or serve\n"
       "several named in --servers FILE) and\n"
       "relay a client on our stdin/stdout to it, every\n"
       "tools/call through the pipeline (asks become\n"
       "elicitation requests to the client).  Strict:\n"
       "a plugin built wrong is refused (a production\n"
       "entry point fails closed); --no-strict loads it\n"
       "with a warning.  Each server tool's definition is\n"
       "pinned (a SHA-256) when first listed or from\n"
       "--pins; one that changes is blocked.  `mcp pin`\n"
       "lists CMD's tools and writes their pins",
       "  --events FILE                 append the session events as JSON lines\n"
       "  --max-message-bytes N         the largest message either side may send\n"
       "                                (default 16 MiB)\n"
       "  --max-calls-in-flight N       worker threads running calls' stages; a call\n"
       "                                waiting for the server holds none unless an\n"
       "                                execute-wrapper wraps it (default 1024)\n"
       "  --pins FILE                   the tools' pins (toolgate mcp pin writes them);\n"
       "                                a tool not in the file counts as changed.\n"
       "                                With pin: where to write them (default stdout)\n"
       "  --on-drift block|ask|allow    a tool whose definition changed: its calls are\n"
       "                                denied and it is left out of tools/list (block,\n"
       "                                the default), the user is asked before each\n"
       "                                call (ask), or it is only logged (allow)\n"
       "  --server-protocol P           what to speak to CMD: auto (the default) asks it\n"
       "                                server/discover first and speaks MCP 2026-07-28\n"
       "                                when it can, else 2025-11-25 / 2025-06-18;\n"
       "                                2026-07-28 requires that; legacy skips the probe\n"
       "  --listen [HOST:]PORT          serve MCP clients over Streamable HTTP at /mcp\n"
       "                                instead of stdio: 2026-07-28, and 2025-06-18 /\n"
       "                                2025-11-25 in sessions (HOST defaults to\n"
       "                                127.0.0.1; another address needs --token-file;\n"
       "                                PORT 0 picks a free one)\n"
       "  --token-file F                bearer tokens, one per line, in a file only its\n"
       "                                owner can read; every request needs one\n"
       "  --allow-origin O,...          browser origins allowed besides the listener's own\n"
       "  --max-connections N           open connections at most (default 256)\n"
       "  --http-timeout-ms N           a request must arrive, and each write finish,\n"
       "                                within N ms (default 30000)\n"
       "  --question-timeout-ms N       a 2025-era session's client must answer the\n"
       "                                gateway's question (an approval) within N ms,\n"
       "                                else its call ends (default 600000)\n"
       "  --code-mode-only              offer run_code instead of the server's tools\n"
       "                                (which stay its bindings)\n" CODE_MODE_HELP TOOL_SET_HELP
       "  --upstream-token-file F       a URL server: send the first token in F (owner-\n"
       "                                only) as its bearer token; a client's own token\n"
       "                                is never passed on\n"
       "  --upstream-ca F               a https:// server: trust the CAs in F (PEM)\n"
       "                                instead of the system's\n"
       "  --redis HOST:PORT             replicas share state in this Redis (7.0 or later):\n"
       "                                tools pinned on their first sight by any replica,\n"
       "                                an approval spent once for all; a store that does\n"
       "                                not answer refuses those tools and asks again\n"
       "  --redis-prefix P              the keys' prefix, one per deployment (required)\n"
       "  --redis-password-file F       the store's password, in a file only F's owner\n"
       "                                can read\n"
       "  --seal-key-file F             keys (one per line, >= 32 characters, owner-only)\n"
       "                                that seal approvals' requestState, so a retry may\n"
       "                                reach any replica; the first seals, any opens.\n"
       "                                Needs --redis\n"
       "  -- CMD ARGS...                the server's command; what follows -- is its own\n"
       "  -- URL                        or a server over Streamable HTTP (2026-07-28 or\n"
       "                                2025-11-25 / 2025-06-18, with their sessions)\n"
       "  --servers FILE                or several servers, named in FILE (JSON; schema:\n"
       "                                toolgate-servers.schema.json): each one's tools\n"
       "                                offered as NAME.TOOL, a name two servers would\n"
       "                                share refused at start, a server that ends\n"
       "                                withdrawn while the others serve\n",
       true,
       {toolgate::cli::mcp_value_flags().begin(), toolgate::cli::mcp_value_flags().end()},
       toolgate::cli::run_mcp},
      {"serve",
       "serve M... [--socket PATH] [--group NAME] [--allow-user USER]... [--no-probe]\n"
       "          [--max-message-bytes N] [--max-connections N] [--idle-timeout-ms MS]\n"
       "          [--split-expiry-ms MS] [--strict]",
       "the resident daemon: load the manifests once, reload\n"
       "them on change (and SIGHUP), and answer split-phase\n"
       "calls (begin / complete, JSON lines) from agents'\n"
       "hooks over a Unix socket; every call is denied until\n"
       "the manifests load",
       "  --socket PATH                 the socket (default: $TOOLGATE_SOCKET, else\n"
       "                                /run/toolgate/toolgate.sock for root, else\n"
       "                                $XDG_RUNTIME_DIR/toolgate/toolgate.sock)\n"
       "  --group NAME                  socket 0660 and folder 0750 for this group, whose\n"
       "                                members may connect (default: 0600, owner only)\n"
       "  --allow-user USER             another user (name or uid) who may connect\n"
       "  --max-message-bytes N         the longest request line (default 8 MiB)\n"
       "  --max-connections N           connections served at once (default 256)\n"
       "  --idle-timeout-ms MS          close a connection idle this long (default 60000)\n"
       "  --split-expiry-ms MS          a begun call not completed within MS gets its\n"
       "                                result as not_completed (default 900000)\n"
       "  --no-probe                    load a new build without first trying it in a\n"
       "                                child process\n",
       true,
       {"--socket", "--group", "--allow-user", "--max-message-bytes", "--max-connections",
        "--idle-timeout-ms", "--split-expiry-ms"},
       toolgate::cli::run_serve},
      {"hook",
       "hook AGENT [--socket PATH] [--timeout-ms MS] [--no-daemon [M...]]\n"
       "          hook install|uninstall AGENT [--user|--project] [--dir DIR] [--command CMD]",
       "answer an agent's tool hook (AGENT: claude-code,\n"
       "codex, gemini-cli, cursor): read its payload on\n"
       "stdin, ask the daemon (toolgate serve), answer in\n"
       "the agent's format; any failure blocks the call.\n"
       "install / uninstall add or remove the hook entries\n"
       "in the agent's settings file",
       "  --socket PATH                 the daemon's socket (default: $TOOLGATE_SOCKET,\n"
       "                                else the user's, else the system-wide one)\n"
       "  --timeout-ms MS               the longest wait for the daemon (default 5000);\n"
       "                                past it the call is blocked\n"
       "  --no-daemon [M...]            load the manifests in this process instead\n"
       "                                (slower: every hook loads every plugin)\n"
       "  --user | --project            install: the user's settings (default) or the\n"
       "                                project's, in DIR (default: the current folder)\n"
       "  --command CMD                 install: the command the agent runs (default:\n"
       "                                this toolgate's path + hook AGENT)\n",
       false,
       {"--socket", "--timeout-ms", "--dir", "--command"},
       toolgate::cli::run_hook},
      {"inspect",
       "inspect PLUGIN.so|M... [--config JSON|@FILE] [--json]",
       "what a plugin is (ABI, id, version, capabilities,\n"
       "flags, registrations, exports) and what is wrong\n"
       "with it: its build (what --strict refuses), its\n"
       "permissions, its init; init runs in a child\n"
       "process.  Given manifests (*.json or folders),\n"
       "every enabled plugin in them, each with its\n"
       "entry's config.  Exit 1 when it finds a problem",
       "  --config JSON|@FILE           the config init gets, inline or from FILE\n"
       "                                (default {}); with manifests, each entry's\n"
       "                                \"config\" is used instead\n"
       "  --json                        one JSON object (an array of them for\n"
       "                                manifests) instead of text\n"
       "  --var NAME=VALUE              the value of ${NAME} in the plugins' config\n"
       "                                (repeatable); a name used without one is an error\n"
       "  --allow-insecure-plugin-permissions\n"
       "                                do not report a plugin or manifest writable by\n"
       "                                other users (the loaders' flag of that name)\n",
       false,
       {"--config"},
       toolgate::cli::run_inspect},
      {"new-plugin",
       "new-plugin NAME --lang c|cpp [--kind guard|pre|wrapper|post|observer] [--dir DIR]",
       "scaffold a plugin project (sources, CMakeLists.txt,\n"
       "manifest, tests) in DIR (default ./NAME); never\n"
       "overwrites a file",
       "  --lang c|cpp                  the language of the plugin\n"
       "  --kind KIND                   guard (default), pre, wrapper, post or observer\n"
       "  --dir DIR                     where to write the project (default ./NAME)\n",
       false,
       {"--lang", "--kind", "--dir"},
       toolgate::cli::run_new_plugin},
      {"version", "version", "toolgate's version and plugin ABI", "", false, {}, run_version},
      {"help", "help", "this text", "", false, {}, run_help},
  };
  return table;
}

// Each line of `text` after `indent`.
std::string indented(std::string_view text, std::string_view indent) {
  std::string out;
  for (std::size_t pos = 0; pos < text.size();) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    out.append(indent).append(text.substr(pos, nl - pos)).append("\n");
    pos = nl + 1;
  }
  return out;
}

constexpr const char* kManifests =
    "M is a manifest file or a folder (its *.json files, in name order); several\n"
    "stack as layers.  Without M, the default folders are loaded: the system one\n"
    "(" TOOLGATE_SYSTEM_MANIFEST_DIR
    ", or $TOOLGATE_SYSTEM_MANIFEST_DIR)\n"
    "then the user's (${XDG_CONFIG_HOME:-~/.config}/toolgate/manifest.d, or\n"
    "$TOOLGATE_USER_MANIFEST_DIR); a variable set empty turns its folder off.  A\n"
    "missing folder is skipped; if none holds a manifest, or one is writable by\n"
    "other users, the command refuses to run.  Shared options:\n"
    "  --disable GLOB                disable plugins/hooks by id glob (\"all\");\n"
    "                                locked ones are kept and reported.  Also the\n"
    "                                TOOLGATE_DISABLE environment variable (comma-separated)\n"
    "  --allow-insecure-plugin-permissions\n"
    "                                load manifests and plugins writable by other users\n"
    "  --strict                      refuse a plugin built wrong (what toolgate inspect\n"
    "                                flags: symbols exported besides the entry,\n"
    "                                STB_GNU_UNIQUE symbols, undefined symbols only the\n"
    "                                host defines; a reload of such a build fails);\n"
    "                                without it, such a plugin loads with one warning\n"
    "                                per problem on stderr.  The default for mcp.\n"
    "  --no-strict                   load such plugins with a warning (mcp's way out)\n";

constexpr const char* kExitStatus =
    "exit status: 0 ok, 1 failure (invalid manifest, call ended as an error), 2 usage\n";

void usage(std::FILE* out) {
  std::string text =
      "usage: toolgate COMMAND [ARGS]\n       toolgate COMMAND --help\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string synopsis = indented(c.synopsis, "  ");
    // A short synopsis and the summary's first line share a line.
    auto first_nl = synopsis.find('\n');
    if (first_nl == synopsis.size() - 1 && synopsis.size() < 32) {
      synopsis.pop_back();
      synopsis.resize(32, ' ');
      std::string summary = indented(c.summary, std::string(32, ' '));
      text += synopsis + summary.substr(32);
    } else {
      text += synopsis + indented(c.summary, std::string(32, ' '));
    }
  }
  text.append("\n").append(kManifests).append("\n").append(kExitStatus);
  std::fputs(text.c_str(), out);
}

void command_usage(const Command& c) {
  std::string text = "usage: toolgate ";
  text.append(c.synopsis).append("\n\n").append(c.summary).append("\n");
  text.append("\noptions:\n").append(c.options);
  text.append("  -h, --help                    this text\n");
  if (c.manifests) text.append("\n").append(kManifests);
  text.append("\n").append(kExitStatus);
  std::fputs(text.c_str(), stdout);
}

int run_help(const Args&) {
  usage(stdout);
  return 0;
}

// `--help` or `-h` where an option may stand: not as the value of an option
// that takes one, and not after `--` (the MCP server's own arguments).
bool asks_for_help(const Args& args, const Command& c) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
    auto takes_value = [&](std::string_view flag) {
      return std::find(c.value_flags.begin(), c.value_flags.end(), flag) != c.value_flags.end() ||
             (c.manifests && (flag == "--manifest" || flag == "--disable"));
    };
    if (takes_value(a)) ++i;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr; stdout carries results only.
  spdlog::set_default_logger(spdlog::stderr_color_mt("toolgate"));
  spdlog::set_pattern("toolgate: %l: %v");
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  toolgate::cli::Args args(argv + 2, argv + argc);
  try {
    // The child sides of hot reload's probe and of inspect: they run a
    // plugin's code, so neither can crash the command that started them.
    if (cmd == "__probe") return toolgate::detail::probe_main(args);
    if (cmd == "__inspect") return toolgate::cli::inspect_child_main(args);
    if (cmd == "--help" || cmd == "-h") cmd = "help";
    if (cmd == "--version") cmd = "version";
    for (const auto& c : commands()) {
      if (cmd != c.name) continue;
      if (asks_for_help(args, c)) {
        command_usage(c);
        return 0;
      }
      return c.run(args);
    }
  } catch (const toolgate::cli::UsageError& e) {
    std::fprintf(stderr, "toolgate %s: usage error: %s (see toolgate %s --help)\n", cmd.c_str(),
                 e.what(), cmd.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolgate %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "toolgate: unknown command \"%s\"\n\n", cmd.c_str());
  usage(stderr);
  return 2;
}
