// SIGNATURE.json: a key pair made, a manifest signed as the writer's last step, and what does not
// verify: a manifest rewritten after it was signed (every hash recomputed), a signature made by
// another key than the one it names, a key_id that does not name its key, a damaged signature,
// a key that is not Ed25519.
#include "evidence/signature.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <filesystem>
#include <functional>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/reader.h"
#include "evidence/writer.h"
#include "example.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The example run, signed with `key`.
std::string SignedExample(const TempDir& temp, const KeyPair& key, const std::string& name) {
  const std::string dir = temp / name;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(dir);
  EXPECT_TRUE(writer.ok());
  EXPECT_TRUE(WriteExampleFiles(&*writer).ok());
  writer->SignWith(key.private_pem);
  EXPECT_TRUE(writer->Finish("complete", 0, "").ok());
  return dir;
}

TEST(SignatureTest, AKeyPairSignsAManifestThatThenVerifies) {
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_TRUE(IsPublicKeyHex(key->public_hex)) << key->public_hex;
  EXPECT_TRUE(Contains(key->private_pem, "-----BEGIN PRIVATE KEY-----"));
  EXPECT_EQ(*PublicKeyOf(key->private_pem, "k"), key->public_hex);
  EXPECT_EQ(KeyId(key->public_hex).size(), 16u);
  Result<KeyPair> other = NewKeyPair();
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->public_hex, key->public_hex);

  TempDir temp;
  const std::string dir = SignedExample(temp, *key, "run");
  // SIGNATURE.json is beside MANIFEST.json, in no manifest, and the directory verifies clean.
  EXPECT_TRUE(PathExists(dir + "/" + kSignatureFile));
  EXPECT_TRUE(VerifyManifest(dir).empty());
  EXPECT_FALSE(Contains(*ReadFile(dir + "/" + kManifestFile), kSignatureFile));
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  ASSERT_TRUE(summary.ok());
  EXPECT_TRUE(summary->complete);
  const SignatureCheck check = CheckSignature(dir);
  EXPECT_TRUE(check.present);
  EXPECT_TRUE(check.valid) << check.problem;
  EXPECT_EQ(check.public_hex, key->public_hex);
  // The manifest bytes it verified, for a caller that read them too to hold them to.
  EXPECT_EQ(check.manifest_sha256, Sha256Hex(*ReadFile(dir + "/" + kManifestFile)));

  // Unsigned: not present, and no problem.
  const std::string plain = temp / "plain";
  ASSERT_TRUE(WriteExample(plain).ok());
  EXPECT_FALSE(CheckSignature(plain).present);
  EXPECT_FALSE(PathExists(plain + "/" + kSignatureFile));
}

TEST(SignatureTest, WhatWasChangedAfterSigningDoesNotVerify) {
  Result<KeyPair> key = NewKeyPair();
  Result<KeyPair> other = NewKeyPair();
  ASSERT_TRUE(key.ok() && other.ok());
  TempDir temp;
  struct Case {
    const char* name;
    std::function<void(const std::string& dir)> change;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"a consistent rewrite: a file changed and the manifest made to match",
       [](const std::string& dir) {
         const std::string judge = dir + "/" + RunFolder("ncm", 1) + "/judge.json";
         ASSERT_TRUE(WriteFileAtomic(judge, "{\"ranked_ms\": 1.0}\n").ok());
         Result<std::vector<FolderItem>> items = ScanFolder(dir);
         ASSERT_TRUE(items.ok());
         std::vector<ManifestEntry> entries;
         for (const FolderItem& item : *items) {
           if (item.kind == FolderItem::Kind::kFile) {
             entries.push_back({item.path, item.bytes, item.sha256});
           }
         }
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kManifestFile, *ManifestText(entries)).ok());
       },
       "MANIFEST.json is not the one signed"},
      {"the rewrite's manifest_sha256 written into the signature",
       [](const std::string& dir) {
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kManifestFile,
                                     *ReadFile(dir + "/" + kManifestFile) + "\n")
                         .ok());
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         signature["manifest_sha256"] = Sha256Hex(*ReadFile(dir + "/" + kManifestFile));
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "the signature does not verify"},
      {"another key named as the signer",
       [&](const std::string& dir) {
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         signature["public_key"] = other->public_hex;
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "was not signed by key"},
      {"a byte of the signature flipped",
       [](const std::string& dir) {
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         std::string hex = signature["signature"];
         hex[10] = hex[10] == '0' ? '1' : '0';
         signature["signature"] = hex;
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "the signature does not verify"},
      {"key_id naming another key",
       [&](const std::string& dir) {
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         signature["key_id"] = KeyId(other->public_hex);
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "key_id " + KeyId(other->public_hex) + " does not name public_key (whose id is " +
           KeyId(key->public_hex) + ")"},
      {"key_id removed",
       [](const std::string& dir) {
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         signature.erase("key_id");
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "key_id is missing or not a string (public_key's id is " + KeyId(key->public_hex) + ")"},
      {"key_id that is text of its own",
       [](const std::string& dir) {
         Json signature = Json::parse(*ReadFile(dir + "/" + kSignatureFile));
         signature["key_id"] = "\x1b[2J the reviewer";
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, signature.dump()).ok());
       },
       "key_id is not 16 hex digits (public_key's id is " + KeyId(key->public_hex) + ")"},
      {"not JSON",
       [](const std::string& dir) {
         ASSERT_TRUE(WriteFileAtomic(dir + "/" + kSignatureFile, "signed, honestly\n").ok());
       },
       "not a JSON object"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string dir = SignedExample(temp, *key, "run-" + std::to_string(++n));
    c.change(dir);
    const SignatureCheck check = CheckSignature(dir);
    EXPECT_TRUE(check.present) << c.name;
    EXPECT_FALSE(check.valid) << c.name;
    EXPECT_TRUE(Contains(check.problem, c.problem)) << c.name << ": " << check.problem;
    EXPECT_EQ(check.manifest_sha256, "") << c.name;
  }
}

TEST(SignatureTest, OnlyAnEd25519PrivateKeySigns) {
  EXPECT_EQ(PublicKeyOf("not a key", "KEY").status().code(), Status::Code::kBadInput);
  // An EC key (P-256), made here as `openssl genpkey -algorithm EC` makes one.
  EVP_PKEY* made = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  ASSERT_NE(made, nullptr);
  BIO* bio = BIO_new(BIO_s_mem());
  ASSERT_EQ(PEM_write_bio_PrivateKey(bio, made, nullptr, nullptr, 0, nullptr, nullptr), 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  const std::string ec(data, static_cast<size_t>(size));
  BIO_free(bio);
  EVP_PKEY_free(made);
  Result<std::string> refused = PublicKeyOf(ec, "KEY");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "KEY is not an Ed25519 key (make one with `ratchet key new --out FILE`)");
  EXPECT_FALSE(SignManifest(ec, "{}").ok());
}

}  // namespace
}  // namespace ratchet
