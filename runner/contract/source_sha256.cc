#include "contract/source_sha256.h"

#include "contract/source_sha256_generated.h"

namespace ratchet {

const char* ScorerSourceSha256() { return RATCHET_SOURCE_SHA256; }
int ScorerSourceFileCount() { return RATCHET_SOURCE_FILE_COUNT; }

}  // namespace ratchet
