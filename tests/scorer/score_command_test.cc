// Black-box tests of `ratchet score`: a method that qualifies, the red-team files of
// tests/submissions (each names the rule it must break in its first line), and bad usage. The
// runs use a rule set with fewer, shorter calls (FastRules) so that the suite stays quick; the
// protocol is the same.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "contract/python.h"
#include "core/canonical_json.h"
#include "core/file.h"
#include "core/fresh_directory.h"
#include "core/sha256.h"
#include "evidence/reader.h"
#include "rules/rule_set.h"
#include "sandbox/policy.h"
#include "sandbox/reap.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

Json Report(const std::string& evidence) {
  Result<std::string> text = ReadFile(evidence + "/report.json");
  if (!text.ok()) return Json();
  return Json::parse(*text);
}

std::set<std::string> Broken(const Json& report) {
  std::set<std::string> broken;
  if (!report.is_object() || !report.contains("records")) return {"(no report.json)"};
  for (const auto& [id, record] : report["records"].items()) {
    for (const Json& rule : record["outcome"]["broken"]) broken.insert(rule.get<std::string>());
  }
  return broken;
}

// A run scored to the end like ncm.py: qualified, exit 0, no rule broken. (Under the fast rule
// set the timing rules' slack is a second, which no call of these methods uses up even on a busy
// machine: tests/support/fast_rules.h.)
::testing::AssertionResult ScoredToTheEnd(const BinaryRun& run, const std::string& out) {
  const std::set<std::string> broken = Broken(Report(out));
  if (run.exit_code != 0 || !broken.empty()) {
    std::string rules;
    for (const std::string& rule : broken) rules += " " + rule;
    return ::testing::AssertionFailure()
           << "exit " << run.exit_code << ", broke:" << (rules.empty() ? " none" : rules) << "\n"
           << run.out << run.err;
  }
  return ::testing::AssertionSuccess();
}

// A step of call i (from 0) on the monotonic clock in ns, from its worker's own instant of
// answering hello (phases.steps is in ms since the call began).
double StepAtNs(const Json& calls, size_t i, const std::string& step) {
  const Json& steps = calls[i]["phases"]["steps"];
  EXPECT_TRUE(steps.contains(step)) << "call " << i + 1 << ": no step " << step;
  const double started = calls[i]["worker"]["clock_ns"]["replying"].get<double>() -
                         steps["worker_replying"].get<double>() * 1e6;
  return started + steps.value(step, 0.0) * 1e6;
}

// The last instant (monotonic ns) at which each of tests/submissions/outlive_call.py's thread
// and child printed a tick into the log of call `call` (from 1); the log's text in *text.
std::map<std::string, double> LastTicks(const std::string& run_folder, size_t call,
                                        std::string* text) {
  char name[32];
  std::snprintf(name, sizeof name, "/logs/%02zu.log", call);
  Result<std::string> log = ReadFile(run_folder + name);
  *text = log.ok() ? *log : "(not read: " + log.status().message() + ")";
  std::map<std::string, double> last;  // "thread", "child" -> the last tick's clock
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string word, who;
    double ns = 0;
    if (fields >> word >> who >> ns && word == "tick") last[who] = std::max(last[who], ns);
  }
  return last;
}

TEST(ScoreCommandTest, NearestClassMeanQualifiesAtALooseBandWithCompleteEvidence) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string out = dir / "evidence";
  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                              "3000", "--rules", FastRules(dir), "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("call  4/4"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("; score "), std::string::npos) << run.out;
  Result<EvidenceSummary> evidence = ReadEvidence(out);
  ASSERT_TRUE(evidence.ok()) << evidence.status().message();
  EXPECT_TRUE(evidence->complete);
  EXPECT_TRUE(evidence->findings.empty());
  const Json report = Report(out);
  EXPECT_EQ(report["records"]["ncm"]["outcome"]["status"], "qualified");
  EXPECT_TRUE(report["records"]["ncm"]["ranked_ms"].is_number());
  Json calls = Json::parse(*ReadFile(out + "/records/ncm/run-1/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  for (const Json& call : calls) {
    EXPECT_EQ(call["total"], 10000);
    EXPECT_GT(call["correct"].get<int>(), 5000);
  }
  EXPECT_TRUE(PathExists(out + "/records/ncm/run-1/labels/04.u8"));
}

// A worker's log is evidence of what the method printed: bytes that are not UTF-8 are kept as
// printed (logs/NN.log holds them and calls.json their count), so the audit lets the run stand.
TEST(ScoreCommandTest, ALogOfBytesThatAreNotUtf8IsKeptAsPrintedAndAudits) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string method = dir / "raw_bytes.py";
  std::ofstream(method) << "import sys\n\nimport torch\n\n\n"
                           "def method(train_x, train_y, test_x):\n"
                           "    sys.stderr.buffer.write(b\"bytes \\xff\\xfe\\n\")\n"
                           "    sys.stderr.buffer.flush()\n"
                           "    return torch.zeros(test_x.shape[0], dtype=torch.int64)\n";
  const std::string out = dir / "evidence";
  const std::string rules = FastRules(dir);
  BinaryRun run = RunRatchet({"score", method, "--band", "3000", "--rules", rules, "--out", out});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  Result<std::string> log = ReadFile(out + "/records/raw_bytes/run-1/logs/01.log");
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_NE(log->find("bytes \xff\xfe\n"), std::string::npos) << *log;
  BinaryRun audit = RunRatchet({"audit", out, "--rules", rules});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
}

