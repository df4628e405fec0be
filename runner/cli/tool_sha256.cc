#include "cli/tool_sha256.h"

#include "cli/tool_sha256_generated.h"

namespace ratchet {

const char* ToolSourceSha256() { return RATCHET_TOOL_SOURCE_SHA256; }
int ToolSourceFileCount() { return RATCHET_TOOL_SOURCE_FILE_COUNT; }

}  // namespace ratchet
