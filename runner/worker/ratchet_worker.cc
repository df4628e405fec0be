// ratchet-worker: the C++ worker of the protocol in docs/protocol.md. The parent execs it with
// the command pipe on fd 3, the reply pipe on fd 4 and the read-only input buffer on fd 5; it
// answers each command with one frame and exits 0 when fd 3 reaches EOF. A native submission
// (include/ratchet/method.h) is dlopened by `load` and timed by `go`.
#include <ATen/Context.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <torch/cuda.h>
#include <torch/types.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol/frame.h"
#include "protocol/input_buffer.h"
#include "worker/cuda_device.h"
#include "worker/native_method.h"
#include "worker/output_check.h"
#include "worker/proc_status.h"

namespace ratchet {
namespace {

constexpr int kCommandFd = 3;
constexpr int kReplyFd = 4;
constexpr int kBufferFd = 5;
constexpr size_t kMaxErrorChars = 4000;
constexpr int64_t kMinFlushBytes = int64_t{256} << 20;
constexpr int64_t kMaxReferenceDim = 1 << 14;
constexpr double kMaxReferenceSeconds = 3600;
constexpr double kMaxSpinMs = 1000;  // the most a gc's "spin_ms" may ask for

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CLOCK_MONOTONIC in nanoseconds: the clock the parent reads too, so that the two processes'
// instants of one call can be laid on one line.
int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

// When main() began: how long the loader took (from the parent's start) and how long the
// worker's own start-up took are told apart in hello.
int64_t g_main_ns = 0;

// A command that cannot be answered with ok: its kind and message become the reply.
struct CommandError : std::runtime_error {
  CommandError(std::string kind, const std::string& message)
      : std::runtime_error(message), kind(std::move(kind)) {}
  std::string kind;
};

// The message of whatever a libtorch call threw, without libtorch's C++ backtrace.
std::string Describe(const std::exception& error) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&error)) {
    return std::string("c10::Error: ") + c10->what_without_backtrace();
  }
  return error.what();
}

// Runs `step`; anything it throws becomes a CommandError of `kind`.
template <typename Step>
auto Guarded(const char* kind, Step&& step) -> decltype(step()) {
  try {
    return step();
  } catch (const CommandError&) {
    throw;
  } catch (const std::exception& error) {
    throw CommandError(kind, Describe(error));
  }
}

std::string Tail(const std::string& text) {
  return text.size() <= kMaxErrorChars ? text : text.substr(text.size() - kMaxErrorChars);
}

Json Failure(const std::string& kind, const std::string& message) {
  return Json{{"ok", false}, {"kind", kind}, {"error", Tail(message)}};
}

int64_t IntegerField(const Json& command, const char* name, int64_t min, int64_t max) {
  auto it = command.find(name);
  if (it == command.end() || !it->is_number_integer()) {
    throw CommandError("protocol", std::string("the field \"") + name + "\" must be an integer");
  }
  int64_t value = it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{INT64_MAX}
                      ? INT64_MAX
                      : it->get<int64_t>();
  if (value < min || value > max) {
    throw CommandError("protocol", std::string("the field \"") + name + "\" is " +
                                       std::to_string(value) + ", expected " + std::to_string(min) +
                                       ".." + std::to_string(max));
  }
  return value;
}

Json SandboxState() {
  std::ifstream file("/proc/self/status");
  std::stringstream text;
  text << file.rdbuf();
  auto field = [&](const char* name) {
    std::optional<int64_t> value = ProcStatusField(text.str(), name);
    return value ? Json(*value) : Json(nullptr);
  };
  return Json{{"uid", static_cast<int64_t>(getuid())},
              {"no_new_privs", field("NoNewPrivs")},
              {"seccomp", field("Seccomp")}};
}