// The compile step, end to end on the CPU ($RATCHET_COMPILE_STEP=always): the method "compiles"
// (writes a kernel into $TRITON_CACHE_DIR) only where the kernel is absent, and from then on each
// of its runs writes a file of its own beside it, after counting those there (a worker's timed
// call finds its own warm-up's alone). The step's
// worker compiles once; every call finds the kernel, compiles nothing, and sees no other call's
// file (a cache folder shared between calls would show one, and the method then answers wrong);
// compile.json lists what the step left, each call names its sha256, and the audit lets the run
// stand.
TEST(ScoreCommandTest, TheCompileStepCompilesOnceAndNoCallSeesAnothersCaches) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string method = dir / "compiles_once.py";
  std::ofstream(method)
      << "import os\nimport sys\nimport uuid\n\nimport torch\n\n\n"
         "def method(train_x, train_y, test_x):\n"
         "    cache = os.environ['TRITON_CACHE_DIR']\n"
         "    kernel = os.path.join(cache, 'kernel.bin')\n"
         "    seen_other = False\n"
         "    if not os.path.exists(kernel):\n"
         "        os.makedirs(cache, exist_ok=True)\n"
         "        with open(kernel, 'w') as f:\n"
         "            f.write('compiled')\n"
         "        print('compiled here', file=sys.stderr)\n"
         "    else:\n"
         "        # A worker's warm-up finds none, its timed call its warm-up's alone.\n"
         "        seen_other = sum(n.startswith('call-') for n in os.listdir(cache)) > 1\n"
         "        open(os.path.join(cache, 'call-' + uuid.uuid4().hex), 'w').close()\n"
         "    means = torch.stack([train_x[train_y == c].mean(0) for c in range(10)])\n"
         "    labels = torch.cdist(test_x, means).argmin(1)\n"
         "    return (labels + 1) % 10 if seen_other else labels\n";
  const std::string out = dir / "evidence";
  const std::string rules = FastRules(dir);
  BinaryRun run = RunRatchet({"score", method, "--band", "3000", "--rules", rules, "--out", out},
                             {"RATCHET_COMPILE_STEP=always"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string folder = out + "/records/compiles_once/run-1/";
  Json compile = Json::parse(*ReadFile(folder + "compile.json"));
  EXPECT_TRUE(compile["failure"].is_null()) << compile.dump(2);
  EXPECT_EQ(compile["warmup_draw_index"], 999);
  ASSERT_EQ(compile["files"].size(), 1u) << compile.dump(2);
  EXPECT_EQ(compile["files"][0]["path"], "triton/kernel.bin");
  EXPECT_EQ(compile["files"][0]["sha256"], Sha256Hex("compiled"));
  EXPECT_NE(ReadFile(folder + "logs/compile.log")->find("compiled here"), std::string::npos);
  Json calls = Json::parse(*ReadFile(folder + "calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i]["phases"]["caches_sha256"], compile["caches_sha256"]) << i;
    EXPECT_EQ(ReadFile(folder + "logs/0" + std::to_string(i + 1) + ".log")->find("compiled here"),
              std::string::npos)
        << i;
    EXPECT_GT(calls[i]["correct"].get<int>(), 5000) << i;
  }
  BinaryRun audit = RunRatchet({"audit", out, "--rules", rules});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  // An unknown setting is refused before any evidence is written.
  BinaryRun refused = RunRatchet(
      {"score", method, "--band", "3000", "--rules", rules, "--out", dir / "never-written"},
      {"RATCHET_COMPILE_STEP=sometimes"});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("RATCHET_COMPILE_STEP"), std::string::npos) << refused.err;
  EXPECT_FALSE(PathExists(dir / "never-written"));
}

// The C++ twin, compiled under the sandbox into the cache, then run by ratchet-worker; the second
// score finds the compiled object in the cache.
TEST(ScoreCommandTest, NativeNearestClassMeanQualifiesAndItsBuildIsCached) {
  const std::string worker = DirName(RatchetBinary()) + "/ratchet-worker";
  if (!PathExists(worker)) GTEST_SKIP() << "no " << worker << " (libtorch absent)";
  TempDir dir;
  const std::string rules = FastRules(dir);
  const std::string cache = "RATCHET_CACHE=" + (dir / "cache");
  for (const char* out : {"first", "second"}) {
    BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.cpp", "--band",
                                "3000", "--rules", rules, "--out", dir / out},
                               {cache});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(Report(dir / out)["records"]["ncm"]["outcome"]["status"], "qualified");
  }
  int built = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir / "cache/native")) {
    built += entry.path().extension() == ".so";
  }
  EXPECT_EQ(built, 1);
}

TEST(ScoreCommandTest, ANativeFileThatDoesNotCompileIsRuleSource) {
  const std::string worker = DirName(RatchetBinary()) + "/ratchet-worker";
  if (!PathExists(worker)) GTEST_SKIP() << "no " << worker << " (libtorch absent)";
  TempDir dir;
  ASSERT_TRUE(
      WriteFileAtomic(dir / "broken.cpp", "#include <ratchet/method.h>\nthis is not C++;\n").ok());
  BinaryRun run =
      RunRatchet({"score", dir / "broken.cpp", "--rules", FastRules(dir), "--out", dir / "ev"},
                 {"RATCHET_CACHE=" + (dir / "cache")});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("does not compile"), std::string::npos) << run.out;
  EXPECT_EQ(Broken(Report(dir / "ev")), std::set<std::string>{"source"});
}

