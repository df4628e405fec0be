#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/status.h"

namespace ratchet {
const char kDrawUsage[] = "usage: ratchet draw\n";
int RunDraw(CommandContext& context) {
  return ReportError(context.err, "draw", Status::Unavailable("draw is being built"));
}
}  // namespace ratchet
