#include "example.h"

#include <cstdint>

#include "core/sha256.h"
#include "evidence/layout.h"

namespace ratchet {
namespace {

std::string SeedBytes() {
  std::string bytes;
  for (int i = 0; i < 32; ++i) bytes.push_back(static_cast<char>(i));
  return bytes;
}

// 10,000 predicted labels, 0..9, one byte each; `call` varies them.
std::string Labels(int call) {
  std::string labels(10000, '\0');
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<char>((i * 7 + call) % 10);
  return labels;
}

Json Call(int call, const std::string& dataset, int draw, double ms, int correct) {
  return Json{{"call", call},       {"dataset", dataset},    {"draw", draw},
              {"ms", ms},           {"parent_ms", ms + 1.5}, {"overhead_ms", 1.25},
              {"correct", correct}, {"total", 10000},        {"worker_exit", 0}};
}

}  // namespace

std::string ExampleSeedHex() { return HexEncode(SeedBytes()); }
std::string ExampleSeedCommit() { return Sha256Hex(SeedBytes()); }

Status WriteExampleFiles(EvidenceWriter* writer) {
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      kContractFile, Json{{"schema", "ratchet.contract/1"},
                          {"locked",
                           {{"harness", {{"name", "ratchet"}, {"version", "0.1.0"}}},
                            {"rules", {{"id", "mnist-a100/1.2.0"}}}}},
                          {"lane", {{"id", "0123456789abcdef"}, {"device", {{"kind", "cpu"}}}}}}));
  RATCHET_RETURN_IF_ERROR(writer->CommitSeed(ExampleSeedCommit()));
  const std::string run = RunFolder("ncm", 1);
  RATCHET_RETURN_IF_ERROR(writer->WriteFile(
      run + "/submission/ncm.py",
      "def method(train_x, train_y, test_x):\n    return nearest_class_mean(train_x, train_y, "
      "test_x)\n"));
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      run + "/calls.json",
      Json::array({Call(1, "mnist", 0, 61.25, 9812), Call(2, "fashion", 0, 62.5, 8120)})));
  for (int call = 1; call <= 2; ++call) {
    RATCHET_RETURN_IF_ERROR(
        writer->WriteFile(run + "/labels/" + CallNumber(call) + ".u8", Labels(call)));
    RATCHET_RETURN_IF_ERROR(
        writer->WriteFile(run + "/logs/" + CallNumber(call) + ".log",
                          "method loaded\ncall " + std::to_string(call) + " done\n"));
  }
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      run + "/judge.json",
      Json{{"problems", Json::array()}, {"ranked_ms", 61.875}, {"summary", "qualified"}}));
  RATCHET_RETURN_IF_ERROR(writer->WriteJson(
      run + "/energy.json",
      Json{{"windows", Json::array({Json{{"name", "idle"}, {"ms", 1000}, {"mj", 61000}}})},
           {"summary", {{"mj_per_call", 2131.5}}}}));
  RATCHET_RETURN_IF_ERROR(writer->RevealSeed(ExampleSeedHex()));
  Json record = {{"outcome", {{"status", "qualified"}, {"broken", Json::array()}}},
                 {"ranked_ms", 61.875},
                 {"summary", "qualified"},
                 {"problems", Json::array()},
                 {"energy", {{"mj_per_call", 2131.5}}},
                 {"runs", Json::array({run})}};
  return writer->WriteJson(kReportFile, Json{{"records", {{"ncm", record}}}});
}

Status WriteExample(const std::string& final_dir, const std::string& status, int exit_code) {
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(final_dir);
  if (!writer.ok()) return writer.status();
  RATCHET_RETURN_IF_ERROR(WriteExampleFiles(&*writer));
  return writer->Finish(status, exit_code, status == "complete" ? "" : "stopped by SIGINT");
}

}  // namespace ratchet
