// Evidence directories for the audit's tests, written with EvidenceWriter: consistent in every
// figure (the calls judged by Judge, the plan from the seed, the labels matching the draws
// regenerated from the seed when the datasets are here), as `ratchet score` writes them for a
// method that qualifies at difficulty 1 under an embedded rule set. No worker runs.
#ifndef RATCHET_TESTS_AUDIT_FIXTURE_H_
#define RATCHET_TESTS_AUDIT_FIXTURE_H_

#include <functional>
#include <optional>
#include <string>

#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

struct FixtureOptions {
  std::string record_id = "ncm";
  int runs = 1;
  int rerun_runs = 0;  // runs of a "rerun" entry, as `ratchet run` adds for a time out of tolerance
  std::string sandbox = "full";  // report.json's "sandbox"
  std::string device_kind = "cpu";
  std::string status = "complete";  // how the writer finishes
  // The rule set it is scored under, as --rules takes it (nullopt: the default), locked in its
  // contract.json.
  std::optional<std::string> rules;
};

// Writes the evidence directory `dir` (which must not exist).
Status WriteFixture(const std::string& dir, const FixtureOptions& options = {});

// The checkout's data/ folder when it exists: the fixture looks for datasets there first, and
// the tests give it to the audit (--data), so that both find the same files.
std::optional<std::string> TestDataFolder();

// Whether the datasets the fixture's calls use are here, so that the audit re-counts labels.
bool FixtureDatasetsPresent();

// The JSON file `relative` of `dir`, changed by `edit`, written back in the evidence's spelling;
// then MANIFEST.json made to match every file again: a tampering that leaves the manifest clean.
Status EditJsonAndRemanifest(const std::string& dir, const std::string& relative,
                             const std::function<void(Json&)>& edit);
// MANIFEST.json rewritten from the files on disk.
Status Remanifest(const std::string& dir);

// A copy of the evidence directory `source` at `copy` (replacing it) with one byte of its file
// `relative` changed (the middle byte flipped; an empty file gets one byte).
Status CopyWithOneByteChanged(const std::string& source, const std::string& copy,
                              const std::string& relative);

// Every finding and note of an audit, a line each, for failure messages.
std::string Findings(const AuditResult& result);
// Whether a breaking finding is at `where` and says `words`.
bool HasFinding(const AuditResult& result, const std::string& where, const std::string& words = "");

}  // namespace ratchet

#endif  // RATCHET_TESTS_AUDIT_FIXTURE_H_
