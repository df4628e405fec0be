#include "contract/contract.h"

#include <algorithm>

namespace ratchet {
namespace {

Json NullIfEmpty(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json DeviceJson(const DeviceFacts& device) {
  if (device.kind != "cuda") return {{"kind", device.kind}};
  Json power = nullptr;
  if (device.power_limit_mw) {
    // Whole watts stay integers, as boards report them; a fraction keeps its milliwatts.
    unsigned mw = *device.power_limit_mw;
    power = mw % 1000 == 0 ? Json(mw / 1000) : Json(mw / 1000.0);
  }
  return {{"kind", "cuda"},
          {"name", NullIfEmpty(device.name)},
          {"driver", NullIfEmpty(device.driver)},
          {"cuda_driver", NullIfEmpty(device.cuda_driver)},
          {"vbios", NullIfEmpty(device.vbios)},
          {"power_limit_w", power},
          {"l2_bytes", device.l2_bytes ? Json(*device.l2_bytes) : Json(nullptr)},
          {"sm_count", device.sm_count ? Json(*device.sm_count) : Json(nullptr)}};
}

void Diff(const Json& a, const Json& b, const std::string& path,
          std::vector<ContractDifference>* out) {
  if (a.is_object() && b.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end()) {
        out->push_back({JoinPath(path, it.key()), it.value(), std::nullopt});
      } else {
        Diff(it.value(), *other, JoinPath(path, it.key()), out);
      }
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!a.contains(it.key())) {
        out->push_back({JoinPath(path, it.key()), std::nullopt, it.value()});
      }
    }
    return;
  }
  if (a.is_array() && b.is_array()) {
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      if (i >= a.size() || i >= b.size()) {
        out->push_back({JoinPath(path, i), i < a.size() ? std::optional<Json>(a[i]) : std::nullopt,
                        i < b.size() ? std::optional<Json>(b[i]) : std::nullopt});
      } else {
        Diff(a[i], b[i], JoinPath(path, i), out);
      }
    }
    return;
  }
  if (a != b) out->push_back({path, a, b});
}

}  // namespace

Result<Json> BuildContract(const LockedInputs& locked, const MachineFacts& machine,
                           const std::optional<ToolIdentity>& tool) {
  Json datasets = Json::object();
  for (const DatasetLock& dataset : locked.datasets) {
    if (datasets.contains(dataset.name)) {
      return Status::Internal("the dataset " + dataset.name + " is given twice");
    }
    datasets[dataset.name] = dataset.present ? Json{{"images_sha256", dataset.images_sha256},
                                                    {"labels_sha256", dataset.labels_sha256}}
                                             : Json(nullptr);
  }
  Json workers = Json::object();
  for (const auto& [name, sha256] : locked.workers) workers[name] = NullIfEmpty(sha256);
  const std::optional<PythonFacts>& python = machine.python;
  Json contract = {
      {"schema", kContractSchema},
      {"locked",
       {{"scorer",
         {{"name", kScorerName},
          {"version", locked.scorer_version},
          {"source_sha256", locked.scorer_source_sha256}}},
        {"rules", {{"id", locked.rules_id}, {"sha256", locked.rules_sha256}}},
        {"workers", workers},
        {"datasets", datasets},
        {"sandbox",
         {{"policy_sha256", locked.sandbox_policy_sha256}, {"uid", locked.sandbox_uid}}}}},
      {"lane",
       {{"binaries",
         {{"ratchet-scorer", machine.binary_sha256},
          {"ratchet-worker", NullIfEmpty(machine.worker_binary_sha256)}}},
        {"toolchain",
         {{"cxx", machine.cxx},
          {"libtorch", NullIfEmpty(machine.libtorch)},
          // The interpreter's versions, not its path: one Python and torch installed in two
          // places is one lane.
          {"python", python ? Json(python->version) : Json(nullptr)},
          {"python_torch", python ? Json(python->torch) : Json(nullptr)},
          {"glibc", machine.glibc},
          {"libraries", machine.libraries}}},
        {"device", DeviceJson(machine.device)}}},
      {"observed",
       {{"processor", machine.processor},
        {"sandbox", machine.sandbox_full ? "full" : "partial"},
        {"tool", tool ? Json{{"name", "ratchet"},
                             {"version", tool->version},
                             {"source_sha256", tool->source_sha256}}
                      : Json(nullptr)}}}};
  Json& observed = contract["observed"];
  if (machine.device.uuid) observed["device_uuid"] = *machine.device.uuid;
  if (!machine.device.note.empty()) observed["device_note"] = machine.device.note;
  if (!machine.sandbox_full) observed["sandbox_note"] = machine.sandbox_partial_reason;
  if (machine.sandbox_full) observed["sandbox_slot"] = machine.sandbox_slot;
  if (python) observed["python_path"] = python->path;

  Result<std::string> id = LaneId(contract["lane"]);
  if (!id.ok()) return id.status().Annotate("the contract's lane");
  contract["lane"]["id"] = *id;
  // Every value must have one canonical form, or the contract could not be hashed as evidence.
  Result<std::string> canonical = CanonicalJson(contract);
  if (!canonical.ok()) return canonical.status().Annotate("the contract");
  return contract;
}

Result<std::string> LaneId(const Json& lane) {
  Json without_id = lane;
  if (without_id.is_object()) without_id.erase("id");
  Result<std::string> digest = CanonicalSha256(without_id);
  if (!digest.ok()) return digest.status();
  return digest->substr(0, kLaneIdLength);
}

std::vector<std::string> DiffLocked(const Json& a, const Json& b) {
  std::vector<std::string> paths;
  for (const ContractDifference& difference : DiffContractPart(a, b, "locked")) {
    paths.push_back(difference.path);
  }
  return paths;
}

std::vector<ContractDifference> DiffContractPart(const Json& a, const Json& b,
                                                 const std::string& part) {
  auto find = [&part](const Json& contract) -> const Json* {
    if (!contract.is_object()) return nullptr;
    auto it = contract.find(part);
    return it == contract.end() ? nullptr : &*it;
  };
  const Json* left = find(a);
  const Json* right = find(b);
  std::vector<ContractDifference> differences;
  if (left == nullptr || right == nullptr) {
    if (left != right) {
      differences.push_back({part, left ? std::optional<Json>(*left) : std::nullopt,
                             right ? std::optional<Json>(*right) : std::nullopt});
    }
    return differences;
  }
  Diff(*left, *right, part, &differences);
  std::sort(
      differences.begin(), differences.end(),
      [](const ContractDifference& x, const ContractDifference& y) { return x.path < y.path; });
  return differences;
}

}  // namespace ratchet
