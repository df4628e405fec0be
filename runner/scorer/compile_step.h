// The compile step of a run (docs/scoring.md, "The compile step"): before the first call, one
// sandboxed worker runs the method's untimed warm-up on a draw of the warm-up dataset, and what
// it left in its cache folder (Triton's kernels, Inductor's graphs, torch's extensions) is read
// once into this process's memory and given, as a copy of its own, to every later worker of the
// run. No worker writes what another reads: each writes only its own copy, which goes with it.
#ifndef RATCHET_SCORER_COMPILE_STEP_H_
#define RATCHET_SCORER_COMPILE_STEP_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "evidence/run_files.h"
#include "scorer/plan.h"
#include "scorer/worker_process.h"

namespace ratchet {

// The folder of a worker's caches, below its own folder (WorkerEnvironment points $XDG_CACHE_HOME,
// $TRITON_CACHE_DIR, $TORCHINDUCTOR_CACHE_DIR, $TORCH_EXTENSIONS_DIR and $CUDA_CACHE_PATH into it).
inline constexpr char kWorkerCacheFolder[] = "cache";
// At most this many files are taken (a worker's folder holds at most 65,536 inodes).
inline constexpr size_t kMaxCacheFiles = 65536;

// The caches one worker left, as read: the files to give each later worker (names below its
// folder: "cache/<path>", each with its modification time), their listing and its sha256, and
// what was left out.
struct CacheSet {
  std::vector<FolderFile> files;
  std::vector<CacheFileEntry> listing;  // sorted by path
  std::string sha256;                   // CachesSha256(listing); "" when empty
  std::vector<std::string> skipped;
  uint64_t bytes = 0;
  bool empty() const { return listing.empty(); }
};

// Reads the folder `root` (a dead worker's cache folder): folders and regular files only, never
// following a link (a link, a device or a name that is not printable ASCII is skipped and named
// in `skipped`); at most `max_bytes` in all and kMaxCacheFiles files, past which it is an error.
// A missing `root` is an empty set.
Result<CacheSet> ReadCacheTree(const std::string& root, uint64_t max_bytes);

}  // namespace ratchet

#endif  // RATCHET_SCORER_COMPILE_STEP_H_
