// `ratchet draw`: one draw of a run seed written to a new folder, hidden map included, so that
// a user can see what a worker is given and an auditor can check a run's draws.
#include <cerrno>
#include <cstdlib>
#include <ostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/file.h"
#include "core/status.h"
#include "data/draw.h"
#include "data/draw_files.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "data/pool.h"
#include "data/registry.h"

namespace ratchet {

const char kDrawUsage[] =
    "usage: ratchet draw --dataset NAME --seed HEX --index K --out DIR [--data DIR]\n"
    "\n"
    "Writes draw K of a run seed into the new folder DIR, as a run makes it: the inputs a\n"
    "worker sees (inputs/), the test labels and the hidden map (hidden/: pool rows, label\n"
    "permutation, rotation, mean and transform), and draw.json describing every file.\n"
    "The seed itself is not written, only its sha256. docs/draws.md gives the layout.\n"
    "\n"
    "  --dataset NAME  mnist, fashion or kmnist\n"
    "  --seed HEX      the 32-byte run seed, 64 hex digits\n"
    "  --index K       the draw's index, a decimal number from 0\n"
    "  --out DIR       a folder that does not exist yet\n"
    "  --data DIR      search DIR first for datasets (see `ratchet datasets --help`)\n"
    "\n"
    "exit codes: 0 written; 2 bad usage, seed, index, or dataset file, or DIR exists;\n"
    "            3 the dataset is absent, or the folder could not be written\n";

namespace {

Result<uint64_t> ParseIndex(const std::string& text) {
  bool digits = !text.empty() && text.size() <= 19;
  for (char c : text) digits = digits && c >= '0' && c <= '9';
  if (!digits) {
    return Status::Usage("--index must be a decimal number from 0 to 9999999999999999999, not '" +
                         text + "'");
  }
  return static_cast<uint64_t>(std::strtoull(text.c_str(), nullptr, 10));
}

Status Run(CommandContext& context) {
  Result<Args> args = Args::Parse(
      context.argv,
      {{"dataset", true}, {"seed", true}, {"index", true}, {"out", true}, {"data", true}});
  if (!args.ok()) return args.status();
  if (!args->positional().empty()) {
    return Status::Usage("unexpected argument " + args->positional().front());
  }
  for (const char* required : {"dataset", "seed", "index", "out"}) {
    if (!args->Has(required)) return Status::Usage(std::string("--") + required + " is required");
  }
  const std::string name = *args->Get("dataset");
  if (FindDataset(name) == nullptr) {
    return Status::Usage("--dataset " + name + " is not a dataset; the datasets are " +
                         DatasetNames());
  }
  Result<RunSeed> seed = ParseRunSeed(*args->Get("seed"), "--seed");
  if (!seed.ok()) return seed.status();
  Result<uint64_t> index = ParseIndex(*args->Get("index"));
  if (!index.ok()) return index.status();
  const std::string out_dir = *args->Get("out");
  if (PathExists(out_dir)) {
    return Status::BadInput("--out " + out_dir + " already exists; a draw goes into a new folder");
  }

  Result<DataSearch> search = MakeDataSearch(args->Get("data"));
  if (!search.ok()) return search.status();
  Result<LocatedDataset> dataset = LocateDataset(*search, name);
  if (!dataset.ok()) return dataset.status();
  if (!dataset->present) {
    std::string searched;
    for (const std::string& folder : dataset->searched) searched += "\n  " + folder;
    return Status::Unavailable(name + " is absent: it comes from " + FindDataset(name)->source +
                               ". Looked in:" + searched);
  }
  Result<std::shared_ptr<const Pool>> pool = SharedPool(*dataset);
  if (!pool.ok()) return pool.status();
  Result<Split> split = MakeSplit(*seed, name, (*pool)->rows());
  if (!split.ok()) return split.status();
  Result<Draw> draw = MakeDraw(**pool, *split, *seed, *index);
  if (!draw.ok()) return draw.status();
  Result<Json> written = WriteDraw(*draw, *dataset, *seed, out_dir);
  if (!written.ok()) return written.status();
  context.out << "wrote " << name << " draw " << *index << " to " << out_dir << " (seed sha256 "
              << (*written)["seed_sha256"].get<std::string>() << ")\n";
  return Status::Ok();
}

}  // namespace

int RunDraw(CommandContext& context) {
  Status status = Run(context);
  if (!status.ok()) return ReportError(context.err, "draw", status);
  return kExitSuccess;
}

}  // namespace ratchet
