// The tamper battery: the evidence of a real `ratchet score` (ncm.py under a rule set of one MNIST
// call and one hold-out call), changed in every way one byte can be changed and in the ways a
// forger would try, each change audited in-process:
//
// - every byte of every file changed (its lowest bit flipped; an empty file given one byte), the
//   manifest as it was: the claim does not stand, and a finding names the file;
// - the same with the manifest resealed to match: the claim does not stand, or it claims exactly
//   what the untouched evidence claims (its claims and verdict line), but for the two fields that
//   report.json alone holds;
// - resealed edits a forger would try: each is a finding;
// - consistent rewrites that no unsigned check can see (docs/audit.md, "What it cannot see"):
//   each stands.
//
// Time: an audit reads and hashes every file twice (some 3 ms here); locating the datasets reads
// and hashes them (2 s), so they are located once for the suite and given to the audit
// (EvidenceAuditOptions::datasets); and a re-count regenerates each call's draw (some 50 ms a
// call). So the byte battery audits two copies side by side, with no dataset located, and takes
// the labels files (10,000 bytes each) at a stride: every kLabelStride-th byte with the manifest
// as it was (its check alone decides), every kRecountStride-th byte resealed, those re-counted
// where the datasets are here. Every byte of every other file is taken, some 12,000 changes a
// battery; two calls keep the files few. The suite takes some 80 s of CPU time, 10 s of it the
// score, which each process makes once (ctest runs each test in a process of its own).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "audit/evidence.h"
#include "baseline/ratchet_report.h"
#include "contract/contract.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/signature.h"
#include "fixture.h"
#include "rules/judge.h"
#include "rules/pyformat.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "sandbox/policy.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

constexpr char kCalls[] = "records/ncm/run-1/calls.json";
constexpr char kJudge[] = "records/ncm/run-1/judge.json";
// Primes, so that the bytes taken fall on every place of a repeating pattern alike.
constexpr size_t kLabelStride = 97;
constexpr size_t kRecountStride = 1009;
constexpr size_t kCopies = 2;  // audited side by side
constexpr size_t kShown = 20;  // failures printed
constexpr char kH200Uuid[] = "GPU-12345678-1234-1234-1234-123456789abc";
// What report.json alone says: an edit of either stands as the claim it makes (docs/audit.md,
// "What it cannot see"), so the resealed battery lets these change the claim.
const char* const kReportAlone[] = {"report.json (records.ncm.band_bp)",
                                    "report.json (records.ncm.function)"};

bool IsLabels(const std::string& file) { return file.find("/labels/") != std::string::npos; }
bool IsJson(const std::string& file) {
  return file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0;
}

// One change of the byte battery: `file` as it was and as changed.
struct ByteChange {
  std::string file;
  size_t offset = 0;
  std::string before, after;
};

// The leaves at which two JSON values differ, array indices written [*] ("[*].ms").
void DifferingLeaves(const Json& a, const Json& b, const std::string& path,
                     std::vector<std::string>* out) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string at = path.empty() ? key : path + "." + key;
      if (b.contains(key)) {
        DifferingLeaves(value, b[key], at, out);
      } else {
        out->push_back(at);
      }
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) out->push_back(path.empty() ? key : path + "." + key);
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (size_t i = 0; i < a.size(); ++i) DifferingLeaves(a[i], b[i], path + "[*]", out);
  } else if (a != b) {
    out->push_back(path);
  }
}

// What a change changed: the file, and for a JSON file that still parses the fields that differ
// ("report.json (records.ncm.band_bp)").
std::string WhatChanged(const ByteChange& change) {
  if (!IsJson(change.file)) return change.file;
  Result<Json> a = ParseJson(change.before, change.file);
  Result<Json> b = ParseJson(change.after, change.file);
  if (!a.ok() || !b.ok()) return change.file + " (no longer JSON)";
  std::vector<std::string> leaves;
  DifferingLeaves(*a, *b, "", &leaves);
  if (leaves.empty()) return change.file + " (a digit beyond a number's precision)";
  std::string fields;
  for (const std::string& leaf : leaves) fields += (fields.empty() ? "" : ", ") + leaf;
  return change.file + " (" + fields + ")";
}

