#include "sandbox/seccomp_filter.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <string>

#include "sandbox/policy.h"

namespace ratchet {
namespace {

// libseccomp returns negative errno values.
Status SeccompError(const std::string& what, int rc) { return Status::IOError(what, -rc); }

Status AddRule(scmp_filter_ctx ctx, const SyscallRule& rule) {
  int known = seccomp_syscall_resolve_name(rule.name);
  if (known != __NR_SCMP_ERROR && known != rule.nr) {
    return Status::Internal("the sandbox policy numbers syscall " + std::string(rule.name) + " " +
                            std::to_string(rule.nr) + ", libseccomp numbers it " +
                            std::to_string(known));
  }
  const ArgumentTest& test = rule.test;
  const uint32_t action = rule.error == kAnswered ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(rule.error);
  // _exact: libseccomp must add the rule as written or fail, never adjust it.
  int rc = 0;
  switch (test.op) {
    case ArgumentTest::Op::kAlways:
      rc = seccomp_rule_add_exact(ctx, action, rule.nr, 0);
      break;
    case ArgumentTest::Op::kNotEqual: {
      scmp_arg_cmp cmp = {test.arg, SCMP_CMP_NE, test.value, 0};
      rc = seccomp_rule_add_exact_array(ctx, action, rule.nr, 1, &cmp);
      break;
    }
    case ArgumentTest::Op::kMaskedEqual: {
      scmp_arg_cmp cmp = {test.arg, SCMP_CMP_MASKED_EQ, test.mask, test.value};
      rc = seccomp_rule_add_exact_array(ctx, action, rule.nr, 1, &cmp);
      break;
    }
  }
  if (rc < 0) return SeccompError(std::string("seccomp_rule_add_exact(") + rule.name + ")", rc);
  return Status::Ok();
}

// libseccomp 2.5 exports only to a file descriptor; a memfd keeps the program off the disk.
Result<std::vector<sock_filter>> ExportProgram(scmp_filter_ctx ctx) {
  int fd = memfd_create("ratchet-seccomp-bpf", MFD_CLOEXEC);
  if (fd < 0) return Status::IOError("memfd_create", errno);
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { close(*f); });
  int rc = seccomp_export_bpf(ctx, fd);
  if (rc < 0) return SeccompError("seccomp_export_bpf", rc);
  off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0) return Status::IOError("lseek on the exported seccomp program", errno);
  if (size == 0 || size % sizeof(sock_filter) != 0 || size / sizeof(sock_filter) > BPF_MAXINSNS) {
    return Status::Internal("libseccomp exported a seccomp program of " + std::to_string(size) +
                            " bytes");
  }
  std::vector<sock_filter> program(size / sizeof(sock_filter));
  char* bytes = reinterpret_cast<char*>(program.data());
  for (off_t done = 0; done < size;) {
    ssize_t n = pread(fd, bytes + done, size - done, done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IOError("reading the exported seccomp program", errno);
    if (n == 0) return Status::Internal("the exported seccomp program ended early");
    done += n;
  }
  return program;
}

}  // namespace

Result<std::vector<sock_filter>> BuildSeccompProgram() {
#if !defined(__x86_64__)
  return Status::Unavailable("the sandbox's seccomp filter is written for x86-64 only");
#else
  std::unique_ptr<void, void (*)(void*)> ctx(seccomp_init(SCMP_ACT_ALLOW), seccomp_release);
  if (!ctx) return Status::Internal("seccomp_init failed");
  // seccomp_init adds only the native architecture; a call made through any other (the i386
  // int 0x80 entry, for one) is not checked against the rules, so it ends the process. So does
  // the x32 ABI (syscall numbers with bit 30 set): libseccomp treats it as a foreign architecture.
  if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
    return Status::Unavailable("the sandbox's seccomp filter is written for x86-64 only");
  }
  int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc < 0) return SeccompError("seccomp_attr_set(SCMP_FLTATR_ACT_BADARCH)", rc);
  // A binary search over the syscall numbers instead of a chain of ~60 comparisons: every
  // syscall of the timed call passes through the filter.
  rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2);
  if (rc < 0) return SeccompError("seccomp_attr_set(SCMP_FLTATR_CTL_OPTIMIZE, 2)", rc);
  for (const SyscallRule& rule : SeccompRules()) {
    RATCHET_RETURN_IF_ERROR(AddRule(ctx.get(), rule));
  }
  return ExportProgram(ctx.get());
#endif
}

const Result<std::vector<sock_filter>>& SeccompProgram() {
  static const Result<std::vector<sock_filter>> program = BuildSeccompProgram();
  return program;
}

}  // namespace ratchet
