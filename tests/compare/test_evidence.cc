#include "test_evidence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/sha256.h"
#include "contract/contract_view.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/report_file.h"
#include "evidence/run_files.h"
#include "evidence/writer.h"

namespace ratchet {
namespace {

std::string SeedBytes() { return std::string(32, '\x5a'); }

ReportRun RunOf(const TestRecord& record) {
  ReportRun run;
  run.run = 1;
  run.qualified = record.ranked_ms.has_value();
  for (const std::string& rule : record.broken) {
    run.problems.push_back({rule, rule + " broken in call 3"});
  }
  run.ranked_ms = record.ranked_ms;
  run.summary = run.qualified ? "15 of 15 calls within the band" : "disqualified";
  run.holdout = "fashion";
  run.warmup = "fashion";
  return run;
}

JudgeEntry JudgeOf(const TestRecord& record) {
  const ReportRun run = RunOf(record);
  JudgeEntry judge;
  judge.problems = run.problems;
  judge.qualified = run.qualified;
  judge.ranked_ms = run.ranked_ms;
  judge.summary = run.summary;
  return judge;
}

Status WriteEvidence(const std::string& dir, const Json& contract,
                     const std::vector<TestRecord>& records, const Json* report,
                     const std::string& status) {
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(dir);
  if (!writer.ok()) return writer.status();
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(kContractFile, contract));
  RATCHET_RETURN_IF_ERROR(writer->CommitSeed(Sha256Hex(SeedBytes())));
  for (const TestRecord& record : records) {
    const std::string run = RunFolder(record.id, 1);
    RATCHET_RETURN_IF_ERROR(
        writer->WriteFile(run + "/submission/" + record.id + ".py", record.source));
    RATCHET_RETURN_IF_ERROR(
        writer->WriteJson(RunFile(run, kJudgeFile), JudgeJson(JudgeOf(record))));
  }
  if (status != kStatusComplete) {
    return writer->Finish(status, 130, "interrupted by a signal");
  }
  RATCHET_RETURN_IF_ERROR(writer->RevealSeed(HexEncode(SeedBytes())));
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(kReportFile, report ? *report : TestReport(records)));
  return writer->Finish(status, 0, "");
}

}  // namespace

Json TestContract(const LockedInputs& locked, const MachineFacts& machine) {
  Result<Json> contract = BuildContract(locked, machine);
  EXPECT_TRUE(contract.ok()) << contract.status().ToString();
  return contract.ok() ? *contract : Json();
}

TestRecord Qualified(const std::string& id, double ranked_ms) {
  TestRecord record;
  record.id = id;
  record.ranked_ms = ranked_ms;
  return record;
}

TestRecord Disqualified(const std::string& id, std::vector<std::string> broken) {
  TestRecord record;
  record.id = id;
  record.broken = std::move(broken);
  return record;
}

Json TestReport(const std::vector<TestRecord>& records) {
  std::map<std::string, ReportRecord> all;
  for (const TestRecord& record : records) {
    ReportEntry entry;
    entry.submission = record.id + ".py";
    entry.function = "method";
    entry.sha256 = Sha256Hex(record.source);
    entry.band_bp = record.band_bp;
    entry.qualified = record.ranked_ms.has_value();
    entry.broken = record.broken;
    entry.ranked_ms = record.ranked_ms;
    entry.runs = {RunOf(record)};
    all[record.id] = ReportRecord{entry, std::nullopt};
  }
  return ReportJson("full", all, Json::object());
}

Status WriteTestEvidence(const std::string& dir, const Json& contract,
                         const std::vector<TestRecord>& records, const std::string& status) {
  return WriteEvidence(dir, contract, records, nullptr, status);
}

Status WriteTestEvidenceWithReport(const std::string& dir, const Json& contract,
                                   const Json& report) {
  return WriteEvidence(dir, contract, {}, &report, kStatusComplete);
}

ComparedSide ReportSide(const std::string& shown, const std::string& dir) {
  ComparedSide compared;
  EvidenceSide& side = compared.side;
  side.path = shown;
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  EXPECT_TRUE(summary.ok()) << summary.status().ToString();
  if (!summary.ok()) return compared;
  side.status = summary->status;
  side.exit_code = summary->exit_code;
  side.message = summary->message;
  if (summary->status != kStatusComplete) {
    std::string line = "status.json: the run is " + summary->status;
    if (summary->exit_code >= 0) line += " (exit " + std::to_string(summary->exit_code) + ")";
    if (!summary->message.empty()) line += ": " + summary->message;
    side.problems.push_back(line);
  }
  for (const EvidenceFinding& finding : summary->findings) {
    side.problems.push_back(finding.file + ": " + finding.problem);
  }
  compared.contract = summary->contract;
  FindingLines findings;
  FieldReader top(kReportFile, &findings);
  const Json* all = summary->report.is_null() ? nullptr : ReportRecordsObject(summary->report, top);
  for (auto it = all ? all->begin() : Json::const_iterator(); all && it != all->end(); ++it) {
    std::optional<ReportRecord> record =
        ReadReportRecord(it.value(), JoinPath("records", it.key()), top);
    if (!record) continue;
    const ReportEntry& scored = record->scored();
    RecordEntry entry;
    entry.status = scored.status();
    entry.broken = scored.broken;
    std::sort(entry.broken.begin(), entry.broken.end());
    entry.broken.erase(std::unique(entry.broken.begin(), entry.broken.end()), entry.broken.end());
    entry.ranked_ms = scored.ranked_ms;
    entry.sha256 = record->first.sha256;
    entry.band_bp = static_cast<double>(record->first.band_bp);
    entry.second_scoring = record->rerun.has_value();
    compared.records.emplace(it.key(), entry);
  }
  side.problems.insert(side.problems.end(), findings.lines().begin(), findings.lines().end());
  side.complete = side.problems.empty();
  return compared;
}

}  // namespace ratchet
