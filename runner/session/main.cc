// ratchet-scorer: everything that can move an outcome, as one program the tool (`ratchet`) runs
// beside it. A user types `ratchet ...`; `ratchet run` and `ratchet score` start `ratchet-scorer
// serve` and talk to it through requests (session/request.h); `ratchet contract` runs
// `ratchet-scorer contract`. docs/design.md draws the line between the two programs.
#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "core/escaping_stream.h"
#include "core/exit_codes.h"
#include "core/version.h"
#include "session/scorer_commands.h"

namespace {

const char kUsage[] =
    "usage: ratchet-scorer serve\n"
    "       ratchet-scorer contract [--json] [--data DIR] [--rules ID|FILE] [--python PATH]\n"
    "                               [--tool-version V --tool-source-sha256 H]\n"
    "       ratchet-scorer telemetry [--runs N] [--out DIR] [--python PATH] [--rules ID|FILE]\n"
    "       ratchet-scorer --version | --help\n"
    "\n"
    "The scorer of ratchet: datasets and draws, the rule set and the judge, the sandbox, the\n"
    "workers, the run loop, the energy column and the evidence writer. Its source hash is the\n"
    "contract's locked.scorer. Users run it through `ratchet`: `ratchet run` and `ratchet score`\n"
    "start `serve`, which reads one JSON request a line on stdin (begin, score, complete) and\n"
    "answers on stdout (docs/design.md, \"The scorer's requests\"); `ratchet contract` and\n"
    "`ratchet telemetry` run `contract` and `telemetry`, `contract` with the tool's version and\n"
    "source hash (--tool-version, --tool-source-sha256), recorded as its observed.tool.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ratchet::EscapingStream out(std::cout), err(std::cerr);
  int code = ratchet::kExitBadInput;
  if (args.empty()) {
    err << kUsage;
  } else if (args[0] == "--help" || args[0] == "-h") {
    out << kUsage;
    code = ratchet::kExitSuccess;
  } else if (args[0] == "--version") {
    out << "ratchet-scorer " << ratchet::kRatchetVersion << "\n";
    code = ratchet::kExitSuccess;
  } else if (args[0] == "serve") {
    if (args.size() == 1) {
      code = ratchet::ServeRequests(STDIN_FILENO, STDOUT_FILENO);
    } else {
      // Its requests come on stdin, never as arguments.
      err << "ratchet-scorer serve: takes no arguments, not '" << args[1] << "'\n" << kUsage;
    }
  } else if (args[0] == "contract") {
    code = ratchet::RunScorerContract({args.begin() + 1, args.end()}, out, err);
  } else if (args[0] == "telemetry") {
    code = ratchet::RunScorerTelemetry({args.begin() + 1, args.end()}, out, err);
  } else {
    err << "ratchet-scorer: unknown command '" << args[0] << "'\n" << kUsage;
  }
  out.flush();
  err.flush();
  return code;
}
