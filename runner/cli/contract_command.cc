#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/status.h"

namespace ratchet {
const char kContractUsage[] = "usage: ratchet contract\n";
int RunContract(CommandContext& context) {
  return ReportError(context.err, "contract", Status::Unavailable("contract is being built"));
}
}  // namespace ratchet
