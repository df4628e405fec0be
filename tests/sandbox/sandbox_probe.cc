// A program the sandbox tests start with Spawn. It looks at what it was given and tries what a
// hostile worker would try, then prints one JSON object on stdout. Each attempt is reported as
// 0 (it worked) or the errno it failed with; the tests decide what is right.
//
//   sandbox_probe report ROOT_ONLY_FILE COVERED_FOLDER   (which holds data.txt)
//   sandbox_probe leave TAG LINK_TARGET   leaves files and two background processes behind
//   sandbox_probe look TAG                whether each path `leave` writes exists (lstat's errno)
//   sandbox_probe sleep                   waits to be signalled
//   sandbox_probe x32                     makes a syscall through the x32 ABI
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Json = nlohmann::json;

// 0 when the call returned >= 0, else errno. Descriptors it got are closed.
int Outcome(long result) { return result < 0 ? errno : 0; }
int FdOutcome(int fd) {
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

int StatusField(const std::string& name) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(name + ":", 0) == 0) return std::stoi(line.substr(name.size() + 1));
  }
  return -1;
}

Json OpenFds() {
  Json fds = Json::array();
  DIR* dir = opendir("/proc/self/fd");
  int own = dirfd(dir);
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    int fd = std::atoi(entry->d_name);
    if (fd != own) fds.push_back(fd);
  }
  closedir(dir);
  std::sort(fds.begin(), fds.end());
  return fds;
}

Json Limit(int resource) {
  struct rlimit limit;
  getrlimit(resource, &limit);
  if (limit.rlim_cur == RLIM_INFINITY) return "unlimited";
  return static_cast<uint64_t>(limit.rlim_cur);
}

int SocketOutcome(int family, int type) { return FdOutcome(socket(family, type, 0)); }

int SocketpairOutcome(int family) {
  int pair[2];
  if (socketpair(family, SOCK_STREAM, 0, pair) != 0) return errno;
  close(pair[0]);
  close(pair[1]);
  return 0;
}

// A clone that, if allowed, makes a child that exits at once.
int CloneOutcome(long result) {
  if (result == 0) _exit(0);
  if (result < 0) return errno;
  waitpid(static_cast<pid_t>(result), nullptr, __WALL);
  return 0;
}

void* Idle(void*) {
  for (;;) pause();
  return nullptr;
}

int ThreadOutcome() {
  pthread_t thread;
  int rc = pthread_create(
      &thread, nullptr, [](void*) -> void* { return nullptr; }, nullptr);
  if (rc != 0) return rc;
  pthread_join(thread, nullptr);
  return 0;
}

int ForkOutcome() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  if (pid < 0) return errno;
  waitpid(pid, nullptr, 0);
  return 0;
}

int ReadOutcome(const std::string& path) { return FdOutcome(open(path.c_str(), O_RDONLY)); }