// A coarse kind of change, for the list of those that stand: the file and the first three parts
// of the field, its name or its value ("calls.json: [*].phases.steps, a name").
std::string KindOf(const ByteChange& change) {
  const std::string what = WhatChanged(change);
  const size_t open = what.find(" (");
  if (open == std::string::npos) return what;
  std::string field = what.substr(open + 2, what.size() - open - 3);
  const bool renamed = field.find(", ") != std::string::npos;
  field = field.substr(0, field.find(", "));
  size_t cut = 0;
  for (int part = 0; part < 3 && cut != std::string::npos; ++part)
    cut = field.find('.', cut == 0 ? 0 : cut + 1);
  if (cut != std::string::npos) field = field.substr(0, cut);
  return what.substr(0, open) + ": " + field + (renamed ? ", a name" : "");
}

// What an audit says the evidence claims: its claims, a line each, and its verdict line.
std::string ClaimOf(const AuditResult& result) {
  std::string text;
  for (const std::string& claim : result.claims) text += "claim: " + claim + "\n";
  return text + VerdictLine(result);
}

// Whether a breaking finding is in `file`, at any field.
bool HasFindingIn(const AuditResult& result, const std::string& file) {
  for (const AuditFinding& f : result.findings) {
    if (f.kind == AuditFinding::Kind::kBreaks && f.where.rfind(file + ": ", 0) == 0) return true;
  }
  return false;
}

// Whether a breaking finding names `file`: as the file found wrong, or, for MANIFEST.json, as
// the manifest a file disagrees with (either side may be the one that changed).
bool NamesFile(const AuditResult& result, const std::string& file) {
  for (const AuditFinding& f : result.findings) {
    if (f.kind != AuditFinding::Kind::kBreaks) continue;
    if (f.where == file || f.where.rfind(file + ": ", 0) == 0) return true;
    if (file == kManifestFile && f.message.rfind("does not match MANIFEST.json: ", 0) == 0)
      return true;
  }
  return false;
}

