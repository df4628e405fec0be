// SIGNATURE.json: an Ed25519 signature over an evidence directory's top-level MANIFEST.json, made
// with a reviewer's key (`ratchet key new`) as the last step before the directory takes its name.
// The manifest names every other file by its sha256, so the signature binds them all: a rewrite
// that recomputes every hash and the manifest no longer verifies against the signature. The key
// pair: a PKCS#8 PEM private key, and its public key as 64 hex digits (the raw 32 bytes).
#ifndef RATCHET_EVIDENCE_SIGNATURE_H_
#define RATCHET_EVIDENCE_SIGNATURE_H_

#include <optional>
#include <string>
#include <string_view>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

inline constexpr char kSignatureFile[] = "SIGNATURE.json";
inline constexpr char kSignatureSchema[] = "ratchet.signature/1";

struct KeyPair {
  std::string private_pem;  // PKCS#8, "-----BEGIN PRIVATE KEY-----"
  std::string public_hex;   // 64 lowercase hex digits
};
// A fresh Ed25519 key pair from OpenSSL's random generator.
Result<KeyPair> NewKeyPair();

// The public key of a private key PEM; BadInput (naming `what`) unless it is an Ed25519 key.
Result<std::string> PublicKeyOf(std::string_view private_pem, const std::string& what);
// The first 16 hex digits of the sha256 of the public key's 32 bytes: how messages name a key.
std::string KeyId(const std::string& public_hex);
// Whether `text` is a public key as ratchet writes it (64 lowercase hex digits).
bool IsPublicKeyHex(const std::string& text);

// SIGNATURE.json's document for the manifest bytes `manifest`, signed with `private_pem`.
Result<Json> SignManifest(std::string_view private_pem, std::string_view manifest);

// What a directory's signature says.
struct SignatureCheck {
  bool present = false;    // SIGNATURE.json is there
  bool valid = false;      // ...and verifies against MANIFEST.json's bytes
  std::string public_hex;  // the key it names (when readable)
  std::string problem;     // why it does not verify
  // When valid: the sha256 of the manifest bytes it verified, for a caller that read the
  // manifest itself to hold them to (the file may have changed between the two reads).
  std::string manifest_sha256;
};
// Checks DIR/SIGNATURE.json against DIR/MANIFEST.json (`manifest_file` names it, for a run whose
// manifest has another name). A missing SIGNATURE.json is not present, and no problem. Its key_id
// must be KeyId(public_key): a message names the signer by it.
SignatureCheck CheckSignature(const std::string& dir,
                              const std::string& manifest_file = "MANIFEST.json");

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_SIGNATURE_H_
