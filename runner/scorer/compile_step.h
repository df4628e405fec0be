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
// What the step may carry, so that every later worker's folder has room for its copy beside its
// own files (a folder holds at most 65,536 inodes and `folder_bytes`), and so that the copies,
// written by this process into each worker's folder, stay small: past either bound the step
// gives no caches.
inline constexpr size_t kMaxCacheEntries = 16384;  // files and folders
inline constexpr uint64_t kMaxCacheBytes = uint64_t{256} << 20;
// A path (below the cache folder) longer than this is left out: its copy's whole path must stay
// well within PATH_MAX.
inline constexpr size_t kMaxCachePath = 3072;
// At most this many skipped entries are named (each cut to kMaxSkippedShown characters), then
// how many more there were.
inline constexpr size_t kMaxSkippedNamed = 64;
inline constexpr size_t kMaxSkippedShown = 256;

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
// following a link (a link, a device, a name that is not printable ASCII or a path longer than
// kMaxCachePath is skipped and named in `skipped`); more than `max_bytes` in all or
// kMaxCacheEntries files and folders is an error. A missing `root` is an empty set.
Result<CacheSet> ReadCacheTree(const std::string& root, uint64_t max_bytes);

}  // namespace ratchet

#endif  // RATCHET_SCORER_COMPILE_STEP_H_
