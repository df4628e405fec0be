#include "sandbox/view.h"

#include <dirent.h>
#include <elf.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "core/file.h"

namespace ratchet {
namespace {

using Kind = ViewStep::Kind;

bool Within(const std::string& path, const std::string& folder) {
  if (folder == "/") return true;
  return path == folder ||
         (path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
          path[folder.size()] == '/');
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

// The steps in order, and the folders of the new root made so far (so each is made once).
class Builder {
 public:
  void Add(Kind kind, const std::string& target, const std::string& source = "") {
    steps_.push_back(ViewStep{kind, target, source});
  }
  // Every folder from the root down to `path`, inclusive.
  void Folders(const std::string& path) {
    if (path == "/" || made_.count(path)) return;
    Folders(Parent(path));
    Add(Kind::kDir, path);
    made_.insert(path);
  }
  // A mount point for `host`, a folder or a file, at the same path.
  void MountPoint(const std::string& path, bool folder) {
    Folders(Parent(path));
    if (folder) {
      Folders(path);
    } else if (made_.insert(path).second) {
      Add(Kind::kFile, path);
    }
  }
  std::vector<ViewStep> Take() { return std::move(steps_); }

 private:
  std::vector<ViewStep> steps_;
  std::set<std::string> made_;
};

// A machine path as the view holds it: a link is made as the same link, a folder or a file is
// bound read-only. Missing paths are skipped. Returns whether it was bound (links are not).
bool AddMachinePath(Builder& builder, const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) return false;
  if (S_ISLNK(info.st_mode)) {
    char text[PATH_MAX];
    ssize_t n = readlink(path.c_str(), text, sizeof text - 1);
    if (n <= 0) return false;
    builder.Folders(Parent(path));
    builder.Add(Kind::kSymlink, path, std::string(text, static_cast<size_t>(n)));
    return false;
  }
  if (!S_ISDIR(info.st_mode) && !S_ISREG(info.st_mode)) return false;
  builder.MountPoint(path, S_ISDIR(info.st_mode));
  // /sys without what is mounted beneath it: the cgroup hierarchies there list the machine's
  // process ids (every worker's among them), a channel the PID namespace closes elsewhere.
  builder.Add(path == "/sys" ? Kind::kBindRoTop : Kind::kBindRo, path, path);
  return true;
}

void AddDevice(Builder& builder, const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISCHR(info.st_mode)) return;
  builder.MountPoint(path, false);
  builder.Add(Kind::kBindDevice, path, path);
}

// /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm, ... and /dev/nvidia-caps/*: the GPU's nodes.
std::vector<std::string> GpuDevices() {
  std::vector<std::string> found;
  for (const char* folder : {"/dev", "/dev/nvidia-caps"}) {
    DIR* dir = opendir(folder);
    if (dir == nullptr) continue;
    const bool caps = std::strcmp(folder, "/dev") != 0;
    while (const dirent* entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      if (caps || name.rfind("nvidia", 0) == 0) found.push_back(std::string(folder) + "/" + name);
    }
    closedir(dir);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string TempOptions(uint64_t bytes) {
  return "size=" + std::to_string(bytes) + ",nr_inodes=65536,mode=1777";
}

// The lines of a machine file, or none.
std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> lines;
  Result<std::string> text = ReadFile(path, 1 << 20);
  if (!text.ok()) return lines;
  size_t at = 0;
  while (at < text->size()) {
    size_t end = text->find('\n', at);
    if (end == std::string::npos) end = text->size();
    lines.push_back(text->substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// /proc/stat with every count zero: a "cpu" line for the machine and one for each processor it
// lists, the boot time as it is, no process started, one running.
std::string StatText() {
  std::string text;
  std::string boot = "btime 0";
  for (const std::string& line : Lines("/proc/stat")) {
    if (line.rfind("cpu", 0) == 0) {
      text += line.substr(0, line.find(' ')) + (line.rfind("cpu ", 0) == 0 ? " " : "") +
              " 0 0 0 0 0 0 0 0 0 0\n";
    } else if (line.rfind("btime ", 0) == 0) {
      boot = line;
    }
  }
  return text + "intr 0\nctxt 0\n" + boot +
         "\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n";
}

// /proc/meminfo with the machine's memory as its total, all of it free, nothing cached or swapped.
std::string MeminfoText() {
  std::string total = "MemTotal:              0 kB";
  for (const std::string& line : Lines("/proc/meminfo")) {
    if (line.rfind("MemTotal:", 0) == 0) total = line;
  }
  const std::string kb = total.substr(total.find_first_not_of(' ', 9));
  auto line = [&kb](const std::string& key, const std::string& value) {
    std::string padded = key + ":";
    padded.resize(16, ' ');
    return padded + std::string(value.size() < 11 ? 11 - value.size() : 0, ' ') + value + "\n";
  };
  return line("MemTotal", kb) + line("MemFree", kb) + line("MemAvailable", kb) +
         line("Buffers", "0 kB") + line("Cached", "0 kB") + line("SwapCached", "0 kB") +
         line("SwapTotal", "0 kB") + line("SwapFree", "0 kB");
}

// /proc/cgroups with one group of each controller: the machine's count of groups moves with every
// worker the parent starts.
std::string CgroupsText() {
  std::string text;
  for (const std::string& line : Lines("/proc/cgroups")) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      text += line + "\n";
      continue;
    }
    std::vector<std::string> fields;
    for (size_t at = 0; at < line.size();) {
      const size_t start = line.find_first_not_of(" \t", at);
      if (start == std::string::npos) break;
      const size_t end = std::min(line.find_first_of(" \t", start), line.size());
      fields.push_back(line.substr(start, end - start));
      at = end;
    }
    if (fields.size() != 4) continue;
    text += fields[0] + "\t" + fields[1] + "\t1\t" + fields[3] + "\n";
  }
  return text;
}

bool IsFile(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// The entries of a folder, without "." and "..".
std::vector<std::string> Entries(const std::string& folder) {
  std::vector<std::string> names;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) return names;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// The counters /sys holds beside /proc's, file by file: each NUMA node's memory, allocation and
// event counts (the node's folder stays: libraries read its processor list).
std::vector<std::string> SysCounterFiles() {
  std::vector<std::string> files;
  const std::string nodes = "/sys/devices/system/node";
  for (const std::string& node : Entries(nodes)) {
    if (node.rfind("node", 0) != 0) continue;
    for (const char* name : {"meminfo", "numastat", "vmstat"}) {
      files.push_back(nodes + "/" + node + "/" + name);
    }
  }
  return files;
}

// The block devices' folders in /sys, whose stat and inflight files (the device's and each
// partition's) count its I/O: the "block" folder that holds a device (the virtual ones, a virtio
// disk's), else the device's own folder (an NVMe namespace's, beside its controller's files).
std::vector<std::string> BlockDeviceFolders() {
  std::set<std::string> folders;
  for (const std::string& device : Entries("/sys/block")) {
    char real[PATH_MAX];
    if (realpath(("/sys/block/" + device).c_str(), real) == nullptr) continue;
    const std::string parent = Parent(real);
    folders.insert(parent.size() > 6 && parent.compare(parent.size() - 6, 6, "/block") == 0
                       ? parent
                       : std::string(real));
  }
  return {folders.begin(), folders.end()};
}

}  // namespace

const std::vector<CoveredFile>& MachineCounterCovers() {
  static const std::vector<CoveredFile> covers = [] {
    std::vector<CoveredFile> all = {
        {"/proc/stat", StatText()},
        {"/proc/meminfo", MeminfoText()},
        {"/proc/loadavg", "0.00 0.00 0.00 1/1 1\n"},
        {"/proc/uptime", "0.00 0.00\n"},
        {"/proc/cgroups", CgroupsText()},
        {"/proc/sys/fs/file-nr", "0\t0\t0\n"},
        {"/proc/sys/fs/inode-nr", "0\t0\n"},
        {"/proc/sys/fs/inode-state", "0\t0\t0\t0\t0\t0\t0\n"},
        {"/proc/sys/fs/dentry-state", "0\t0\t0\t0\t0\t0\n"},
        {"/proc/sys/fs/aio-nr", "0\n"},
        {"/proc/sys/kernel/random/entropy_avail", "256\n"},
        {"/proc/sys/kernel/pty/nr", "0\n"},
        {"/sys/kernel/uevent_seqnum", "0\n"},
    };
    for (const char* empty : {"/proc/vmstat", "/proc/diskstats", "/proc/interrupts",
                              "/proc/softirqs", "/proc/schedstat", "/proc/zoneinfo",
                              "/proc/buddyinfo", "/proc/pagetypeinfo", "/proc/locks",
                              "/proc/slabinfo", "/proc/vmallocinfo", "/proc/timer_list",
                              "/proc/sched_debug", "/proc/key-users"}) {
      all.push_back({empty, ""});
    }
    for (std::string& file : SysCounterFiles()) all.push_back({std::move(file), ""});
    std::vector<CoveredFile> present;
    for (CoveredFile& cover : all) {
      if (IsFile(cover.path)) present.push_back(std::move(cover));
    }
    // Covers of the same text next to each other: the child writes each text once.
    std::stable_sort(present.begin(), present.end(),
                     [](const CoveredFile& a, const CoveredFile& b) { return a.text < b.text; });
    return present;
  }();
  return covers;
}

const std::vector<std::string>& MachineCounterFolders() {
  static const std::vector<std::string> folders = [] {
    std::vector<std::string> present;
    struct stat info;
    if (stat("/proc/pressure", &info) == 0 && S_ISDIR(info.st_mode)) {
      present.push_back("/proc/pressure");
    }
    for (std::string& folder : BlockDeviceFolders()) present.push_back(std::move(folder));
    // Each processor's idle states: how often and how long it idled, which a busy method moves.
    const std::string cpus = "/sys/devices/system/cpu";
    for (const std::string& cpu : Entries(cpus)) {
      const std::string idle = cpus + "/" + cpu + "/cpuidle";
      if (cpu.rfind("cpu", 0) == 0 && stat(idle.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        present.push_back(idle);
      }
    }
    // Each interrupt's count per processor, as /proc/interrupts; the file systems' own
    // counters (XFS's reads and lookups, ext4's and btrfs's bytes written since mount, the
    // journal's transactions: the parent writes a call's log, so its length would show); the
    // transparent huge pages' collapse counts and (Linux 6.9 and later) allocation counts per
    // page size.
    for (const char* folder : {"/sys/kernel/irq", "/proc/fs", "/sys/fs",
                               "/sys/kernel/mm/transparent_hugepage/khugepaged"}) {
      if (stat(folder, &info) == 0 && S_ISDIR(info.st_mode)) present.push_back(folder);
    }
    const std::string huge = "/sys/kernel/mm/transparent_hugepage";
    for (const std::string& size : Entries(huge)) {
      const std::string stats = huge + "/" + size + "/stats";
      if (size.rfind("hugepages-", 0) == 0 && stat(stats.c_str(), &info) == 0 &&
          S_ISDIR(info.st_mode)) {
        present.push_back(stats);
      }
    }
    return present;
  }();
  return folders;
}

const std::vector<std::string>& ViewBaseFolders() {
  static const std::vector<std::string> folders = {"/usr/bin",
                                                   "/usr/sbin",
                                                   "/usr/lib",
                                                   "/usr/lib32",
                                                   "/usr/lib64",
                                                   "/usr/libx32",
                                                   "/usr/libexec",
                                                   "/usr/include",
                                                   "/usr/local",
                                                   "/bin",
                                                   "/sbin",
                                                   "/lib",
                                                   "/lib32",
                                                   "/lib64",
                                                   "/libx32",
                                                   "/etc/ld.so.cache",
                                                   "/etc/ld.so.conf",
                                                   "/etc/ld.so.conf.d",
                                                   "/etc/alternatives",
                                                   "/etc/passwd",
                                                   "/etc/group",
                                                   "/sys"};
  return folders;
}

const std::vector<std::string>& ViewBaseDevices() {
  static const std::vector<std::string> devices = {"/dev/null", "/dev/zero", "/dev/full",
                                                   "/dev/random", "/dev/urandom"};
  return devices;
}

Result<std::vector<ViewStep>> PlanView(const ViewRequest& request) {
  if (request.work_folder.empty() || request.work_folder[0] != '/' || request.work_folder == "/") {
    return Status::Internal(
        "sandbox view: the working folder must be an absolute path below the "
        "root, not '" +
        request.work_folder + "'");
  }
  Builder builder;
  std::vector<std::string> bound;
  for (const std::string& path : ViewBaseFolders()) {
    if (AddMachinePath(builder, path)) bound.push_back(path);
  }
  // Shorter first, so that a folder inside another extra one is seen as already bound.
  std::vector<std::string> extra = request.extra_folders;
  std::sort(extra.begin(), extra.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  for (const std::string& folder : extra) {
    if (folder.empty() || folder[0] != '/' || folder == "/") {
      return Status::Internal(
          "sandbox view: an extra folder must be an absolute path below the "
          "root, not '" +
          folder + "'");
    }
    // Inside a bound folder: already there. Holding one (the prefix /usr of Debian's python3):
    // the base has what of it a process needs, and binding it whole would undo the base's choice.
    const bool covered = std::any_of(bound.begin(), bound.end(), [&](const std::string& b) {
      return Within(folder, b) || Within(b, folder);
    });
    if (covered) continue;
    struct stat info;
    if (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) continue;
    builder.MountPoint(folder, true);
    builder.Add(Kind::kBindRo, folder, folder);
    bound.push_back(folder);
  }

  builder.Folders("/dev");
  builder.Add(Kind::kTmpfs, "/dev", "size=65536,nr_inodes=1024,mode=0755");
  for (const std::string& device : ViewBaseDevices()) AddDevice(builder, device);
  for (const std::string& device : GpuDevices()) AddDevice(builder, device);
  builder.Add(Kind::kSymlink, "/dev/fd", "/proc/self/fd");
  builder.Add(Kind::kSymlink, "/dev/stdin", "/proc/self/fd/0");
  builder.Add(Kind::kSymlink, "/dev/stdout", "/proc/self/fd/1");
  builder.Add(Kind::kSymlink, "/dev/stderr", "/proc/self/fd/2");
  // The temporary folders are folders of the process's own (kPrivateTemp): whatever it writes
  // anywhere counts against its one bounded folder, where the parent sees it fill. A working
  // folder without them gets a small tmpfs for each.
  const std::string temp = TempOptions(request.temp_bytes);
  for (const auto& [folder, own] : kPrivateTemp) {
    builder.Folders(folder);
    const std::string source = request.work_folder + "/" + own;
    struct stat info;
    if (lstat(source.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      builder.Add(Kind::kBindWork, folder, source);
    } else {
      builder.Add(Kind::kTmpfs, folder, temp);
    }
  }
  builder.Folders("/proc");
  builder.Add(Kind::kProc, "/proc");
  // Then the machine's counters in /proc and /sys, covered: nothing one process moves there is
  // seen by another.
  for (const CoveredFile& cover : MachineCounterCovers()) {
    builder.Add(Kind::kCover, cover.path, cover.text);
  }
  for (const std::string& folder : MachineCounterFolders()) {
    builder.Add(Kind::kTmpfs, folder, "size=4096,nr_inodes=16,mode=0555");
  }
  builder.Folders(request.work_folder);
  builder.Add(Kind::kBindWork, request.work_folder, request.work_folder);
  return builder.Take();
}

Json ViewPolicyJson() {
  return {
      {"root", {{"fstype", "tmpfs"}, {"entered_by", "pivot_root"}, {"after", "read-only"}}},
      {"base", ViewBaseFolders()},
      {"base_links", "a base path that is a symbolic link is made as the same link"},
      {"bind_flags", {"ro", "nosuid", "nodev", "recursive"}},
      {"bound_without_submounts", {"/sys"}},
      {"extra",
       {"the interpreter's prefix, and its real path's",
        "the compiler's prefix, its include and library folders, its libraries' folders",
        "the native worker's RUNPATH (a folder inside a Python package: the packages folder)",
        "a folder inside a bound one, or holding one, adds nothing"}},
      {"dev",
       {{"fstype", "tmpfs"},
        {"devices", ViewBaseDevices()},
        {"gpu_devices", {"/dev/nvidia*", "/dev/nvidia-caps/*"}},
        {"links", {"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"}}}},
      {"private_temp",
       {{"folders", {"/dev/shm", "/tmp", "/var/tmp"}},
        {"from", "the work folder's shm/ and tmp/, read-write, nosuid, nodev"},
        {"otherwise", "a tmpfs of the largest file's size"}}},
      {"proc", "its own PID namespace's"},
      {"machine_counters",
       {{"covered_by",
         "a file of root's, mode 0444, of fixed text: no count, or a figure fixed since boot"},
        {"proc",
         {"stat", "meminfo", "loadavg", "uptime", "cgroups", "vmstat", "diskstats",
          "interrupts", "softirqs", "schedstat", "zoneinfo", "buddyinfo", "pagetypeinfo", "locks",
          "slabinfo", "vmallocinfo", "timer_list", "sched_debug", "key-users", "sys/fs/file-nr",
          "sys/fs/inode-nr", "sys/fs/inode-state", "sys/fs/dentry-state", "sys/fs/aio-nr",
          "sys/kernel/random/entropy_avail", "sys/kernel/pty/nr"}},
        {"sys", {"devices/system/node/node*/{meminfo,numastat,vmstat}", "kernel/uevent_seqnum"}},
        {"empty_folders",
         {"/proc/pressure",
          "the folder of each block device in /sys (its 'block' folder where it has one)",
          "/sys/devices/system/cpu/cpu*/cpuidle", "/sys/kernel/irq", "/proc/fs", "/sys/fs",
          "/sys/kernel/mm/transparent_hugepage/khugepaged",
          "/sys/kernel/mm/transparent_hugepage/hugepages-*/stats"}}}},
      {"work_folder", "read-write, at its own path, nosuid, nodev"},
      {"covered_folders", {{"fstype", "tmpfs"}, {"flags", {"ro", "nosuid", "nodev", "noexec"}}}},
  };
}

std::vector<std::string> InterpreterFolders(const std::string& interpreter) {
  std::vector<std::string> folders;
  auto add = [&](const std::string& path) {
    const std::string prefix = Parent(Parent(path));
    if (prefix != "/" && std::find(folders.begin(), folders.end(), prefix) == folders.end()) {
      folders.push_back(prefix);
    }
  };
  if (interpreter.empty() || interpreter[0] != '/') return folders;
  add(interpreter);
  char real[PATH_MAX];
  if (realpath(interpreter.c_str(), real) != nullptr) add(real);
  return folders;
}

std::vector<std::string> ElfRunpath(const std::string& path) {
  Result<std::string> file = ReadFile(path, 1 << 30);
  if (!file.ok() || file->size() < sizeof(Elf64_Ehdr)) return {};
  const std::string& bytes = *file;
  Elf64_Ehdr header;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    return {};
  }
  auto segment = [&](size_t i, Elf64_Phdr* out) {
    const uint64_t at = header.e_phoff + i * sizeof(Elf64_Phdr);
    if (at + sizeof(Elf64_Phdr) > bytes.size()) return false;
    std::memcpy(out, bytes.data() + at, sizeof *out);
    return true;
  };
  // A virtual address as an offset in the file, through the loadable segments.
  auto offset_of = [&](uint64_t address, uint64_t* offset) {
    Elf64_Phdr phdr;
    for (size_t i = 0; i < header.e_phnum && segment(i, &phdr); ++i) {
      if (phdr.p_type == PT_LOAD && address >= phdr.p_vaddr &&
          address < phdr.p_vaddr + phdr.p_filesz) {
        *offset = address - phdr.p_vaddr + phdr.p_offset;
        return true;
      }
    }
    return false;
  };
  Elf64_Phdr dynamic{};
  bool found = false;
  for (size_t i = 0; i < header.e_phnum && segment(i, &dynamic); ++i) {
    if (dynamic.p_type == PT_DYNAMIC) {
      found = true;
      break;
    }
  }
  if (!found) return {};
  uint64_t strtab = 0, runpath = 0, rpath = 0;
  bool has_runpath = false, has_rpath = false;
  for (uint64_t at = dynamic.p_offset;
       at + sizeof(Elf64_Dyn) <= bytes.size() && at < dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry;
    std::memcpy(&entry, bytes.data() + at, sizeof entry);
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag == DT_STRTAB) strtab = entry.d_un.d_ptr;
    if (entry.d_tag == DT_RUNPATH) runpath = entry.d_un.d_val, has_runpath = true;
    if (entry.d_tag == DT_RPATH) rpath = entry.d_un.d_val, has_rpath = true;
  }
  uint64_t table = 0;
  if ((!has_runpath && !has_rpath) || !offset_of(strtab, &table)) return {};
  const uint64_t at = table + (has_runpath ? runpath : rpath);
  if (at >= bytes.size()) return {};
  std::string text(bytes.c_str() + at);
  std::vector<std::string> folders;
  const std::string origin = Parent(path);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    std::string folder = text.substr(start, end - start);
    for (const char* token : {"$ORIGIN", "${ORIGIN}"}) {
      if (folder.rfind(token, 0) == 0) folder = origin + folder.substr(std::strlen(token));
    }
    // Inside a Python package (libtorch of a torch wheel): the whole packages folder, where
    // the libraries it loads in turn lie (the nvidia-* wheels beside torch).
    for (const char* packages : {"/site-packages/", "/dist-packages/"}) {
      const size_t at = folder.find(packages);
      if (at != std::string::npos) folder = folder.substr(0, at + std::strlen(packages) - 1);
    }
    if (!folder.empty() && folder[0] == '/') folders.push_back(folder);
    start = end + 1;
  }
  return folders;
}

}  // namespace ratchet
