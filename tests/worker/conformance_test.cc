// Conformance tests of the worker protocol (docs/protocol.md), run against every worker kind:
// each test starts a real worker process and talks to it through the parent's own channel.
// A kind joins with one entry in Kinds(). Environment overrides for running this binary against
// another lane's workers: RATCHET_CONFORMANCE_WORKER (ratchet-worker), RATCHET_CONFORMANCE_
// SUBMISSIONS (its compiled test submissions), RATCHET_CONFORMANCE_PYTHON (worker.py's python3).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>

#include "support/temp_dir.h"
#include "worker_process.h"

namespace ratchet {
namespace {

constexpr int64_t kTrain = 10000, kTest = 10000, kDims = 60;

struct WorkerKind {
  std::string name;  // what hello reports as "worker"
  std::vector<std::string> argv;
  std::string submissions;  // a fixture's path is submissions + "/" + name + extension
  std::string extension;
  std::string not_a_tensor_message;  // check_output's words for not_a_tensor.*
  std::string skip_reason;           // non-empty: the kind cannot run here
};

void PrintTo(const WorkerKind& kind, std::ostream* out) { *out << kind.name; }

bool PythonHasTorch(const std::string& python) {
  static const bool has = [&] {
    std::string command = python + " -c 'import torch' >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
  }();
  return has;
}

// A compiled-in default, or the environment's value: on another lane (a GPU machine, a worker
// built against its CUDA libtorch) the same test binary runs against that lane's workers.
std::string Setting(const char* variable, const std::string& compiled) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : compiled;
}

std::vector<WorkerKind> Kinds() {
  std::vector<WorkerKind> kinds;
  {
    const std::string binary = Setting("RATCHET_CONFORMANCE_WORKER", RATCHET_WORKER_BINARY);
    WorkerKind native{"ratchet-worker",
                      {binary},
                      Setting("RATCHET_CONFORMANCE_SUBMISSIONS", RATCHET_NATIVE_SUBMISSIONS),
                      ".so",
                      "the method returned an undefined tensor, not a plain torch.Tensor",
                      ""};
    if (binary.empty()) native.skip_reason = "ratchet-worker is not built (no libtorch found)";
    kinds.push_back(native);
  }
  {
    const std::string python = Setting("RATCHET_CONFORMANCE_PYTHON", RATCHET_TEST_PYTHON);
    const std::string root = Setting("RATCHET_SOURCE_DIR", RATCHET_SOURCE_ROOT);
    const std::string script = root + "/runner/worker/worker.py";
    WorkerKind py{"worker.py",
                  {python, "-u", script},
                  root + "/tests/worker/submissions",
                  ".py",
                  "the method returned list, not a plain torch.Tensor",
                  ""};
    if (!PathExists(script)) {
      py.skip_reason = script + " does not exist yet";
    } else if (!PythonHasTorch(python)) {
      py.skip_reason = python + " cannot import torch";
    }
    kinds.push_back(py);
  }
  return kinds;
}

// A draw that nearest class mean separates: class k is centred 4.0 along axis 6k, with noise
// of standard deviation 0.5 on every axis.
struct Draw {
  std::vector<float> train_x, test_x;
  std::vector<int64_t> train_y, test_y;
};

Draw SeparableDraw(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.5f);
  std::uniform_int_distribution<int64_t> label(0, 9);
  Draw d;
  auto rows = [&](int64_t n, std::vector<float>* x, std::vector<int64_t>* y) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = label(rng);
      y->push_back(k);
      for (int64_t j = 0; j < kDims; ++j) x->push_back(noise(rng) + (j == 6 * k ? 4.0f : 0.0f));
    }
  };
  rows(kTrain, &d.train_x, &d.train_y);
  rows(kTest, &d.test_x, &d.test_y);
  return d;
}

// The state of process `pid` (of its main thread) as /proc/<pid>/stat gives it: 'R' running or
// ready to run, 'S' asleep, ...; '?' when unreadable.
char ProcessState(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t name_end = text.rfind(')');
  return name_end == std::string::npos || name_end + 2 >= text.size() ? '?' : text[name_end + 2];
}