std::string FirstOf(const std::vector<std::string>& lines) {
  std::string text;
  for (size_t i = 0; i < lines.size() && i < kShown; ++i) text += lines[i] + "\n";
  return text;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void EditJson(const std::string& dir, const std::string& file,
              const std::function<void(Json&)>& edit) {
  ASSERT_TRUE(EditJsonAndRemanifest(dir, file, edit).ok()) << file;
}

// The contract's lane made an NVIDIA H200's: its device and board, and its id recomputed.
void RelabelAsAnH200(const std::string& dir) {
  EditJson(dir, kContractFile, [](Json& contract) {
    contract["lane"]["device"] = {{"kind", "cuda"}, {"name", "NVIDIA H200"}};
    contract["lane"].erase("id");
    contract["lane"]["id"] = *LaneId(contract["lane"]);
    contract["observed"]["device_uuid"] = kH200Uuid;
  });
}

// `dir` audited under the rule set its contract locks, without the datasets.
AuditResult AuditWithoutData(const std::string& dir) {
  EvidenceAuditOptions options;
  options.datasets = std::vector<LocatedDataset>{};
  AuditResult result;
  const Status status = AuditEvidence(dir, options, &result);
  EXPECT_TRUE(status.ok()) << status.message();
  return result;
}

class TamperBatteryTest : public ::testing::Test {
 protected:
  // The evidence is scored once for the suite, and the datasets located once; each test works
  // on copies.
  static void SetUpTestSuite() {
    if (!HavePython()) return;
    scored_ = new TempDir;
    Json rules = FastRulesJson();
    rules["calls"]["mnist_calls"] = 1;
    rules["calls"]["holdout_calls"] = 1;
    rules_ = *scored_ / "rules.json";
    if (!WriteFileAtomic(rules_, rules.dump(2)).ok()) return;
    BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                                "3000", "--rules", rules_, "--out", *scored_ / "ev"});
    if (run.exit_code != 0) {
      score_failure_ =
          "ratchet score exited " + std::to_string(run.exit_code) + "\n" + run.out + run.err;
    }
    if (FixtureDatasetsPresent()) {
      Result<DataSearch> search = MakeDataSearch(TestDataFolder());
      if (!search.ok()) return;
      Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
      if (located.ok()) located_ = new std::vector<LocatedDataset>(std::move(located).value());
    }
  }
  static void TearDownTestSuite() {
    delete scored_;
    delete located_;
    scored_ = nullptr;
    located_ = nullptr;
  }

  void SetUp() override {
    if (scored_ == nullptr) GTEST_SKIP() << "no python3 that imports torch";
    ASSERT_EQ(score_failure_, "");
  }

  // A fresh copy of the scored evidence, or of `source`.
  std::string Copy(const std::string& name, const std::string& source = "") const {
    const std::string copy = dir_ / name;
    std::filesystem::remove_all(copy);
    std::filesystem::copy(source.empty() ? *scored_ / "ev" : source, copy,
                          std::filesystem::copy_options::recursive);
    return copy;
  }

  // `dir` audited with `rules` (the scored evidence's by default), with the datasets located
  // for the suite (labels re-counted) or with none (no label re-counted: a note says so). A
  // refusal (a rule set other than the contract's) is the status.
  static Result<AuditResult> AuditDir(const std::string& dir, bool recount,
                                      std::optional<std::string> rules = rules_) {
    EvidenceAuditOptions options;
    options.rules_path = rules;
    options.datasets = recount && located_ ? *located_ : std::vector<LocatedDataset>{};
    AuditResult result;
    RATCHET_RETURN_IF_ERROR(AuditEvidence(dir, options, &result));
    return result;
  }
  static AuditResult AuditOk(const std::string& dir, bool recount = true,
                             std::optional<std::string> rules = rules_) {
    Result<AuditResult> result = AuditDir(dir, recount, rules);
    EXPECT_TRUE(result.ok()) << result.status().message();
    return result.ok() ? *result : AuditResult{};
  }

  // Every change of the byte battery: each byte of each file (MANIFEST.json first, unless
  // `reseal`, which rewrites it), the labels at `label_stride`.
  std::vector<ByteChange> ByteChanges(bool reseal, size_t label_stride) const {
    const std::string evidence = *scored_ / "ev";
    std::vector<std::string> files;
    if (!reseal) files.push_back(kManifestFile);
    const Result<std::vector<ManifestEntry>> manifest = ReadManifest(evidence);
    EXPECT_TRUE(manifest.ok());
    if (manifest.ok()) {
      for (const ManifestEntry& entry : *manifest) files.push_back(entry.path);
    }
    std::vector<ByteChange> changes;
    for (const std::string& file : files) {
      const std::string before = *ReadFile(evidence + "/" + file);
      if (before.empty()) {
        changes.push_back({file, 0, before, "x"});
        continue;
      }
      const size_t stride = IsLabels(file) ? label_stride : 1;
      for (size_t offset = 0; offset < before.size(); offset += stride) {
        std::string after = before;
        after[offset] = static_cast<char>(after[offset] ^ 0x01);
        changes.push_back({file, offset, before, after});
      }
    }
    return changes;
  }

  // Makes each change in a copy of the evidence (kCopies copies, side by side), the manifest
  // resealed to match when `reseal`, audits it (labels re-counted where `recount` says so for
  // the file) and calls `seen` with what the audit said, one call at a time.
  void AuditEach(const std::vector<ByteChange>& changes, bool reseal,
                 const std::function<bool(const std::string& file)>& recount,
                 const std::function<void(const ByteChange&, const Result<AuditResult>&)>& seen) {
    const Result<std::vector<ManifestEntry>> entries = ReadManifest(*scored_ / "ev");
    ASSERT_TRUE(entries.ok());
    std::mutex mutex;
    auto audit_share = [&](size_t first, const std::string& copy) {
      const std::string manifest_path = copy + "/" + kManifestFile;
      const std::string manifest_text = *ReadFile(manifest_path);
      for (size_t i = first; i < changes.size(); i += kCopies) {
        const ByteChange& change = changes[i];
        const std::string path = copy + "/" + change.file;
        WriteBytes(path, change.after);
        if (reseal) {
          std::vector<ManifestEntry> resealed = *entries;
          for (ManifestEntry& entry : resealed) {
            if (entry.path != change.file) continue;
            entry.bytes = change.after.size();
            entry.sha256 = Sha256Hex(change.after);
          }
          WriteBytes(manifest_path, *ManifestText(resealed));
        }
        const Result<AuditResult> result = AuditDir(copy, recount(change.file));
        WriteBytes(path, change.before);
        if (reseal) WriteBytes(manifest_path, manifest_text);
        std::lock_guard<std::mutex> lock(mutex);
        seen(change, result);
      }
    };
    std::vector<std::thread> threads;
    for (size_t k = 0; k < kCopies; ++k)
      threads.emplace_back(audit_share, k, Copy("copy-" + std::to_string(k)));
    for (std::thread& thread : threads) thread.join();
  }

  static TempDir* scored_;
  static std::string rules_;
  static std::string score_failure_;
  static std::vector<LocatedDataset>* located_;
  TempDir dir_;
};

TempDir* TamperBatteryTest::scored_ = nullptr;
std::string TamperBatteryTest::rules_;
std::string TamperBatteryTest::score_failure_;
std::vector<LocatedDataset>* TamperBatteryTest::located_ = nullptr;

