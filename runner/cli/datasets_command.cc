#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/status.h"

namespace ratchet {
const char kDatasetsUsage[] = "usage: ratchet datasets\n";
int RunDatasets(CommandContext& context) {
  return ReportError(context.err, "datasets", Status::Unavailable("datasets is being built"));
}
}  // namespace ratchet
