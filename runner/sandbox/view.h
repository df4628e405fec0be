// The filesystem a sandboxed process sees: a root of its own, built from read-only bind mounts of
// exactly what a worker, the source checker or the compiler needs, then pivot_root'ed into, as
// bubblewrap and nsjail do. Nothing else of the machine exists there: a copy of a dataset in a
// folder that is not bound cannot be named, let alone opened. PlanView turns the rules below and
// a process's own folders into the list of mount steps the child applies (contain.cc).
#ifndef RATCHET_SANDBOX_VIEW_H_
#define RATCHET_SANDBOX_VIEW_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// Where the child builds its new root before it enters it: a tmpfs mounted over the machine's
// /tmp in the child's own mount namespace (nothing outside that namespace sees it).
inline constexpr char kViewStage[] = "/tmp";

// The machine's folders and files every sandboxed process gets, read-only, where they exist: the
// programs and libraries of /usr (not /usr/share, /usr/src or /usr/games), the merged-usr links
// at the root (made as links, or bound where they are folders), the loader's cache and the
// compilers' alternatives in /etc, and /sys for the processor and device topology.
const std::vector<std::string>& ViewBaseFolders();

// The device nodes every sandboxed process gets (read-write, as on the machine); on a GPU machine
// every /dev/nvidia* node and /dev/nvidia-caps/* as well.
const std::vector<std::string>& ViewBaseDevices();

// The private temporary folders, each bound from a folder inside the process's own folder:
// /dev/shm from its shm/, /tmp and /var/tmp from its tmp/.
inline constexpr std::pair<const char*, const char*> kPrivateTemp[] = {
    {"/dev/shm", "shm"}, {"/tmp", "tmp"}, {"/var/tmp", "tmp"}};

// What one process's view holds beyond the base.
struct ViewRequest {
  // Read-only folders the process needs that the base lacks (the interpreter's prefix, the
  // toolchain's include and library folders, the native worker's RUNPATH): absolute paths. One
  // inside a base folder or another entry adds nothing.
  std::vector<std::string> extra_folders;
  // The process's own folder, bound read-write at its own path.
  std::string work_folder;
  // The size of each private temporary folder (/tmp, /var/tmp, /dev/shm) that the work folder
  // does not provide (kPrivateTemp).
  uint64_t temp_bytes = 0;
};

// One step of building the root, in the order the child applies it. Targets are paths inside the
// new root ("/usr/lib"); the child prefixes them with where it builds the root.
struct ViewStep {
  enum class Kind : int32_t {
    kDir,         // mkdir target (0755)
    kFile,        // an empty file at target, to bind a file or a device onto
    kSymlink,     // target -> source (the link's text)
    kBindRo,      // bind source (with its submounts) at target, all read-only, nosuid, nodev
    kBindRoTop,   // bind source alone, without the mounts beneath it, read-only, nosuid, nodev
    kBindDevice,  // bind the device node source at target (nosuid, noexec; devices stay usable)
    kBindWork,    // bind the process's own folder at target, read-write, nosuid, nodev
    kTmpfs,       // a tmpfs at target, `source` its options (nosuid, nodev)
    kProc,        // a proc of the process's own PID namespace at target (nosuid, nodev, noexec)
    kCover,       // a file of root's (0444) holding `source`, fixed text, bound over target
  };
  Kind kind;
  std::string target;
  std::string source;
};

// The machine-wide counters of /proc and /sys that a process could move and a later one read
// (forks, load, free memory, disk and interrupt counts, pressure, open files...): a channel from
// one call to the next. Each is covered in the view by fixed text: the path and its text. The
// text is the same for every process of the machine: a count of none, or a figure fixed since
// boot (the processors, the memory, the boot time). Paths that do not exist here are left out.
struct CoveredFile {
  std::string path;
  std::string text;
};
const std::vector<CoveredFile>& MachineCounterCovers();
// Folders of such counters, each covered by an empty tmpfs of root's (0555): /proc/pressure, the
// block devices' folders in /sys, each processor's cpuidle folder, /sys/kernel/irq.
const std::vector<std::string>& MachineCounterFolders();

// The steps for `request` on this machine: the base folders and devices that exist, the extra
// folders, /dev, /proc with the machine's counters covered, private /tmp and /var/tmp, and the
// process's folder. Errors name a request
// that cannot be met (a relative path, a folder that is the root).
Result<std::vector<ViewStep>> PlanView(const ViewRequest& request);

// The view's rules for the sandbox policy (locked in the contract): the base list, the devices,
// the kinds of extra folders, the mounts and their flags. The paths a machine adds (its
// interpreter's prefix, its toolchain's folders) follow from the lane's facts.
Json ViewPolicyJson();

// The prefix of an interpreter (the folder above its bin/), and that of its real path when it is
// a link (a virtual environment's python3 links to the system's): what it needs beside the base.
std::vector<std::string> InterpreterFolders(const std::string& interpreter);

// The folders a binary names in its ELF RUNPATH (or RPATH), with $ORIGIN replaced: where the
// loader looks for its libraries before the cache; a folder inside a Python package
// (.../site-packages/torch/lib) stands for the whole packages folder, whose other packages hold
// the libraries those load. Empty for none, or for a file that is not a 64-bit ELF file.
std::vector<std::string> ElfRunpath(const std::string& path);

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_VIEW_H_
