// The commands of ratchet-scorer (session/main.cc dispatches): `serve`, the scoring session the
// tool asks for through requests on stdin (session/request.h), and `contract` and `telemetry`,
// what `ratchet contract` and `ratchet telemetry` print.
#ifndef RATCHET_SESSION_SCORER_COMMANDS_H_
#define RATCHET_SESSION_SCORER_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace ratchet {

// `ratchet-scorer contract [--json] [--data DIR] [--rules ID|FILE] [--python PATH]
// [--tool-version V --tool-source-sha256 H]`: the contract of this machine; the tool passes its
// own identity, recorded in `observed.tool`.
int RunScorerContract(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// `ratchet-scorer telemetry [--runs N] [--out DIR] [--python PATH] [--rules ID|FILE]`: what
// `ratchet telemetry` prints (its usage says more).
int RunScorerTelemetry(const std::vector<std::string>& argv, std::ostream& out,
                       std::ostream& err);

// `ratchet-scorer serve`: one scoring session, driven by requests on `in_fd`, answered on
// `out_fd` (session/request.h). Returns the exit code: the one the session finished with.
int ServeRequests(int in_fd, int out_fd);

}  // namespace ratchet

#endif  // RATCHET_SESSION_SCORER_COMMANDS_H_
