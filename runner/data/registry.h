// The datasets ratchet knows, each pinned by the hashes of its 60,000-image training files.
// A file is accepted only when one of its pinned identities matches (docs/datasets.md); the
// registry also says where a user gets the right files.
#ifndef RATCHET_DATA_REGISTRY_H_
#define RATCHET_DATA_REGISTRY_H_

#include <string>
#include <vector>

namespace ratchet {

// The identities one IDX file is accepted under. An empty field is not an identity.
struct IdxIdentity {
  std::string sha256;       // of the decompressed IDX bytes
  std::string gzip_sha256;  // of the original gzip file the seed scorer pins
  std::string md5;          // of the decompressed IDX bytes (kmnist, from public records)
};

struct DatasetSpec {
  std::string name;                       // "mnist", "fashion", "kmnist"
  std::vector<std::string> folder_names;  // subfolders of a data folder that may hold it
  bool foreign = false;                   // a hold-out dataset rather than MNIST itself
  IdxIdentity images;
  IdxIdentity labels;
  std::string source;  // where the right files come from, for messages
};

// mnist, fashion, kmnist, in that order.
const std::vector<DatasetSpec>& DatasetRegistry();
// nullptr when `name` is not a dataset of the registry.
const DatasetSpec* FindDataset(const std::string& name);
// "mnist, fashion, kmnist", for messages.
std::string DatasetNames();

}  // namespace ratchet

#endif  // RATCHET_DATA_REGISTRY_H_