// Every red-team file: its first line says "expected: <rules>" or "expected: scored like ncm.py".
TEST(ScoreCommandTest, RedTeamSubmissionsEndWithTheirRule) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string rules = FastRules(dir);
  const std::string folder = SourceDir() + "/tests/submissions";
  DIR* listing = opendir(folder.c_str());
  ASSERT_NE(listing, nullptr) << folder;
  std::vector<std::string> files;
  while (dirent* entry = readdir(listing)) {
    std::string name = entry->d_name;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0) files.push_back(name);
  }
  closedir(listing);
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u);
  const std::regex expected_line("expected: ([a-z, -]+)");
  for (const std::string& name : files) {
    std::ifstream in(folder + "/" + name);
    std::string first;
    std::getline(in, first);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(first, match, expected_line)) << name << ": " << first;
    std::string expected = match[1];
    const std::string out = dir / ("ev-" + name);
    // Every file is scored as a record naming method(), as a baseline would name it.
    const auto started = std::chrono::steady_clock::now();
    BinaryRun run = RunRatchet({"score", folder + "/" + name + ":method", "--band", "3000",
                                "--rules", rules, "--out", out});
    std::cout << name << ": exit " << run.exit_code << " in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
              << " s\n";
    const Json report = Report(out);
    if (expected.rfind("scored like ncm", 0) == 0) {
      EXPECT_TRUE(ScoredToTheEnd(run, out)) << name;
    } else {
      EXPECT_EQ(run.exit_code, 1) << name << "\n" << run.out << run.err;
      std::set<std::string> want;
      std::regex rule("[a-z-]+");
      for (auto it = std::sregex_iterator(expected.begin(), expected.end(), rule);
           it != std::sregex_iterator(); ++it) {
        want.insert(it->str());
      }
      EXPECT_EQ(Broken(report), want) << name << "\n" << run.out;
    }
    Result<EvidenceSummary> evidence = ReadEvidence(out);
    ASSERT_TRUE(evidence.ok()) << name << ": " << evidence.status().message();
    EXPECT_TRUE(evidence->complete) << name;
    for (uid_t uid : SlotWorkerUids(0)) {
      EXPECT_TRUE(ProcessesOfUser(uid).empty()) << name << " left a process of uid " << uid;
    }
  }
}

// Two `ratchet score` started at once, the first with CUDA_VISIBLE_DEVICES=`devices[0]`, the
// second with `devices[1]`: both must score to the end. Each one's slot and the span of its
// workers' clocks.
struct SideBySide {
  BinaryRun runs[2];
  int64_t slots[2] = {-1, -1};
  std::pair<int64_t, int64_t> spans[2];
};
void ScoreTwoAtOnce(const TempDir& dir, const std::string devices[2], SideBySide* out) {
  const std::string rules = FastRules(dir);
  auto score = [&](int i) {
    out->runs[i] = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                               "3000", "--rules", rules, "--out",
                               dir / ("side-" + std::to_string(i))},
                              {"CUDA_VISIBLE_DEVICES=" + devices[i]});
  };
  std::thread second(score, 1);
  score(0);
  second.join();
  for (int i = 0; i < 2; ++i) {
    const std::string folder = dir / ("side-" + std::to_string(i));
    ASSERT_TRUE(ScoredToTheEnd(out->runs[i], folder)) << i;
    EXPECT_EQ(out->runs[i].exit_code, 0) << out->runs[i].out << out->runs[i].err;
    const Json contract = Json::parse(*ReadFile(folder + "/contract.json"));
    const int64_t slot = contract["observed"].value("sandbox_slot", int64_t{-1});
    out->slots[i] = slot;
    const std::vector<uid_t> own = SlotWorkerUids(static_cast<int>(slot));
    const Json calls = Json::parse(*ReadFile(folder + "/records/ncm/run-1/calls.json"));
    int64_t first = INT64_MAX, last = 0;
    for (const Json& call : calls) {
      const uid_t uid = call["worker"]["sandbox"]["uid"].get<uid_t>();
      EXPECT_NE(std::find(own.begin(), own.end(), uid), own.end())
          << "scorer " << i << " (slot " << slot << ") ran a worker as uid " << uid;
      first = std::min(first, call["worker"]["clock_ns"]["main"].get<int64_t>());
      last = std::max(last, call["worker"]["clock_ns"]["replying"].get<int64_t>());
    }
    out->spans[i] = {first, last};
  }
  for (int slot = 0; slot < 2; ++slot) {
    for (uid_t uid : SlotWorkerUids(slot)) EXPECT_TRUE(ProcessesOfUser(uid).empty()) << uid;
  }
}

// Two scorers side by side on one host, each on a device of its own (as `ratchet run --devices`
// will start them, one per GPU): each takes a sandbox slot of its own, so that their workers run
// at the same time, each as a uid of its own slot, and neither reaps, freezes or kills the
// other's. Both score to the end.
TEST(ScoreCommandTest, TwoScorersOnTwoDevicesEachKeepToTheirOwnSlot) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "slots are the full sandbox's: run as root";
  TempDir dir;
  const std::string devices[2] = {"0", "1"};
  SideBySide side;
  ScoreTwoAtOnce(dir, devices, &side);
  EXPECT_EQ(std::set<int64_t>(std::begin(side.slots), std::end(side.slots)),
            (std::set<int64_t>{0, 1}));
  // They ran at once: neither waited for the other.
  EXPECT_LT(std::max(side.spans[0].first, side.spans[1].first),
            std::min(side.spans[0].second, side.spans[1].second));
}