// The scored evidence stands, its labels re-counted where the datasets are here. Every byte of
// every file changed, the manifest as it was: the claim does not stand, and a finding names the
// file. (A changed locked.rules.sha256 in contract.json names no rule set the audit may judge
// with: the audit refuses the evidence, exit 2, naming contract.json.)
TEST_F(TamperBatteryTest, TheScoredEvidenceStandsAndEveryChangedByteBreaksIt) {
  const AuditResult untouched = AuditOk(Copy("ev"));
  EXPECT_EQ(VerdictLine(untouched).rfind(
                "verdict: the claim stands (not official: a CPU lane): ncm (ncm.py:method) at "
                "30.00% error: qualified, ranked ",
                0),
            0u)
      << Findings(untouched);
  if (located_ != nullptr) {
    EXPECT_NE(std::find(untouched.checked.begin(), untouched.checked.end(),
                        "correct re-counted for 2 calls from their labels against draws "
                        "regenerated from the revealed seed"),
              untouched.checked.end())
        << Findings(untouched);
  }

  const std::vector<ByteChange> changes = ByteChanges(false, kLabelStride);
  std::vector<std::string> failures;
  AuditEach(
      changes, false, [](const std::string&) { return false; },
      [&](const ByteChange& change, const Result<AuditResult>& result) {
        const std::string at =
            "byte " + std::to_string(change.offset) + " of " + WhatChanged(change) + ": ";
        if (!result.ok()) {
          if (result.status().message().find(change.file) == std::string::npos)
            failures.push_back(at + "refused: " + result.status().message());
        } else if (result->verdict() != AuditVerdict::kDoesNotStand ||
                   !NamesFile(*result, change.file)) {
          failures.push_back(at + VerdictLine(*result));
        }
      });
  EXPECT_GT(changes.size(), 5000u);
  EXPECT_EQ(failures.size(), 0u) << failures.size() << " of " << changes.size()
                                 << " changes, the first:\n"
                                 << FirstOf(failures);
}

// Every byte of every file but the manifest changed, the manifest resealed to match: the claim
// does not stand (or is refused), or it claims exactly what the untouched evidence claims. The
// kinds of change that stand are printed.
TEST_F(TamperBatteryTest, EveryResealedByteBreaksTheClaimOrLeavesItAsItWas) {
  const std::string untouched_copy = Copy("untouched");
  const std::string untouched = ClaimOf(AuditOk(untouched_copy, false));
  const std::string untouched_recounted = ClaimOf(AuditOk(untouched_copy, true));
  const std::vector<ByteChange> changes = ByteChanges(true, kRecountStride);
  EXPECT_GT(changes.size(), 5000u);
  std::vector<std::string> failures;
  std::map<std::string, int> standing, report_alone;
  AuditEach(changes, true, IsLabels,
            [&](const ByteChange& change, const Result<AuditResult>& result) {
              if (!result.ok() || result->verdict() == AuditVerdict::kDoesNotStand) return;
              const std::string claim = ClaimOf(*result);
              const std::string what = WhatChanged(change);
              if (claim == (IsLabels(change.file) ? untouched_recounted : untouched)) {
                ++standing[KindOf(change)];
              } else if (std::find(std::begin(kReportAlone), std::end(kReportAlone), what) !=
                         std::end(kReportAlone)) {
                ++report_alone[what];
              } else {
                failures.push_back("byte " + std::to_string(change.offset) + " of " + what + ":\n" +
                                   claim);
              }
            });
  std::cout << "Resealed changes that stand with the claim as it was:\n";
  for (const auto& [kind, count] : standing) std::cout << "  " << kind << ": " << count << "\n";
  std::cout << "that stand as the claim report.json alone makes:\n";
  for (const auto& [what, count] : report_alone) std::cout << "  " << what << ": " << count << "\n";
  EXPECT_EQ(failures.size(), 0u) << failures.size() << " of " << changes.size()
                                 << " changes stand with another claim than\n"
                                 << untouched << "\nthe first:\n"
                                 << FirstOf(failures);
}

