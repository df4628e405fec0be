// The interpreter probe and the board facts a scoring session takes from its first worker.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "contract/gather.h"
#include "contract/python.h"
#include "core/file.h"
#include "support/contract_fixtures.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

// A torch package whose import fails loudly, and an interpreter that finds it: the probe's
// answer can only come from reading torch/version.py.
class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mkdir((dir_ / "site").c_str(), 0755), 0);
    ASSERT_EQ(mkdir((dir_ / "site/torch").c_str(), 0755), 0);
    Write("site/torch/__init__.py", "raise SystemExit('torch was imported')\n");
    Write(
        "site/torch/version.py",
        "from typing import Optional\n__version__ = '9.8.7+probe'\ncuda: Optional[str] = '13.0'\n");
    Write("site/torch/_C.so", "");  // its compiled core, as far as the probe looks
    // The probe runs `python -I -c CODE`; isolated mode would hide the folder, so the stand-in
    // passes the code on with the folder on the path instead, and without the site packages
    // (-S), where the machine's own torch may be.
    Write("python3", "#!/bin/sh\nexport PYTHONPATH='" + dir_ / "site" +
                         "'\nshift\nexec /usr/bin/python3 -S \"$@\"\n");
    ASSERT_EQ(chmod((dir_ / "python3").c_str(), 0755), 0);
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  TempDir dir_;
};

TEST_F(ProbeTest, ReadsTorchsVersionWithoutImportingTorch) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  Result<PythonFacts> facts = ProbePython(dir_ / "python3");
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_EQ(facts->torch, "9.8.7+probe");
  EXPECT_EQ(facts->torch_cuda, "13.0");
  EXPECT_EQ(facts->path, "/usr/bin/python3");
  EXPECT_FALSE(facts->version.empty());
}

TEST_F(ProbeTest, ACpuBuildOfTorchHasNoCudaVersion) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  Write("site/torch/version.py", "__version__ = '9.8.7'\ncuda = None\n");
  Result<PythonFacts> facts = ProbePython(dir_ / "python3");
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_EQ(facts->torch, "9.8.7");
  EXPECT_EQ(facts->torch_cuda, "");
}

// A torch folder without a compiled core for this interpreter (another Python's packages on the
// path) is not this interpreter's torch.
TEST_F(ProbeTest, ATorchFolderWithoutItsCompiledCoreIsNotTorch) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  std::filesystem::rename(dir_ / "site/torch/_C.so", dir_ / "site/torch/_C.cpython-20-arm.so");
  Result<PythonFacts> facts = ProbePython(dir_ / "python3");
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.status().message().find("holds no torch._C built for this interpreter"),
            std::string::npos)
      << facts.status().message();
}

TEST_F(ProbeTest, AnInterpreterWithoutTorchCannotImportIt) {
  if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
  std::filesystem::remove_all(dir_ / "site/torch");
  Result<PythonFacts> facts = ProbePython(dir_ / "python3");
  ASSERT_FALSE(facts.ok());
  EXPECT_NE(facts.status().message().find("cannot import torch"), std::string::npos)
      << facts.status().message();
  EXPECT_NE(facts.status().message().find("No module named 'torch'"), std::string::npos)
      << facts.status().message();
}

// The probe runs the interpreter isolated: a torch.py in the folder ratchet runs in is not the
// torch it reads. A venv (no pip needed) gives an interpreter whose own packages hold a torch.
TEST(ProbeIsolationTest, ATorchInTheWorkingFolderIsNotTheInterpretersTorch) {
  TempDir dir;
  const std::string venv = dir / "venv";
  if (access("/usr/bin/python3", X_OK) != 0 ||
      std::system(
          ("/usr/bin/python3 -m venv --without-pip " + venv + " >/dev/null 2>&1").c_str()) != 0) {
    GTEST_SKIP() << "no /usr/bin/python3 that makes a venv";
  }
  std::string site;
  for (const auto& entry : std::filesystem::directory_iterator(venv + "/lib")) {
    site = entry.path().string() + "/site-packages";
  }
  ASSERT_TRUE(std::filesystem::create_directories(site + "/torch"));
  std::ofstream(site + "/torch/version.py") << "__version__ = '1.2.3+venv'\ncuda = None\n";
  std::ofstream(site + "/torch/_C.so") << "";
  // What a hostile folder would put where ratchet runs.
  ASSERT_EQ(mkdir((dir / "cwd").c_str(), 0755), 0);
  std::ofstream(dir / "cwd/torch.py") << "raise SystemExit('the folder\'s torch.py was run')\n";
  ASSERT_EQ(mkdir((dir / "cwd/importlib").c_str(), 0755), 0);
  std::ofstream(dir / "cwd/importlib/__init__.py")
      << "raise SystemExit('the folder\'s importlib was run')\n";
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir / "cwd");
  Result<PythonFacts> facts = ProbePython(venv + "/bin/python3");
  std::filesystem::current_path(before);
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  EXPECT_EQ(facts->torch, "1.2.3+venv");
}

