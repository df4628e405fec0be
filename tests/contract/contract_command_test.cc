// `ratchet contract` as a user runs it: the built binary, its output and its exit codes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "contract/contract.h"
#include "contract/source_sha256.h"
#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "core/version.h"
#include "rules/rule_set.h"
#include "sandbox/policy.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

struct CommandRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class ContractCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* binary = std::getenv("RATCHET_BINARY");
    ASSERT_NE(binary, nullptr) << "RATCHET_BINARY is not set";
    binary_ = binary;
    char folder[] = "/tmp/ratchet-contract-test-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    folder_ = folder;
  }
  void TearDown() override {
    if (!folder_.empty()) std::system(("rm -rf '" + folder_ + "'").c_str());
  }

  // Runs `ratchet contract ARGS...`, its output captured in files (no pipe to fill up).
  CommandRun Contract(std::vector<std::string> args) {
    args.insert(args.begin(), {binary_, "contract"});
    const std::string out_path = folder_ + "/stdout", err_path = folder_ + "/stderr";
    pid_t pid = fork();
    if (pid == 0) {
      int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(125);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(126);
    }
    CommandRun run;
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = ReadFile(out_path).ok() ? *ReadFile(out_path) : "";
    run.err = ReadFile(err_path).ok() ? *ReadFile(err_path) : "";
    return run;
  }

  Json ContractJson() {
    CommandRun run = Contract({"--json"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    Result<Json> parsed = ParseJson(run.out, "ratchet contract --json");
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (parsed.ok()) {
      EXPECT_EQ(run.out, parsed->dump(2) + "\n") << "not 2-space indented with sorted keys";
    }
    return parsed.ok() ? *parsed : Json::object();
  }

  std::string binary_;
  std::string folder_;
};

std::string Sha256Of(const std::string& path) {
  Result<std::string> digest = Sha256File(path);
  EXPECT_TRUE(digest.ok()) << digest.status().ToString();
  return digest.ok() ? *digest : "";
}

bool IsHex(const Json& value, size_t length) {
  if (!value.is_string()) return false;
  const std::string text = value;
  return text.size() == length && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST_F(ContractCommand, JsonHasTheDocumentedShape) {
  Json contract = ContractJson();
  EXPECT_EQ(contract["schema"], "ratchet.contract/2");
  const Json& scorer = contract["locked"]["scorer"];
  EXPECT_EQ(scorer["name"], "ratchet-scorer");
  EXPECT_EQ(scorer["version"], kRatchetVersion);
  EXPECT_TRUE(IsHex(scorer["source_sha256"], 64)) << scorer;
  EXPECT_EQ(scorer["source_sha256"], ScorerSourceSha256());
  // The tool that asked is observed, with a hash of its own sources, never locked.
  const Json& tool = contract["observed"]["tool"];
  EXPECT_EQ(tool["name"], "ratchet");
  EXPECT_EQ(tool["version"], kRatchetVersion);
  EXPECT_TRUE(IsHex(tool["source_sha256"], 64)) << tool;
  EXPECT_NE(tool["source_sha256"], scorer["source_sha256"]);
  // The default rule set: ratchet's own, the newest compiled in.
  EXPECT_EQ(contract["locked"]["rules"]["id"], "mnist-a100/1.5.0");
  EXPECT_EQ(contract["locked"]["rules"]["sha256"], LoadRuleSet(std::nullopt)->sha256);
  for (const char* name : {"mnist", "fashion", "kmnist"}) {
    const Json& dataset = contract["locked"]["datasets"][name];
    EXPECT_TRUE(dataset.is_null() ||
                (IsHex(dataset["images_sha256"], 64) && IsHex(dataset["labels_sha256"], 64)))
        << name << ": " << dataset;
  }
  // The worker files the scorer runs: in the checkout the binary was built in, unless
  // $RATCHET_WORKER_DIR names another folder; null where there is none.
  const char* worker_dir = std::getenv("RATCHET_WORKER_DIR");
  const std::string workers = worker_dir != nullptr && *worker_dir != '\0'
                                  ? worker_dir
                                  : DirName(binary_) + "/../runner/worker";
  EXPECT_EQ(contract["locked"]["workers"].size(), 2u) << contract["locked"]["workers"];
  for (const char* name : {"worker.py", "check_source.py"}) {
    const std::string path = workers + "/" + name;
    EXPECT_EQ(contract["locked"]["workers"][name],
              PathExists(path) ? Json(Sha256Of(path)) : Json(nullptr))
        << path;
  }
  EXPECT_EQ(contract["locked"]["sandbox"],
            Json({{"policy_sha256", SandboxPolicySha256()}, {"uid", 65534}}));

  Json lane = contract["lane"];
  ASSERT_TRUE(IsHex(lane["id"], 16)) << lane["id"];
  Result<std::string> id = LaneId(lane);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(lane["id"], *id);
  // The scorer's binary, not the tool's: a rebuilt tool is the same lane.
  EXPECT_EQ(lane["binaries"]["ratchet-scorer"], *Sha256File(DirName(binary_) + "/ratchet-scorer"));
  EXPECT_FALSE(lane["binaries"].contains("ratchet")) << lane["binaries"];
  // The native worker and the libtorch it was built with, read beside the binary.
  const std::string worker = DirName(binary_) + "/ratchet-worker";
  EXPECT_EQ(lane["binaries"]["ratchet-worker"],
            access(worker.c_str(), X_OK) == 0 ? Json(Sha256Of(worker)) : Json(nullptr));
  Json libtorch = nullptr;
  if (Result<std::string> text = ReadFile(DirName(binary_) + "/ratchet-worker.native.json");
      text.ok()) {
    libtorch = (*ParseJson(*text, "native toolchain")).value("libtorch", Json());
  }
  const Json& toolchain = lane["toolchain"];
  EXPECT_EQ(toolchain["libtorch"], libtorch);
  EXPECT_TRUE(toolchain["libraries"].contains("libc.so.6"));
  EXPECT_TRUE(toolchain["libraries"].contains("libcrypto.so.3"));
  // An interpreter is found or not; its two versions and its path come together.
  ASSERT_TRUE(toolchain.contains("python") && toolchain.contains("python_torch")) << toolchain;
  EXPECT_EQ(toolchain["python"].is_string(), toolchain["python_torch"].is_string());
  EXPECT_EQ(toolchain["python"].is_string(), contract["observed"].contains("python_path"));
  EXPECT_TRUE(lane["device"]["kind"] == "cpu" || lane["device"]["kind"] == "cuda");
  EXPECT_TRUE(contract["observed"]["processor"].is_string());
  EXPECT_EQ(contract["observed"]["sandbox"], geteuid() == 0 ? "full" : "partial");
  EXPECT_EQ(contract["observed"].contains("sandbox_note"), geteuid() != 0);
}

// Sets an environment variable (or unsets it, for nullptr) for the life of this object, for the
// ratchet that RunRatchet starts.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value != nullptr ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_.c_str(), old_->c_str(), 1) : unsetenv(name_.c_str()); }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

Json ParsedContract(const BinaryRun& run) {
  EXPECT_EQ(run.exit_code, 0) << run.err;
  Result<Json> parsed = ParseJson(run.out, "ratchet contract --json");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << run.out;
  return parsed.ok() ? *parsed : Json::object();
}

TEST(ContractWorkers, TheWorkerFilesOfRatchetWorkerDirAreLockedByContent) {
  TempDir dir;
  const std::string worker = "# a worker\nprint('ready')\n";
  ASSERT_TRUE(WriteFileAtomic(dir / "worker.py", worker).ok());
  ScopedEnv env("RATCHET_WORKER_DIR", dir.path().c_str());
  Json contract = ParsedContract(RunRatchet({"contract", "--json"}));
  EXPECT_EQ(contract["locked"]["workers"],
            Json({{"worker.py", Sha256Hex(worker)}, {"check_source.py", nullptr}}));

  BinaryRun listing = RunRatchet({"contract"});
  EXPECT_EQ(listing.exit_code, 0) << listing.err;
  EXPECT_NE(listing.out.find("check_source.py absent"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("worker.py       sha256 " + Sha256Hex(worker)), std::string::npos)
      << listing.out;
}

TEST(ContractWorkers, TheNativeWorkerAndItsToolchainAreReadBesideTheBinary) {
  // A copy of ratchet and its scorer in DIR/bin, with nothing else beside them yet.
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "bin").c_str(), 0755), 0);
  for (const char* program : {"ratchet", "ratchet-scorer"}) {
    Result<std::string> bytes = ReadFile(DirName(RatchetBinary()) + "/" + program);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    const std::string copy = dir / (std::string("bin/") + program);
    ASSERT_TRUE(WriteFileAtomic(copy, *bytes).ok());
    ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
  }
  const std::string copy = dir / "bin/ratchet";
  ScopedEnv binary("RATCHET_BINARY", copy.c_str());
  ScopedEnv no_worker_dir("RATCHET_WORKER_DIR", nullptr);

  Json bare = ParsedContract(RunRatchet({"contract", "--json"}));
  EXPECT_TRUE(bare["lane"]["binaries"]["ratchet-worker"].is_null()) << bare["lane"];
  EXPECT_TRUE(bare["lane"]["toolchain"]["libtorch"].is_null()) << bare["lane"];
  EXPECT_EQ(bare["locked"]["workers"],
            Json({{"worker.py", nullptr}, {"check_source.py", nullptr}}));

  // A worker, its toolchain description and DIR/runner/worker/worker.py, as a build leaves them.
  const std::string worker = "#!/bin/sh\nexit 0\n";
  ASSERT_TRUE(WriteFileAtomic(dir / "bin/ratchet-worker", worker).ok());
  ASSERT_EQ(chmod((dir / "bin/ratchet-worker").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "bin/ratchet-worker.native.json",
                              R"({"cxx": "/usr/bin/c++", "flags": [], "libs": [],)"
                              R"( "libtorch": "2.5.1"})")
                  .ok());
  ASSERT_EQ(mkdir((dir / "runner").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir / "runner/worker").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "runner/worker/worker.py", "pass\n").ok());
  Json built = ParsedContract(RunRatchet({"contract", "--json"}));
  EXPECT_EQ(built["lane"]["binaries"]["ratchet-worker"], Sha256Hex(worker));
  EXPECT_EQ(built["lane"]["toolchain"]["libtorch"], "2.5.1");
  EXPECT_EQ(built["locked"]["workers"],
            Json({{"worker.py", Sha256Hex("pass\n")}, {"check_source.py", nullptr}}));
  EXPECT_NE(built["lane"]["id"], bare["lane"]["id"]);

  // A description the build left broken is the harness's failure.
  ASSERT_TRUE(WriteFileAtomic(dir / "bin/ratchet-worker.native.json", "{\"cxx\": ").ok());
  BinaryRun broken = RunRatchet({"contract", "--json"});
  EXPECT_EQ(broken.exit_code, 3) << broken.err;
  EXPECT_NE(broken.err.find("ratchet-worker.native.json"), std::string::npos) << broken.err;
  EXPECT_TRUE(broken.out.empty()) << broken.out;
}