// Two scorers on one device take turns: the second waits for the device's lock, says so, and
// neither's workers run while the other's do (each would disturb the other's times).
TEST(ScoreCommandTest, TwoScorersOnOneDeviceTakeTurns) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "the device's lock is taken as root";
  TempDir dir;
  const std::string devices[2] = {"0", "0"};
  SideBySide side;
  ScoreTwoAtOnce(dir, devices, &side);
  EXPECT_TRUE(side.spans[0].second < side.spans[1].first ||
              side.spans[1].second < side.spans[0].first)
      << "the workers of two scorers on one device ran at the same time";
  EXPECT_NE((side.runs[0].err + side.runs[1].err).find("ratchet-device-0.lock; waiting for it"), std::string::npos)
      << side.runs[0].err << side.runs[1].err;
}

TEST(ScoreCommandTest, BadUsageExitsTwo) {
  TempDir dir;
  const std::string ncm = SourceDir() + "/baselines/submissions/ncm.py";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  ASSERT_EQ(mkdir((dir / "taken").c_str(), 0755), 0);
  for (const Case& c : std::vector<Case>{
           {{"score"}, "name a method file"},
           {{"score", dir / "absent.py"}, "no method file at"},
           {{"score", ncm, "--difficulty", "1", "--band", "540"}, "not both"},
           {{"score", ncm, "--band", "0"}, "--band must be"},
           {{"score", ncm, "--difficulty", "9"}, "difficulty"},
           {{"score", ncm, "--runs", "x"}, "--runs must be"},
           {{"score", ncm, "--out", dir / "taken"}, "already exists"},
       }) {
    if (c.message == "already exists" && !HavePython()) continue;
    BinaryRun run = RunRatchet(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.message << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  }
  // A pairing the environment names that ratchet does not know: nothing is written.
  BinaryRun run =
      RunRatchet({"score", ncm, "--out", dir / "unwritten"}, {"RATCHET_PAIR_WARMUPS=sometimes"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("RATCHET_PAIR_WARMUPS is \"sometimes\""), std::string::npos) << run.err;
  EXPECT_FALSE(PathExists(dir / "unwritten"));
}

// A name that could print a forged line, or that the evidence could not keep, is refused before
// any evidence exists, and the error shows it as text: exit 2, the rule named, no folder.
TEST(ScoreCommandTest, ANameThatIsNotPlainIsRefusedBeforeAnyEvidence) {
  TempDir dir;
  const std::string method = "def method(train_x, train_y, test_x):\n    return test_x[:, 0]\n";
  struct Case {
    std::string file, function, shown, rule;
  };
  for (const Case& c : std::vector<Case>{
           {"x.py\nqualified: MNIST 99.99%.py", "", "\"x.py\\nqualified: MNIST 99.99%.py\"",
            "not a plain name"},
           {".hidden.py", "", "\".hidden.py\"", "not a plain name"},
           {"bell\a.py", "", "\"bell\\u0007.py\"", "not a plain name"},
           {"ok.py", "method\nqualified: MNIST 99.99%", "\"method\\nqualified: MNIST 99.99%\"",
            "not an identifier"},
           {"ok.py", "9lives", "\"9lives\"", "not an identifier"},
       }) {
    const std::string path = dir / c.file;
    ASSERT_TRUE(WriteFileAtomic(path, method).ok());
    const std::string out = dir / "evidence";
    BinaryRun run = RunRatchet({"score", c.function.empty() ? path : path + ":" + c.function,
                                "--band", "2000", "--out", out});
    EXPECT_EQ(run.exit_code, 2) << c.shown << "\n" << run.err;
    EXPECT_NE(run.err.find(c.shown), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(c.rule), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("\nqualified"), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
    EXPECT_FALSE(PathExists(out)) << c.shown;
  }
}

// The workers of the next calls start while a call runs, each as a uid of its own, and are
// frozen during its windows. The red-team method looks for them from inside its warm-up and
// its timed call: it must find them, reach none, and see each stopped while it is timed.
TEST(ScoreCommandTest, WorkersOfLaterCallsStartAheadFrozenAndOutOfReach) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string out = dir / "evidence";
  BinaryRun run =
      RunRatchet({"score", SourceDir() + "/tests/submissions/reach_other_workers.py:method",
                  "--band", "3000", "--rules", FastRules(dir), "--out", out});
  ASSERT_TRUE(ScoredToTheEnd(run, out));
  const std::string folder = out + "/records/reach_other_workers/run-1";
  Json calls = Json::parse(*ReadFile(folder + "/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  const bool full = geteuid() == 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Json& call = calls[i];
    // A Python worker's start runs four calls ahead, while there are calls to come.
    EXPECT_EQ(call["phases"]["frozen_ahead"], std::min<size_t>(4, calls.size() - 1 - i)) << i;
    // On the CPU the parent writes the inputs alone, through the caches (a GPU's copy threads
    // stream).
    EXPECT_EQ(call["phases"]["write_threads"], 1) << i;
    EXPECT_EQ(call["phases"]["write_stores"], "cached") << i;
    if (i > 0) {
      EXPECT_LT(call["phases"]["steps"]["spawned"].get<double>(), 0)
          << "call " << i + 1 << "'s worker was not started during an earlier call";
    }
    if (full) {
      EXPECT_EQ(call["worker"]["sandbox"]["uid"], SlotWorkerUids(0)[i % kWorkerUidCount]) << i;
    }
  }
  if (!full) return;  // without root the workers share ratchet's uid: nothing is out of reach
  Result<std::string> first = ReadFile(folder + "/logs/01.log");
  ASSERT_TRUE(first.ok()) << first.status().message();
  // Each worker is the first process of a PID namespace of its own: the workers started ahead
  // (frozen_ahead above) are not even in its /proc.
  EXPECT_NE(first->find("call 2: 0 other workers, none reachable, thread states []"),
            std::string::npos)
      << *first;
}

// A call's worker is stopped after its timed call and killed after the next call's calibration.
// The red-team method starts a thread and a child that print the clock from its timed call on:
// each call's last tick comes after its timed call began and before the next call's calibration,
// and nothing of any call's method is left once the run ends.
TEST(ScoreCommandTest, AMethodRunsNothingDuringTheNextCalibration) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "under a partial sandbox each worker is killed at once";
  TempDir dir;
  const std::string out = dir / "evidence";
  // The order of single calls (pairs are made only when asked; they have tests of their own).
  BinaryRun run = RunRatchet({"score", SourceDir() + "/tests/submissions/outlive_call.py:method",
                              "--band", "3000", "--rules", FastRules(dir), "--out", out},
                             {"RATCHET_PAIR_WARMUPS=never"});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  const std::string folder = out + "/records/outlive_call/run-1";
  Json calls = Json::parse(*ReadFile(folder + "/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  auto at_ns = [&calls](size_t i, const std::string& step) { return StepAtNs(calls, i, step); };
  for (size_t i = 0; i < calls.size(); ++i) {
    std::string log;
    const std::map<std::string, double> last = LastTicks(folder, i + 1, &log);
    ASSERT_EQ(last.size(), 2u) << "call " << i + 1 << " printed no ticks of both:\n" << log;
    const Json& steps = calls[i]["phases"]["steps"];
    EXPECT_TRUE(steps.contains("killed") && steps.contains("closed")) << steps.dump();
    EXPECT_EQ(steps.contains("stopped"), i + 1 < calls.size())
        << "every call's worker but the last is stopped, the last killed at once";
    for (const auto& [who, ns] : last) {
      EXPECT_GT(ns, at_ns(i, "primed")) << who << " of call " << i + 1;
      if (i + 1 < calls.size()) {
        EXPECT_LT(ns, at_ns(i + 1, "froze"))
            << who << " of call " << i + 1 << " ran on into call " << i + 2
            << "'s calibration; steps " << calls[i + 1]["phases"]["steps"].dump();
      }
    }
    const std::string waited =
        calls[i]["phases"].value("previous", Json::object()).value("waited", "");
    EXPECT_EQ(waited.find("not stopped"), std::string::npos)
        << "call " << i << "'s worker was not stopped after its call: " << waited;
    if (i > 0) {  // the last call's worker killed before this method loaded, gone before priming
      const Json& previous_steps = calls[i - 1]["phases"]["steps"];
      EXPECT_LT(at_ns(i - 1, "killed"), at_ns(i, "loaded")) << previous_steps.dump();
      EXPECT_LT(at_ns(i - 1, "closed"), at_ns(i, "refroze")) << previous_steps.dump();
    }
  }
  for (uid_t uid : SlotWorkerUids(0)) {
    EXPECT_TRUE(ProcessesOfUser(uid).empty()) << "a process of uid " << uid << " was left";
  }
}

// Warm-ups in pairs, made at every call that can lead one (RATCHET_PAIR_WARMUPS=always; by
// default only on a GPU): of the fast rules' four calls, call 2 calibrates call 3's worker after
// its own, both warm up side by side, and call 3 goes on from its priming; call 2's worker stays
// stopped through call 3's priming and timed call, and both are killed after call 4's
// calibration; every call keeps its own uid, and the evidence stands under `ratchet audit`.
TEST(ScoreCommandTest, TwoCallsWarmUpSideBySideAndAreTimedEachAlone) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "warm-ups are paired only under the full sandbox";
  TempDir dir;
  const std::string out = dir / "evidence";
  const std::string rules = FastRules(dir);
  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                              "3000", "--rules", rules, "--out", out},
                             {"RATCHET_PAIR_WARMUPS=always"});
  ASSERT_TRUE(ScoredToTheEnd(run, out));
  Json calls = Json::parse(*ReadFile(out + "/records/ncm/run-1/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  auto at_ns = [&calls](size_t i, const std::string& step) { return StepAtNs(calls, i, step); };
  const Json no_pair;
  EXPECT_EQ(calls[0]["phases"].value("paired_with", no_pair), no_pair);
  EXPECT_EQ(calls[1]["phases"].value("paired_with", no_pair), 3);
  EXPECT_EQ(calls[2]["phases"].value("paired_with", no_pair), 2);
  EXPECT_EQ(calls[3]["phases"].value("paired_with", no_pair), no_pair);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i]["worker"]["sandbox"]["uid"], SlotWorkerUids(0)[i % kWorkerUidCount]) << i;
    EXPECT_FALSE(calls[i]["phases"].contains("restarted_because")) << i;
  }
  // Call 3's worker: calibrated after call 2's calibration and before call 2's method was
  // loaded, warmed up before call 2's priming, stopped through call 2's priming and timed call.
  EXPECT_GT(at_ns(2, "calibrated"), at_ns(1, "calibrated"));
  EXPECT_LT(at_ns(2, "calibrated"), at_ns(1, "loaded"));
  EXPECT_LT(at_ns(2, "warmed"), at_ns(1, "refroze"));
  EXPECT_GT(at_ns(2, "thawed"), at_ns(1, "stopped"));
  EXPECT_LT(at_ns(2, "thawed"), at_ns(2, "primed"));
  EXPECT_FALSE(calls[2]["phases"]["steps"].contains("froze"))
      << "call 3 made no calibration of its own";
  // Every worker but the last call's was stopped after its timed call. Call 2's stayed stopped
  // through call 3's priming and timed call; both were killed once call 4's calibration had
  // begun (after it, or, when it was slower than the clean ones, before it was made again) and
  // were gone before call 4's priming.
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i]["phases"]["steps"].contains("stopped"), i + 1 < calls.size()) << i;
  }
  EXPECT_GT(at_ns(1, "killed"), at_ns(2, "timed"));
  for (size_t i : {1, 2}) {
    EXPECT_GT(at_ns(i, "killed"), at_ns(3, "froze")) << i;
    EXPECT_LT(at_ns(i, "closed"), at_ns(3, "refroze")) << i;
  }
  // Stopped during call 2's timed call with the worker of call 4 started ahead.
  EXPECT_EQ(calls[1]["phases"]["frozen_ahead"], 2);
  BinaryRun audit = RunRatchet({"audit", out, "--rules", rules});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_NE(audit.out.find("the claim stands"), std::string::npos) << audit.out;
  for (uid_t uid : SlotWorkerUids(0)) {
    EXPECT_TRUE(ProcessesOfUser(uid).empty()) << "a process of uid " << uid << " was left";
  }
}

