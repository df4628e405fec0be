// The hash of the tool's sources (runner/cli, baseline, compare and audit: source_files.cmake),
// computed when this binary was built and compiled into the tool alone: the contract records it
// in `observed.tool`, where nothing compares it, and the scorer's binary never holds it, so that
// a change to the tool leaves the scorer's binary, and the lane, as they were.
#ifndef RATCHET_CLI_TOOL_SHA256_H_
#define RATCHET_CLI_TOOL_SHA256_H_

namespace ratchet {

// 64 lowercase hex characters.
const char* ToolSourceSha256();
// How many files the hash covers.
int ToolSourceFileCount();

}  // namespace ratchet

#endif  // RATCHET_CLI_TOOL_SHA256_H_