int64_t ReadStatusField(const std::string& name) {
  std::ifstream file("/proc/self/status");
  std::string line;
  while (std::getline(file, line)) {
    if (line.rfind(name + ":", 0) == 0) return std::stoll(line.substr(name.size() + 1));
  }
  return -1;
}

class ConformanceTest : public ::testing::TestWithParam<WorkerKind> {
 protected:
  void SetUp() override {
    if (!GetParam().skip_reason.empty()) GTEST_SKIP() << GetParam().skip_reason;
  }

  void TearDown() override {
    if (HasFailure() && worker_) std::cerr << "worker log:\n" << worker_->Log() << "\n";
  }

  std::string Submission(const std::string& name) const {
    return GetParam().submissions + "/" + name + GetParam().extension;
  }

  Json HelloCommand() const {
    return Json{{"cmd", "hello"},
                {"train", kTrain},
                {"test", kTest},
                {"dims", kDims},
                {"buffer_bytes", kTrain * kDims * 4 + kTrain * 8 + kTest * kDims * 4}};
  }

  // Starts the worker; with `hello`, sends hello and expects it answered.
  void Start(bool hello = true) {
    std::string error;
    Result<InputLayout> layout = InputLayout::Make(kTrain, kTest, kDims);
    ASSERT_TRUE(layout.ok());
    worker_ = WorkerProcess::Start(GetParam().argv, *layout, dir_ / "worker.log", &error);
    ASSERT_NE(worker_, nullptr) << error;
    if (hello) {
      Result<Frame> reply = worker_->Request(HelloCommand());
      ASSERT_TRUE(reply.ok()) << reply.status().message();
      ASSERT_EQ(reply->header.value("ok", false), true) << reply->header.dump();
      hello_ = reply->header;
    }
  }

  Json Ok(const Json& command) {
    Result<Frame> reply = worker_->Request(command);
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    if (!reply.ok()) return Json::object();
    EXPECT_EQ(reply->header.value("ok", false), true) << reply->header.dump();
    return reply->header;
  }

  void Load(const std::string& fixture) {
    Ok(Json{{"cmd", "load"}, {"path", Submission(fixture)}, {"function", "method"}});
  }

  // Writes `draw` into the buffer (as the parent does inside the timed window) and sends go.
  Result<Frame> Go(const Draw& draw, bool null = false) {
    Status written = worker_->buffer().Write(draw.train_x, draw.train_y, draw.test_x);
    EXPECT_TRUE(written.ok()) << written.message();
    return worker_->Request(Json{{"cmd", "go"}, {"null", null}});
  }

  // The labels of one go of `fixture` (one byte a test row), after an empty call when
  // `empty_first`: its int64 zeros pass through the worker's host buffer first, as on CUDA.
  void LabelsOf(const std::string& fixture, bool empty_first, std::string* labels) {
    Start();
    Load(fixture);
    if (empty_first) {
      ASSERT_TRUE(Go(SeparableDraw(1), /*null=*/true).ok());
    }
    Result<Frame> reply = Go(SeparableDraw(1));
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    ASSERT_EQ(reply->header["ok"], true) << reply->header.dump();
    ASSERT_EQ(reply->payload.size(), static_cast<size_t>(kTest));
    *labels = reply->payload;
  }

  // One command frame written by hand (the channel sends objects only): `magic`, then `json`'s
  // bytes as they are, small enough to go into the empty pipe in one write. SIGPIPE is ignored,
  // so that a worker already gone fails the write (EPIPE) instead of killing the test binary.
  bool SendRaw(uint32_t magic, const std::string& json) {
    unsigned char head[kFrameHeaderBytes];
    EncodeFrameHeader({magic, static_cast<uint32_t>(json.size()), 0}, head);
    const std::string frame = std::string(reinterpret_cast<char*>(head), sizeof head) + json;
    signal(SIGPIPE, SIG_IGN);
    return write(worker_->channel().command_fd(), frame.data(), frame.size()) ==
           static_cast<ssize_t>(frame.size());
  }