// The red-team method of WorkersOfLaterCallsStartAheadFrozenAndOutOfReach, with warm-ups in
// pairs: it reaches no other worker from its warm-up (beside its pair's) or its timed call, and
// finds every other worker stopped when it is timed: the joined one stopped through the
// leading call's priming and timed call.
TEST(ScoreCommandTest, AJoinedWorkerIsOutOfReachAndStoppedWhileTheOtherIsTimed) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "warm-ups are paired only under the full sandbox";
  TempDir dir;
  const std::string out = dir / "evidence";
  BinaryRun run =
      RunRatchet({"score", SourceDir() + "/tests/submissions/reach_other_workers.py:method",
                  "--band", "3000", "--rules", FastRules(dir), "--out", out},
                 {"RATCHET_PAIR_WARMUPS=always"});
  ASSERT_TRUE(ScoredToTheEnd(run, out));
  Json calls = Json::parse(*ReadFile(out + "/records/reach_other_workers/run-1/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[1]["phases"].value("paired_with", Json()), 3);
  Result<std::string> second = ReadFile(out + "/records/reach_other_workers/run-1/logs/02.log");
  ASSERT_TRUE(second.ok()) << second.status().message();
  // In call 2's timed call, call 3's worker (its method warmed up) and call 4's are alive and
  // stopped, and out of sight: every worker has a PID namespace of its own.
  EXPECT_NE(second->find("call 2: 0 other workers, none reachable, thread states []"),
            std::string::npos)
      << *second;
  // In call 3's timed call: call 2's worker, still there and stopped, and call 4's: unseen.
  Result<std::string> third = ReadFile(out + "/records/reach_other_workers/run-1/logs/03.log");
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_NE(third->find("call 2: 0 other workers, none reachable, thread states []"),
            std::string::npos)
      << *third;
}

// With warm-ups in pairs, a method's thread and child that print the clock from its timed call
// on stop with its worker: the leading call's before the joined call is thawed (its priming and
// timed call come after), the joined call's before the next call's calibration.
TEST(ScoreCommandTest, APairsMethodsRunNothingBesideTheOtherCallsWindows) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "warm-ups are paired only under the full sandbox";
  TempDir dir;
  const std::string out = dir / "evidence";
  BinaryRun run = RunRatchet({"score", SourceDir() + "/tests/submissions/outlive_call.py:method",
                              "--band", "3000", "--rules", FastRules(dir), "--out", out},
                             {"RATCHET_PAIR_WARMUPS=always"});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  const std::string folder = out + "/records/outlive_call/run-1";
  Json calls = Json::parse(*ReadFile(folder + "/calls.json"));
  ASSERT_EQ(calls.size(), 4u);
  ASSERT_EQ(calls[1]["phases"].value("paired_with", Json()), 3);
  auto at_ns = [&calls](size_t i, const std::string& step) { return StepAtNs(calls, i, step); };
  // Each call's thread and child tick until its worker is stopped; what must come after.
  const std::pair<size_t, double> until[] = {{1, at_ns(2, "thawed")}, {2, at_ns(3, "froze")}};
  for (const auto& [i, limit] : until) {
    std::string log;
    const std::map<std::string, double> last = LastTicks(folder, i + 1, &log);
    ASSERT_EQ(last.size(), 2u) << "call " << i + 1 << " printed no ticks of both:\n" << log;
    for (const auto& [who, ns] : last) {
      EXPECT_GT(ns, at_ns(i, "primed")) << who << " of call " << i + 1;
      EXPECT_LT(ns, limit) << who << " of call " << i + 1 << " ran on beside the next window";
    }
  }
  for (uid_t uid : SlotWorkerUids(0)) {
    EXPECT_TRUE(ProcessesOfUser(uid).empty()) << "a process of uid " << uid << " was left";
  }
}

}  // namespace
}  // namespace ratchet

