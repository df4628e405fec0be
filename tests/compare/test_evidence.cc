#include "test_evidence.h"

#include <gtest/gtest.h>

#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/writer.h"

namespace ratchet {
namespace {

std::string SeedBytes() { return std::string(32, '\x5a'); }

Json RunJson(const TestRecord& record) {
  const bool qualified = record.ranked_ms.has_value();
  Json problems = Json::array();
  for (const std::string& rule : record.broken) {
    problems.push_back({{"rule", rule}, {"message", rule + " broken in call 3"}});
  }
  return {{"run", 1},
          {"qualified", qualified},
          {"ranked_ms", qualified ? Json(*record.ranked_ms) : Json()},
          {"summary", qualified ? "15 of 15 calls within the band" : "disqualified"},
          {"problems", problems},
          {"holdout", Json::array({"fashion", "fashion", "kmnist", "fashion"})},
          {"warmup", "fashion"},
          {"single_foreign", false}};
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
    RATCHET_RETURN_IF_ERROR(writer->WriteJson(run + "/judge.json", RunJson(record)));
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
  Json all = Json::object();
  for (const TestRecord& record : records) {
    const bool qualified = record.ranked_ms.has_value();
    all[record.id] = {
        {"submission", record.id + ".py"},
        {"function", "method"},
        {"sha256", Sha256Hex(record.source)},
        {"band_bp", record.band_bp},
        {"outcome",
         {{"status", qualified ? "qualified" : "disqualified"}, {"broken", record.broken}}},
        {"ranked_ms", qualified ? Json(*record.ranked_ms) : Json()},
        {"review_flags", Json::array()},
        {"runs", Json::array({RunJson(record)})}};
  }
  return {{"schema", "ratchet.report/1"}, {"sandbox", "full"}, {"records", all}};
}

Status WriteTestEvidence(const std::string& dir, const Json& contract,
                         const std::vector<TestRecord>& records, const std::string& status) {
  return WriteEvidence(dir, contract, records, nullptr, status);
}

Status WriteTestEvidenceWithReport(const std::string& dir, const Json& contract,
                                   const Json& report) {
  return WriteEvidence(dir, contract, {}, &report, kStatusComplete);
}

}  // namespace ratchet