  // The reply to go must be a failure of `kind`; returns its error text.
  std::string GoFails(const std::string& kind) {
    Result<Frame> reply = Go(SeparableDraw(1));
    EXPECT_TRUE(reply.ok()) << reply.status().message();
    if (!reply.ok()) return "";
    EXPECT_EQ(reply->header.value("ok", true), false) << reply->header.dump();
    EXPECT_EQ(reply->header.value("kind", ""), kind) << reply->header.dump();
    EXPECT_EQ(reply->payload, "");
    std::string error = reply->header.value("error", "");
    EXPECT_LE(error.size(), 4000u);
    return error;
  }

  TempDir dir_;
  std::unique_ptr<WorkerProcess> worker_;
  Json hello_;
};

TEST_P(ConformanceTest, HelloDescribesTheWorkerItsDeviceAndItsSandbox) {
  Start();
  EXPECT_EQ(hello_["worker"], GetParam().name);
  EXPECT_EQ(hello_["protocol"], 1);
  const std::string device = hello_.value("device", "");
  ASSERT_TRUE(device == "cpu" || device == "cuda") << hello_.dump();
  EXPECT_TRUE(hello_["device_name"].is_string());
  EXPECT_TRUE(hello_["torch"].is_string() && !hello_["torch"].get<std::string>().empty());
  if (device == "cpu") {
    EXPECT_TRUE(hello_["uuid"].is_null());
    EXPECT_TRUE(hello_["l2_bytes"].is_null());
    EXPECT_TRUE(hello_.contains("labels_copy") && hello_["labels_copy"].is_null());
  } else {
    EXPECT_EQ(hello_["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
    EXPECT_GT(hello_["l2_bytes"].get<int64_t>(), 0);
    EXPECT_TRUE(hello_["labels_copy"].is_string());
  }
  if (GetParam().name == "worker.py") {
    EXPECT_TRUE(hello_["python"].is_string());
  }
  // Not sandboxed here: the worker sees what this test process has.
  const Json& sandbox = hello_["sandbox"];
  EXPECT_EQ(sandbox["uid"], static_cast<int64_t>(getuid()));
  EXPECT_EQ(sandbox["no_new_privs"], ReadStatusField("NoNewPrivs"));
  EXPECT_EQ(sandbox["seccomp"], ReadStatusField("Seccomp"));
}

TEST_P(ConformanceTest, HelloWithABufferSizeThatDoesNotAddUpIsAProtocolError) {
  Start(/*hello=*/false);
  Json hello = HelloCommand();
  hello["buffer_bytes"] = hello["buffer_bytes"].get<int64_t>() + 4;
  Result<Frame> reply = worker_->Request(hello);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->header["ok"], false);
  EXPECT_EQ(reply->header["kind"], "protocol");
}

TEST_P(ConformanceTest, ANullGoReturnsZeroLabelsAndATime) {
  Start();
  Result<Frame> reply = Go(SeparableDraw(1), /*null=*/true);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_EQ(reply->header["ok"], true) << reply->header.dump();
  ASSERT_TRUE(reply->header["ms"].is_number());
  EXPECT_GE(reply->header["ms"].get<double>(), 0.0);
  EXPECT_TRUE(std::isfinite(reply->header["ms"].get<double>()));
  EXPECT_GE(reply->header["wall_ms"].get<double>(), 0.0);
  EXPECT_EQ(reply->payload, std::string(kTest, '\0'));
}

// After a gc with "spin_ms" the worker awaits the next command without sleeping for that long: its
// main thread is running (or ready to run: state R) whenever it is looked at, where after a gc
// without the field it sleeps in its read (S). A command that arrives meanwhile is answered at
// once, not when the time is up.
TEST_P(ConformanceTest, AGcWithSpinMsAwaitsTheNextCommandWithoutSleeping) {
  Start();
  const pid_t pid = worker_->pid();
  Ok(Json{{"cmd", "gc"}});  // the first gc's own work (worker.py: filling a fresh buffer) is done
  // Ten looks, 20 ms apart, from 50 ms after the reply: how many found the worker running.
  auto running_looks = [pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int running = 0;
    for (int i = 0; i < 10; ++i) {
      running += ProcessState(pid) == 'R';
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return running;
  };
  Ok(Json{{"cmd", "gc"}, {"spin_ms", 600}});
  const int spinning = running_looks();
  Ok(Json{{"cmd", "gc"}});
  const int resting = running_looks();
  EXPECT_GE(spinning, 8) << "the worker slept instead";
  EXPECT_LE(resting, 1) << "the worker spun without being asked";

  Ok(Json{{"cmd", "gc"}, {"spin_ms", 1000}});
  const auto sent = std::chrono::steady_clock::now();
  Load("ncm");
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::milliseconds(900))
      << "the load waited for the spin to end";
  Result<Frame> reply = Go(SeparableDraw(1));
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->header["ok"], true) << reply->header.dump();
}