class Worker {
 public:
  Worker()
      : cuda_(kWorkerHasCuda && torch::cuda::is_available()),
        device_(cuda_ ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU)) {}

  // Reads commands until fd 3 reaches EOF (exit 0). A command whose JSON does not parse or is
  // not an object is answered as a protocol error and the next one read, as worker.py does;
  // a frame out of step (bad magic or length, cut short) or a reply that cannot be written ends
  // the worker with 2.
  int Serve() {
    FrameLimits limits;
    limits.max_json = kMaxJsonBytes;
    limits.max_payload = 0;
    limits.sender = "the parent";
    for (;;) {
      FrameFailure failure = FrameFailure::kNone;
      Result<Frame> frame =
          ReadFrame(kCommandFd, limits, Deadline::Never(), "waiting for a command", &failure);
      if (!frame.ok()) {
        if (failure == FrameFailure::kClosed) return 0;
        std::fprintf(stderr, "ratchet-worker: %s\n", frame.status().message().c_str());
        if (failure == FrameFailure::kBadJson) {
          // The frame was read to its end: the next one starts after it.
          Status sent = WriteFrame(kReplyFd, Failure("protocol", frame.status().message()), {},
                                   Deadline::Never(), "replying");
          if (!sent.ok()) {
            std::fprintf(stderr, "ratchet-worker: %s\n", sent.message().c_str());
            return 2;
          }
          continue;
        }
        // The stream is out of step: answer once, so the parent learns why, then stop.
        WriteFrame(kReplyFd, Failure("protocol", frame.status().message()), {}, Deadline::In(1),
                   "replying to a malformed command");
        return 2;
      }
      std::string payload;
      Json reply;
      try {
        reply = Dispatch(frame->header, &payload);
      } catch (const CommandError& error) {
        reply = Failure(error.kind, error.what());
        payload.clear();
      } catch (const std::exception& error) {
        reply = Failure("protocol", Describe(error));
        payload.clear();
      } catch (...) {
        reply = Failure("protocol", "an exception that is not a std::exception");
        payload.clear();
      }
      Status sent = WriteFrame(kReplyFd, reply, payload, Deadline::Never(), "replying");
      if (!sent.ok()) {
        std::fprintf(stderr, "ratchet-worker: %s\n", sent.message().c_str());
        return 2;
      }
      if (spin_ns_ > 0) SpinForCommand();
    }
  }

 private:
  Json Dispatch(const Json& command, std::string* payload) {
    const Json& name = command.contains("cmd") ? command["cmd"] : Json(nullptr);
    if (name == "hello") return Hello(command);
    if (name == "load") return Load(command);
    if (name == "gc") return Gc(command);
    if (name == "go") return Go(command, payload);
    if (name == "reference") return Reference(command);
    throw CommandError("protocol", "unknown command " + name.dump());
  }

  // Nothing is garbage-collected in C++; "spin_ms" asks for the next command to be awaited
  // without sleeping for that long (docs/protocol.md).
  Json Gc(const Json& command) {
    double spin_ms = 0;
    if (auto it = command.find("spin_ms"); it != command.end()) {
      if (!it->is_number() || !(it->get<double>() >= 0) || it->get<double>() > kMaxSpinMs) {
        throw CommandError("protocol", "the field \"spin_ms\" must be a number from 0 to " +
                                           std::to_string(static_cast<int>(kMaxSpinMs)));
      }
      spin_ms = it->get<double>();
    }
    spin_ns_ = static_cast<int64_t>(spin_ms * 1e6);
    return Json{{"ok", true}};
  }

  // Polls the command pipe without sleeping until a command arrives or spin_ns_ pass, then
  // returns to the blocking read: a thread woken from sleep by the `go` can take a few hundred
  // microseconds of the window to run again (on the H200 host, a virtual machine).
  void SpinForCommand() {
    const int64_t until = MonotonicNs() + spin_ns_;
    spin_ns_ = 0;
    pollfd command{kCommandFd, POLLIN, 0};
    while (MonotonicNs() < until) {
      if (poll(&command, 1, 0) != 0) return;  // readable, closed or failed: the read says which
    }
  }

  Json Hello(const Json& command) {
    const int64_t received_ns = MonotonicNs();
    if (layout_) throw CommandError("protocol", "hello was already answered");
    const int64_t train = IntegerField(command, "train", 1, kMaxInputRows);
    const int64_t test = IntegerField(command, "test", 1, kMaxInputRows);
    const int64_t dims = IntegerField(command, "dims", 1, kMaxInputDims);
    Result<InputLayout> layout = InputLayout::Make(train, test, dims);
    if (!layout.ok()) throw CommandError("protocol", layout.status().message());
    const int64_t bytes = IntegerField(command, "buffer_bytes", 0, INT64_MAX);
    if (static_cast<uint64_t>(bytes) != layout->bytes()) {
      throw CommandError("protocol", "buffer_bytes is " + std::to_string(bytes) +
                                         ", but train, test and dims make " +
                                         std::to_string(layout->bytes()));
    }
    Result<ReadOnlyMapping> mapping = MapReadOnly(kBufferFd, static_cast<size_t>(bytes));
    if (!mapping.ok()) throw CommandError("protocol", mapping.status().message());

    Json reply = {{"ok", true},
                  {"worker", "ratchet-worker"},
                  {"protocol", kProtocolVersion},
                  {"device", cuda_ ? "cuda" : "cpu"},
                  {"device_name", "cpu"},
                  {"uuid", nullptr},
                  {"torch", TORCH_VERSION},
                  {"l2_bytes", nullptr},
                  {"sm_count", nullptr},
                  {"l2_flush_bytes", nullptr},
                  {"input_copy", nullptr},
                  {"labels_copy", nullptr},
                  {"sandbox", SandboxState()}};
    if (cuda_) {
      Guarded("protocol", [&] {
        CudaFacts facts = QueryCudaDevice();
        reply["device_name"] = facts.name;
        reply["uuid"] = facts.uuid;
        reply["l2_bytes"] = facts.l2_bytes;
        // Zeroing a buffer this large before every timed call leaves no input in L2.
        const int64_t flush_bytes = std::max(2 * facts.l2_bytes, kMinFlushBytes);
        flush_ = torch::empty({flush_bytes / 4}, torch::dtype(torch::kInt32).device(device_));
        reply["l2_flush_bytes"] = flush_bytes;
        reply["sm_count"] = facts.sm_count;
        // The input buffer page-locked: each call's inputs then go to the device in three
        // queued copies, without staging through pageable memory.
        std::string why = PinReadOnly(mapping->data(), mapping->size());
        pinned_ = why.empty();
        reply["input_copy"] = pinned_ ? "pinned" : "pageable (" + why + ")";
        StartCudaLibraries();
      });
    }
    buffer_ = std::move(mapping).value();
    layout_ = *layout;
    if (cuda_) {
      // One empty call: the kernels of the copies, the flush and the labels load on first use,
      // which the start (overlapping earlier calls) then takes instead of the calibration.
      std::string labels;
      Go(Json{{"null", true}}, &labels);
      // The labels' host memory, made by that call; page-locked, or the allocation had thrown.
      reply["labels_copy"] = labels_host_.is_pinned() ? "pinned" : "pageable";
    }
    reply["clock_ns"] = {
        {"main", g_main_ns}, {"received", received_ns}, {"replying", MonotonicNs()}};
    return reply;
  }

  Json Load(const Json& command) {
    if (method_) throw CommandError("protocol", "a method is already loaded");
    auto path = command.find("path");
    if (path == command.end() || !path->is_string()) {
      throw CommandError("protocol", "the field \"path\" must be a string");
    }
    auto function = command.find("function");
    if (function != command.end() && *function != "method") {
      throw CommandError("import",
                         "a native submission exports one function, \"method\", "
                         "through RATCHET_METHOD; \"function\" is " +
                             function->dump());
    }
    Result<NativeMethod> method = NativeMethod::Load(path->get<std::string>());
    if (!method.ok()) throw CommandError("import", method.status().message());
    method_ = *method;
    return Json{{"ok", true}};
  }

  void Synchronize() {
    if (cuda_) torch::cuda::synchronize();
  }

  Json Go(const Json& command, std::string* payload) {
    if (!layout_) throw CommandError("protocol", "go before hello: there is no input buffer");
    bool null = false;
    if (auto it = command.find("null"); it != command.end()) {
      if (!it->is_boolean()) throw CommandError("protocol", "the field \"null\" must be a boolean");
      null = it->get<bool>();
    }
    if (!null && !method_) throw CommandError("protocol", "go before load: no method is loaded");
    const int64_t train = static_cast<int64_t>(layout_->train);
    const int64_t test = static_cast<int64_t>(layout_->test);
    const int64_t dims = static_cast<int64_t>(layout_->dims);

    const int64_t received_ns = MonotonicNs();
    Guarded("protocol", [&] {
      // from_blob wants a non-const pointer; the tensors are only ever read (copied from).
      auto* base = const_cast<unsigned char*>(buffer_.data());
      torch::Tensor sources[3] = {
          torch::from_blob(base + layout_->train_x_offset(), {train, dims}, torch::kFloat32),
          torch::from_blob(base + layout_->train_y_offset(), {train}, torch::kInt64),
          torch::from_blob(base + layout_->test_x_offset(), {test, dims}, torch::kFloat32)};
      if (inputs_.empty()) {  // the same three tensors on every call, so CUDA graphs work
        for (const torch::Tensor& source : sources) {
          inputs_.push_back(torch::empty(source.sizes(), source.options().device(device_)));
        }
      }
      // From a page-locked buffer the copies are queued; the flush follows them on the stream,
      // and one synchronization waits for all of it.
      for (int i = 0; i < 3; ++i) inputs_[i].copy_(sources[i], /*non_blocking=*/pinned_);
      if (cuda_) flush_.zero_();
      Synchronize();
    });

    torch::Tensor out;
    double ms = 0, wall_ms = 0;
    int64_t started_ns = 0, ended_ns = 0;
    Guarded("method", [&] {
      std::optional<CudaEventPair> events;
      if (cuda_) events.emplace();
      char error[kMaxErrorChars + 1] = {0};
      int failed = 0;
      started_ns = MonotonicNs();
      const Clock::time_point started = Clock::now();
      if (cuda_) events->RecordStart();
      if (null) {
        out = torch::zeros({inputs_[2].size(0)}, torch::dtype(torch::kInt64).device(device_));
      } else {
        failed = method_->entry()(&inputs_[0], &inputs_[1], &inputs_[2], &out, error, sizeof error);
      }
      if (cuda_) events->RecordEnd();
      Synchronize();  // the whole device: work the method left on any stream counts
      wall_ms = MsSince(started);
      ended_ns = MonotonicNs();
      if (failed) throw CommandError("method", error);
      ms = cuda_ ? events->ElapsedMs() : wall_ms;
    });

    return Guarded("output", [&] {
      OutputFacts facts;
      facts.defined = out.defined();
      if (facts.defined) {
        facts.shape.assign(out.sizes().begin(), out.sizes().end());
        facts.scalar_type = c10::toString(out.scalar_type());
        facts.device = out.device().str();
      }
      if (std::optional<std::string> problem =
              CheckOutput(facts, test, inputs_[2].device().str())) {
        throw CommandError("output", *problem);
      }
      // One copy into page-locked host memory, in the output's own dtype (for an output in one
      // piece, a bare copy with no kernel), then the labels on the host: after a method has run,
      // every operation on the device costs tens of microseconds more than after an empty call,
      // and the calibration measures the step after empty calls (docs/scoring.md). The buffer
      // holds `test` values of the widest label dtype, int64.
      if (!labels_host_.defined()) {
        labels_host_ = torch::empty({8 * test}, torch::dtype(torch::kUInt8).pinned_memory(cuda_));
      }
      torch::Tensor host = labels_host_.view(out.scalar_type()).narrow(0, 0, test);
      host.copy_(out, /*non_blocking=*/cuda_);
      Synchronize();
      payload->resize(static_cast<size_t>(test));
      const size_t count = static_cast<size_t>(test);
      switch (out.scalar_type()) {
        case torch::kChar:
          LabelBytes(host.data_ptr<int8_t>(), count, payload->data());
          break;
        case torch::kByte:
          LabelBytes(host.data_ptr<uint8_t>(), count, payload->data());
          break;
        case torch::kShort:
          LabelBytes(host.data_ptr<int16_t>(), count, payload->data());
          break;
        case torch::kInt:
          LabelBytes(host.data_ptr<int32_t>(), count, payload->data());
          break;
        case torch::kLong:
          LabelBytes(host.data_ptr<int64_t>(), count, payload->data());
          break;
        default:
          throw CommandError("output", "no labels for dtype " + facts.scalar_type);
      }
      auto address = [](const torch::Tensor& t) {
        return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(t.data_ptr()));
      };
      return Json{{"ok", true},
                  {"ms", ms},
                  {"wall_ms", wall_ms},
                  {"clock_ns",
                   {{"received", received_ns},
                    {"started", started_ns},
                    {"ended", ended_ns},
                    {"replying", MonotonicNs()}}},
                  {"input_ptrs",
                   {{"train_x", address(inputs_[0])},
                    {"train_y", address(inputs_[1])},
                    {"test_x", address(inputs_[2])}}}};
    });
  }

  // FP32 matrix products of constant operands for about `seconds`: the telemetry reference of
  // the energy column. Every entry of a @ a is exactly 1 when dim is a power of 4.
  Json Reference(const Json& command) {
    if (method_) {
      throw CommandError("reference", "the reference runs only before a method is loaded");
    }
    const int64_t dim = IntegerField(command, "dim", 1, kMaxReferenceDim);
    auto seconds_field = command.find("seconds");
    if (seconds_field == command.end() || !seconds_field->is_number() ||
        !(seconds_field->get<double>() >= 0) ||
        seconds_field->get<double>() > kMaxReferenceSeconds) {
      throw CommandError("protocol", "the field \"seconds\" must be a number from 0 to " +
                                         std::to_string(static_cast<int>(kMaxReferenceSeconds)));
    }
    const double seconds = seconds_field->get<double>();
    int bits = 0;
    while ((int64_t{1} << (bits + 1)) <= dim) ++bits;  // floor(log2(dim))
    const double value = std::ldexp(1.0, -(bits / 2));

    return Guarded("reference", [&] {
      at::Context& context = at::globalContext();
      const bool tf32 = context.allowTF32CuBLAS();
      context.setAllowTF32CuBLAS(false);
      int64_t count = 0;
      bool exact = false;
      try {
        torch::Tensor a =
            torch::full({dim, dim}, value, torch::dtype(torch::kFloat32).device(device_));
        torch::Tensor c = torch::mm(a, a);
        Synchronize();
        const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                         std::chrono::duration<double>(seconds));
        while (count == 0 || Clock::now() < end) {
          for (int i = 0; i < 8; ++i) torch::mm_out(c, a, a);
          Synchronize();
          count += 8;
        }
        exact = c.eq(1).all().item<bool>();
      } catch (...) {
        context.setAllowTF32CuBLAS(tf32);
        throw;
      }
      context.setAllowTF32CuBLAS(tf32);
      if (cuda_) EmptyCudaCache();
      return Json{{"ok", true}, {"count", count}, {"exact", exact}};
    });
  }

  const bool cuda_;
  const torch::Device device_;
  std::optional<InputLayout> layout_;
  ReadOnlyMapping buffer_;
  torch::Tensor flush_;
  bool pinned_ = false;  // the input buffer is page-locked for the device
  int64_t spin_ns_ = 0;  // after this reply, await the next command spinning this long
  std::vector<torch::Tensor> inputs_;
  // Page-locked bytes for the method's output on the host, viewed as its dtype; allocated by the
  // first go (on CUDA, hello's empty call).
  torch::Tensor labels_host_;
  std::optional<NativeMethod> method_;
};

// fds 3, 4 and 5 must be open; each is made close-on-exec so that nothing the method starts
// inherits the protocol's pipes or the input buffer.
bool ClaimProtocolFds() {
  for (int fd : {kCommandFd, kReplyFd, kBufferFd}) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) {
      std::fprintf(stderr,
                   "ratchet-worker: fd %d is not open; the parent passes the command "
                   "pipe as fd 3, the reply pipe as fd 4 and the input buffer as fd 5\n",
                   fd);
      return false;
    }
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  return true;
}

}  // namespace
}  // namespace ratchet

int main() {
  ratchet::g_main_ns = ratchet::MonotonicNs();
  // The method's prints reach the log even though the worker is killed, not exited.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::cout << std::unitbuf;
  if (!ratchet::ClaimProtocolFds()) return 2;
  try {
    ratchet::Worker worker;
    return worker.Serve();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ratchet-worker: %s\n", error.what());
    return 2;
  }
}