// A stand-in interpreter that answers the probe (sys.executable, the version, torch's version)
// without importing anything.
std::string FakePython(const TempDir& dir, const std::string& name = "python3",
                       const std::string& version = "3.99.1") {
  const std::string path = dir / name;
  EXPECT_TRUE(WriteFileAtomic(path, "#!/bin/sh\necho /opt/fake/bin/" + name + "\necho " + version +
                                        "\necho 9.9.9+fake\n")
                  .ok());
  EXPECT_EQ(chmod(path.c_str(), 0755), 0);
  return path;
}

TEST(ContractPython, TheNamedInterpretersVersionsJoinTheLaneAndItsPathIsObserved) {
  TempDir dir;
  const std::string python = FakePython(dir);
  Json named = ParsedContract(RunRatchet({"contract", "--json", "--python", python}));
  EXPECT_EQ(named["lane"]["toolchain"]["python"], "3.99.1");
  EXPECT_EQ(named["lane"]["toolchain"]["python_torch"], "9.9.9+fake");
  EXPECT_EQ(named["observed"]["python_path"], "/opt/fake/bin/python3");

  // $RATCHET_PYTHON names it as well; the flag wins over the variable.
  ScopedEnv env("RATCHET_PYTHON", python.c_str());
  EXPECT_EQ(ParsedContract(RunRatchet({"contract", "--json"}))["lane"], named["lane"]);
  const std::string other = FakePython(dir, "python3.12", "3.12.7");
  Json flagged = ParsedContract(RunRatchet({"contract", "--json", "--python", other}));
  EXPECT_EQ(flagged["lane"]["toolchain"]["python"], "3.12.7");
  EXPECT_EQ(flagged["observed"]["python_path"], "/opt/fake/bin/python3.12");

  BinaryRun listing = RunRatchet({"contract", "--python", python});
  EXPECT_NE(listing.out.find("3.99.1, torch 9.9.9+fake"), std::string::npos) << listing.out;
}

