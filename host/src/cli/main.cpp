// main.cpp -- `toolgate COMMAND ...`: dispatch and usage.
#include "inspect.hpp"
#include "options.hpp"

#include <toolgate/toolgate.h>
#include <toolgate/host.hpp>

#include "../reload/probe.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstring>
#include <exception>

namespace {

void usage(std::FILE* out) {
  std::fputs(
      "usage: toolgate COMMAND [ARGS]\n"
      "\n"
      "commands:\n"
      "  demo [--samples DIR]          walk the pipeline, one plugin per section\n"
      "  check M...                    load the manifests without running a call;\n"
      "                                prints ok and a summary, or every error\n"
      "  plan M... [--tool NAME] [--json]\n"
      "                                the resolved order of every stage\n"
      "  call M... --tool NAME [--args JSON] [--approve yes|no|prompt]\n"
      "            [--trace] [--events FILE]\n"
      "                                one call of a sample tool (greet, slow)\n"
      "  watch M... [--call TOOL --args JSON --every MS] [--no-probe]\n"
      "                                reload on every change (and SIGHUP), one line\n"
      "                                per reload; optionally make a call repeatedly\n"
      "  audit verify [--no-genesis] [--key-file F] [--anchor F] [--max-line-bytes N] FILE...\n"
      "                                check audit logs' hash chain (oldest file first);\n"
      "                                --key-file checks a keyed chain's HMACs, --anchor\n"
      "                                checks the chain against its anchor file.  Exit 3:\n"
      "                                a keyed chain checked without its key\n"
      "  mcp M... [--events FILE] [--max-message-bytes N] -- CMD ARGS...\n"
      "                                MCP gateway: run CMD as an MCP server on stdio and\n"
      "                                relay a client on our stdin/stdout to it, every\n"
      "                                tools/call through the pipeline (asks become\n"
      "                                elicitation requests to the client)\n"
      "  inspect PLUGIN.so [--json] [--config JSON]\n"
      "                                what a plugin is (ABI, id, version, capabilities,\n"
      "                                flags, registrations, exports) and what is wrong\n"
      "                                with its build; init runs in a child process.\n"
      "                                Exit 1 when it finds a problem\n"
      "  new-plugin NAME --lang c|cpp [--kind guard|pre|wrapper|post|observer] [--dir DIR]\n"
      "                                scaffold a plugin project (sources, CMakeLists.txt,\n"
      "                                manifest, tests) in DIR (default ./NAME); never\n"
      "                                overwrites a file\n"
      "  version                       toolgate's version and plugin ABI\n"
      "  help                          this text\n"
      "\n"
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
      "\n"
      "exit status: 0 ok, 1 failure (invalid manifest, call ended as an error), 2 usage\n",
      out);
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
    if (cmd == "demo") return toolgate::cli::run_demo(args);
    if (cmd == "call") return toolgate::cli::run_call(args);
    if (cmd == "check") return toolgate::cli::run_check(args);
    if (cmd == "plan") return toolgate::cli::run_plan(args);
    if (cmd == "watch") return toolgate::cli::run_watch(args);
    if (cmd == "mcp") return toolgate::cli::run_mcp(args);
    // The child side of hot reload's probe: load a candidate, init, exit.
    if (cmd == "__probe") return toolgate::detail::probe_main(args);
    if (cmd == "audit") return toolgate::cli::run_audit(args);
    if (cmd == "inspect") return toolgate::cli::run_inspect(args);
    // The child side of inspect: runs the plugin's code so inspect cannot crash.
    if (cmd == "__inspect") return toolgate::cli::inspect_child_main(args);
    if (cmd == "new-plugin") return toolgate::cli::run_new_plugin(args);
    if (cmd == "version" || cmd == "--version") {
      std::printf("toolgate %s (plugin ABI %d.%d)\n", TOOLGATE_VERSION, TOOLGATE_ABI_MAJOR,
                  TOOLGATE_ABI_MINOR);
      return 0;
    }
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      usage(stdout);
      return 0;
    }
  } catch (const toolgate::cli::UsageError& e) {
    std::fprintf(stderr, "toolgate %s: usage error: %s (see toolgate help)\n", cmd.c_str(),
                 e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolgate %s: error: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "toolgate: unknown command \"%s\"\n\n", cmd.c_str());
  usage(stderr);
  return 2;
}
