// `ratchet draw`: one draw of a run seed written to a new folder, hidden map included, so that
// a user can see what a worker is given and an auditor can check a run's draws.
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <utility>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/fresh_directory.h"
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
    "The seed itself is not written, only its sha256. DIR is readable by you only (folders\n"
    "0700, files 0600). Interrupted (Ctrl-C, SIGTERM), it leaves nothing behind.\n"
    "docs/draws.md gives the layout.\n"
    "\n"
    "  --dataset NAME  mnist, fashion or kmnist\n"
    "  --seed HEX      the 32-byte run seed, 64 hex digits\n"
    "  --index K       the draw's index, a decimal number from 0\n"
    "  --out DIR       a folder that does not exist yet, in one that does\n"
    "  --data DIR      search DIR first for datasets (see `ratchet datasets --help`)\n"
    "\n"
    "exit codes: 0 written; 2 bad usage, seed, index, or dataset file, DIR exists or the\n"
    "            folder it goes in does not; 3 the dataset is absent, or the folder could\n"
    "            not be written; 130 interrupted\n";

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

// Loads the pool of `name`, makes draw `index` of `seed` and writes it into `folder`, returning
// draw.json's content. Stops early, returning an empty object, once `hold` has a signal.
Result<Json> MakeDrawInto(const Args& args, const std::string& name, const RunSeed& seed,
                          uint64_t index, FreshDirectory* folder, const InterruptHold& hold) {
  Result<DataSearch> search = MakeDataSearch(args.Get("data"));
  if (!search.ok()) return search.status();
  Result<LocatedDataset> dataset = LocateDataset(*search, name);
  if (!dataset.ok()) return dataset.status();
  if (!dataset->present) {
    std::string searched;
    for (const std::string& folder : dataset->searched) searched += "\n  " + folder;
    return Status::Unavailable(name + " is absent: it comes from " + FindDataset(name)->source +
                               ". Looked in:" + searched);
  }
  if (hold.Interrupted()) return Json::object();
  Result<std::shared_ptr<const Pool>> pool = SharedPool(*dataset);
  if (!pool.ok()) return pool.status();
  if (hold.Interrupted()) return Json::object();
  Result<Split> split = MakeSplit(seed, name, (*pool)->rows());
  if (!split.ok()) return split.status();
  Result<Draw> draw = MakeDraw(**pool, *split, seed, index);
  if (!draw.ok()) return draw.status();
  if (hold.Interrupted()) return Json::object();
  return WriteDrawFiles(*draw, *dataset, seed, folder);
}

// How a draw ended: done, an error, or a signal (then `interrupted` says what became of --out).
struct Outcome {
  Outcome(Status status) : status(std::move(status)) {}  // NOLINT(google-explicit-constructor)
  Outcome(Status status, std::string interrupted)
      : status(std::move(status)), interrupted(std::move(interrupted)) {}
  Status status;
  std::optional<std::string> interrupted;
};

Outcome Run(CommandContext& context, const InterruptHold& hold) {
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

  SweepPartialFoldersIn(DirName(out_dir), context.out);
  // --out is claimed before the slow work, so a mistake in it is reported at once. From here on
  // every way out that does not commit the folder abandons it.
  Result<FreshDirectory> folder = FreshDirectory::Begin(out_dir);
  if (!folder.ok()) return folder.status();
  Result<Json> written = MakeDrawInto(*args, name, *seed, *index, &*folder, hold);
  Status status = written.ok() ? Status::Ok() : written.status();
  if (hold.Interrupted()) {
    folder->Abandon();
    return Outcome(Status::Ok(), "nothing was written");
  }
  if (status.ok()) status = folder->Commit();
  if (!status.ok()) {
    folder->Abandon();
    return status;
  }
  context.out << "wrote " << name << " draw " << *index << " to " << out_dir << " (seed sha256 "
              << (*written)["seed_sha256"].get<std::string>() << ")\n";
  // A signal that came while the folder was renamed into place: the draw is whole, but the
  // command was still asked to stop.
  if (hold.Interrupted())
    return Outcome(Status::Ok(), "the draw was already written whole to " + out_dir);
  return Status::Ok();
}

}  // namespace

int RunDraw(CommandContext& context) {
  // Before anything is written: a signal then leaves no partial folder with the hidden labels.
  InterruptHold hold;
  Outcome outcome = Run(context, hold);
  if (outcome.interrupted) {
    context.err << "ratchet draw: error: interrupted; " << *outcome.interrupted << "\n";
    return kExitInterrupted;
  }
  if (!outcome.status.ok()) return ReportError(context.err, "draw", outcome.status);
  return kExitSuccess;
}

}  // namespace ratchet