TEST_P(ConformanceTest, ASpinMsOutsideZeroToOneSecondIsAProtocolError) {
  Start();
  for (const Json& value : {Json(-1), Json(1001), Json("5"), Json(true), Json(nullptr)}) {
    Result<Frame> reply = worker_->Request(Json{{"cmd", "gc"}, {"spin_ms", value}});
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->header.value("ok", true), false) << value.dump();
    EXPECT_EQ(reply->header.value("kind", ""), "protocol") << value.dump();
    EXPECT_EQ(reply->header.value("error", ""),
              "the field \"spin_ms\" must be a number from 0 to 1000")
        << value.dump();
  }
  Ok(Json{{"cmd", "gc"}, {"spin_ms", 0.5}});  // a fraction of a millisecond is a number too
}

TEST_P(ConformanceTest, NearestClassMeanLearnsEveryDrawItIsGiven) {
  Start();
  Load("ncm");
  Ok(Json{{"cmd", "gc"}});
  // Two draws in turn: the second call must see the second draw, copied in afresh.
  for (uint64_t seed : {1, 2}) {
    Draw draw = SeparableDraw(seed);
    Result<Frame> reply = Go(draw);
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    ASSERT_EQ(reply->header["ok"], true) << reply->header.dump();
    ASSERT_EQ(reply->payload.size(), static_cast<size_t>(kTest));
    int correct = 0;
    for (int64_t i = 0; i < kTest; ++i) correct += reply->payload[i] == draw.test_y[i];
    EXPECT_GE(correct, 9900) << "draw " << seed;
    EXPECT_GT(reply->header["ms"].get<double>(), 0.0);
  }
}

TEST_P(ConformanceTest, TheSameThreeInputTensorsServeEveryCall) {
  Start();
  Load("ncm");
  Json first, second;
  for (Json* reply : {&first, &second}) {
    Result<Frame> frame = Go(SeparableDraw(3));
    ASSERT_TRUE(frame.ok()) << frame.status().message();
    ASSERT_EQ(frame->header["ok"], true) << frame->header.dump();
    *reply = frame->header;
  }
  if (!first.contains("input_ptrs")) GTEST_SKIP() << GetParam().name << " reports no input_ptrs";
  for (const char* name : {"train_x", "train_y", "test_x"}) {
    EXPECT_NE(first["input_ptrs"][name], 0) << name;
    EXPECT_EQ(first["input_ptrs"][name], second["input_ptrs"][name]) << name;
  }
}

TEST_P(ConformanceTest, AFloatResultIsAnOutputError) {
  Start();
  Load("float_labels");
  EXPECT_EQ(GoFails("output"),
            "the method returned dtype torch.float32, expected an integer dtype");
}

TEST_P(ConformanceTest, AResultOfTheWrongShapeIsAnOutputError) {
  Start();
  Load("wrong_shape");
  EXPECT_EQ(GoFails("output"), "the method returned shape (10000, 1), expected (10000,)");
}

TEST_P(ConformanceTest, AResultThatIsNoTensorIsAnOutputError) {
  Start();
  Load("not_a_tensor");
  EXPECT_EQ(GoFails("output"), GetParam().not_a_tensor_message);
}

