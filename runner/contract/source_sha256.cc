#include "contract/source_sha256.h"

#include "contract/source_sha256_generated.h"

namespace ratchet {

const char* HarnessSourceSha256() { return RATCHET_SOURCE_SHA256; }
int HarnessSourceFileCount() { return RATCHET_SOURCE_FILE_COUNT; }

}  // namespace ratchet
