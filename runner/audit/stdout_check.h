// What a wrapped reference record's stdout must hold: the lines the scorer prints from the
// record, each looked for as a whole line, and one that begins the same way but differs shown
// beside the record's. Internal to the audit of a reference record (reference_record.cc).
#ifndef RATCHET_AUDIT_STDOUT_CHECK_H_
#define RATCHET_AUDIT_STDOUT_CHECK_H_

#include <cstdint>
#include <string>

#include "audit/result.h"
#include "core/canonical_json.h"
#include "rules/judge.h"

namespace ratchet {

// The line the scorer prints for call `index` (from 0) of `count`.
std::string CallLine(const Call& c, size_t index, int64_t count);

// Each expected text as a whole line (or lines) of the output, in any order.
class StdoutCheck {
 public:
  StdoutCheck(const std::string& stdout_text, std::string where, AuditResult* result);

  // `prefix`: how the line begins whatever its figures; `what`: which line, for the finding;
  // `source`: the record's field it comes from.
  void Expect(const std::string& expected, const std::string& prefix, const std::string& what,
              const std::string& source);
  // A line that begins with `prefix` must be there.
  void ExpectPrefix(const std::string& prefix, const std::string& what, const std::string& source);
  // The lines the scorer prints from the record's energy column (`energy`, at `path`): its
  // figure, each of its problems, and why it was not measured.
  void ExpectEnergy(const Json& energy, const std::string& path);

  bool ok() const { return ok_; }
  int checked() const { return checked_; }

 private:
  std::string text_;
  std::string where_;
  AuditResult* result_;
  bool ok_ = true;
  int checked_ = 0;
};

}  // namespace ratchet

#endif  // RATCHET_AUDIT_STDOUT_CHECK_H_
