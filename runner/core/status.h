// Status and Result: errors are values between the parts of ratchet. Only cli/ turns a
// Status into a message on the terminal and an exit code (see docs/exit-codes in README).
#ifndef RATCHET_CORE_STATUS_H_
#define RATCHET_CORE_STATUS_H_

#include <string>
#include <utility>
#include <variant>

namespace ratchet {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kUsage,        // the command line is wrong
    kBadInput,     // a file or value given to ratchet is wrong (exit 2)
    kUnavailable,  // something the harness needs is missing: a dataset, a device (exit 3)
    kIOError,      // the operating system refused (exit 3)
    kInternal,     // a bug in ratchet (exit 3)
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status Usage(std::string message) { return Status(Code::kUsage, std::move(message)); }
  static Status BadInput(std::string message) {
    return Status(Code::kBadInput, std::move(message));
  }
  static Status Unavailable(std::string message) {
    return Status(Code::kUnavailable, std::move(message));
  }
  // `what` names the operation and its object ("open /data/x"); errno is rendered after it.
  static Status IOError(const std::string& what, int error_number);
  static Status Internal(std::string message) {
    return Status(Code::kInternal, std::move(message));
  }
  // A status of any code, as it crossed a process boundary (session/request.h).
  static Status FromCode(Code code, std::string message) {
    return Status(code, std::move(message));
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // The same error with `context` in front: "reading rules: field x ...".
  Status Annotate(const std::string& context) const;

 private:
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : state_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(state_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(state_);
  }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace ratchet

#define RATCHET_RETURN_IF_ERROR(expr)              \
  do {                                             \
    ::ratchet::Status status_macro_ = (expr);      \
    if (!status_macro_.ok()) return status_macro_; \
  } while (0)

#endif  // RATCHET_CORE_STATUS_H_
