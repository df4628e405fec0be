// Evidence directories for the audit's tests, written with EvidenceWriter: consistent in every
// figure (the calls judged by Judge, the plan from the seed, the labels matching the draws
// regenerated from the seed when the datasets are here), as `ratchet score` writes them for a
// method that qualifies at difficulty 1 under an embedded rule set. No worker runs.
#ifndef RATCHET_TESTS_AUDIT_FIXTURE_H_
#define RATCHET_TESTS_AUDIT_FIXTURE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// One record of the fixture: its runs, its calls' times, and what its runs break.
struct FixtureRecord {
  std::string id = "ncm";
  int runs = 1;
  // Runs of a "rerun" entry, as `ratchet run` adds for a record it scores once more.
  int rerun_runs = 0;
  double ms = 10.0;       // every call's time is near this (the ranked time with it)
  double rerun_ms = 0.0;  // the same for the rerun's calls; 0: ms
  // What every run of the first scoring (and of the rerun) breaks: "" (it qualifies),
  // "timing-call" (one call's round trip far beyond its time) or "dispersion-slow" (one MNIST
  // call far slower than the others).
  std::string breaks, rerun_breaks;
  std::string rerun_source;  // the rerun's submission; "": `source`
  std::string source =
      "def method(train_x, train_y, test_x):\n    return test_x[:, 0].long() % 10\n";
};

struct FixtureOptions {
  std::vector<FixtureRecord> records = {FixtureRecord{}};
  std::string sandbox = "full";  // report.json's "sandbox"
  std::string device_kind = "cpu";
  // On a cuda lane: the board, in the contract (lane.device.name, observed.device_uuid) and in
  // every worker's hello; no uuid: none recorded.
  std::string device_name = "NVIDIA H200";
  std::optional<std::string> device_uuid = "GPU-12345678-aaaa-bbbb-cccc-1234567890ab";
  std::string status = "complete";  // how the writer finishes
  // The rule set it is scored under, as --rules takes it (nullopt: the default), locked in its
  // contract.json.
  std::optional<std::string> rules;
  Json ratchet;  // report.json's "ratchet" part, as `ratchet run --baseline` writes it; null: none
  // status.json's exit code of a complete run; nullopt: 0 when the last scoring of every record
  // qualified, else 1.
  std::optional<int> exit_code;
  // The private key (PEM) that signs its manifest (SIGNATURE.json); nullopt: unsigned.
  std::optional<std::string> signing_key;
};

// Writes the evidence directory `dir` (which must not exist). Internal when a record's runs do
// not judge as its options say.
Status WriteFixture(const std::string& dir, const FixtureOptions& options = {});

// The contract's lane (its facts and id) of evidence written with `options`.
Json FixtureLane(const FixtureOptions& options);
// The contract's `locked` part of evidence written with `options`.
Json FixtureLocked(const FixtureOptions& options);

// The checkout's data/ folder when it exists: the fixture looks for datasets there first, and
// the tests give it to the audit (--data), so that both find the same files.
std::optional<std::string> TestDataFolder();

// Whether the datasets the fixture's calls use are here, so that the audit re-counts labels.
bool FixtureDatasetsPresent();

// The bundled baseline's evidence of the lane whose device is `kind` ("cpu", "cuda"), as its lane
// names it: evidence `ratchet run` wrote. Empty when the baseline reviews no such lane.
std::string BundledEvidence(const std::string& kind);

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
