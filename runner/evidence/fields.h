// Strict, typed reads of the fields of an evidence document (the typed readers of
// evidence/run_files.h, the audit). A field that is missing or of the wrong type becomes a
// finding naming the file and the field path ("calls.json: calls[2].ms"), and the read gives
// nothing, so that what needs it is skipped rather than guessed.
#ifndef RATCHET_EVIDENCE_FIELDS_H_
#define RATCHET_EVIDENCE_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"

namespace ratchet {

// Where a strict read reports what is wrong with a document (the audit's result).
class FieldFindings {
 public:
  virtual ~FieldFindings() = default;
  // `where` is "FILE: PATH"; the document, as read, breaks what relies on it.
  virtual void Breaks(std::string where, std::string message) = 0;
  // Said for the reader; what relies on the document may still stand.
  virtual void Note(std::string where, std::string message) = 0;
};

// A FieldFindings that keeps what breaks, as "FILE: PATH: message" lines, and drops the notes:
// for a reader whose caller says what is wrong in one message (a refusal, a malformed answer).
class FindingLines : public FieldFindings {
 public:
  void Breaks(std::string where, std::string message) override;
  void Note(std::string, std::string) override {}
  const std::vector<std::string>& lines() const { return lines_; }
  // The lines joined with "; " ("" when none).
  std::string Joined() const;

 private:
  std::vector<std::string> lines_;
};

class FieldReader {
 public:
  // `file` names the document in findings ("records/ncm/run-1/calls.json").
  FieldReader(std::string file, FieldFindings* findings)
      : file_(std::move(file)), result_(findings) {}

  // "FILE: PATH": how findings about a field of this document begin.
  std::string Where(const std::string& path) const;

  // object[key] at `path` (the object's own path, "" for the top). Missing or mistyped: a
  // finding and nullopt / nullptr. A null value is "missing" unless the Nullable form is used.
  std::optional<std::string> String(const Json& object, const std::string& path,
                                    const std::string& key);
  std::optional<double> Number(const Json& object, const std::string& path, const std::string& key);
  std::optional<int64_t> Integer(const Json& object, const std::string& path,
                                 const std::string& key);
  std::optional<bool> Bool(const Json& object, const std::string& path, const std::string& key);
  const Json* Array(const Json& object, const std::string& path, const std::string& key);
  const Json* Object(const Json& object, const std::string& path, const std::string& key);
  // A number or null: nullopt inside for null; a finding (and nullopt outside) otherwise.
  std::optional<std::optional<double>> NullableNumber(const Json& object, const std::string& path,
                                                      const std::string& key);
  std::optional<std::optional<std::string>> NullableString(const Json& object,
                                                           const std::string& path,
                                                           const std::string& key);

  // The same checks for a value itself (an array element).
  bool IsObject(const Json& value, const std::string& path);

  // Whether any read of this reader added a finding.
  bool failed() const { return failed_; }
  FieldFindings* result() const { return result_; }

 private:
  const Json* Find(const Json& object, const std::string& path, const std::string& key,
                   bool (*accept)(const Json&), const char* expected, bool nullable);

  std::string file_;
  FieldFindings* result_;
  bool failed_ = false;
};

// `value` as it reads in a message: a string quoted, a number in its shortest exact form.
std::string JsonShown(const Json& value);

// A double in its shortest form that reads back as the same double.
std::string ExactNumber(double value);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_FIELDS_H_
