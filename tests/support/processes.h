// For black-box tests that stop ratchet midway: the processes a process started, and whether one
// has gone, read from /proc.
#ifndef RATCHET_TESTS_SUPPORT_PROCESSES_H_
#define RATCHET_TESTS_SUPPORT_PROCESSES_H_

#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ratchet {

// The processes whose parent is `pid` (from /proc/*/stat).
inline std::vector<pid_t> ChildrenOf(pid_t pid) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t parent;
    if (rest >> state >> parent && parent == pid) children.push_back(std::stoi(name));
  }
  return children;
}

// Whether `pid` has exited: no longer in /proc, or a zombie nobody has reaped yet.
inline bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_PROCESSES_H_
