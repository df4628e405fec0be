// The policy description is what the contract locks: it must change only on purpose (the
// reviewed file below changes with it) and its hash must follow every change.
#include "sandbox/policy.h"

#include <gtest/gtest.h>

#include <set>

#include "core/file.h"
#include "sandbox/seccomp_filter.h"

namespace ratchet {
namespace {

Json ReviewedPolicy() {
  Result<std::string> text = ReadFile(RATCHET_SANDBOX_POLICY_JSON);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  Result<Json> json = ParseJson(text.ok() ? *text : "", RATCHET_SANDBOX_POLICY_JSON);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  return json.ok() ? *json : Json();
}

TEST(SandboxPolicyTest, MatchesTheReviewedPolicyFile) {
  EXPECT_EQ(SandboxPolicyJson(), ReviewedPolicy())
      << "the sandbox policy changed; if on purpose, review and update "
      << RATCHET_SANDBOX_POLICY_JSON << " (and docs/sandbox.md) to:\n"
      << SandboxPolicyJson().dump(2);
}

TEST(SandboxPolicyTest, HashIsTheCanonicalHashOfTheDescription) {
  std::string hash = SandboxPolicySha256();
  EXPECT_EQ(hash.size(), 64u);
  EXPECT_EQ(hash, CanonicalSha256(ReviewedPolicy()).value());
  EXPECT_EQ(hash, SandboxPolicySha256());  // stable within a process too
}

TEST(SandboxPolicyTest, HashChangesWithAnyPartOfThePolicy) {
  std::string hash = SandboxPolicySha256();
  Json looser_limit = SandboxPolicyJson();
  looser_limit["rlimits"]["nofile"] = kDefaultOpenFiles + 1;
  Json one_rule_less = SandboxPolicyJson();
  one_rule_less["seccomp"]["rules"].erase(0);
  Json other_errno = SandboxPolicyJson();
  other_errno["seccomp"]["rules"][0]["errno"] = "EPERM";
  Json other_uid = SandboxPolicyJson();
  other_uid["identity"]["uid"] = 1000;
  std::set<std::string> hashes = {hash};
  for (const Json& changed : {looser_limit, one_rule_less, other_errno, other_uid}) {
    hashes.insert(CanonicalSha256(changed).value());
  }
  EXPECT_EQ(hashes.size(), 5u);
}

TEST(SandboxPolicyTest, DescriptionListsEveryRuleOfTheFilter) {
  Json rules = SandboxPolicyJson()["seccomp"]["rules"];
  ASSERT_EQ(rules.size(), SeccompRules().size());
  for (size_t i = 0; i < rules.size(); ++i) {
    EXPECT_EQ(rules[i]["syscall"], SeccompRules()[i].name);
    EXPECT_EQ(rules[i]["nr"], SeccompRules()[i].nr);
  }
}

// libseccomp checks each rule's number against its own table of x86-64 syscalls while building.
TEST(SandboxPolicyTest, FilterBuildsFromTheRules) {
  Result<std::vector<sock_filter>> program = BuildSeccompProgram();
  ASSERT_TRUE(program.ok()) << program.status().ToString();
  EXPECT_GT(program->size(), SeccompRules().size());
  EXPECT_LE(program->size(), static_cast<size_t>(BPF_MAXINSNS));
  // The first instructions check the architecture: load seccomp_data.arch, compare with x86-64.
  EXPECT_EQ((*program)[0].code, BPF_LD | BPF_W | BPF_ABS);
  EXPECT_EQ((*program)[0].k, 4u);
  EXPECT_EQ((*program)[1].k, 0xC000003Eu);  // AUDIT_ARCH_X86_64
}

}  // namespace
}  // namespace ratchet
