// The typed reader of a contract: the pinned contract read back field for field, and every
// field that is missing, null or of another type named in the error, with what is there kept
// for the messages that show it.
#include "contract/contract_view.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/file.h"
#include "source_dir.h"
#include "support/contract_fixtures.h"

namespace ratchet {
namespace {

Json PinnedContract() {
  Result<std::string> text = ReadFile(TestSourceDir() + "/tests/contract/testdata/contract.json");
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return Json();
  Result<Json> contract = ParseJson(*text, "contract.json");
  EXPECT_TRUE(contract.ok()) << contract.status().ToString();
  return contract.ok() ? *contract : Json();
}

TEST(ContractView, ReadsThePinnedContractFieldForField) {
  const Json pinned = PinnedContract();
  const ContractView contract(pinned);
  EXPECT_EQ(contract.json(), pinned);
  EXPECT_EQ(contract.schema().value_or(""), kContractSchema);

  ASSERT_TRUE(contract.locked().ok()) << contract.locked().error();
  EXPECT_EQ(*contract.locked(), pinned["locked"]);
  EXPECT_EQ(contract.locked().path(), "locked");
  EXPECT_EQ(*contract.locked_scorer(), pinned["locked"]["scorer"]);
  EXPECT_FALSE(contract.locked_harness().found());  // contract 2 locks the scorer instead
  EXPECT_EQ(*contract.locked_rules(),
            Json({{"id", "mnist-a100/1.2.0"}, {"sha256", std::string(64, 'b')}}));
  EXPECT_EQ(contract.rules_id().value_or(""), "mnist-a100/1.2.0");
  EXPECT_EQ(contract.rules_sha256().value_or(""), std::string(64, 'b'));
  EXPECT_EQ(*contract.locked_datasets(), pinned["locked"]["datasets"]);
  EXPECT_EQ(contract.dataset_images_sha256("mnist").value_or(""), std::string(64, '1'));
  EXPECT_EQ(contract.dataset_labels_sha256("mnist").value_or(""), std::string(64, '2'));
  EXPECT_EQ(contract.dataset_images_sha256("fashion").value_or(""), std::string(64, '3'));
  EXPECT_EQ(contract.dataset_labels_sha256("fashion").value_or(""), std::string(64, '4'));
  EXPECT_EQ(*contract.locked_dataset("mnist"), pinned["locked"]["datasets"]["mnist"]);
  EXPECT_EQ(contract.locked_dataset("kmnist").error(),
            "locked.datasets.kmnist: null, expected an object");  // absent from the machine
  EXPECT_EQ(contract.dataset_images_sha256("fashion").path(),
            "locked.datasets.fashion.images_sha256");

  ASSERT_TRUE(contract.lane().ok()) << contract.lane().error();
  EXPECT_EQ(*contract.lane(), pinned["lane"]);
  EXPECT_EQ(contract.lane_id().value_or(""), "ba79606e3dca25e4");
  EXPECT_EQ(*contract.device(), pinned["lane"]["device"]);
  EXPECT_EQ(contract.device_kind().value_or(""), "cuda");
  EXPECT_EQ(contract.device_name().value_or(""), "NVIDIA H200");

  ASSERT_TRUE(contract.observed().ok()) << contract.observed().error();
  EXPECT_EQ(*contract.observed(), pinned["observed"]);
  EXPECT_EQ(contract.device_uuid().value_or(""), "GPU-00000000-1111-2222-3333-444444444444");
  EXPECT_EQ(contract.sandbox().value_or(""), "full");
  // The pinned contract was asked for by the scorer alone: its tool is null.
  EXPECT_FALSE(contract.tool().ok());
  EXPECT_EQ(contract.tool().error(), "observed.tool: null, expected an object");
  EXPECT_EQ(contract.tool().found(), std::optional<Json>(Json()));

  // contract.json keeps no rule-set document; the contract a baseline reviewed does.
  EXPECT_EQ(contract.rule_set().error(), "rule_set: missing");
  Json reviewed = {{kContractLocked, pinned["locked"]}, {kContractRuleSet, {{"id", "x"}}}};
  EXPECT_EQ(*ContractView(reviewed).rule_set(), Json({{"id", "x"}}));
}

TEST(ContractView, ReadsTheToolThatAskedForTheRun) {
  Result<Json> built =
      BuildContract(TestLocked(), CpuMachine(), ToolIdentity{"0.1.0", std::string(64, '5')});
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const ContractView contract(*built);
  ASSERT_TRUE(contract.tool().ok()) << contract.tool().error();
  EXPECT_EQ(contract.tool()->version, "0.1.0");
  EXPECT_EQ(contract.tool()->source_sha256, std::string(64, '5'));
  EXPECT_EQ(contract.device_kind().value_or(""), "cpu");
  EXPECT_FALSE(contract.device_name().ok());  // a CPU lane names no device
  EXPECT_EQ(contract.device_name().error(), "lane.device.name: missing");

  Json without_version = *built;
  without_version["observed"]["tool"].erase("version");
  EXPECT_EQ(ContractView(without_version).tool().error(), "observed.tool.version: missing");
  Json numbered = *built;
  numbered["observed"]["tool"]["source_sha256"] = 5;
  EXPECT_EQ(ContractView(numbered).tool().error(),
            "observed.tool.source_sha256: expected a string, found an integer");
}

// locked.scorer: the scorer's version and the hash of its sources, each named when it is wrong.
TEST(ContractView, ReadsTheScorersIdentity) {
  Result<Json> built =
      BuildContract(TestLocked(), CpuMachine(), ToolIdentity{"0.1.0", std::string(64, '5')});
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  Json contract = *built;
  contract["locked"]["scorer"] = {{"name", "ratchet-scorer"}, {"version", "0.2.0"},
                                  {"source_sha256", std::string(64, '7')}};
  const ContractField<ToolIdentity> scorer = ContractView(contract).scorer();
  ASSERT_TRUE(scorer.ok()) << scorer.error();
  EXPECT_EQ(scorer->version, "0.2.0");
  EXPECT_EQ(scorer->source_sha256, std::string(64, '7'));
  contract["locked"]["scorer"].erase("version");
  EXPECT_EQ(ContractView(contract).scorer().error(), "locked.scorer.version: missing");
  contract["locked"]["scorer"] = "ratchet-scorer";
  EXPECT_EQ(ContractView(contract).scorer().error(),
            "locked.scorer: expected an object, found a string");
}

// observed.sandbox_slot, the uids a run's workers ran as: a whole number, or nothing and why.
TEST(ContractView, ReadsTheSandboxSlot) {
  Result<Json> built =
      BuildContract(TestLocked(), CpuMachine(), ToolIdentity{"0.1.0", std::string(64, '5')});
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  Json contract = *built;
  contract["observed"]["sandbox_slot"] = 3;
  EXPECT_EQ(ContractView(contract).sandbox_slot().value_or(-1), 3);
  contract["observed"]["sandbox_slot"] = "3";
  EXPECT_EQ(ContractView(contract).sandbox_slot().error(),
            "observed.sandbox_slot: expected a whole number, found a string");
  EXPECT_EQ(ContractView(contract).sandbox_slot().found_or_null(), Json("3"));
  contract["observed"]["sandbox_slot"] = 2.5;
  EXPECT_FALSE(ContractView(contract).sandbox_slot().ok());
  contract["observed"]["sandbox_slot"] = uint64_t{1} << 63;
  EXPECT_FALSE(ContractView(contract).sandbox_slot().ok());
  contract["observed"].erase("sandbox_slot");
  EXPECT_FALSE(ContractView(contract).sandbox_slot().found());
}

// A field read from a contract that was damaged at one place.
struct Damage {
  std::string pointer;  // where ("/lane/device"), erased when `value` is absent
  std::optional<Json> value;
  std::function<std::string(const ContractView&)> error;  // the read of the field under test
  std::string expected;
};

TEST(ContractView, NamesTheFieldThatIsMissingOrMistyped) {
  const Damage damages[] = {
      {"/lane", std::nullopt, [](auto& c) { return c.lane_id().error(); }, "lane: missing"},
      {"/lane", std::nullopt, [](auto& c) { return c.device_kind().error(); }, "lane: missing"},
      {"/lane", Json("x"), [](auto& c) { return c.lane().error(); },
       "lane: expected an object, found a string"},
      {"/lane/id", std::nullopt, [](auto& c) { return c.lane_id().error(); }, "lane.id: missing"},
      {"/lane/id", Json(5), [](auto& c) { return c.lane_id().error(); },
       "lane.id: expected a string, found an integer"},
      {"/lane/device", Json::array(), [](auto& c) { return c.device_kind().error(); },
       "lane.device: expected an object, found an array"},
      {"/lane/device", Json(), [](auto& c) { return c.device().error(); },
       "lane.device: null, expected an object"},
      {"/lane/device/kind", std::nullopt, [](auto& c) { return c.device_kind().error(); },
       "lane.device.kind: missing"},
      {"/lane/device/kind", Json(true), [](auto& c) { return c.device_kind().error(); },
       "lane.device.kind: expected a string, found a boolean"},
      {"/lane/device/name", Json(1.5), [](auto& c) { return c.device_name().error(); },
       "lane.device.name: expected a string, found a number"},
      {"/locked", std::nullopt, [](auto& c) { return c.locked().error(); }, "locked: missing"},
      {"/locked", std::nullopt, [](auto& c) { return c.rules_id().error(); }, "locked: missing"},
      {"/locked", Json(), [](auto& c) { return c.locked_rules().error(); },
       "locked: null, expected an object"},
      {"/locked/rules", Json(7), [](auto& c) { return c.locked_rules().error(); },
       "locked.rules: expected an object, found an integer"},
      {"/locked/rules/id", std::nullopt, [](auto& c) { return c.rules_id().error(); },
       "locked.rules.id: missing"},
      {"/locked/rules/sha256", Json(), [](auto& c) { return c.rules_sha256().error(); },
       "locked.rules.sha256: null, expected a string"},
      {"/locked/scorer", std::nullopt, [](auto& c) { return c.locked_scorer().error(); },
       "locked.scorer: missing"},
      {"/locked/datasets", Json("none"), [](auto& c) { return c.locked_datasets().error(); },
       "locked.datasets: expected an object, found a string"},
      {"/locked/datasets/mnist", Json(),
       [](auto& c) { return c.dataset_images_sha256("mnist").error(); },
       "locked.datasets.mnist: null, expected an object"},
      {"/locked/datasets/mnist/labels_sha256", std::nullopt,
       [](auto& c) { return c.dataset_labels_sha256("mnist").error(); },
       "locked.datasets.mnist.labels_sha256: missing"},
      {"/observed", std::nullopt, [](auto& c) { return c.device_uuid().error(); },
       "observed: missing"},
      {"/observed/device_uuid", Json(), [](auto& c) { return c.device_uuid().error(); },
       "observed.device_uuid: null, expected a string"},
      {"/observed/sandbox", Json::object(), [](auto& c) { return c.sandbox().error(); },
       "observed.sandbox: expected a string, found an object"},
      {"/schema", std::nullopt, [](auto& c) { return c.schema().error(); }, "schema: missing"},
  };
  for (const Damage& damage : damages) {
    Json contract = PinnedContract();
    const Json::json_pointer pointer(damage.pointer);
    if (damage.value) {
      contract[pointer] = *damage.value;
    } else {
      contract[pointer.parent_pointer()].erase(pointer.back());
    }
    EXPECT_EQ(damage.error(ContractView(contract)), damage.expected) << damage.pointer;
  }
  // Nothing is wrong with a field of the contract as pinned.
  for (const Damage& damage : damages) {
    EXPECT_EQ(damage.error(ContractView(PinnedContract())), "") << damage.pointer;
  }
}

TEST(ContractView, KeepsWhatIsThereForTheMessagesThatShowIt) {
  Json contract = PinnedContract();
  contract["lane"]["device"]["kind"] = 5;
  contract["observed"]["device_uuid"] = nullptr;
  const ContractView view(contract);
  EXPECT_FALSE(view.device_kind().ok());
  EXPECT_EQ(view.device_kind().value_or("cpu"), "cpu");
  EXPECT_EQ(view.device_kind().found(), std::optional<Json>(Json(5)));
  EXPECT_EQ(view.device_kind().found_or_null(), Json(5));
  EXPECT_EQ(view.device_kind().path(), "lane.device.kind");
  EXPECT_EQ(view.device_kind().wrong_path(), "lane.device.kind");
  EXPECT_EQ(view.device_kind().problem(), "expected a string, found an integer");
  // A null field is there, as null; a missing one, or one below a part that is not an object,
  // is not there at all.
  EXPECT_EQ(view.device_uuid().found(), std::optional<Json>(Json()));
  EXPECT_FALSE(view.locked_harness().found());
  contract["lane"] = "x";
  EXPECT_FALSE(ContractView(contract).device_kind().found());
  EXPECT_TRUE(ContractView(contract).device_kind().found_or_null().is_null());
  EXPECT_EQ(ContractView(contract).device_kind().wrong_path(), "lane");
  // A contract of schema 1 locked the whole of ratchet.
  Json first = {{kContractLocked, {{"harness", std::string(64, 'a')}}}};
  EXPECT_EQ(ContractView(first).locked_harness().value_or(""), std::string(64, 'a'));
  EXPECT_FALSE(ContractView(first).locked_scorer().found());
}

TEST(ContractView, AContractThatIsNotAnObjectIsWrongAtTheTop) {
  for (const Json& top : {Json::array(), Json(), Json("contract"), Json(3)}) {
    const ContractView contract(top);
    EXPECT_FALSE(contract.lane_id().ok());
    EXPECT_FALSE(contract.lane_id().found());
    EXPECT_EQ(contract.lane_id().wrong_path(), "");
    EXPECT_EQ(contract.lane_id().path(), "lane.id");
    EXPECT_EQ(contract.device_uuid().value_or(""), "");
    EXPECT_FALSE(contract.locked().found());
  }
  EXPECT_EQ(ContractView(Json::array()).locked().error(),
            "the top level: expected an object, found an array");
  EXPECT_EQ(ContractView(Json()).device_kind().error(),
            "the top level: expected an object, found null");
}

}  // namespace
}  // namespace ratchet