Json Report(const std::string& root_only, const std::string& covered) {
  Json out;
  uid_t ruid, euid, suid;
  gid_t rgid, egid, sgid;
  getresuid(&ruid, &euid, &suid);
  getresgid(&rgid, &egid, &sgid);
  out["uid"] = {ruid, euid, suid};
  out["gid"] = {rgid, egid, sgid};
  out["groups"] = getgroups(0, nullptr);
  out["no_new_privs"] = StatusField("NoNewPrivs");
  out["seccomp"] = StatusField("Seccomp");
  int pdeathsig = -1;
  prctl(PR_GET_PDEATHSIG, &pdeathsig, 0, 0, 0);
  out["pdeathsig"] = pdeathsig;
  out["session_leader"] = getsid(0) == getpid() && getpgrp() == getpid();
  char cwd[4096] = {};
  out["cwd"] = getcwd(cwd, sizeof cwd) ? cwd : "";
  out["fds"] = OpenFds();
  Json inodes = Json::object();
  for (int fd : out["fds"]) {
    struct stat st;
    if (fstat(fd, &st) == 0) inodes[std::to_string(fd)] = static_cast<uint64_t>(st.st_ino);
  }
  out["fd_inodes"] = inodes;
  Json env = Json::array();
  for (char** entry = environ; *entry; ++entry) env.push_back(*entry);
  out["env"] = env;
  out["rlimits"] = {{"core", Limit(RLIMIT_CORE)},
                    {"fsize", Limit(RLIMIT_FSIZE)},
                    {"nofile", Limit(RLIMIT_NOFILE)},
                    {"as", Limit(RLIMIT_AS)}};

  Json& e = out["errno"];
  e["socket_inet"] = SocketOutcome(AF_INET, SOCK_STREAM);
  e["socket_inet6"] = SocketOutcome(AF_INET6, SOCK_DGRAM);
  e["socket_netlink"] = SocketOutcome(AF_NETLINK, SOCK_RAW);
  e["socket_packet"] = SocketOutcome(AF_PACKET, SOCK_RAW);
  e["socket_unix"] = SocketOutcome(AF_UNIX, SOCK_STREAM);
  // The kernel reads the family as an int: 0xffffffff00000002 is AF_INET to it.
  e["socket_inet_high_bits"] =
      FdOutcome(static_cast<int>(syscall(SYS_socket, 0xffffffff00000002UL, SOCK_STREAM, 0)));
  e["socketpair_unix"] = SocketpairOutcome(AF_UNIX);
  e["socketpair_inet"] = SocketpairOutcome(AF_INET);
  // With a NULL params pointer the kernel would say EFAULT.
  e["io_uring_setup"] = FdOutcome(static_cast<int>(syscall(SYS_io_uring_setup, 1, nullptr)));
  e["io_uring_enter"] = Outcome(syscall(SYS_io_uring_enter, -1, 0, 0, 0, nullptr, 0));
  e["ptrace_traceme"] = Outcome(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
  e["ptrace_attach_parent"] = Outcome(ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr));
  {
    // Reading its own memory: the kernel allows that; only the filter refuses.
    char source[8] = "secret", target[8] = {};
    iovec local = {target, sizeof target}, remote = {source, sizeof source};
    e["process_vm_readv"] = Outcome(process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
    e["process_vm_writev"] = Outcome(process_vm_writev(getpid(), &remote, 1, &local, 1, 0));
  }
  e["bpf"] = Outcome(syscall(SYS_bpf, 9999, nullptr, 0));
  e["perf_event_open"] =
      FdOutcome(static_cast<int>(syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0)));
  e["userfaultfd"] = FdOutcome(static_cast<int>(syscall(SYS_userfaultfd, O_CLOEXEC)));
  e["shmget"] = Outcome(shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
  e["semget"] = Outcome(semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
  e["msgget"] = Outcome(msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  e["mq_open"] = Outcome(mq_open("/ratchet-probe", O_CREAT | O_RDWR, 0600, nullptr));
  e["add_key"] =
      Outcome(syscall(SYS_add_key, "user", "ratchet-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING));
  e["keyctl"] = Outcome(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0));
  e["unshare_user"] = Outcome(unshare(CLONE_NEWUSER));
  e["clone_newuser"] =
      CloneOutcome(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, nullptr, nullptr, nullptr, 0));
  {
    clone_args args = {};
    args.exit_signal = SIGCHLD;
    e["clone3"] = CloneOutcome(syscall(SYS_clone3, &args, sizeof args));
  }
  e["mount_tmpfs"] = Outcome(mount("none", "/tmp", "tmpfs", 0, nullptr));
  e["umount_covered"] = Outcome(umount2(covered.c_str(), MNT_DETACH));
  e["fsopen"] = FdOutcome(static_cast<int>(syscall(SYS_fsopen, "tmpfs", 0)));
  e["finit_module"] = Outcome(syscall(SYS_finit_module, -1, "", 0));
  {
    // fd 0 is /dev/null, no terminal: an ioctl the filter lets through fails with ENOTTY.
    char c = 'x';
    e["tiocsti"] = Outcome(ioctl(0, TIOCSTI, &c));
    e["tiocsti_high_bits"] = Outcome(syscall(SYS_ioctl, 0, 0xdead00005412UL, &c));
    struct winsize size;
    e["tiocgwinsz"] = Outcome(ioctl(0, TIOCGWINSZ, &size));
  }
  {
    // The page cache: residency asked three ways, and pages evicted two ways.
    const int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
    char byte = 0;
    iovec one = {&byte, 1};
    e["preadv2"] = Outcome(preadv2(fd, &one, 1, 0, 0));
    e["preadv2_nowait"] = Outcome(preadv2(fd, &one, 1, 0, RWF_NOWAIT));
    e["pwritev2_nowait"] = Outcome(pwritev2(fd, &one, 1, 0, RWF_NOWAIT));
    e["fadvise_willneed"] = Outcome(syscall(SYS_fadvise64, fd, 0, 0, POSIX_FADV_WILLNEED));
    e["fadvise_dontneed"] = Outcome(syscall(SYS_fadvise64, fd, 0, 0, POSIX_FADV_DONTNEED));
    void* page = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char resident = 0;
    e["mincore"] = Outcome(mincore(page, 4096, &resident));
    e["cachestat"] = Outcome(syscall(451, fd, nullptr, nullptr, 0));
    e["madvise_cold"] = Outcome(madvise(page, 4096, MADV_COLD));
    e["madvise_pageout"] = Outcome(madvise(page, 4096, MADV_PAGEOUT));
    e["madvise_willneed"] = Outcome(madvise(page, 4096, MADV_WILLNEED));
    e["io_setup"] = Outcome(syscall(SYS_io_setup, 1, nullptr));
    munmap(page, 4096);
    close(fd);
  }
  {
    // Inode numbers of pidfds count every process of the machine (Linux 6.9 and later).
    e["pidfd_open"] = FdOutcome(static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0)));
    int pidfd = -1;
    e["clone_pidfd"] = CloneOutcome(
        syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, nullptr, &pidfd, nullptr, 0));
    e["process_madvise"] = Outcome(syscall(SYS_process_madvise, -1, nullptr, 0, 0, 0));
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) {
      int peer = -1;
      socklen_t size = sizeof peer;
      e["so_peerpidfd"] = Outcome(getsockopt(pair[0], SOL_SOCKET, 77, &peer, &size));
      int on = 1;
      e["so_passpidfd"] = Outcome(setsockopt(pair[0], SOL_SOCKET, 76, &on, sizeof on));
      int buffer = 0;
      size = sizeof buffer;
      e["so_rcvbuf"] = Outcome(getsockopt(pair[0], SOL_SOCKET, SO_RCVBUF, &buffer, &size));
      close(pair[0]);
      close(pair[1]);
    }
    e["open_by_handle_at"] = Outcome(syscall(SYS_open_by_handle_at, -10002, nullptr, 0));
  }
  {
    // A file system's free counts, which every write on the machine moves: answered fixed.
    auto stats = [](int rc, const struct statfs& s) {
      Json asked = {{"rc", rc}, {"errno", rc == 0 ? 0 : errno}};
      asked["type"] = static_cast<int64_t>(s.f_type);
      asked["blocks"] = static_cast<uint64_t>(s.f_blocks);
      asked["bfree"] = static_cast<uint64_t>(s.f_bfree);
      asked["bavail"] = static_cast<uint64_t>(s.f_bavail);
      asked["files"] = static_cast<uint64_t>(s.f_files);
      asked["ffree"] = static_cast<uint64_t>(s.f_ffree);
      asked["bsize"] = static_cast<int64_t>(s.f_bsize);
      return asked;
    };
    struct statfs s = {};
    out["statfs"]["/usr/bin"] = stats(statfs("/usr/bin", &s), s);
    s = {};
    out["statfs"]["."] = stats(statfs(".", &s), s);
    const int usr = open("/usr/bin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    s = {};
    out["fstatfs"] = stats(fstatfs(usr, &s), s);
    close(usr);
    e["statfs_missing"] = Outcome(statfs("/no/such/path", &s));
    e["statfs_null_path"] = Outcome(syscall(SYS_statfs, nullptr, &s));
    e["statfs_null_buffer"] = Outcome(syscall(SYS_statfs, "/usr/bin", nullptr));
    e["fstatfs_closed"] = Outcome(fstatfs(987, &s));
    e["ustat"] = Outcome(syscall(SYS_ustat, 0, &s));
    e["move_pages"] = Outcome(syscall(SYS_move_pages, 0, 0, nullptr, nullptr, nullptr, 0));
  }
  {
    // sysinfo(2), answered by the parent: in this process, a thread and a forked child alike.
    auto ask = [] {
      struct sysinfo info = {};
      Json asked = {{"rc", sysinfo(&info)}};
      asked["procs"] = info.procs;
      asked["loads"] = Json::array({info.loads[0], info.loads[1], info.loads[2]});
      asked["uptime"] = info.uptime;
      asked["totalram"] = static_cast<uint64_t>(info.totalram) * info.mem_unit;
      asked["freeram"] = static_cast<uint64_t>(info.freeram) * info.mem_unit;
      asked["totalswap"] = static_cast<uint64_t>(info.totalswap);
      asked["bufferram"] = static_cast<uint64_t>(info.bufferram);
      return asked;
    };
    out["sysinfo"] = ask();
    Json from_thread;
    std::thread([&] { from_thread = ask(); }).join();
    out["sysinfo_thread"] = from_thread;
    int channel[2];
    if (pipe(channel) == 0) {
      pid_t child = fork();
      if (child == 0) {
        struct sysinfo info = {};
        long answer = sysinfo(&info) == 0 ? static_cast<long>(info.procs) : -errno;
        ssize_t ignored = write(channel[1], &answer, sizeof answer);
        (void)ignored;
        _exit(0);
      }
      long answer = -1;
      if (child > 0 && read(channel[0], &answer, sizeof answer) == sizeof answer) {
        out["sysinfo_child_procs"] = answer;
      }
      if (child > 0) waitpid(child, nullptr, 0);
      close(channel[0]);
      close(channel[1]);
    }
    e["sysinfo_null"] = Outcome(syscall(SYS_sysinfo, nullptr));
    e["sysinfo_unmapped"] = Outcome(syscall(SYS_sysinfo, reinterpret_cast<void*>(8)));
  }
  // The machine's counters as the view shows them.
  for (const char* counter : {"/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/vmstat",
                              "/proc/uptime", "/proc/sys/fs/file-nr"}) {
    std::ifstream file(counter);
    std::stringstream text;
    text << file.rdbuf();
    out["counters"][counter] = text.str();
  }
  // The folders of counters covered whole, as listed in the view.
  for (const char* folder : {"/proc/pressure", "/proc/fs", "/sys/fs", "/sys/kernel/irq",
                             "/sys/kernel/mm/transparent_hugepage/khugepaged",
                             "/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats"}) {
    Json listing = Json::array();
    if (DIR* dir = opendir(folder)) {
      while (dirent* entry = readdir(dir)) {
        if (std::strcmp(entry->d_name, ".") && std::strcmp(entry->d_name, "..")) {
          listing.push_back(entry->d_name);
        }
      }
      closedir(dir);
    }
    out["listings"][folder] = listing;
  }
  e["thread"] = ThreadOutcome();
  e["fork"] = ForkOutcome();
  e["read_root_only"] = ReadOutcome(root_only);
  e["read_covered_file"] = ReadOutcome(covered + "/data.txt");
  e["read_parent_mem"] = ReadOutcome("/proc/" + std::to_string(getppid()) + "/mem");
  e["write_own_folder"] = FdOutcome(open("probe-wrote", O_WRONLY | O_CREAT | O_TRUNC, 0600));
  e["write_covered"] = FdOutcome(open((covered + "/new").c_str(), O_WRONLY | O_CREAT, 0600));

  Json listing = Json::array();
  if (DIR* dir = opendir(covered.c_str())) {
    while (dirent* entry = readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") && std::strcmp(entry->d_name, "..")) {
        listing.push_back(entry->d_name);
      }
    }
    closedir(dir);
  }
  out["covered_listing"] = listing;
  return out;
}

