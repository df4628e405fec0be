// A realistic evidence directory for the tests: one record, one run of two calls, every file of
// the layout present and non-empty, written by EvidenceWriter and finished with a chosen status.
#ifndef RATCHET_TESTS_EVIDENCE_EXAMPLE_H_
#define RATCHET_TESTS_EVIDENCE_EXAMPLE_H_

#include <string>

#include "core/status.h"
#include "evidence/writer.h"

namespace ratchet {

// The example run seed (bytes 0..31) and its commitment, as hex.
std::string ExampleSeedHex();
std::string ExampleSeedCommit();

// Writes everything of the example but status.json and MANIFEST.json (the seed committed and
// revealed); the caller finishes it.
Status WriteExampleFiles(EvidenceWriter* writer);

// Begin, WriteExampleFiles, Finish(status, exit_code, message).
Status WriteExample(const std::string& final_dir, const std::string& status = "complete",
                    int exit_code = 0);

}  // namespace ratchet

#endif  // RATCHET_TESTS_EVIDENCE_EXAMPLE_H_
