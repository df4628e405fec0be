#include "core/exit_codes.h"

#include <ostream>

namespace ratchet {

ExitCode ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case Status::Code::kOk:
      return kExitSuccess;
    case Status::Code::kUsage:
    case Status::Code::kBadInput:
      return kExitBadInput;
    case Status::Code::kUnavailable:
    case Status::Code::kIOError:
    case Status::Code::kInternal:
      return kExitHarness;
  }
  return kExitHarness;
}

int ReportError(std::ostream& err, const char* command, const Status& status) {
  err << "ratchet " << command << ": error: " << status.message() << "\n";
  if (status.code() == Status::Code::kUsage) {
    err << "run `ratchet " << command << " --help` for the options\n";
  }
  return ExitCodeFor(status);
}

}  // namespace ratchet
