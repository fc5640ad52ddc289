// main.cpp -- `toolgate COMMAND ...`: dispatch and usage.
#include "commands.hpp"

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
      "  demo [--samples DIR]                 walk the pipeline, one plugin per section\n"
      "  call [--manifest M]... TOOL [JSON]   run one call of a sample tool through\n"
      "                                       the plugins of the manifests; prints the\n"
      "                                       result (exit 0) or the error (exit 1)\n"
      "  help                                 this text\n",
      out);
}

}  // namespace

int main(int argc, char** argv) {
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
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
      usage(stdout);
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolgate %s: %s\n", cmd.c_str(), e.what());
    return 1;
  }
  std::fprintf(stderr, "toolgate: unknown command \"%s\"\n\n", cmd.c_str());
  usage(stderr);
  return 2;
}