TEST(ContractPython, ANamedInterpreterThatCannotImportTorchExitsTwo) {
  BinaryRun run = RunRatchet({"contract", "--json", "--python", "/bin/false"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("/bin/false cannot import torch"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;

  ScopedEnv env("RATCHET_PYTHON", "/bin/false");
  run = RunRatchet({"contract", "--json"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("$RATCHET_PYTHON"), std::string::npos) << run.err;
}

TEST(ContractPython, NoInterpreterOnPathIsNullNotAnError) {
  TempDir empty;
  ScopedEnv no_variable("RATCHET_PYTHON", nullptr);
  ScopedEnv path("PATH", empty.path().c_str());
  Json contract = ParsedContract(RunRatchet({"contract", "--json"}));
  const Json& toolchain = contract["lane"]["toolchain"];
  ASSERT_TRUE(toolchain.contains("python") && toolchain.contains("python_torch")) << toolchain;
  EXPECT_TRUE(toolchain["python"].is_null());
  EXPECT_TRUE(toolchain["python_torch"].is_null());
  EXPECT_FALSE(contract["observed"].contains("python_path"));

  // Another interpreter is another lane.
  TempDir dir;
  Json with = ParsedContract(RunRatchet({"contract", "--json", "--python", FakePython(dir)}));
  EXPECT_NE(with["lane"]["id"], contract["lane"]["id"]);
  EXPECT_TRUE(DiffLocked(with, contract).empty());
}

TEST_F(ContractCommand, LaneIdIsStableAcrossRuns) {
  EXPECT_EQ(ContractJson()["lane"], ContractJson()["lane"]);
}

TEST_F(ContractCommand, ListingNamesEachPart) {
  Json contract = ContractJson();
  CommandRun run = Contract({});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const std::string& expected :
       {std::string("scorer        ratchet-scorer"), std::string("mnist-a100/1.5.0"),
        contract["locked"]["scorer"]["source_sha256"].get<std::string>(), std::string("kmnist"),
        std::string("sandbox"), std::string("worker.py"), std::string("check_source.py"),
        "policy      sha256 " + contract["locked"]["sandbox"]["policy_sha256"].get<std::string>(),
        "lane " + contract["lane"]["id"].get<std::string>(), std::string("ratchet-worker"),
        std::string("libtorch"), std::string("python"), std::string("libc.so.6"),
        std::string("device"), std::string("processor")}) {
    EXPECT_NE(run.out.find(expected), std::string::npos) << expected << " in\n" << run.out;
  }
}

TEST_F(ContractCommand, RulesThatDoNotParseExitTwoNamingTheField) {
  Result<Json> rules = ParseJson(EmbeddedRuleSetText(kDefaultRuleSetId), "embedded rules");
  ASSERT_TRUE(rules.ok());
  (*rules)["calls"]["mnist_calls"] = "eleven";
  const std::string path = folder_ + "/rules.json";
  ASSERT_TRUE(WriteFileAtomic(path, rules->dump(2)).ok());
  CommandRun run = Contract({"--rules", path});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("calls.mnist_calls"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST_F(ContractCommand, ARulesFileIsLockedByItsHash) {
  Result<Json> rules = ParseJson(EmbeddedRuleSetText("mnist-a100/1.2.0"), "embedded rules");
  ASSERT_TRUE(rules.ok());
  const std::string path = folder_ + "/rules.json";
  ASSERT_TRUE(WriteFileAtomic(path, rules->dump(4)).ok());
  CommandRun run = Contract({"--json", "--rules", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result<Json> contract = ParseJson(run.out, "ratchet contract --json");
  ASSERT_TRUE(contract.ok());
  EXPECT_EQ((*contract)["locked"]["rules"]["id"], (*rules)["id"]);
  EXPECT_EQ((*contract)["locked"]["rules"]["sha256"], *CanonicalSha256(*rules));
}

// An embedded rule set is named by its id, and locked as its file would be.
TEST_F(ContractCommand, AnEmbeddedRuleSetIsLockedByItsId) {
  CommandRun run = Contract({"--json", "--rules", "mnist-a100/1.2.0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result<Json> contract = ParseJson(run.out, "ratchet contract --json");
  ASSERT_TRUE(contract.ok());
  EXPECT_EQ((*contract)["locked"]["rules"]["id"], "mnist-a100/1.2.0");
  EXPECT_EQ((*contract)["locked"]["rules"]["sha256"],
            *CanonicalSha256(Json::parse(EmbeddedRuleSetText("mnist-a100/1.2.0"))));
  EXPECT_NE((*contract)["locked"]["rules"]["sha256"], LoadRuleSet(std::nullopt)->sha256);
}

TEST_F(ContractCommand, MissingRulesFileExitsTwo) {
  CommandRun run = Contract({"--rules", folder_ + "/no-such-rules.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("no-such-rules.json"), std::string::npos) << run.err;
  // Neither a file nor an embedded id: the message lists the ids.
  run = Contract({"--rules", "mnist-a100/1.6.0"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "ratchet contract: error: rule-set file mnist-a100/1.6.0: no such file; nor is it the "
            "id of an embedded rule set: mnist-a100/1.2.0, mnist-a100/1.3.0, mnist-a100/1.4.0, "
            "mnist-a100/1.5.0\n");
  EXPECT_EQ(run.out, "");
}

TEST_F(ContractCommand, MissingDataFolderExitsTwo) {
  CommandRun run = Contract({"--data", "/nonexistent/ratchet-data"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("/nonexistent/ratchet-data"), std::string::npos) << run.err;
}

// The default rule set as text, with `from` replaced by `to` once.
std::string EmbeddedWith(const std::string& from, const std::string& to) {
  std::string text = EmbeddedRuleSetText(kDefaultRuleSetId);
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ContractRules, ANumberBeyondADoubleExitsTwoNamingTheFile) {
  TempDir dir;
  const std::string path = dir / "r.json";
  ASSERT_TRUE(WriteFileAtomic(path, EmbeddedWith("\"band_bp\": 540", "\"band_bp\": 1e400")).ok());
  BinaryRun run = RunRatchet({"contract", "--rules", path});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("ratchet contract: error: " + path + " is not valid JSON"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(ContractRules, RulesThatAreNotAFileExitTwo) {
  TempDir dir;
  ASSERT_EQ(symlink((dir / "nowhere.json").c_str(), (dir / "dangling.json").c_str()), 0);
  const std::pair<std::string, std::string> cases[] = {
      {dir.path(), dir.path() + " is a folder, not a file"},
      {dir / "dangling.json",
       "is a symlink to " + (dir / "nowhere.json") + ", which does not exist"},
      {dir / "absent.json", dir / "absent.json: no such file"},
  };
  for (const auto& [path, message] : cases) {
    BinaryRun run = RunRatchet({"contract", "--rules", path});
    EXPECT_EQ(run.exit_code, 2) << path << ": " << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << run.err;
  }
}

TEST(ContractRules, RulesWithoutEndExitTwo) {
  BinaryRun run = RunRatchet({"contract", "--rules", "/dev/zero"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  // A device is refused before it is opened (the tool's check of --rules).
  EXPECT_EQ(run.err,
            "ratchet contract: error: --rules /dev/zero is a character device, not a regular "
            "file: ratchet reads only regular files\n");
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "big.json", std::string((1 << 20) + 1, ' ')).ok());
  run = RunRatchet({"contract", "--rules", dir / "big.json"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("big.json is larger than 1 MiB"), std::string::npos) << run.err;
}

TEST(ContractRules, ADatasetNameTheRegistryDoesNotKnowExitsTwo) {
  TempDir dir;
  const std::string path = dir / "r.json";
  ASSERT_TRUE(WriteFileAtomic(path, EmbeddedWith("\"kmnist\"", "\"bogus\"")).ok());
  ASSERT_NE(EmbeddedRuleSetText(kDefaultRuleSetId).find("\"foreign\": [\"fashion\", \"kmnist\"]"),
            std::string::npos)
      << "the embedded rules name fashion then kmnist as hold-out datasets";
  BinaryRun run = RunRatchet({"contract", "--json", "--rules", path});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(path + ": field \"datasets.foreign[1]\": \"bogus\" is not a dataset"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("mnist, fashion, kmnist"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;

  // MNIST's place given to a hold-out dataset.
  std::string text = EmbeddedWith("\"mnist\": \"mnist\"", "\"mnist\": \"fashion\"");
  text.replace(text.find("[\"fashion\", \"kmnist\"]"), 21, "[\"kmnist\"]");
  ASSERT_TRUE(WriteFileAtomic(path, text).ok());
  run = RunRatchet({"contract", "--rules", path});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(
      run.err.find("field \"datasets.mnist\": \"fashion\" is a hold-out dataset, not MNIST itself"),
      std::string::npos)
      << run.err;
}

TEST_F(ContractCommand, UnknownOptionExitsTwo) {
  CommandRun run = Contract({"--bogus"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--bogus"), std::string::npos) << run.err;
  EXPECT_EQ(Contract({"extra"}).exit_code, 2);
}

TEST_F(ContractCommand, HelpListsEveryOption) {
  CommandRun run = Contract({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* option : {"--json", "--data DIR", "--rules ID|FILE", "--python PATH"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << option;
  }
}

// Every command that takes --rules says it takes an id or a file, names the embedded ids, and
// which is the default.
TEST(RulesOptionHelp, NamesTheEmbeddedIdsAndTheDefault) {
  for (const char* command : {"run", "score", "contract", "telemetry", "audit"}) {
    BinaryRun run = RunRatchet({command, "--help"});
    EXPECT_EQ(run.exit_code, 0) << command;
    EXPECT_NE(run.out.find("[--rules ID|FILE]"), std::string::npos) << command << "\n" << run.out;
    for (const RuleSet& rules : *ParsedEmbeddedRuleSets()) {
      EXPECT_NE(run.out.find(rules.id), std::string::npos) << command << ": " << rules.id;
    }
    if (std::string(command) != "audit") {
      EXPECT_NE(run.out.find(std::string(kDefaultRuleSetId) + " (the"), std::string::npos)
          << command << "\n"
          << run.out;
      EXPECT_NE(run.out.find("default: the reference scorer's rules plus a"), std::string::npos)
          << command << "\n"
          << run.out;
    }
  }
}

}  // namespace
}  // namespace ratchet