namespace ratchet {
namespace {

// SIGINT during a run: the call in flight ends, the evidence is finalized as interrupted (no
// seed revealed, never complete) and the exit code is 130.
TEST(ScoreCommandTest, AnInterruptedRunIsFinalizedAsInterrupted) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string out = dir / "evidence";
  const std::string log = dir / "score.log";
  const std::string rules = FastRules(dir);
  const std::string binary = RatchetBinary();
  const std::string ncm = SourceDir() + "/baselines/submissions/ncm.py";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(binary.c_str(), binary.c_str(), "score", ncm.c_str(), "--band", "3000", "--rules",
          rules.c_str(), "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  bool started = false;
  for (int i = 0; i < 1200 && !started; ++i) {
    usleep(100000);
    Result<std::string> text = ReadFile(log);
    started = text.ok() && text->find("call  1/") != std::string::npos;
  }
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(started) << *ReadFile(log);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << *ReadFile(log);
  Result<EvidenceSummary> evidence = ReadEvidence(out);
  ASSERT_TRUE(evidence.ok()) << evidence.status().message();
  EXPECT_EQ(evidence->status, "interrupted");
  EXPECT_FALSE(evidence->complete);
  EXPECT_FALSE(PathExists(out + "/seed.reveal"));
  EXPECT_TRUE(ProcessesOfUser(65534).empty());
}

// A scorer killed while it wrote its evidence (SIGKILL, power loss) leaves the hidden partial
// folder. The next `ratchet score` into the same folder removes it before its scorer begins and
// says so; it keeps a partial folder that a live process is still writing, finished evidence,
// and every other file beside it.
TEST(ScoreCommandTest, TheNextScoreRemovesThePartialFolderOfAKilledRun) {
  TempDir dir;
  const std::string out = dir / "ev";
  // The evidence of a run into `out` whose process was killed before it finished.
  const pid_t killed = fork();
  ASSERT_GE(killed, 0);
  if (killed == 0) {
    Result<FreshDirectory> fresh = FreshDirectory::Begin(out);
    if (fresh.ok() && fresh->WriteFile("seed.commit", "a run that was killed").ok()) {
      raise(SIGKILL);
    }
    _exit(1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(killed, &status, 0), killed);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::string left;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind(".ev.partial-", 0) == 0) {
      left = entry.path().filename().string();
    }
  }
  ASSERT_FALSE(left.empty());
  Result<FreshDirectory> live = FreshDirectory::Begin(dir / "written-now");
  ASSERT_TRUE(live.ok());
  ASSERT_EQ(mkdir((dir / "finished").c_str(), 0700), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "finished/MANIFEST.json", "{}").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / ".notes", "mine").ok());

  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                              "3000", "--rules", FastRules(dir), "--out", out});
  // The first line of its output, before anything of the scorer's.
  EXPECT_EQ(run.out.rfind("removed " + left + " in " + dir.path() +
                              ": a partial folder left by a process that was killed before it "
                              "finished\n",
                          0),
            0u)
      << run.out << run.err;
  EXPECT_FALSE(PathExists(dir / left));
  EXPECT_TRUE(PathExists(live->partial_path()));
  EXPECT_TRUE(PathExists(dir / "finished/MANIFEST.json"));
  EXPECT_TRUE(PathExists(dir / ".notes"));
  if (HavePython()) {
    EXPECT_TRUE(ScoredToTheEnd(run, out));
  }
}

}  // namespace
}  // namespace ratchet

