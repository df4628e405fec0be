// Black-box tests of the sandbox's view (runner/sandbox/view.h) as a submitter meets it: a copy
// of a dataset left world-readable outside every bound folder, and one inside the checkout,
// cannot be opened by a Python method, by a native method or its static constructor, nor by its
// compile (`.incbin`, `#include`, `__has_include`). And a submission's file name reaches no path
// of the harness. Root only: without root there is no view.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/file.h"
#include "sandbox/policy.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

// A world-readable copy of MNIST's training images in a fresh folder under `parent` (made 0755
// along the way), removed with the object.
class DatasetCopy {
 public:
  explicit DatasetCopy(const std::string& parent) {
    std::filesystem::create_directories(parent);
    std::string pattern = parent + "/ratchet-view-test-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return;
    folder_ = pattern;
    chmod(folder_.c_str(), 0755);
    Result<std::string> images = ReadFile(SourceDir() + "/data/mnist/train-images-idx3-ubyte");
    if (!images.ok()) return;
    path_ = folder_ + "/train-images-idx3-ubyte";
    if (!WriteFileAtomic(path_, images->substr(0, 1 << 20), 0644).ok()) path_.clear();
  }
  ~DatasetCopy() {
    std::error_code ignored;
    if (!folder_.empty()) std::filesystem::remove_all(folder_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string folder_, path_;
};

struct Copies {
  DatasetCopy outside{"/var/lib"};
  DatasetCopy checkout{SourceDir() + "/build"};
  bool ok() const { return !outside.path().empty() && !checkout.path().empty(); }
  std::vector<std::string> paths() const { return {outside.path(), checkout.path()}; }
};

// What the first call's worker printed.
std::string FirstLog(const std::string& out, const std::string& record) {
  Result<std::string> log = ReadFile(out + "/records/" + record + "/run-1/logs/01.log");
  return log.ok() ? *log : "(no log: " + log.status().message() + ")";
}

Json Outcome(const std::string& out, const std::string& record) {
  Result<std::string> text = ReadFile(out + "/report.json");
  if (!text.ok()) return Json();
  return Json::parse(*text)["records"][record]["outcome"];
}

class ViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "the view is built only as root";
    if (!copies_.ok()) GTEST_SKIP() << "no MNIST in " << SourceDir() << "/data to copy";
  }
  // Scores `source` written as `name` and returns the evidence folder.
  std::string Score(const std::string& name, const std::string& source) {
    const std::string file = dir_ / name;
    EXPECT_TRUE(WriteFileAtomic(file, source, 0644).ok());
    const std::string out = dir_ / ("evidence-" + name);
    last_ = RunRatchet({"score", file, "--band", "3000", "--rules", FastRules(dir_), "--out", out});
    return out;
  }
  TempDir dir_;
  Copies copies_;
  BinaryRun last_;
};

TEST_F(ViewTest, APythonMethodCannotOpenADatasetCopy) {
  std::string source = "import sys\nPATHS = [";
  for (const std::string& path : copies_.paths()) source += "'" + path + "', ";
  source +=
      "]\n\ndef method(train_x, train_y, test_x):\n"
      "    import torch\n"
      "    for path in PATHS:\n"
      "        try:\n"
      "            with open(path, 'rb') as f:\n"
      "                print('VIEW opened', path, len(f.read(16)), file=sys.stderr)\n"
      "        except OSError as e:\n"
      "            print('VIEW denied', path, type(e).__name__, file=sys.stderr)\n"
      "    return torch.zeros(test_x.shape[0], dtype=torch.int64)\n";
  const std::string out = Score("reads_copy.py", source);
  const std::string log = FirstLog(out, "reads_copy");
  for (const std::string& path : copies_.paths()) {
    EXPECT_NE(log.find("VIEW denied " + path + " FileNotFoundError"), std::string::npos)
        << log << last_.err;
  }
  EXPECT_EQ(log.find("VIEW opened"), std::string::npos) << log;
}

TEST_F(ViewTest, ANativeMethodAndItsStaticConstructorCannotOpenADatasetCopy) {
  std::string source =
      "#include <ratchet/method.h>\n#include <cstdio>\n#include <cerrno>\n#include <cstring>\n"
      "static const char* kPaths[] = {";
  for (const std::string& path : copies_.paths()) source += "\"" + path + "\", ";
  source +=
      "};\n"
      "static void Try(const char* when) {\n"
      "  for (const char* path : kPaths) {\n"
      "    FILE* f = std::fopen(path, \"rb\");\n"
      "    std::fprintf(stderr, \"VIEW %s %s %s\\n\", when, f ? \"opened\" : \"denied\", path);\n"
      "    if (f) std::fclose(f);\n"
      "  }\n"
      "}\n"
      "static int kAtLoad = (Try(\"constructor\"), 0);\n"
      "torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,\n"
      "                     const torch::Tensor& test_x) {\n"
      "  Try(\"method\");\n"
      "  return torch::zeros({test_x.size(0)}, torch::kInt64);\n"
      "}\n"
      "RATCHET_METHOD(method)\n";
  const std::string out = Score("reads_copy.cpp", source);
  const std::string log = FirstLog(out, "reads_copy");
  for (const std::string& path : copies_.paths()) {
    for (const char* when : {"constructor", "method"}) {
      EXPECT_NE(log.find(std::string("VIEW ") + when + " denied " + path), std::string::npos)
          << log << last_.out << last_.err;
    }
  }
  EXPECT_EQ(log.find("opened"), std::string::npos) << log;
}

