// A fresh directory is one unit of output (an evidence directory, a written draw): it is built
// in a hidden partial folder beside its final name and renamed into place only when complete.
// It never exists already, is never reused, and is never reached through a symlink. It is
// private: its folders are 0700 and its files 0600, while it is built and after it is committed,
// since what it holds may be secret (a draw's hidden labels and map).
#ifndef RATCHET_CORE_FRESH_DIRECTORY_H_
#define RATCHET_CORE_FRESH_DIRECTORY_H_

#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

class FreshDirectory {
 public:
  // Refuses (BadInput) a `final_path` that exists (a file, a folder or a symlink, dangling or
  // not) and a parent folder that is missing, a symlink or not a folder. Creates
  // ".<name>.partial-<random>" (0700) beside it.
  static Result<FreshDirectory> Begin(const std::string& final_path);

  FreshDirectory(FreshDirectory&& other) noexcept;
  FreshDirectory& operator=(FreshDirectory&&) = delete;
  FreshDirectory(const FreshDirectory&) = delete;
  ~FreshDirectory();  // an uncommitted, unabandoned partial folder stays, as evidence of a stop

  // Where files go while the directory is incomplete.
  const std::string& partial_path() const { return partial_path_; }
  const std::string& final_path() const { return final_path_; }

  // Creates `relative` (folders separated by '/') under the partial folder.
  Status MakeSubdirectory(const std::string& relative);
  // Writes one file under the partial folder (created exclusively, 0600, fsynced).
  Status WriteFile(const std::string& relative, std::string_view bytes);

  // fsyncs the partial folder, renames it to the final name (refusing to replace anything that
  // appeared there meanwhile) and fsyncs the parent.
  Status Commit();
  // Removes the partial folder and everything in it.
  void Abandon();

 private:
  FreshDirectory(std::string final_path, std::string partial_path)
      : final_path_(std::move(final_path)), partial_path_(std::move(partial_path)) {}
  std::string final_path_;
  std::string partial_path_;
  bool done_ = false;
};

}  // namespace ratchet

#endif  // RATCHET_CORE_FRESH_DIRECTORY_H_