namespace ratchet {
namespace {

// A folder of stand-in workers in `dir`: `worker_py` as worker.py beside the real
// check_source.py. Returns the environment entry that points ratchet at it.
std::string StandInWorkers(const TempDir& dir, const std::string& worker_py) {
  const std::string workers = dir / "workers";
  EXPECT_EQ(mkdir(workers.c_str(), 0755), 0);
  Result<std::string> checker = ReadFile(SourceDir() + "/runner/worker/check_source.py");
  EXPECT_TRUE(checker.ok());
  EXPECT_TRUE(WriteFileAtomic(workers + "/check_source.py", checker.ok() ? *checker : "").ok());
  EXPECT_TRUE(WriteFileAtomic(workers + "/worker.py", worker_py).ok());
  return "RATCHET_WORKER_DIR=" + workers;
}

// worker.py as the checkout has it.
std::string RealWorker() {
  Result<std::string> worker = ReadFile(SourceDir() + "/runner/worker/worker.py");
  EXPECT_TRUE(worker.ok());
  return worker.ok() ? *worker : "";
}

// A worker that cannot start is the harness's failure, not the method's: exit 3, the evidence
// finalized as failed, and the call that was attempted kept with the worker's output.
TEST(ScoreCommandTest, AWorkerThatCannotStartFailsTheRunAndKeepsItsEvidence) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string env =
      StandInWorkers(dir, "import sys\nprint('this worker gives up')\nsys.exit(3)\n");
  const std::string out = dir / "evidence";
  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--rules",
                              FastRules(dir), "--out", out},
                             {env});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find("the harness could not run call 1"), std::string::npos) << run.err;
  Result<EvidenceSummary> evidence = ReadEvidence(out);
  ASSERT_TRUE(evidence.ok()) << evidence.status().message();
  EXPECT_EQ(evidence->status, "failed");
  EXPECT_FALSE(evidence->complete);
  Json judge = Json::parse(*ReadFile(out + "/records/ncm/run-1/judge.json"));
  EXPECT_NE(judge["harness_failure"].get<std::string>().find("this worker gives up"),
            std::string::npos);
  EXPECT_EQ(Json::parse(*ReadFile(out + "/records/ncm/run-1/calls.json")).size(), 1u);
  // The contract came before the run's files, although no worker answered with its facts.
  struct stat contract {
  }, calls{};
  ASSERT_EQ(stat((out + "/contract.json").c_str(), &contract), 0);
  ASSERT_EQ(stat((out + "/records/ncm/run-1/calls.json").c_str(), &calls), 0);
  EXPECT_LE(std::make_pair(contract.st_mtim.tv_sec, contract.st_mtim.tv_nsec),
            std::make_pair(calls.st_mtim.tv_sec, calls.st_mtim.tv_nsec));
}

