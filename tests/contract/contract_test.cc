// The contract builder, the lane id and DiffLocked, on plain values.
#include "contract/contract.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "core/file.h"
#include "source_dir.h"
#include "support/contract_fixtures.h"

namespace ratchet {
namespace {

Json Build(const LockedInputs& locked, const MachineFacts& machine) {
  Result<Json> contract = BuildContract(locked, machine);
  EXPECT_TRUE(contract.ok()) << contract.status().ToString();
  return contract.ok() ? *contract : Json();
}

std::string LaneIdOf(const MachineFacts& machine) {
  return Build(TestLocked(), machine)["lane"]["id"].get<std::string>();
}

TEST(ContractBuilder, MatchesThePinnedFile) {
  const std::string path = TestSourceDir() + "/tests/contract/testdata/contract.json";
  Result<std::string> pinned = ReadFile(path);
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  EXPECT_EQ(Build(TestLocked(), CudaMachine()).dump(2) + "\n", *pinned);
}

// The tool that asked is recorded in observed, and moves neither locked nor the lane: a new
// ratchet (compare, audit, promote, the commands) re-opens no record.
TEST(ContractBuilder, TheToolIsObservedAndMovesNeitherLockedNorTheLane) {
  Result<Json> with_tool =
      BuildContract(TestLocked(), CudaMachine(), ToolIdentity{"0.1.0", std::string(64, '5')});
  Result<Json> other_tool =
      BuildContract(TestLocked(), CudaMachine(), ToolIdentity{"0.2.0", std::string(64, '6')});
  ASSERT_TRUE(with_tool.ok() && other_tool.ok());
  EXPECT_EQ((*with_tool)["observed"]["tool"],
            Json({{"name", "ratchet"}, {"version", "0.1.0"}, {"source_sha256", std::string(64, '5')}}));
  EXPECT_EQ((*with_tool)["locked"].dump(), (*other_tool)["locked"].dump());
  EXPECT_EQ((*with_tool)["lane"].dump(), (*other_tool)["lane"].dump());
  EXPECT_EQ((*with_tool)["lane"].dump(), Build(TestLocked(), CudaMachine())["lane"].dump());
  EXPECT_TRUE(Build(TestLocked(), CudaMachine())["observed"]["tool"].is_null());
}

TEST(ContractBuilder, LaneIdIsTheCanonicalHashOfTheLaneWithoutItsId) {
  Json contract = Build(TestLocked(), CudaMachine());
  Json lane = contract["lane"];
  const std::string id = lane["id"];
  ASSERT_EQ(id.size(), kLaneIdLength);
  lane.erase("id");
  Result<std::string> digest = CanonicalSha256(lane);
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(id, digest->substr(0, kLaneIdLength));
  Result<std::string> again = LaneId(contract["lane"]);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, id);
}

TEST(ContractBuilder, LaneIdIsStableForTheSameFacts) {
  EXPECT_EQ(LaneIdOf(CudaMachine()), LaneIdOf(CudaMachine()));
}

TEST(ContractBuilder, LaneIdChangesWhenAnyLaneFieldChanges) {
  const std::vector<std::pair<std::string, std::function<void(MachineFacts&)>>> changes = {
      {"binary", [](MachineFacts& m) { m.binary_sha256 = std::string(64, 'f'); }},
      {"cxx", [](MachineFacts& m) { m.cxx = "g++ 12.3.0"; }},
      {"glibc", [](MachineFacts& m) { m.glibc = "2.37"; }},
      {"library hash", [](MachineFacts& m) { m.libraries["libc.so.6"] = std::string(64, '0'); }},
      {"library added", [](MachineFacts& m) { m.libraries["libz.so.1"] = std::string(64, '0'); }},
      {"library removed", [](MachineFacts& m) { m.libraries.erase("libcrypto.so.3"); }},
      {"device kind", [](MachineFacts& m) { m.device = DeviceFacts(); }},
      {"device name", [](MachineFacts& m) { m.device.name = "NVIDIA A100-SXM4-80GB"; }},
      {"driver", [](MachineFacts& m) { m.device.driver = "550.90.08"; }},
      {"cuda driver", [](MachineFacts& m) { m.device.cuda_driver = "12.5"; }},
      {"vbios", [](MachineFacts& m) { m.device.vbios = "96.00.99.00.02"; }},
      {"power limit", [](MachineFacts& m) { m.device.power_limit_mw = 600000; }},
      {"power unknown", [](MachineFacts& m) { m.device.power_limit_mw.reset(); }},
      {"worker binary", [](MachineFacts& m) { m.worker_binary_sha256 = std::string(64, '9'); }},
      {"worker binary absent", [](MachineFacts& m) { m.worker_binary_sha256.reset(); }},
      {"libtorch", [](MachineFacts& m) { m.libtorch = "2.5.0"; }},
      {"libtorch absent", [](MachineFacts& m) { m.libtorch.reset(); }},
      {"python", [](MachineFacts& m) { m.python->version = "3.12.1"; }},
      {"python torch", [](MachineFacts& m) { m.python->torch = "2.5.1+cu121"; }},
      {"python absent", [](MachineFacts& m) { m.python.reset(); }},
  };
  std::set<std::string> ids = {LaneIdOf(CudaMachine())};
  for (const auto& [what, change] : changes) {
    MachineFacts machine = CudaMachine();
    change(machine);
    EXPECT_TRUE(ids.insert(LaneIdOf(machine)).second) << "changing the " << what;
  }
}

TEST(ContractBuilder, ProcessorAndBoardIdentityStayOutOfTheLane) {
  MachineFacts other = CudaMachine();
  other.processor = "Intel(R) Xeon(R) Platinum 8480+";
  other.device.uuid = "GPU-99999999-1111-2222-3333-444444444444";
  Json a = Build(TestLocked(), CudaMachine());
  Json b = Build(TestLocked(), other);
  EXPECT_EQ(a["lane"], b["lane"]);
  EXPECT_EQ(b["observed"]["processor"], "Intel(R) Xeon(R) Platinum 8480+");
  EXPECT_EQ(b["observed"]["device_uuid"], "GPU-99999999-1111-2222-3333-444444444444");
}

TEST(ContractBuilder, PythonPathAndSandboxModeAreObservedNotLane) {
  MachineFacts other = CudaMachine();
  other.python->path = "/opt/venv/bin/python3";
  other.sandbox_full = false;
  other.sandbox_partial_reason = "ratchet runs as uid 1000, not root";
  Json a = Build(TestLocked(), CudaMachine());
  Json b = Build(TestLocked(), other);
  EXPECT_EQ(a["lane"], b["lane"]);
  EXPECT_EQ(a["observed"]["python_path"], "/usr/bin/python3");
  EXPECT_EQ(a["observed"]["sandbox"], "full");
  EXPECT_FALSE(a["observed"].contains("sandbox_note"));
  EXPECT_EQ(b["observed"]["python_path"], "/opt/venv/bin/python3");
  EXPECT_EQ(b["observed"]["sandbox"], "partial");
  EXPECT_EQ(b["observed"]["sandbox_note"], "ratchet runs as uid 1000, not root");
}

TEST(ContractBuilder, WhatThisMachineLacksIsNull) {
  LockedInputs locked = TestLocked();
  locked.workers["check_source.py"].reset();
  MachineFacts machine = CudaMachine();
  machine.worker_binary_sha256.reset();
  machine.libtorch.reset();
  machine.python.reset();
  Json contract = Build(locked, machine);
  EXPECT_EQ(contract["locked"]["workers"],
            Json({{"check_source.py", nullptr}, {"worker.py", std::string(64, '5')}}));
  EXPECT_EQ(contract["lane"]["binaries"],
            Json({{"ratchet-scorer", std::string(64, 'c')}, {"ratchet-worker", nullptr}}));
  const Json& toolchain = contract["lane"]["toolchain"];
  for (const char* field : {"libtorch", "python", "python_torch"}) {
    ASSERT_TRUE(toolchain.contains(field)) << field;
    EXPECT_TRUE(toolchain[field].is_null()) << field;
  }
  EXPECT_FALSE(contract["observed"].contains("python_path"));
}

TEST(ContractBuilder, LockedInputsStayOutOfTheLane) {
  LockedInputs locked = TestLocked();
  locked.rules_sha256 = std::string(64, '9');
  locked.datasets[2] = {"kmnist", true, std::string(64, '5'), std::string(64, '6')};
  locked.workers["worker.py"] = std::string(64, '0');
  locked.sandbox_policy_sha256 = std::string(64, '0');
  EXPECT_EQ(Build(locked, CudaMachine())["lane"]["id"],
            Build(TestLocked(), CudaMachine())["lane"]["id"]);
}

TEST(ContractBuilder, CpuDeviceIsOnlyItsKind) {
  MachineFacts machine = CudaMachine();
  machine.device = DeviceFacts();
  machine.device.note = "no NVIDIA driver: libnvidia-ml.so.1: cannot open shared object file";
  Json contract = Build(TestLocked(), machine);
  EXPECT_EQ(contract["lane"]["device"], Json({{"kind", "cpu"}}));
  EXPECT_FALSE(contract["observed"].contains("device_uuid"));
  EXPECT_EQ(contract["observed"]["device_note"], machine.device.note);
}

TEST(ContractBuilder, FractionalPowerLimitKeepsItsMilliwatts) {
  MachineFacts machine = CudaMachine();
  machine.device.power_limit_mw = 312500;
  EXPECT_EQ(Build(TestLocked(), machine)["lane"]["device"]["power_limit_w"].get<double>(), 312.5);
}

TEST(ContractBuilder, RefusesAStringThatIsNotUtf8) {
  MachineFacts machine = CudaMachine();
  machine.device.name = std::string("NVIDIA \xff");
  Result<Json> contract = BuildContract(TestLocked(), machine);
  ASSERT_FALSE(contract.ok());
  EXPECT_NE(contract.status().message().find("device.name"), std::string::npos)
      << contract.status().message();
}

TEST(ContractBuilder, RefusesADatasetGivenTwice) {
  LockedInputs locked = TestLocked();
  locked.datasets.push_back({"mnist", false, "", ""});
  Result<Json> contract = BuildContract(locked, CudaMachine());
  ASSERT_FALSE(contract.ok());
  EXPECT_NE(contract.status().message().find("mnist"), std::string::npos);
}

TEST(ContractDiff, EqualContractsHaveNoDifference) {
  Json a = Build(TestLocked(), CudaMachine());
  EXPECT_TRUE(DiffLocked(a, a).empty());
}

TEST(ContractDiff, NamesEveryChangedLeafAndNothingElse) {
  LockedInputs changed = TestLocked();
  changed.rules_sha256 = std::string(64, '9');
  changed.scorer_version = "0.2.0";
  changed.datasets[0].labels_sha256 = std::string(64, '7');
  Json a = Build(TestLocked(), CudaMachine());
  Json b = Build(changed, CudaMachine());
  EXPECT_EQ(DiffLocked(a, b),
            (std::vector<std::string>{"locked.datasets.mnist.labels_sha256",
                                      "locked.rules.sha256", "locked.scorer.version"}));
}

TEST(ContractDiff, NamesTheWorkerFilesAndTheSandboxPolicy) {
  LockedInputs changed = TestLocked();
  changed.workers["worker.py"] = std::string(64, '0');
  changed.workers["check_source.py"].reset();  // absent on the other machine
  changed.sandbox_policy_sha256 = std::string(64, '0');
  changed.sandbox_uid = 1000;
  EXPECT_EQ(
      DiffLocked(Build(TestLocked(), CudaMachine()), Build(changed, CudaMachine())),
      (std::vector<std::string>{"locked.sandbox.policy_sha256", "locked.sandbox.uid",
                                "locked.workers.check_source.py", "locked.workers.worker.py"}));
}

TEST(ContractDiff, DatasetThatAppearedIsNamedOnce) {
  LockedInputs changed = TestLocked();
  changed.datasets[2] = {"kmnist", true, std::string(64, '5'), std::string(64, '6')};
  EXPECT_EQ(DiffLocked(Build(TestLocked(), CudaMachine()), Build(changed, CudaMachine())),
            std::vector<std::string>{"locked.datasets.kmnist"});
}

TEST(ContractDiff, NamesAddedAndRemovedKeys) {
  Json a = Build(TestLocked(), CudaMachine());
  Json b = a;
  b["locked"]["workers"].erase("worker.py");
  b["locked"]["scorer"].erase("name");
  EXPECT_EQ(DiffLocked(a, b),
            (std::vector<std::string>{"locked.scorer.name", "locked.workers.worker.py"}));
  EXPECT_EQ(DiffLocked(b, a), DiffLocked(a, b));
}

TEST(ContractDiff, IgnoresTheLaneAndWhatWasObserved) {
  MachineFacts other = CudaMachine();
  other.device = DeviceFacts();
  other.processor = "another";
  other.worker_binary_sha256.reset();
  other.python.reset();
  other.sandbox_full = false;
  EXPECT_TRUE(DiffLocked(Build(TestLocked(), CudaMachine()), Build(TestLocked(), other)).empty());
}

TEST(ContractDiff, ComparesArraysByPosition) {
  Json a = {{"locked", {{"list", {1, 2, 3}}}}};
  Json b = {{"locked", {{"list", {1, 5}}}}};
  EXPECT_EQ(DiffLocked(a, b), (std::vector<std::string>{"locked.list[1]", "locked.list[2]"}));
}

TEST(ContractDiff, ContractWithoutLockedDiffersAtTheTop) {
  Json a = Build(TestLocked(), CudaMachine());
  EXPECT_EQ(DiffLocked(a, Json::object()), std::vector<std::string>{"locked"});
  EXPECT_TRUE(DiffLocked(Json::object(), Json::object()).empty());
}

}  // namespace
}  // namespace ratchet
