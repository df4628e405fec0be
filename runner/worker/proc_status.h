// Fields of /proc/self/status that the worker reports in its hello reply, so the parent sees the
// sandbox as the worker itself sees it (NoNewPrivs, Seccomp).
#ifndef RATCHET_WORKER_PROC_STATUS_H_
#define RATCHET_WORKER_PROC_STATUS_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace ratchet {

// The integer value of the line "<name>:\t<value>" in /proc/<pid>/status text; nullopt when the
// line is missing or its value is not an integer.
std::optional<int64_t> ProcStatusField(std::string_view status_text, std::string_view name);

}  // namespace ratchet

#endif  // RATCHET_WORKER_PROC_STATUS_H_
