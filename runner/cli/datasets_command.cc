// `ratchet datasets`: which datasets this machine has, where, and their hashes.
#include <ostream>

#include "cli/commands.h"
#include "core/args.h"
#include "core/canonical_json.h"
#include "core/exit_codes.h"
#include "core/status.h"
#include "data/locate.h"
#include "data/registry.h"

namespace ratchet {

const char kDatasetsUsage[] =
    "usage: ratchet datasets [--data DIR] [--json]\n"
    "\n"
    "Lists the datasets a run uses (mnist, and the hold-out datasets fashion and kmnist):\n"
    "present or absent, the files found and the sha256 of their decompressed IDX bytes, and\n"
    "the folders searched. Every file found is checked against its pinned hashes.\n"
    "\n"
    "  --data DIR  search DIR first (then $RATCHET_DATA, <ratchet's folder>/../data,\n"
    "              /usr/share/datasets); a dataset lives in DIR/<name>/train-*-ubyte[.gz]\n"
    "  --json      print the listing as JSON\n"
    "\n"
    "exit codes: 0 mnist and at least one hold-out dataset present and verified;\n"
    "            2 a file is wrong or truncated, or --data is not a folder;\n"
    "            3 mnist, or both hold-out datasets, absent (scripts/setup gets them)\n";

namespace {

Json ListingJson(const DataSearch& search, const std::vector<LocatedDataset>& datasets) {
  Json listed = Json::array();
  for (const LocatedDataset& dataset : datasets) {
    Json entry = {{"name", dataset.name}, {"present", dataset.present}};
    if (dataset.present) {
      entry["images"] = {{"path", dataset.images_path}, {"sha256", dataset.images_sha256}};
      entry["labels"] = {{"path", dataset.labels_path}, {"sha256", dataset.labels_sha256}};
    } else {
      entry["searched"] = dataset.searched;
    }
    listed.push_back(entry);
  }
  return {{"datasets", listed}, {"folders", search.folders}};
}

void PrintListing(std::ostream& out, const DataSearch& search,
                  const std::vector<LocatedDataset>& datasets) {
  for (const LocatedDataset& dataset : datasets) {
    std::string name = dataset.name;
    name.resize(9, ' ');
    if (!dataset.present) {
      out << name << "absent\n";
      continue;
    }
    out << name << "present\n"
        << "  images  " << dataset.images_path << "\n"
        << "          sha256 " << dataset.images_sha256 << "\n"
        << "  labels  " << dataset.labels_path << "\n"
        << "          sha256 " << dataset.labels_sha256 << "\n";
  }
  out << "folders searched, in order:\n";
  for (const std::string& folder : search.folders) out << "  " << folder << "\n";
}

// Unavailable when a run could not be made with what is here.
Status CheckRunnable(const std::vector<LocatedDataset>& datasets) {
  bool mnist = false, foreign = false;
  std::string absent;
  for (const LocatedDataset& dataset : datasets) {
    const DatasetSpec* spec = FindDataset(dataset.name);
    if (dataset.present) {
      (spec->foreign ? foreign : mnist) = true;
      continue;
    }
    absent += "\n  " + dataset.name + ": " + spec->source;
  }
  if (mnist && foreign) return Status::Ok();
  std::string missing = !mnist && !foreign ? "mnist and both hold-out datasets are absent"
                        : !mnist           ? "mnist is absent"
                                           : "both hold-out datasets (fashion, kmnist) are absent";
  return Status::Unavailable(missing +
                             "; a run needs mnist and at least one of them. Run scripts/setup, "
                             "or put the files in DIR/<name>/ and pass --data DIR. Sources:" +
                             absent);
}

}  // namespace

int RunDatasets(CommandContext& context) {
  Result<Args> args = Args::Parse(context.argv, {{"data", true}, {"json", false}});
  if (!args.ok()) return ReportError(context.err, "datasets", args.status());
  if (!args->positional().empty()) {
    return ReportError(context.err, "datasets",
                       Status::Usage("unexpected argument " + args->positional().front()));
  }
  Result<DataSearch> search = MakeDataSearch(args->Get("data"));
  if (!search.ok()) return ReportError(context.err, "datasets", search.status());
  Result<std::vector<LocatedDataset>> datasets = LocateDatasets(*search);
  if (!datasets.ok()) return ReportError(context.err, "datasets", datasets.status());
  if (args->Has("json")) {
    // A path that is not UTF-8 has no JSON form: its bad bytes print as U+FFFD.
    context.out
        << ListingJson(*search, *datasets).dump(2, ' ', false, Json::error_handler_t::replace)
        << "\n";
  } else {
    PrintListing(context.out, *search, *datasets);
  }
  Status runnable = CheckRunnable(*datasets);
  if (!runnable.ok()) return ReportError(context.err, "datasets", runnable);
  return kExitSuccess;
}

}  // namespace ratchet