// What a forger would edit, the manifest resealed each time: each is a finding where it is. Then
// the rewrites that no unsigned check can see (docs/audit.md, "What it cannot see"), each made
// consistently throughout: each stands.
TEST_F(TamperBatteryTest, ForgersEditsAreFoundUnlessConsistentThroughout) {
  struct Forgery {
    std::string what;
    std::function<void(const std::string& dir)> edit;
    std::string where, words;  // no words: any finding in the file `where`
  };
  std::vector<Forgery> forgeries = {
      {"a rule broken added to the record's outcome",
       [](const std::string& dir) {
         EditJson(dir, kReportFile, [](Json& report) {
           report["records"]["ncm"]["outcome"]["broken"] = {"accuracy"};
         });
       },
       "report.json: records.ncm.outcome.broken", "[\"accuracy\"], but its runs break []"},
      {"a problem added to the run's verdict",
       [](const std::string& dir) {
         EditJson(dir, kJudge, [](Json& judge) {
           judge["problems"] = {{{"rule", "timing"}, {"message", "too slow"}}};
           judge["qualified"] = false;
           judge["ranked_ms"] = nullptr;
         });
       },
       "records/ncm/run-1/judge.json: problems[0]",
       "timing: 'too slow' does not follow from calls.json"},
      {"an error added to the report, as `ratchet run` writes one",
       [](const std::string& dir) {
         EditJson(dir, kReportFile, [](Json& report) {
           RatchetReport part;
           part.baseline = "records.json";
           part.baseline_sha256 = std::string(64, 'a');
           part.rule_set = {{"id", "mnist-a100/1.5.0"}};
           part.errors = {{"outcome-changed", "ncm", "changed"}};
           report["ratchet"] = RatchetReportJson(part);
         });
       },
       "status.json: exit_code", "0, but report.json's ratchet.errors lists errors"},
      {"the record's ranked time changed",
       [](const std::string& dir) {
         EditJson(dir, kReportFile, [](Json& report) {
           Json& ranked = report["records"]["ncm"]["ranked_ms"];
           ranked = ranked.get<double>() * 0.9;
         });
       },
       "report.json: records.ncm.ranked_ms", ", but its runs give "},
      {"the ranked time changed in the report and judge.json alike",
       [](const std::string& dir) {
         double ranked = 0;
         EditJson(dir, kJudge, [&](Json& judge) {
           ranked = judge["ranked_ms"].get<double>() * 0.9;
           judge["ranked_ms"] = ranked;
         });
         EditJson(dir, kReportFile, [&](Json& report) {
           report["records"]["ncm"]["ranked_ms"] = ranked;
           report["records"]["ncm"]["runs"][0]["ranked_ms"] = ranked;
         });
       },
       "records/ncm/run-1/judge.json: ranked_ms", ", but re-judging calls.json gives "},
      // A call's times and count: re-judged, judge.json's verdict is not theirs. (Times are
      // raised: a time lowered below the scorer's clock is floored back, and changes nothing.)
      {"a call's ms changed",
       [](const std::string& dir) {
         EditJson(dir, kCalls,
                  [](Json& calls) { calls[0]["ms"] = calls[0]["ms"].get<double>() + 50.0; });
       },
       kJudge, ""},
      {"a call's parent_ms changed",
       [](const std::string& dir) {
         EditJson(dir, kCalls, [](Json& calls) {
           calls[0]["parent_ms"] = calls[0]["parent_ms"].get<double>() + 50.0;
         });
       },
       kJudge, ""},
      {"a call's correct changed",
       [](const std::string& dir) {
         EditJson(dir, kCalls, [](Json& calls) {
           calls[0]["correct"] = calls[0]["correct"].get<int64_t>() + 1;
         });
       },
       kJudge, ""},
      {"the lane relabelled as an NVIDIA H200, its id recomputed", RelabelAsAnH200,
       "records/ncm/run-1/calls.json: calls[0].worker.device",
       "\"cpu\" (and in 1 more calls), but contract.json's lane.device.kind is \"cuda\""},
      {"seed.reveal replaced",
       [](const std::string& dir) {
         WriteBytes(dir + "/" + kSeedRevealFile, std::string(64, 'a') + "\n");
         ASSERT_TRUE(Remanifest(dir).ok());
       },
       "seed.reveal", "its sha256 is not the one seed.commit holds"},
      {"the run folder removed with its report entry",
       [](const std::string& dir) {
         std::filesystem::remove_all(dir + "/records");  // the record's one run
         EditJson(dir, kReportFile,
                  [](Json& report) { report["records"]["ncm"]["runs"] = Json::array(); });
       },
       "report.json: records.ncm.runs", "no runs: nothing backs the outcome"},
      {"status.json's exit code changed",
       [](const std::string& dir) {
         EditJson(dir, kStatusFile, [](Json& status) { status["exit_code"] = 1; });
       },
       "status.json: exit_code", "1, but every record qualified: the run exits 0"},
  };
  // A label the method got right, changed: re-counted against the draw regenerated from the
  // revealed seed, the labels no longer give the call's correct (where the datasets are here).
  if (located_ != nullptr) {
    forgeries.push_back(
        {"a label changed",
         [](const std::string& dir) {
           const Json calls = Json::parse(*ReadFile(dir + "/" + kCalls));
           const Result<RunSeed> seed =
               ParseRunSeed(ReadFile(dir + "/" + kSeedRevealFile)->substr(0, 64), kSeedRevealFile);
           ASSERT_TRUE(seed.ok());
           DrawSource draws(SeedOfRecordRun(*seed, "ncm", 1), *located_);
           const Result<Draw> draw = draws.Make(calls[0]["dataset"].get<std::string>(),
                                                calls[0]["draw_index"].get<uint64_t>());
           ASSERT_TRUE(draw.ok()) << draw.status().message();
           const std::string labels_file = dir + "/records/ncm/run-1/labels/01.u8";
           std::string labels = *ReadFile(labels_file);
           size_t right = 0;
           while (right < labels.size() &&
                  static_cast<uint8_t>(labels[right]) != draw->test_y[right])
             ++right;
           ASSERT_LT(right, labels.size());
           labels[right] = static_cast<char>((labels[right] + 1) % 10);
           WriteBytes(labels_file, labels);
           ASSERT_TRUE(Remanifest(dir).ok());
         },
         kCalls + std::string(": calls[0].correct"),
         ", but the labels of records/ncm/run-1/labels/01.u8 match "});
  }
  for (const Forgery& forgery : forgeries) {
    const std::string copy = Copy("forged");
    forgery.edit(copy);
    const AuditResult result = AuditOk(copy);
    EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << forgery.what << "\n"
                                                             << Findings(result);
    EXPECT_TRUE(forgery.words.empty() ? HasFindingIn(result, forgery.where)
                                      : HasFinding(result, forgery.where, forgery.words))
        << forgery.what << "\n"
        << Findings(result);
  }

  // The lane and every worker's hello relabelled: a CPU run stands as an official H200 claim.
  std::string copy = Copy("relabelled");
  RelabelAsAnH200(copy);
  EditJson(copy, kCalls, [](Json& calls) {
    for (Json& call : calls) {
      call["worker"]["device"] = "cuda";
      call["worker"]["device_name"] = "NVIDIA H200";
      call["worker"]["uuid"] = kH200Uuid;
    }
  });
  AuditResult result = AuditOk(copy);
  EXPECT_EQ(VerdictLine(result).rfind("verdict: the claim stands: ncm (ncm.py:method) at ", 0), 0u)
      << Findings(result);

  // The band, and the function, that report.json alone names.
  copy = Copy("band");
  EditJson(copy, kReportFile, [](Json& report) {
    report["records"]["ncm"]["band_bp"] = 2000;
    report["records"]["ncm"]["function"] = "fast_method";
  });
  result = AuditOk(copy);
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_EQ(
      result.claims[0].rfind("ncm (ncm.py:fast_method) at 20.00% error: qualified, ranked ", 0), 0u)
      << result.claims[0];

  // The submission replaced, with its sha256 in the report.
  copy = Copy("submission");
  const std::string other = "def method(train_x, train_y, test_x):\n    return None\n";
  WriteBytes(copy + "/records/ncm/run-1/submission/ncm.py", other);
  EditJson(copy, kReportFile,
           [&](Json& report) { report["records"]["ncm"]["sha256"] = Sha256Hex(other); });
  EXPECT_EQ(AuditOk(copy).verdict(), AuditVerdict::kStands);

  // Both seed files replaced by a seed that plans the same calls (the first of 256 tried): without
  // the datasets nothing ties the labels to the seed; with them, the re-count does.
  copy = Copy("seed");
  const Result<RuleSet> rules = LoadRuleSet(rules_);
  ASSERT_TRUE(rules.ok());
  const Json calls = Json::parse(*ReadFile(copy + "/" + kCalls));
  RunSeed seed;
  bool same = false;
  for (int byte = 0; byte < 256 && !same; ++byte) {
    seed.bytes.fill(static_cast<uint8_t>(byte));
    const Result<RunPlan> plan = MakeRunPlan(SeedOfRecordRun(seed, "ncm", 1), *rules, {"fashion"});
    ASSERT_TRUE(plan.ok());
    same = plan->holdout == "fashion";
    for (size_t i = 0; i < plan->calls.size(); ++i)
      same = same && calls[i]["dataset"] == plan->calls[i].dataset;
  }
  ASSERT_TRUE(same);
  WriteBytes(copy + "/" + kSeedCommitFile, RunSeedSha256(seed) + "\n");
  WriteBytes(copy + "/" + kSeedRevealFile, HexEncode(seed.view()) + "\n");
  ASSERT_TRUE(Remanifest(copy).ok());
  EXPECT_EQ(AuditOk(copy, false).verdict(), AuditVerdict::kStands);
  if (located_ != nullptr) {
    EXPECT_TRUE(HasFinding(AuditOk(copy), "records/ncm/run-1/calls.json: calls[0].correct"));
  }
}

