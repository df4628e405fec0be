#include "session/run_progress.h"

#include <algorithm>
#include <string>

#include "rules/pyformat.h"
#include "sandbox/spawn.h"

namespace ratchet {
namespace {

// A field of a hello as text; "?" when it is missing or not a string.
std::string TextOr(const Json& hello, const char* key) {
  auto it = hello.find(key);
  return it != hello.end() && it->is_string() ? it->get<std::string>() : "?";
}

}  // namespace

void RunProgress::FirstWorker(const Json& hello) {
  const SandboxInfo sandbox = DescribeSandbox();
  out_ << "  " << TextOr(hello, "device_name") << ", torch " << TextOr(hello, "torch")
       << ", sandbox "
       << (sandbox.full ? "on" : "partial (" + sandbox.partial_reason + "): not an official time")
       << "\n";
  out_.flush();
}

void RunProgress::CallComplete(size_t number, size_t count, const CallRecord& record) {
  out_ << "  call " << (number < 10 ? " " : "") << number << "/" << count << ": "
       << FormatFixed(record.ms, 3, true) << " ms, scorer's clock "
       << FormatFixed(std::max(0.0, record.parent_ms - record.overhead_ms), 3, true) << " ms\n";
  out_.flush();
}

}  // namespace ratchet
