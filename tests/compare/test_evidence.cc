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

LockedInputs TestLocked() {
  LockedInputs locked;
  locked.harness_version = "0.1.0";
  locked.harness_source_sha256 = std::string(64, 'a');
  locked.rules_id = "mnist-a100/1.2.0";
  locked.rules_sha256 = std::string(64, 'b');
  locked.datasets = {{"mnist", true, std::string(64, '1'), std::string(64, '2')},
                     {"fashion", true, std::string(64, '3'), std::string(64, '4')},
                     {"kmnist", false, "", ""}};
  locked.workers = {{"worker.py", std::string(64, '5')}, {"check_source.py", std::string(64, '6')}};
  locked.sandbox_policy_sha256 = std::string(64, '7');
  locked.sandbox_uid = 65534;
  return locked;
}

MachineFacts CpuMachine() {
  MachineFacts machine;
  machine.binary_sha256 = std::string(64, 'c');
  machine.worker_binary_sha256 = std::string(64, '8');
  machine.cxx = "g++ 12.2.0";
  machine.libtorch = "1.13.1";
  machine.python = PythonFacts{"/usr/bin/python3", "3.11.2", "1.13.1"};
  machine.glibc = "2.36";
  machine.libraries = {{"libc.so.6", std::string(64, 'd')},
                       {"libcrypto.so.3", std::string(64, 'e')}};
  machine.device.note = "no NVIDIA driver: libnvidia-ml.so.1: cannot open shared object file";
  machine.processor = "AMD EPYC 9654 96-Core Processor";
  machine.sandbox_full = true;
  return machine;
}

MachineFacts CudaMachine() {
  MachineFacts machine = CpuMachine();
  machine.libtorch = "2.5.1";
  machine.python = PythonFacts{"/usr/bin/python3", "3.11.2", "2.5.1+cu124"};
  machine.device.kind = "cuda";
  machine.device.name = "NVIDIA H200";
  machine.device.driver = "550.90.07";
  machine.device.cuda_driver = "12.4";
  machine.device.vbios = "96.00.99.00.01";
  machine.device.power_limit_mw = 700000;
  machine.device.uuid = "GPU-00000000-1111-2222-3333-444444444444";
  machine.device.note.clear();
  return machine;
}

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