// The compile sees the view too: a file it cannot find fails the compile (rule `source`), and
// __has_include says no. The compiler's message names the file, never its bytes.
TEST_F(ViewTest, ACompileCannotReadADatasetCopy) {
  for (const std::string& path : copies_.paths()) {
    const std::string incbin =
        "#include <ratchet/method.h>\n"
        "asm(\".section .rodata\\n.incbin \\\"" +
        path +
        "\\\"\\n.text\\n\");\n"
        "torch::Tensor method(const torch::Tensor& a, const torch::Tensor& b,\n"
        "                     const torch::Tensor& test_x) {\n"
        "  return torch::zeros({test_x.size(0)}, torch::kInt64);\n"
        "}\nRATCHET_METHOD(method)\n";
    std::string out = Score("incbin.cpp", incbin);
    EXPECT_EQ(Outcome(out, "incbin")["broken"], Json::array({"source"})) << last_.out << last_.err;

    const std::string include = "#include \"" + path + "\"\n";
    out = Score("include.cpp", include);
    EXPECT_EQ(Outcome(out, "include")["broken"], Json::array({"source"})) << last_.out << last_.err;

    const std::string has_include =
        "#include <ratchet/method.h>\n"
        "#if __has_include(\"" +
        path +
        "\")\n#error the dataset copy is visible to the compiler\n"
        "#endif\n"
        "torch::Tensor method(const torch::Tensor& a, const torch::Tensor& b,\n"
        "                     const torch::Tensor& test_x) {\n"
        "  return torch::zeros({test_x.size(0)}, torch::kInt64);\n"
        "}\nRATCHET_METHOD(method)\n";
    out = Score("has_include.cpp", has_include);
    const Json broken = Outcome(out, "has_include")["broken"];
    EXPECT_TRUE(broken.is_array() &&
                std::find(broken.begin(), broken.end(), Json("source")) == broken.end())
        << "the compile saw " << path << ": " << last_.out << last_.err;
  }
}

// /sys is bound without the mounts beneath it: the cgroup hierarchies under /sys/fs/cgroup list
// the machine's process ids, every worker's among them.
TEST_F(ViewTest, NoCgroupHierarchyListsTheMachinesProcesses) {
  const std::string probe =
      "import os, sys\n\ndef method(train_x, train_y, test_x):\n"
      "    import torch\n"
      "    found = [os.path.join(d, f) for d, _, fs in os.walk('/sys/fs/cgroup')\n"
      "             for f in fs if f in ('cgroup.procs', 'tasks')]\n"
      "    print('VIEW cgroup process lists', len(found), file=sys.stderr)\n"
      "    return torch.zeros(test_x.shape[0], dtype=torch.int64)\n";
  const std::string out = Score("cgroup_lists.py", probe);
  const std::string log = FirstLog(out, "cgroup_lists");
  EXPECT_NE(log.find("VIEW cgroup process lists 0\n"), std::string::npos) << log << last_.err;
}

// A worker's own folder is a tmpfs of the rule set's sandbox.folder_bytes: what it writes there is
// bounded and never reaches the machine's disk.
TEST_F(ViewTest, TheWorkersFolderIsABoundedTmpfs) {
  const std::string probe =
      "import os, sys\n\ndef method(train_x, train_y, test_x):\n"
      "    import torch\n"
      "    st = os.statvfs(os.getcwd())\n"
      "    print('VIEW folder bytes', st.f_blocks * st.f_frsize, file=sys.stderr)\n"
      "    return torch.zeros(test_x.shape[0], dtype=torch.int64)\n";
  const std::string out = Score("folder_size.py", probe);
  const std::string log = FirstLog(out, "folder_size");
  const int64_t folder_bytes = FastRulesJson()["sandbox"]["folder_bytes"].get<int64_t>();
  EXPECT_NE(log.find("VIEW folder bytes " + std::to_string(folder_bytes) + "\n"), std::string::npos)
      << log << last_.err;
}

// A method file named like a file of the harness replaces nothing: the worker and the source
// checker are ratchet's own, and the method is loaded under its fixed name.
TEST_F(ViewTest, AMethodNamedLikeTheHarnessReplacesNothing) {
  const std::string forged =
      "import sys\n\ndef method(train_x, train_y, test_x):\n"
      "    import torch\n"
      "    print('VIEW loaded as', __name__, __file__, file=sys.stderr)\n"
      "    return torch.zeros(test_x.shape[0], dtype=torch.int64)\n";
  for (const char* name : {"worker.py", "check_source.py"}) {
    const std::string out = Score(name, forged);
    const std::string record = std::string(name).substr(0, std::string(name).size() - 3);
    const std::string log = FirstLog(out, record);
    EXPECT_NE(log.find("VIEW loaded as submission "), std::string::npos) << name << ": " << log;
    EXPECT_NE(log.find("/submission/method.py"), std::string::npos) << name << ": " << log;
  }
}

}  // namespace
}  // namespace ratchet