TEST_P(ConformanceTest, LabelsOutsideZeroToNineArriveAs255) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_0_20", /*empty_first=*/false, &labels));
  for (int64_t i = 0; i < kTest; ++i) {
    const int value = static_cast<int>(i % 21);
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), value <= 9 ? value : 255) << i;
  }
}

// A view that is not contiguous, of a narrower dtype, with values far outside 0..9 (some of
// whose low bytes are labels): the bytes are those of the values, not of their low bytes.
TEST_P(ConformanceTest, AStridedInt32ResultArrivesLabelForLabel) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_strided", /*empty_first=*/false, &labels));
  const unsigned char expected[8] = {255, 255, 0, 9, 255, 255, 255, 5};
  for (int64_t i = 0; i < kTest; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), expected[i % 8]) << i;
  }
}

// The narrow dtypes: every int8 and every uint8 value (only 0 to 9 are labels), and int16 values
// whose low bytes are labels. Each arrives value for value, whatever its width, after an empty
// call whose int64 zeros went through the same host buffer (as on CUDA, where hello makes one).
TEST_P(ConformanceTest, EveryInt8ValueArrivesLabelForLabel) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_int8", /*empty_first=*/true, &labels));
  for (int64_t i = 0; i < kTest; ++i) {
    const int value = static_cast<int>(i % 256) - 128;
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), value >= 0 && value <= 9 ? value : 255) << i;
  }
}

TEST_P(ConformanceTest, EveryUint8ValueArrivesLabelForLabel) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_uint8", /*empty_first=*/true, &labels));
  for (int64_t i = 0; i < kTest; ++i) {
    const int value = static_cast<int>(i % 256);
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), value <= 9 ? value : 255) << i;
  }
}

TEST_P(ConformanceTest, Int16ValuesArriveWholeNotByTheirLowByte) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_int16", /*empty_first=*/true, &labels));
  // -32768, -1, 0, 9, 10, 259, 32767, 5, -251, 512
  const unsigned char expected[10] = {255, 255, 0, 9, 255, 255, 255, 5, 255, 255};
  for (int64_t i = 0; i < kTest; ++i) {
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), expected[i % 10]) << i;
  }
}

// Two int64 values among 9,998 labels have a label as their lowest byte and other bytes that are
// not all zero: both arrive as 255 (a worker that took each value's lowest byte once the first
// ones looked like labels would send 3 and 2), every other value as itself.
TEST_P(ConformanceTest, AnInt64ValueIsReadWholeAmongLabels) {
  std::string labels;
  ASSERT_NO_FATAL_FAILURE(LabelsOf("labels_int64_needles", /*empty_first=*/true, &labels));
  for (int64_t i = 0; i < kTest; ++i) {
    const int expected = (i == 4999 || i == kTest - 1) ? 255 : static_cast<int>(i % 10);
    ASSERT_EQ(static_cast<unsigned char>(labels[i]), expected) << i;
  }
}

TEST_P(ConformanceTest, AnExceptionIsAMethodErrorAndItsPrintsReachTheLog) {
  Start();
  Load("throws");
  std::string error = GoFails("method");
  EXPECT_NE(error.find("deliberate failure of the test submission"), std::string::npos) << error;
  EXPECT_NE(worker_->Log().find("the test submission is about to throw"), std::string::npos);
  Ok(Json{{"cmd", "gc"}});  // the worker goes on answering
}

TEST_P(ConformanceTest, ATorchErrorIsAMethodError) {
  Start();
  Load("torch_error");
  std::string error = GoFails("method");
  EXPECT_NE(error.find("cannot be multiplied"), std::string::npos) << error;
}