// A record ratchet disqualified, its outcome set to qualified: its runs disqualify it. Tried on
// the bundled baseline's CPU evidence, which `ratchet run` wrote.
TEST(TamperBundledTest, AQualifiedOutcomeOverDisqualifiedRunsIsAFinding) {
  const std::string bundled = BundledEvidence("cpu");
  ASSERT_FALSE(bundled.empty()) << "the bundled baseline reviews no CPU lane";
  TempDir dir;
  const std::string copy = dir / "ev";
  std::filesystem::copy(bundled, copy, std::filesystem::copy_options::recursive);
  std::string disqualified;
  EditJson(copy, kReportFile, [&](Json& report) {
    for (auto& [id, record] : report["records"].items()) {
      if (record["outcome"]["status"] != "disqualified" || !disqualified.empty()) continue;
      disqualified = id;
      record["outcome"] = {{"status", "qualified"}, {"broken", Json::array()}};
    }
  });
  ASSERT_FALSE(disqualified.empty()) << bundled << " has no disqualified record";
  const AuditResult result = AuditWithoutData(copy);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: records." + disqualified + ".outcome.status",
                         "'qualified', but its runs make it disqualified"))
      << Findings(result);
}

// A run removed from a record of three, with its report entry and the median taken again: the
// claim rests on the two runs left, and the verdict says so. Tried on the bundled baseline's H200
// evidence, which `ratchet run` wrote and signed: the rewrite breaks the signature, so the forger
// drops it, and the directory is then reported as unsigned, its claim standing.
TEST(TamperBundledTest, ARunRemovedConsistentlyLeavesAClaimOfFewerRuns) {
  const std::string bundled = BundledEvidence("cuda");
  ASSERT_FALSE(bundled.empty()) << "the bundled baseline reviews no GPU lane";
  TempDir dir;
  const std::string copy = dir / "ev";
  std::filesystem::copy(bundled, copy, std::filesystem::copy_options::recursive);
  const bool was_signed = PathExists(copy + "/" + kSignatureFile);
  std::filesystem::remove_all(copy + "/records/ncm-py/run-3");
  double median = 0;  // of the two runs left: whatever board the bundled evidence came from
  EditJson(copy, kReportFile, [&](Json& report) {
    Json& record = report["records"]["ncm-py"];
    record["runs"].erase(2);
    median = Median({record["runs"][0]["ranked_ms"].get<double>(),
                     record["runs"][1]["ranked_ms"].get<double>()});
    record["ranked_ms"] = median;
  });
  if (was_signed) {
    const AuditResult kept = AuditWithoutData(copy);
    EXPECT_EQ(kept.verdict(), AuditVerdict::kDoesNotStand) << Findings(kept);
    EXPECT_TRUE(HasFinding(kept, kSignatureFile, "MANIFEST.json is not the one signed"))
        << Findings(kept);
    std::filesystem::remove(copy + "/" + kSignatureFile);
  }
  const AuditResult result = AuditWithoutData(copy);
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_NE(VerdictLine(result).find("ncm-py (ncm.py:method) at 20.00% error: qualified, ranked " +
                                     FormatFixed(median, 3) + " ms (median of 2 runs)"),
            std::string::npos)
      << VerdictLine(result);
}

