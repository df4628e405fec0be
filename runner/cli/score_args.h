// What `ratchet score` and `ratchet run` share on their command lines: the options of the scoring
// session they ask ratchet-scorer for, and the FILE[:function] of a record.
#ifndef RATCHET_CLI_SCORE_ARGS_H_
#define RATCHET_CLI_SCORE_ARGS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/args.h"
#include "core/status.h"
#include "session/request.h"

namespace ratchet {

// The options `--data`, `--python`, `--rules`, `--out` and `--no-energy` of a scoring command,
// for `command` (also the prefix of its default evidence folder), and the tool's identity.
SessionOptions SessionOptionsFromArgs(const Args& args, const char* command);

// The signing key of --sign FILE, else of $RATCHET_SIGNING_KEY: the private key's PEM, checked to
// be an Ed25519 key in a file only its owner can read; nullopt when neither names one.
Result<std::optional<std::string>> SigningKeyFromArgs(const Args& args);

// A record id from a file name: its stem, every character outside [A-Za-z0-9._-] made '_'.
std::string RecordIdOf(const std::string& path);
bool IsNativeSpec(const std::string& spec);
// Whether `record` can be asked of the scorer: its names as CheckSubmissionNames allows them,
// its path and id UTF-8 (a request carries nothing else, session/request.h). Checked before the
// scorer begins, so that such a record is refused with exit 2 before any evidence is written.
Status CheckRecordCrosses(const RecordSpec& record);
// What a submission's names may hold, checked before any evidence exists: the file's name is one
// plain evidence name (A-Z a-z 0-9 . _ + @ = -, not starting with '.', evidence/layout.h), since
// the evidence keeps the file under it, and a function named on the command line or in a
// baseline is an identifier of ASCII letters, digits and '_' not starting with a digit. Nothing
// else (a newline, a control character, a hidden name) reaches a terminal or an evidence file;
// the error shows the name as a JSON string.
Status CheckSubmissionNames(const std::string& spec);

}  // namespace ratchet

#endif  // RATCHET_CLI_SCORE_ARGS_H_
