// The facts of this machine, each checked against a second, independent reading of it.
#include "contract/facts.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>

#include "core/file.h"
#include "core/sha256.h"

namespace ratchet {
namespace {

// The file the loader mapped `symbol` from, as dladdr reports it.
std::string FileOf(const void* symbol) {
  Dl_info info{};
  EXPECT_NE(dladdr(symbol, &info), 0);
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

std::string Sha256Of(const std::string& path) {
  Result<std::string> digest = Sha256File(path);
  EXPECT_TRUE(digest.ok()) << digest.status().ToString();
  return digest.ok() ? *digest : "";
}

TEST(ContractFacts, LoadedLibrariesIncludeLibcAndLibcryptoByContent) {
  Result<std::vector<LoadedLibrary>> libraries = LoadedLibraries();
  ASSERT_TRUE(libraries.ok()) << libraries.status().ToString();
  std::map<std::string, std::string> by_name;
  for (const LoadedLibrary& library : *libraries) by_name[library.name] = library.sha256;

  const std::string libc = FileOf(reinterpret_cast<const void*>(&gnu_get_libc_version));
  const std::string libcrypto = FileOf(reinterpret_cast<const void*>(&EVP_sha256));
  ASSERT_EQ(by_name.count(BaseName(libc)), 1u) << libc;
  ASSERT_EQ(by_name.count(BaseName(libcrypto)), 1u) << libcrypto;
  EXPECT_EQ(BaseName(libc), "libc.so.6");
  EXPECT_EQ(BaseName(libcrypto), "libcrypto.so.3");
  EXPECT_EQ(by_name[BaseName(libc)], Sha256Of(libc));
  EXPECT_EQ(by_name[BaseName(libcrypto)], Sha256Of(libcrypto));
}

TEST(ContractFacts, LoadedLibrariesLeaveOutTheProgramAndTheVdso) {
  Result<std::vector<LoadedLibrary>> libraries = LoadedLibraries();
  ASSERT_TRUE(libraries.ok()) << libraries.status().ToString();
  Result<std::string> self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  for (const LoadedLibrary& library : *libraries) {
    EXPECT_EQ(library.path.front(), '/') << library.path;
    EXPECT_NE(library.name, BaseName(*self));
    EXPECT_EQ(library.name.find("vdso"), std::string::npos) << library.name;
  }
}

TEST(ContractFacts, RunningBinaryHashIsTheHashOfTheFile) {
  Result<std::string> self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  Result<std::string> digest = RunningBinarySha256();
  ASSERT_TRUE(digest.ok()) << digest.status().ToString();
  EXPECT_EQ(*digest, Sha256Of(*self));
}

TEST(ContractFacts, GlibcIsTheLoadedOne) {
  char buffer[64] = {};
  ASSERT_GT(confstr(_CS_GNU_LIBC_VERSION, buffer, sizeof buffer), 0u);
  EXPECT_EQ("glibc " + GlibcVersion(), buffer);
}

TEST(ContractFacts, CompilerNamesItsVersion) {
  const std::string cxx = CompilerVersion();
  EXPECT_TRUE(cxx.rfind("g++ ", 0) == 0 || cxx.rfind("clang++ ", 0) == 0) << cxx;
  EXPECT_NE(cxx.find_first_of("0123456789"), std::string::npos) << cxx;
}

TEST(ContractFacts, ProcessorModelFromCpuinfo) {
  EXPECT_EQ(ParseProcessorModel("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
                                "model name\t: AMD EPYC 9654 96-Core Processor\n"
                                "processor\t: 1\nmodel name\t: something else\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(ParseProcessorModel("processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\n"),
            "BCM2835");
  EXPECT_EQ(ParseProcessorModel("processor\t: 0\nBogoMIPS\t: 50.00\n"), "unknown");
  EXPECT_EQ(ParseProcessorModel(""), "unknown");
}

TEST(ContractFacts, GatheredFactsAgreeWithTheirParts) {
  Result<MachineFacts> facts = GatherMachineFacts(std::nullopt);
  ASSERT_TRUE(facts.ok()) << facts.status().ToString();
  Result<std::string> self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(facts->binary_sha256, Sha256Of(*self));
  const std::string libc = FileOf(reinterpret_cast<const void*>(&gnu_get_libc_version));
  ASSERT_EQ(facts->libraries.count("libc.so.6"), 1u);
  EXPECT_EQ(facts->libraries.at("libc.so.6"), Sha256Of(libc));
  EXPECT_EQ(facts->libraries.count("libnvidia-ml.so.1"), 0u);
  EXPECT_FALSE(facts->processor.empty());
  // The test binary has no ratchet-worker beside it, and the caller names the interpreter.
  EXPECT_FALSE(facts->worker_binary_sha256.has_value());
  EXPECT_FALSE(facts->python.has_value());
  EXPECT_EQ(facts->sandbox_full, geteuid() == 0);
  EXPECT_EQ(facts->sandbox_partial_reason.empty(), facts->sandbox_full);
}

TEST(ContractFacts, AFileThatIsNotThereHasNoHashButOneThatCannotBeReadIsAnError) {
  Result<std::optional<std::string>> absent =
      Sha256IfPresent(Status::Unavailable("no worker.py at /nowhere/worker.py"));
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_FALSE(absent->has_value());

  Result<std::string> self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  Result<std::optional<std::string>> present = Sha256IfPresent(*self);
  ASSERT_TRUE(present.ok()) << present.status().ToString();
  EXPECT_EQ(present->value_or(""), Sha256Of(*self));

  // A path that was found but is a folder, or an error other than "not there", stays an error.
  Result<std::optional<std::string>> folder = Sha256IfPresent(DirName(*self));
  EXPECT_FALSE(folder.ok());
  EXPECT_FALSE(Sha256IfPresent(Status::IOError("stat /x", EACCES)).ok());
}

}  // namespace
}  // namespace ratchet