// The contract's observation of the full sandbox deleted, or a worker's hello made to say it ran
// without one, with the manifest resealed: the report's "full" no longer rests on anything, and
// the official claim does not stand. Tried on the bundled baseline's H200 evidence.
TEST(TamperBundledTest, AFullSandboxNobodyObservedIsAFinding) {
  const std::string bundled = BundledEvidence("cuda");
  ASSERT_FALSE(bundled.empty()) << "the bundled baseline reviews no GPU lane";
  TempDir dir;
  const std::string unobserved = dir / "unobserved";
  std::filesystem::copy(bundled, unobserved, std::filesystem::copy_options::recursive);
  EditJson(unobserved, kContractFile, [](Json& contract) { contract["observed"].erase("sandbox"); });
  AuditResult result = AuditWithoutData(unobserved);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: sandbox",
                         "'full', but contract.json's observed.sandbox is null"))
      << Findings(result);

  const std::string unconfined = dir / "unconfined";
  std::filesystem::copy(bundled, unconfined, std::filesystem::copy_options::recursive);
  EditJson(unconfined, "records/ncm-py/run-2/calls.json",
           [](Json& calls) { calls[3]["worker"]["sandbox"]["uid"] = 0; });
  result = AuditWithoutData(unconfined);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm-py/run-2/calls.json: calls[3].worker.sandbox",
                         "contract.json observed the full sandbox"))
      << Findings(result);

  // A worker uid of another slot than the one the contract observed.
  const std::string other_slot = dir / "other-slot";
  std::filesystem::copy(bundled, other_slot, std::filesystem::copy_options::recursive);
  const Json contract = Json::parse(*ReadFile(other_slot + "/" + kContractFile));
  const int slot = contract["observed"].value("sandbox_slot", 0);
  EditJson(other_slot, "records/ncm-py/run-2/calls.json", [&](Json& calls) {
    calls[3]["worker"]["sandbox"]["uid"] = SlotWorkerUids((slot + 1) % kSandboxSlotCount)[0];
  });
  result = AuditWithoutData(other_slot);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm-py/run-2/calls.json: calls[3].worker.sandbox",
                         "where a worker runs as one of the slot's uids"))
      << Findings(result);
}

