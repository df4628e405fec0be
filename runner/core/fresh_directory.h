// A fresh directory is one unit of output (an evidence directory, a written draw): it is built
// in a hidden partial folder beside its final name and renamed into place only when complete.
// It never exists already, is never reused, and is never reached through a symlink. It is
// private: its folders are 0700 and its files 0600, while it is built and after it is committed,
// since what it holds may be secret (a draw's hidden labels and map).
//
// The process that builds one holds an exclusive flock(2) on its partial folder until it commits
// or abandons it, or the FreshDirectory is destroyed; the kernel lets go of the lock when the
// process ends, however it ends. A partial folder whose lock is free was left by a process that
// is gone (SIGKILL, a crash, power loss), and SweepPartialFolders removes it.
#ifndef RATCHET_CORE_FRESH_DIRECTORY_H_
#define RATCHET_CORE_FRESH_DIRECTORY_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ratchet {

class FreshDirectory {
 public:
  // Refuses (BadInput) a `final_path` that exists (a file, a folder or a symlink, dangling or
  // not) and a parent folder that is missing, a symlink or not a folder. Creates
  // ".<name>.partial-<random>" (0700) beside it and locks it. A sweep can find the folder in the
  // moment between its mkdir and its lock, and remove it: Begin then takes another name, so the
  // folder it returns is locked and still in place.
  static Result<FreshDirectory> Begin(const std::string& final_path);

  FreshDirectory(FreshDirectory&& other) noexcept;  // the lock goes with it
  FreshDirectory& operator=(FreshDirectory&&) = delete;
  FreshDirectory(const FreshDirectory&) = delete;
  // An uncommitted, unabandoned partial folder stays, unlocked: evidence of a stop, until a sweep
  // of its folder once this process is gone.
  ~FreshDirectory();

  // Where files go while the directory is incomplete.
  const std::string& partial_path() const { return partial_path_; }
  const std::string& final_path() const { return final_path_; }

  // Creates `relative` (folders separated by '/') under the partial folder.
  Status MakeSubdirectory(const std::string& relative);
  // Writes one file under the partial folder (created exclusively, 0600, fsynced).
  Status WriteFile(const std::string& relative, std::string_view bytes);

  // fsyncs the partial folder, renames it to the final name (refusing to replace anything that
  // appeared there meanwhile), fsyncs the parent and lets go of the lock.
  Status Commit();
  // Removes the partial folder and everything in it, and lets go of the lock.
  void Abandon();

 private:
  FreshDirectory(std::string final_path, std::string partial_path, int lock_fd)
      : final_path_(std::move(final_path)),
        partial_path_(std::move(partial_path)),
        lock_fd_(lock_fd) {}
  void Unlock();

  std::string final_path_;
  std::string partial_path_;
  int lock_fd_ = -1;  // the partial folder, opened and flocked; -1 once let go
  bool done_ = false;
};

// Whether `name` is shaped like a partial folder's: ".<name>.partial-<digits>".
bool IsPartialFolderName(std::string_view name);

// A partial folder a sweep removed, or could not.
struct SweptFolder {
  std::string folder;  // the folder swept
  std::string name;    // the partial folder's name in it
  Status status;       // ok: removed

  // One line for a person: "removed NAME in FOLDER: ..." or "could not remove NAME in FOLDER: ...".
  std::string Line() const;
};

// Removes each partial folder directly in `folder` whose lock is free (the process that built it
// is gone), each under that lock. It keeps a partial folder a live process holds, and anything
// not shaped like a partial folder: a finished directory, a file, a symlink, another name. What
// it removed or failed to remove, by name; nothing when `folder` does not exist.
Result<std::vector<SweptFolder>> SweepPartialFolders(const std::string& folder);

}  // namespace ratchet

#endif  // RATCHET_CORE_FRESH_DIRECTORY_H_
