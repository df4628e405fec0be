#include "evidence/signature.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <memory>

#include "core/file.h"
#include "core/sha256.h"

namespace ratchet {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CtxFree {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

constexpr size_t kRawKeyBytes = 32;
constexpr size_t kSignatureBytes = 64;

// What is signed: the manifest's sha256, under a name of its own, so that a signature made for
// ratchet's manifests means nothing elsewhere.
std::string Message(const std::string& manifest_sha256) {
  return std::string(kSignatureSchema) + " MANIFEST.json sha256 " + manifest_sha256;
}

Result<Pkey> ReadPrivateKey(std::string_view pem, const std::string& what) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Status::Internal("BIO_new_mem_buf failed");
  Pkey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return Status::BadInput(what + " is not a PEM private key (make one with `ratchet key new "
                                   "--out FILE`)");
  }
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
    return Status::BadInput(what + " is not an Ed25519 key (make one with `ratchet key new "
                                   "--out FILE`)");
  }
  return key;
}

// Why `key_id` does not name the key `public_hex`, or "" when it does. The key_id is the file's
// word, shown only when it is 16 hex digits, so that it cannot carry text of its own.
std::string KeyIdProblem(const Json& key_id, const std::string& public_hex) {
  const std::string id = KeyId(public_hex);
  if (!key_id.is_string()) {
    return "key_id is missing or not a string (public_key's id is " + id + ")";
  }
  const std::string& given = key_id.get_ref<const std::string&>();
  if (given == id) return "";
  const bool hex16 =
      given.size() == 16 && given.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex16) return "key_id is not 16 hex digits (public_key's id is " + id + ")";
  return "key_id " + given + " does not name public_key (whose id is " + id + ")";
}

Result<std::string> RawPublicHex(EVP_PKEY* key) {
  unsigned char raw[kRawKeyBytes];
  size_t size = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(key, raw, &size) != 1 || size != kRawKeyBytes) {
    return Status::Internal("EVP_PKEY_get_raw_public_key failed");
  }
  return HexEncode(raw, size);
}

}  // namespace

Result<KeyPair> NewKeyPair() {
  std::unique_ptr<EVP_PKEY_CTX, CtxFree> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* made = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &made) != 1) {
    return Status::Internal("OpenSSL could not make an Ed25519 key");
  }
  Pkey key(made);
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    return Status::Internal("OpenSSL could not write the key as PEM");
  }
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  KeyPair pair;
  pair.private_pem.assign(data, static_cast<size_t>(size));
  Result<std::string> public_hex = RawPublicHex(key.get());
  if (!public_hex.ok()) return public_hex.status();
  pair.public_hex = *public_hex;
  return pair;
}

Result<std::string> PublicKeyOf(std::string_view private_pem, const std::string& what) {
  Result<Pkey> key = ReadPrivateKey(private_pem, what);
  if (!key.ok()) return key.status();
  return RawPublicHex(key->get());
}

std::string KeyId(const std::string& public_hex) {
  Result<std::string> raw = HexDecode(public_hex, "public key");
  return Sha256Hex(raw.ok() ? *raw : public_hex).substr(0, 16);
}

bool IsPublicKeyHex(const std::string& text) {
  if (text.size() != 2 * kRawKeyBytes) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<Json> SignManifest(std::string_view private_pem, std::string_view manifest) {
  Result<Pkey> key = ReadPrivateKey(private_pem, "the signing key");
  if (!key.ok()) return key.status();
  Result<std::string> public_hex = RawPublicHex(key->get());
  if (!public_hex.ok()) return public_hex.status();
  const std::string manifest_sha256 = Sha256Hex(manifest);
  const std::string message = Message(manifest_sha256);
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  unsigned char signature[kSignatureBytes];
  size_t size = sizeof signature;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key->get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature, &size,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      size != kSignatureBytes) {
    return Status::Internal("OpenSSL could not sign the manifest");
  }
  return Json{{"schema", kSignatureSchema},
              {"algorithm", "ed25519"},
              {"public_key", *public_hex},
              {"key_id", KeyId(*public_hex)},
              {"manifest_sha256", manifest_sha256},
              {"signature", HexEncode(signature, size)}};
}

SignatureCheck CheckSignature(const std::string& dir, const std::string& manifest_file) {
  SignatureCheck check;
  const std::string path = dir + "/" + kSignatureFile;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return check;
  check.present = true;
  if (!S_ISREG(st.st_mode)) {
    check.problem = "not a regular file";
    return check;
  }
  Result<std::string> text = ReadFile(path, 1 << 16);
  if (!text.ok()) {
    check.problem = text.status().message();
    return check;
  }
  Result<Json> doc = ParseJson(*text, kSignatureFile);
  if (!doc.ok() || !doc->is_object()) {
    check.problem = "not a JSON object";
    return check;
  }
  auto field = [&](const char* key) -> std::string {
    auto found = doc->find(key);
    return found != doc->end() && found->is_string() ? found->get<std::string>() : "";
  };
  if (field("schema") != kSignatureSchema || field("algorithm") != "ed25519") {
    check.problem = std::string("not a ") + kSignatureSchema + " Ed25519 signature";
    return check;
  }
  check.public_hex = field("public_key");
  if (!IsPublicKeyHex(check.public_hex)) {
    check.problem = "public_key is not 64 hex digits";
    check.public_hex.clear();
    return check;
  }
  Result<std::string> manifest = ReadFile(dir + "/" + manifest_file, 256u << 20);
  if (!manifest.ok()) {
    check.problem = "there is no " + manifest_file + " to verify it against";
    return check;
  }
  const std::string manifest_sha256 = Sha256Hex(*manifest);
  if (field("manifest_sha256") != manifest_sha256) {
    check.problem = manifest_file + " is not the one signed (its sha256 is " + manifest_sha256 +
                    ", the signature's manifest_sha256 " + field("manifest_sha256") + ")";
    return check;
  }
  Result<std::string> raw_key = HexDecode(check.public_hex, "public_key");
  Result<std::string> signature = HexDecode(field("signature"), "signature");
  if (!raw_key.ok() || !signature.ok() || signature->size() != kSignatureBytes) {
    check.problem = "signature is not 128 hex digits";
    return check;
  }
  Pkey key(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw_key->data()),
      raw_key->size()));
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  const std::string message = Message(manifest_sha256);
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()),
                       signature->size(), reinterpret_cast<const unsigned char*>(message.data()),
                       message.size()) != 1) {
    check.problem = "the signature does not verify: " + manifest_file +
                    " was not signed by key " + KeyId(check.public_hex);
    return check;
  }
  const Json key_id = doc->value("key_id", Json());
  check.problem = KeyIdProblem(key_id, check.public_hex);
  if (!check.problem.empty()) return check;
  check.valid = true;
  check.manifest_sha256 = manifest_sha256;
  return check;
}

}  // namespace ratchet
