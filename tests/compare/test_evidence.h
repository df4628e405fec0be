// Evidence directories for the compare tests: contracts built by the contract builder from fixed
// facts, and reports in the shape `ratchet score` writes, finished by EvidenceWriter.
#ifndef RATCHET_TESTS_COMPARE_TEST_EVIDENCE_H_
#define RATCHET_TESTS_COMPARE_TEST_EVIDENCE_H_

#include <optional>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "contract/contract.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "support/contract_fixtures.h"

namespace ratchet {

Json TestContract(const LockedInputs& locked, const MachineFacts& machine);

// One record as a run scored it.
struct TestRecord {
  std::string id;
  std::optional<double> ranked_ms;  // set: qualified at this time; unset: disqualified
  std::vector<std::string> broken;  // the rules a disqualified record broke
  std::string source =
      "def method(train_x, train_y, test_x):\n    return ncm(train_x, train_y, test_x)\n";
  int band_bp = 540;
};
TestRecord Qualified(const std::string& id, double ranked_ms);
TestRecord Disqualified(const std::string& id, std::vector<std::string> broken);

// report.json of `records`, as `ratchet score` writes it ("ratchet.report/1").
Json TestReport(const std::vector<TestRecord>& records);

// A finished evidence directory at `dir` (which must not exist). `status` "complete" writes the
// report and reveals the seed; "interrupted" stops after the records' files, as a stopped run.
Status WriteTestEvidence(const std::string& dir, const Json& contract,
                         const std::vector<TestRecord>& records,
                         const std::string& status = "complete");
// The same with a report given as it is (for malformed ones).
Status WriteTestEvidenceWithReport(const std::string& dir, const Json& contract,
                                   const Json& report);

// The evidence at `dir` as one side of CompareEvidence, shown as `shown`: its reader's findings
// and status as its problems, its records as report.json holds them. A stand-in for a verified
// side (cli/compare_command.cc), for the tests of the comparison and its rendering only: the
// evidence here is written by hand, and no audit passes it.
ComparedSide ReportSide(const std::string& shown, const std::string& dir);

}  // namespace ratchet

#endif  // RATCHET_TESTS_COMPARE_TEST_EVIDENCE_H_
