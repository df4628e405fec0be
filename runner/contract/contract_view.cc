#include "contract/contract_view.h"

#include <cstdint>

namespace ratchet {
namespace {

bool IsObject(const Json& value) { return value.is_object(); }
bool IsString(const Json& value) { return value.is_string(); }
bool IsWholeNumber(const Json& value) { return value.is_number_integer(); }

}  // namespace

bool IsLockedPart(const std::string& key) {
  for (const char* part : {"datasets", "harness", "rules", "sandbox", "scorer", "workers"}) {
    if (key == part) return true;
  }
  return false;
}

ContractField<Json> ContractView::Read(const std::vector<std::string>& keys,
                                       bool (*accepts)(const Json&), const char* expected) const {
  ContractField<Json> field;
  for (const std::string& key : keys) field.path_ = JoinPath(field.path_, key);
  if (!contract_.is_object()) {
    field.problem_ = "expected an object, found " + JsonTypeName(contract_);
    return field;
  }
  const Json* node = &contract_;
  std::string path;
  for (size_t i = 0; i < keys.size(); ++i) {
    path = JoinPath(path, keys[i]);
    auto it = node->find(keys[i]);
    if (it == node->end()) {
      field.wrong_path_ = path;
      field.problem_ = "missing";
      return field;
    }
    // Each part above the field must be an object, as the field itself must be `expected`.
    const bool leaf = i + 1 == keys.size();
    if (leaf) field.found_ = *it;
    const std::string wanted = leaf ? expected : "an object";
    if (it->is_null() || !(leaf ? accepts(*it) : it->is_object())) {
      field.wrong_path_ = path;
      field.problem_ = it->is_null() ? "null, expected " + wanted
                                     : "expected " + wanted + ", found " + JsonTypeName(*it);
      return field;
    }
    node = &*it;
  }
  field.value_ = *node;
  return field;
}

ContractField<Json> ContractView::Object(const std::vector<std::string>& keys) const {
  return Read(keys, IsObject, "an object");
}

ContractField<std::string> ContractView::String(const std::vector<std::string>& keys) const {
  ContractField<Json> read = Read(keys, IsString, "a string");
  ContractField<std::string> field;
  if (read.ok()) field.value_ = read->get<std::string>();
  field.found_ = std::move(read.found_);
  field.path_ = std::move(read.path_);
  field.wrong_path_ = std::move(read.wrong_path_);
  field.problem_ = std::move(read.problem_);
  return field;
}

ContractField<int64_t> ContractView::Integer(const std::vector<std::string>& keys) const {
  ContractField<Json> read = Read(keys, IsWholeNumber, "a whole number");
  ContractField<int64_t> field;
  if (read.ok()) {
    if (read->is_number_unsigned() && read->get<uint64_t>() > INT64_MAX) {
      read.wrong_path_ = read.path_;
      read.problem_ = "a whole number too large";
    } else {
      field.value_ = read->get<int64_t>();
    }
  }
  field.found_ = std::move(read.found_);
  field.path_ = std::move(read.path_);
  field.wrong_path_ = std::move(read.wrong_path_);
  field.problem_ = std::move(read.problem_);
  return field;
}

ContractField<std::string> ContractView::schema() const { return String({"schema"}); }

ContractField<Json> ContractView::locked() const { return Object({kContractLocked}); }
ContractField<Json> ContractView::locked_scorer() const {
  return Object({kContractLocked, "scorer"});
}
ContractField<std::string> ContractView::locked_harness() const {
  return String({kContractLocked, "harness"});
}
ContractField<Json> ContractView::locked_rules() const {
  return Object({kContractLocked, "rules"});
}
ContractField<std::string> ContractView::rules_id() const {
  return String({kContractLocked, "rules", "id"});
}
ContractField<std::string> ContractView::rules_sha256() const {
  return String({kContractLocked, "rules", "sha256"});
}
ContractField<Json> ContractView::locked_datasets() const {
  return Object({kContractLocked, "datasets"});
}
ContractField<Json> ContractView::locked_dataset(const std::string& dataset) const {
  return Object({kContractLocked, "datasets", dataset});
}
ContractField<std::string> ContractView::dataset_images_sha256(const std::string& dataset) const {
  return String({kContractLocked, "datasets", dataset, "images_sha256"});
}
ContractField<std::string> ContractView::dataset_labels_sha256(const std::string& dataset) const {
  return String({kContractLocked, "datasets", dataset, "labels_sha256"});
}

ContractField<Json> ContractView::lane() const { return Object({kContractLane}); }
ContractField<std::string> ContractView::lane_id() const { return String({kContractLane, "id"}); }
ContractField<Json> ContractView::device() const { return Object({kContractLane, "device"}); }
ContractField<std::string> ContractView::device_kind() const {
  return String({kContractLane, "device", "kind"});
}
ContractField<std::string> ContractView::device_name() const {
  return String({kContractLane, "device", "name"});
}

ContractField<Json> ContractView::observed() const { return Object({kContractObserved}); }
ContractField<std::string> ContractView::device_uuid() const {
  return String({kContractObserved, "device_uuid"});
}
ContractField<std::string> ContractView::sandbox() const {
  return String({kContractObserved, "sandbox"});
}
ContractField<int64_t> ContractView::sandbox_slot() const {
  return Integer({kContractObserved, "sandbox_slot"});
}
// {version, source_sha256} of the object at `keys`, each part named when it is wrong.
ContractField<ToolIdentity> ContractView::Identity(const std::vector<std::string>& keys) const {
  ContractField<ToolIdentity> field;
  ContractField<Json> object = Object(keys);
  field.found_ = object.found_;
  field.path_ = object.path_;
  if (!object.ok()) {
    field.wrong_path_ = object.wrong_path_;
    field.problem_ = object.problem_;
    return field;
  }
  std::vector<std::string> version_keys = keys, sha256_keys = keys;
  version_keys.push_back("version");
  sha256_keys.push_back("source_sha256");
  ContractField<std::string> version = String(version_keys);
  ContractField<std::string> sha256 = String(sha256_keys);
  for (const ContractField<std::string>* part : {&version, &sha256}) {
    if (!part->ok()) {
      field.wrong_path_ = part->wrong_path_;
      field.problem_ = part->problem_;
      return field;
    }
  }
  field.value_ = ToolIdentity{*version, *sha256};
  return field;
}
ContractField<ToolIdentity> ContractView::tool() const {
  return Identity({kContractObserved, "tool"});
}
ContractField<ToolIdentity> ContractView::scorer() const {
  return Identity({kContractLocked, "scorer"});
}

ContractField<Json> ContractView::rule_set() const { return Object({kContractRuleSet}); }

}  // namespace ratchet
