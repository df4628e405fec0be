// `ratchet key new --out FILE`: an Ed25519 key pair for signing evidence (`--sign`), the private
// key in FILE (0600, PKCS#8 PEM) and the public key in FILE.pub (64 hex digits and a newline).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ostream>

#include "cli/commands.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/status.h"
#include "evidence/signature.h"

namespace ratchet {

const char kKeyUsage[] =
    "usage: ratchet key new --out FILE\n"
    "\n"
    "Makes an Ed25519 key pair for signing evidence: the private key in FILE (PKCS#8 PEM,\n"
    "readable by you only) and the public key in FILE.pub (64 hex digits). Neither file may\n"
    "exist. `ratchet run` and `ratchet score` sign the evidence's manifest with --sign FILE (or\n"
    "$RATCHET_SIGNING_KEY); a baseline that lists the public key under \"reviewers\" accepts\n"
    "evidence signed by it (docs/baseline.md, \"Reviewers' keys\"). Keep FILE out of the\n"
    "baseline's repository.\n"
    "\n"
    "  --out FILE  where the private key goes; the public key goes to FILE.pub\n"
    "\n"
    "Exit codes: 0 written; 2 bad usage or a file that exists; 3 the key could not be written\n";

namespace {

// Writes `bytes` to a new file `path` with `mode`, refusing one that exists.
Status WriteNew(const std::string& path, const std::string& bytes, mode_t mode) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) {
    if (errno == EEXIST) return Status::BadInput(path + " exists: name a new file with --out");
    return Status::IOError("create " + path, errno);
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      close(fd);
      unlink(path.c_str());
      return Status::IOError("write " + path, error);
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(path.c_str());
    return Status::IOError("close " + path, errno);
  }
  return Status::Ok();
}

}  // namespace

int RunKey(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "key", status); };
  Result<Args> args = Args::Parse(context.argv, {{"out", true}});
  if (!args.ok()) return fail(args.status());
  if (args->positional().size() != 1 || args->positional()[0] != "new") {
    return fail(Status::Usage("say what to do: ratchet key new --out FILE"));
  }
  if (!args->Has("out")) return fail(Status::Usage("name the key's file: --out FILE"));
  const std::string path = *args->Get("out");
  const std::string public_path = path + ".pub";
  if (PathExists(public_path)) {
    return fail(Status::BadInput(public_path + " exists: name a new file with --out"));
  }
  Result<KeyPair> pair = NewKeyPair();
  if (!pair.ok()) return fail(pair.status());
  Status written = WriteNew(path, pair->private_pem, 0600);
  if (!written.ok()) return fail(written);
  written = WriteNew(public_path, pair->public_hex + "\n", 0644);
  if (!written.ok()) {
    unlink(path.c_str());
    return fail(written);
  }
  context.out << "private key: " << path << " (keep it secret, out of the baseline's repository)\n"
              << "public key:  " << public_path << ": " << pair->public_hex << " (key id "
              << KeyId(pair->public_hex) << ")\n"
              << "A baseline accepts evidence it signs once it lists it among its reviewers:\n"
              << "  \"reviewers\": {\"YOUR NAME\": {\"public_key\": \"" << pair->public_hex
              << "\"}}\n";
  return kExitSuccess;
}

}  // namespace ratchet