// A worker started ahead that fails its hello is started again when its call comes, and only a
// second failure is the run's, the harness's. This stand-in worker fails every start of call 2's
// worker (uid 65533). (The restart after a first failure alone, which a worker inside its PID
// namespace cannot provoke by watching another, is tested with fake workers in
// run_loop_test.cc.)
class WorkerStartedAheadTest : public ::testing::Test {
 protected:
  // ncm.py scored under the fast rules with the stand-in worker; the evidence goes to `out_`.
  BinaryRun Score() {
    const std::string prelude =
        "import os, sys\n"
        "if os.getuid() == 65533:\n"
        "    print('this worker gives up: it was started while call 1 ran')\n"
        "    sys.exit(3)\n";
    out_ = dir_ / "evidence";
    return RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band", "3000",
                       "--rules", FastRules(dir_), "--out", out_},
                      {StandInWorkers(dir_, prelude + RealWorker())});
  }

  TempDir dir_;
  std::string out_;
};

TEST_F(WorkerStartedAheadTest, OnlyASecondFailureIsTheHarnesss) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  if (geteuid() != 0) GTEST_SKIP() << "workers are started ahead only under the full sandbox";
  BinaryRun run = Score();
  const std::string& out = out_;
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find("the harness could not run call 2"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("started again: the worker started ahead had failed too"),
            std::string::npos)
      << run.err;
  Result<EvidenceSummary> evidence = ReadEvidence(out);
  ASSERT_TRUE(evidence.ok()) << evidence.status().message();
  EXPECT_EQ(evidence->status, "failed");
  // Call 1 is kept; call 2 is kept as attempted, with the stand-in's words.
  Json calls = Json::parse(*ReadFile(out + "/records/ncm/run-1/calls.json"));
  ASSERT_EQ(calls.size(), 2u);
}

}  // namespace
}  // namespace ratchet

namespace ratchet {
namespace {

// The parent's clock of a call stops at the reply's last byte, whatever the worker writes first:
// this stand-in worker (worker.py with its send replaced) answers each go of the method with the
// reply's header and JSON at once, then holds the labels back for 300 ms. Every timed call's
// parent_ms holds those 300 ms, and the ranked time, floored by the parent's clock, too (the
// fast rules' timing slack is too wide for a timing rule to break).
TEST(ScoreCommandTest, TheParentsClockRunsUntilTheRepliesLastByte) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string worker = RealWorker();
  const size_t at = worker.rfind("\nif __name__ == \"__main__\":");
  ASSERT_NE(at, std::string::npos);
  const std::string late_labels =
      "\n_send, _go, _late = send, Worker.go, [False]\n"
      "def _go_late(self, command):\n"
      "    _late[0] = not command.get('null', False)\n"
      "    return _go(self, command)\n"
      "def send(reply, payload=b''):\n"
      "    if not (_late[0] and payload):\n"
      "        return _send(reply, payload)\n"
      "    _late[0] = False\n"
      "    body = json.dumps(reply).encode('utf-8')\n"
      "    os.write(REPLY_FD, HEADER.pack(MAGIC, len(body), len(payload)) + body)\n"
      "    time.sleep(0.3)\n"
      "    data = memoryview(bytes(payload))\n"
      "    while data:\n"
      "        data = data[os.write(REPLY_FD, data):]\n"
      "Worker.go = _go_late\n";
  const std::string env =
      StandInWorkers(dir, worker.substr(0, at) + late_labels + worker.substr(at));
  const std::string out = dir / "evidence";
  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                              "3000", "--rules", FastRules(dir), "--out", out},
                             {env});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  Json calls = Json::parse(*ReadFile(out + "/records/ncm/run-1/calls.json"));
  ASSERT_GT(calls.size(), 0u);
  for (const Json& call : calls) {
    EXPECT_GE(call["parent_ms"].get<double>(), call["ms"].get<double>() + 300) << call.dump();
    // reply_read, the read from the reply's header to its last byte, holds the wait; the
    // calibration's empty calls, whose labels were not held back, have its median too.
    const Json& phases = call["phases"];
    EXPECT_GE(phases["timed"].value("reply_read", 0.0), 290) << phases.dump();
    ASSERT_TRUE(phases["calibration"].contains("reply_read")) << phases.dump();
    EXPECT_GE(phases["calibration"]["reply_read"].get<double>(), 0) << phases.dump();
    EXPECT_LT(phases["calibration"]["reply_read"].get<double>(), 100) << phases.dump();
  }
  // The ranked time is floored by the parent's clock: the held-back labels count against it.
  Json judge = Json::parse(*ReadFile(out + "/records/ncm/run-1/judge.json"));
  EXPECT_GE(judge["ranked_ms"].get<double>(), 290) << judge.dump();
}

}  // namespace
}  // namespace ratchet
