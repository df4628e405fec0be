// Finding the registry's datasets on this machine: the folders searched, in order, and for each
// dataset the files found there, verified against their pinned hashes. A dataset that is absent
// is a fact to report; a file that is present but wrong is an error.
#ifndef RATCHET_DATA_LOCATE_H_
#define RATCHET_DATA_LOCATE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/idx.h"
#include "data/registry.h"

namespace ratchet {

// The folders that may hold datasets, in search order, already resolved.
struct DataSearch {
  std::vector<std::string> folders;
};

// --data (may be empty), $RATCHET_DATA, <folder of the executable>/../data, then the packages'
// standard place (/usr/share/datasets). A --data or $RATCHET_DATA that is not a folder is
// BadInput; the other places may be missing.
Result<DataSearch> MakeDataSearch(const std::optional<std::string>& data_flag);

struct LocatedDataset {
  std::string name;  // "mnist", "fashion", "kmnist"
  bool present = false;
  std::string images_path, labels_path;
  std::string images_sha256, labels_sha256;  // of the decompressed IDX bytes
  std::vector<std::string> searched;         // where it was looked for (for "absent" messages)
};

// Every registry dataset, in the order mnist, fashion, kmnist; absent ones have present=false.
// A dataset is taken from the first folder that holds either of its files. A found file that is
// wrong (structure or hash), or one found without the other, is an error.
Result<std::vector<LocatedDataset>> LocateDatasets(const DataSearch& search);
// The same for the one dataset `name` (a name outside the registry is a usage error).
Result<LocatedDataset> LocateDataset(const DataSearch& search, const std::string& name);

// One file read from disk and checked: its IDX structure first, then its identity against
// `spec`. Both LocateDatasets and the pool loader use it, so they accept the same files.
struct VerifiedIdx {
  IdxFile file;
  std::string sha256;  // of file.bytes
};
Result<VerifiedIdx> ReadVerifiedIdx(const DatasetSpec& spec, IdxKind kind, const std::string& path);

}  // namespace ratchet

#endif  // RATCHET_DATA_LOCATE_H_