// A background process in a session of its own: outlives the probe unless it is reaped.
pid_t Background(bool main_thread_exits) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  setsid();
  if (main_thread_exits) {
    pthread_t thread;
    pthread_create(&thread, nullptr, Idle, nullptr);
    pthread_exit(nullptr);  // the process lives on in `thread`
  }
  Idle(nullptr);
  _exit(0);
}

Json Leave(const std::string& tag, const std::string& link_target) {
  Json out;
  Json& e = out["errno"];
  for (const char* folder : {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"}) {
    std::string path = std::string(folder) + "/" + tag + ".file";
    e[path] = FdOutcome(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
  }
  std::string link = "/tmp/" + tag + ".link";
  e[link] = Outcome(symlink(link_target.c_str(), link.c_str()));
  // A tree deeper than any limit on open descriptors per level, with a file at every level.
  std::string top = "/tmp/" + tag + ".tree";
  int fd = open("/tmp", O_RDONLY | O_DIRECTORY);
  int rc = mkdirat(fd, (tag + ".tree").c_str(), 0700);
  for (int level = 0; level < 300 && rc == 0; ++level) {
    int next = openat(fd, level == 0 ? (tag + ".tree").c_str() : "d", O_RDONLY | O_DIRECTORY);
    close(fd);
    fd = next;
    close(openat(fd, "f", O_WRONLY | O_CREAT, 0600));
    rc = mkdirat(fd, "d", 0700);
  }
  close(fd);
  e[top] = rc == 0 ? 0 : errno;
  out["sleeper"] = Background(false);
  out["leaderless"] = Background(true);
  return out;
}

// The paths Leave writes, as this process sees them: 0 when one exists, else lstat's errno.
Json Look(const std::string& tag) {
  Json out;
  for (const char* folder : {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"}) {
    for (const char* suffix : {".file", ".link", ".tree"}) {
      std::string path = std::string(folder) + "/" + tag + suffix;
      struct stat st;
      out[path] = Outcome(lstat(path.c_str(), &st));
    }
  }
  return out;
}

// After `delay_ms`, reads the file at `path` to its end; prints how many bytes it read, or the
// errno.
Json ReadWhole(const std::string& path, long delay_ms) {
  usleep(static_cast<useconds_t>(delay_ms) * 1000);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Json{{"errno", errno}};
  int64_t total = 0;
  char chunk[65536];
  for (ssize_t got; (got = read(fd, chunk, sizeof chunk)) > 0;) total += got;
  close(fd);
  return Json{{"read_bytes", total}};
}

// Allocates `mib` MiB and writes every page; prints what it held (unless the kernel killed it).
Json Hog(long mib) {
  std::vector<char*> held;
  for (long i = 0; i < mib; ++i) {
    char* block = static_cast<char*>(std::malloc(1 << 20));
    if (block == nullptr) return Json{{"allocated_mib", i}, {"error", "malloc"}};
    std::memset(block, 1, 1 << 20);
    held.push_back(block);
  }
  asm volatile("" : : "r"(held.data()) : "memory");
  return Json{{"allocated_mib", mib}};
}

// Starts `count` children that sleep a second and exit; prints how many forks succeeded and the
// errno of the first that failed.
Json Forks(long count) {
  long started = 0;
  int error = 0;
  std::vector<pid_t> children;
  for (long i = 0; i < count; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      sleep(1);
      _exit(0);
    }
    if (pid < 0) {
      error = errno;
      break;
    }
    children.push_back(pid);
    ++started;
  }
  for (pid_t child : children) waitpid(child, nullptr, 0);
  return Json{{"started", started}, {"errno", error}};
}

// /proc/self/cgroup, as the process sees it.
Json Groups() {
  std::ifstream file("/proc/self/cgroup");
  std::stringstream text;
  text << file.rdbuf();
  return Json{{"cgroup", text.str()}};
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "report" && argc == 4) {
    std::cout << Report(argv[2], argv[3]).dump() << std::endl;
    return 0;
  }
  if (mode == "leave" && argc == 4) {
    std::cout << Leave(argv[2], argv[3]).dump() << std::endl;
    return 0;
  }
  if (mode == "look" && argc == 3) {
    std::cout << Look(argv[2]).dump() << std::endl;
    return 0;
  }
  if (mode == "sleep") {
    Idle(nullptr);
  }
  if (mode == "read" && (argc == 3 || argc == 4)) {
    std::cout << ReadWhole(argv[2], argc == 4 ? std::atol(argv[3]) : 0).dump() << std::endl;
    return 0;
  }
  if (mode == "hog" && (argc == 3 || argc == 4)) {  // hog MIB [DELAY_MS]
    if (argc == 4) usleep(static_cast<useconds_t>(std::atol(argv[3])) * 1000);
    std::cout << Hog(std::atol(argv[2])).dump() << std::endl;
    return 0;
  }
  if (mode == "forks" && argc == 3) {
    std::cout << Forks(std::atol(argv[2])).dump() << std::endl;
    return 0;
  }
  if (mode == "cgroup") {
    std::cout << Groups().dump() << std::endl;
    return 0;
  }
  if (mode == "x32") {
    long rc = syscall(0x40000000L | SYS_getpid);
    std::cout << Json{{"x32_getpid", rc}, {"errno", rc < 0 ? errno : 0}}.dump() << std::endl;
    return 0;
  }
  std::cerr << "usage: sandbox_probe report ROOT_ONLY_FILE COVERED_FOLDER | leave TAG LINK_TARGET "
               "| look TAG | sleep | hog MIB | forks N | cgroup | x32\n";
  return 2;
}