// A dataset's lock set to null after the run (as if the scorer had not found it), resealed: the
// labels of every call drawn from it would go unchecked, so the calls drawn from a dataset the
// contract does not lock are a finding. Tried on the bundled baseline's GPU evidence.
TEST(TamperBundledTest, ACallFromADatasetTheContractDoesNotLockIsAFinding) {
  const std::string bundled = BundledEvidence("cuda");
  ASSERT_FALSE(bundled.empty()) << "the bundled baseline reviews no GPU lane";
  TempDir dir;
  const std::string copy = dir / "ev";
  std::filesystem::copy(bundled, copy, std::filesystem::copy_options::recursive);
  EditJson(copy, kContractFile,
           [](Json& contract) { contract["locked"]["datasets"]["mnist"] = nullptr; });
  const AuditResult result = AuditWithoutData(copy);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  // The first call drawn from mnist, wherever the run's seed put it among the calls.
  Result<std::string> text = ReadFile(copy + "/records/ncm-py/run-1/calls.json");
  ASSERT_TRUE(text.ok()) << text.status().message();
  Result<Json> calls = ParseJson(*text, "calls.json");
  ASSERT_TRUE(calls.ok() && calls->is_array());
  size_t first = 0;
  while (first < calls->size() && (*calls)[first].value("dataset", "") != "mnist") ++first;
  ASSERT_LT(first, calls->size()) << "no call drawn from mnist";
  EXPECT_TRUE(HasFinding(result,
                         "records/ncm-py/run-1/calls.json: calls[" + std::to_string(first) + "]",
                         "from mnist, which contract.json does not lock (locked.datasets.mnist "
                         "is null)"))
      << Findings(result);
}

// The rule set's sha256 in contract.json changed, the manifest left as it was: the contract no
// longer matching its manifest is the finding (exit 1), not a usage error asking for a rule set
// that nobody has.
TEST(TamperBundledTest, AnUnsealedRuleSetHashIsAFindingNotAUsageError) {
  const std::string bundled = BundledEvidence("cpu");
  ASSERT_FALSE(bundled.empty()) << "the bundled baseline reviews no CPU lane";
  TempDir dir;
  const std::string copy = dir / "ev";
  std::filesystem::copy(bundled, copy, std::filesystem::copy_options::recursive);
  std::string text = *ReadFile(copy + "/" + kContractFile);
  Json contract = Json::parse(text);
  const std::string sha256 = contract["locked"]["rules"]["sha256"];
  const size_t at = text.find(sha256);
  ASSERT_NE(at, std::string::npos);
  text[at] = text[at] == '0' ? '1' : '0';
  WriteBytes(copy + "/" + kContractFile, text);
  const AuditResult result = AuditWithoutData(copy);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, kContractFile, "sha256"))
      << Findings(result);
}

}  // namespace
}  // namespace ratchet