MachineFacts UnreadBoard() {
  MachineFacts machine = CudaMachine();
  machine.device.l2_bytes.reset();
  machine.device.sm_count.reset();
  return machine;
}

Json Hello(const std::string& uuid) {
  return Json{{"ok", true}, {"uuid", uuid}, {"l2_bytes", 62914560}, {"sm_count", 132}};
}

TEST(CudaPropertiesFromHello, TheLanesBoardGivesItsL2AndSmCount) {
  MachineFacts machine = UnreadBoard();
  AddCudaPropertiesFromHello(Hello(*machine.device.uuid), &machine);
  EXPECT_EQ(machine.device.l2_bytes, 62914560);
  EXPECT_EQ(machine.device.sm_count, 132);
}

TEST(CudaPropertiesFromHello, AnotherBoardOrAnOddHelloChangesNothing) {
  const std::string uuid = *CudaMachine().device.uuid;
  std::vector<Json> hellos = {Hello("GPU-ffffffff-1111-2222-3333-444444444444"), Json(),
                              Json::array()};
  for (const char* field : {"uuid", "l2_bytes", "sm_count"}) {
    Json missing = Hello(uuid);
    missing.erase(field);
    hellos.push_back(missing);
    Json text = Hello(uuid);
    text[field] = "62914560";
    hellos.push_back(text);
  }
  Json zero = Hello(uuid);
  zero["sm_count"] = 0;
  hellos.push_back(zero);
  for (const Json& hello : hellos) {
    MachineFacts machine = UnreadBoard();
    AddCudaPropertiesFromHello(hello, &machine);
    EXPECT_FALSE(machine.device.l2_bytes.has_value()) << hello.dump();
    EXPECT_FALSE(machine.device.sm_count.has_value()) << hello.dump();
  }
}

// Where `ratchet contract` could not read them (no interpreter, or its torch a CPU build), a
// run does not take them from a hello either: one machine, one lane.
TEST(CudaPropertiesFromHello, NotWithoutAnInterpreterWhoseTorchIsBuiltForCuda) {
  MachineFacts none = UnreadBoard();
  none.python.reset();
  AddCudaPropertiesFromHello(Hello(*none.device.uuid), &none);
  EXPECT_FALSE(none.device.l2_bytes.has_value());
  MachineFacts cpu_torch = UnreadBoard();
  cpu_torch.python->torch_cuda.clear();
  AddCudaPropertiesFromHello(Hello(*cpu_torch.device.uuid), &cpu_torch);
  EXPECT_FALSE(cpu_torch.device.l2_bytes.has_value());
  EXPECT_FALSE(cpu_torch.device.sm_count.has_value());
}

TEST(CudaPropertiesFromHello, NeitherACpuLaneNorFactsAlreadyReadAreChanged) {
  MachineFacts cpu = CpuMachine();
  AddCudaPropertiesFromHello(Hello("GPU-00000000-1111-2222-3333-444444444444"), &cpu);
  EXPECT_FALSE(cpu.device.l2_bytes.has_value());
  MachineFacts read = CudaMachine();
  read.device.sm_count = 114;
  Json hello = Hello(*read.device.uuid);
  hello["l2_bytes"] = 1;
  AddCudaPropertiesFromHello(hello, &read);
  EXPECT_EQ(read.device.l2_bytes, 62914560);
  EXPECT_EQ(read.device.sm_count, 114);
}

}  // namespace
}  // namespace ratchet
