// The one typed reader of a run contract (docs/contract.md): contract.json of an evidence
// directory, `ratchet contract --json`, or the reviewed contract a baseline keeps. The tool
// (baseline, compare, promote, audit) reads every field of a contract through it, so that the
// format's keys are spelled in runner/contract/ alone, where BuildContract writes them.
// Lenient by design: a field that is missing or of another type reads as nothing, with why
// (naming the field that is wrong), and each reader decides what that means: the ratchet takes a
// lane without a device kind for a CPU lane, the audit makes it a finding.
#ifndef RATCHET_CONTRACT_CONTRACT_VIEW_H_
#define RATCHET_CONTRACT_CONTRACT_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "core/canonical_json.h"

namespace ratchet {

// The parts of a contract, by the keys that name them (the `part` of DiffContractPart).
inline constexpr char kContractLocked[] = "locked";
inline constexpr char kContractLane[] = "lane";
inline constexpr char kContractObserved[] = "observed";
// Whether `key` names a part of `locked`: datasets, rules, sandbox, scorer and workers (contract
// 2), or harness (contract 1, in place of scorer).
bool IsLockedPart(const std::string& key);
// The rule-set document that `locked.rules.sha256` names, kept beside `locked` in the contract a
// baseline reviewed (docs/baseline.md); contract.json locks the rule set by its hash alone.
inline constexpr char kContractRuleSet[] = "rule_set";

// One field of a contract as read: its value when it is there with the type the format gives
// it; otherwise no value, and why, naming the field that is wrong: the field itself, or the part
// above it that is missing or not an object ("lane: missing" for lane.device.kind).
template <typename T>
class ContractField {
 public:
  bool ok() const { return value_.has_value(); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }

  // What the contract holds at the field's path, whatever its type (null included); nullopt
  // where the field, or a part above it, is missing or not an object.
  const std::optional<Json>& found() const { return found_; }
  // found(), or null where there is nothing: the value as a message shows it.
  Json found_or_null() const { return found_ ? *found_ : Json(); }

  // The field's own path: "lane.device.kind".
  const std::string& path() const { return path_; }
  // When !ok(): the path of the field that is wrong ("" for the top level) and what is wrong with
  // it, in the audit's words: "missing", "null, expected a string", "expected an object, found
  // an array".
  const std::string& wrong_path() const { return wrong_path_; }
  const std::string& problem() const { return problem_; }
  // "lane.device: expected an object, found a string"; empty when ok().
  std::string error() const {
    if (ok()) return "";
    return (wrong_path_.empty() ? std::string("the top level") : wrong_path_) + ": " + problem_;
  }

 private:
  friend class ContractView;
  std::optional<T> value_;
  std::optional<Json> found_;
  std::string path_;
  std::string wrong_path_;
  std::string problem_;
};

class ContractView {
 public:
  // Any JSON value: one that is not an object reads with every field wrong at the top level.
  explicit ContractView(Json contract) : contract_(std::move(contract)) {}

  // The document as given.
  const Json& json() const { return contract_; }

  ContractField<std::string> schema() const;  // "ratchet.contract/2"

  // `locked`, whole (an object), as DiffContractPart compares it, and the fields read from it.
  ContractField<Json> locked() const;
  ContractField<Json> locked_scorer() const;  // the scorer's identity (contract 2)
  // locked.scorer's version and the hash of its sources (contract 2).
  ContractField<ToolIdentity> scorer() const;
  // The hash of every file of ratchet, which contract 1 (before ratchet-scorer) locked where
  // contract 2 locks the scorer.
  ContractField<std::string> locked_harness() const;
  ContractField<Json> locked_rules() const;         // {"id", "sha256"}
  ContractField<std::string> rules_id() const;      // locked.rules.id: "mnist-a100/1.5.0"
  ContractField<std::string> rules_sha256() const;  // locked.rules.sha256
  ContractField<Json> locked_datasets() const;      // by name: an object, or null when absent
  // locked.datasets.<dataset>: an object; null when the dataset was absent from the machine.
  ContractField<Json> locked_dataset(const std::string& dataset) const;
  // locked.datasets.<dataset>.images_sha256 and .labels_sha256.
  ContractField<std::string> dataset_images_sha256(const std::string& dataset) const;
  ContractField<std::string> dataset_labels_sha256(const std::string& dataset) const;

  // `lane`, whole (an object): the reviewed facts of a lane, compared by DiffContractPart.
  ContractField<Json> lane() const;
  ContractField<std::string> lane_id() const;      // lane.id: 16 hex
  ContractField<Json> device() const;              // lane.device
  ContractField<std::string> device_kind() const;  // lane.device.kind: "cpu" or "cuda"
  ContractField<std::string> device_name() const;  // lane.device.name: "NVIDIA H200"

  // `observed`, whole (an object), and the fields read from it.
  ContractField<Json> observed() const;
  ContractField<std::string> device_uuid() const;  // observed.device_uuid: the board that ran
  ContractField<std::string> sandbox() const;      // observed.sandbox: "full" or "partial"
  // observed.sandbox_slot: the uids the workers ran as (missing in evidence from before slots).
  ContractField<int64_t> sandbox_slot() const;
  // observed.tool: the tool that asked for the run; a null tool (the scorer ran alone) is not ok.
  ContractField<ToolIdentity> tool() const;

  // The reviewed rule-set document (kContractRuleSet): an object.
  ContractField<Json> rule_set() const;

 private:
  // The value at `keys` from the top, read as `expected` names ("an object", "a string") and
  // `accepts` checks; every part above it must be an object.
  ContractField<Json> Read(const std::vector<std::string>& keys, bool (*accepts)(const Json&),
                           const char* expected) const;
  ContractField<Json> Object(const std::vector<std::string>& keys) const;
  ContractField<std::string> String(const std::vector<std::string>& keys) const;
  ContractField<int64_t> Integer(const std::vector<std::string>& keys) const;
  ContractField<ToolIdentity> Identity(const std::vector<std::string>& keys) const;

  Json contract_;
};

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_CONTRACT_VIEW_H_