TEST_P(ConformanceTest, TheReferenceRunsBeforeLoadAndIsRefusedAfter) {
  Start();
  Json reference = {{"cmd", "reference"}, {"seconds", 0.05}, {"dim", 64}};
  Json reply = Ok(reference);
  ASSERT_TRUE(reply["count"].is_number_integer()) << reply.dump();
  EXPECT_GE(reply["count"].get<int64_t>(), 8);
  EXPECT_EQ(reply["count"].get<int64_t>() % 8, 0);
  EXPECT_EQ(reply["exact"], true);
  Load("ncm");
  Result<Frame> refused = worker_->Request(reference);
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  EXPECT_EQ(refused->header["ok"], false);
  EXPECT_EQ(refused->header["kind"], "reference");
}

TEST_P(ConformanceTest, AnUnknownCommandIsAProtocolError) {
  Start();
  Result<Frame> reply = worker_->Request(Json{{"cmd", "fly"}});
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->header["ok"], false);
  EXPECT_EQ(reply->header["kind"], "protocol");
  EXPECT_NE(reply->header.value("error", "").find("unknown command"), std::string::npos);
  Ok(Json{{"cmd", "gc"}});
}

TEST_P(ConformanceTest, ACommandWhoseJsonIsBadOrNoObjectIsAnsweredAndTheWorkerReadsOn) {
  // Written by hand (the channel sends objects only): a whole frame, so the next one starts
  // after it and the worker answers and goes on; a frame out of step would end it with 2.
  Start();
  for (const std::string& json : {std::string("[1, 2]"), std::string("{not json")}) {
    ASSERT_TRUE(SendRaw(kFrameMagic, json));
    Result<Frame> reply = worker_->channel().Receive(Deadline::In(30), "answering " + json);
    ASSERT_TRUE(reply.ok()) << json << ": " << reply.status().message();
    EXPECT_EQ(reply->header["ok"], false) << json;
    EXPECT_EQ(reply->header["kind"], "protocol") << json;
    EXPECT_NE(reply->header.value("error", "").find(json[0] == '[' ? "not an object" : "JSON"),
              std::string::npos)
        << reply->header.dump();
  }
  Ok(Json{{"cmd", "gc"}});
  Result<Frame> go = Go(SeparableDraw(1), /*null=*/true);
  ASSERT_TRUE(go.ok()) << go.status().message();
  EXPECT_EQ(go->header.value("ok", false), true) << go->header.dump();
}

TEST_P(ConformanceTest, ACommandOutOfStepIsAnsweredThenTheWorkerExitsWithTwo) {
  Start();
  ASSERT_TRUE(SendRaw(0x12345678, "{\"cmd\":\"gc\"}"));
  Result<Frame> reply = worker_->channel().Receive(Deadline::In(30), "answering a bad magic");
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->header["ok"], false);
  EXPECT_EQ(reply->header["kind"], "protocol");
  EXPECT_NE(reply->header.value("error", "").find("magic"), std::string::npos)
      << reply->header.dump();
  std::optional<int> status = worker_->CloseAndWait(30);
  ASSERT_TRUE(status.has_value()) << "the worker did not exit";
  EXPECT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 2);
}

TEST_P(ConformanceTest, ASubmissionThatCannotBeLoadedIsAnImportError) {
  Start();
  for (const std::string& path :
       {Submission("no_method"), dir_ / ("absent" + GetParam().extension)}) {
    Result<Frame> reply =
        worker_->Request(Json{{"cmd", "load"}, {"path", path}, {"function", "method"}});
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(reply->header["ok"], false) << path;
    EXPECT_EQ(reply->header["kind"], "import") << path;
    EXPECT_FALSE(reply->header.value("error", "").empty());
  }
}

TEST_P(ConformanceTest, EofOnTheCommandPipeEndsTheWorkerWithExitZero) {
  Start();
  std::optional<int> status = worker_->CloseAndWait(30);
  ASSERT_TRUE(status.has_value()) << "the worker did not exit";
  EXPECT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

// Listed as .../0, .../1 by gtest; ctest names each test after its kind (PrintTo below), as in
// "worker_conformance_test.Kinds/ConformanceTest.AnUnknownCommandIsAProtocolError/worker.py".
INSTANTIATE_TEST_SUITE_P(Kinds, ConformanceTest, ::testing::ValuesIn(Kinds()));

}  // namespace
}  // namespace ratchet
