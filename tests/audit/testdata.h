// Where the audit's test files are: tests/audit/testdata/ of the source tree, found through
// $RATCHET_SOURCE_DIR (set by ctest) or the working folder.
#ifndef RATCHET_TESTS_AUDIT_TESTDATA_H_
#define RATCHET_TESTS_AUDIT_TESTDATA_H_

#include <cstdlib>
#include <string>

#include "core/canonical_json.h"
#include "core/file.h"
#include "support/checkout.h"

namespace ratchet {

// A published record copied from the corpus: `relative` under testdata/mnist-a100/submissions/.
inline std::string CorpusPath(const std::string& relative) {
  return SourceDir() + "/tests/audit/testdata/mnist-a100/submissions/" + relative;
}

inline Json CorpusJson(const std::string& relative) {
  Result<std::string> text = ReadFile(CorpusPath(relative));
  if (!text.ok()) return Json();
  return Json::parse(*text);
}

// The five records, by what they are.
inline constexpr char kStanding[] = "graph-mlp-20260926/evidence/scorer-1.2.0/run-1.json";
inline constexpr char kStandingOtherBoard[] =
    "kernel-pcg-20260929/evidence/same-board/run-2-ours.json";
inline constexpr char kDisqualified[] = "ladder-triton-20260928/evidence/d3-5000-steps/run-1.json";
inline constexpr char kUnsandboxedBare[] = "native-mlp-d1-20261007/evaluation.json";
inline constexpr char kWrapperWithoutRecord[] = "graph-mlp-20260926/evidence/run-2.json";

}  // namespace ratchet

#endif  // RATCHET_TESTS_AUDIT_TESTDATA_H_
