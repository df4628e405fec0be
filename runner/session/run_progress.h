// A scoring run's progress as lines for a person (the board, each call's time), and the
// contract written before the run's first window: the session's RunObserver.
#ifndef RATCHET_SESSION_RUN_PROGRESS_H_
#define RATCHET_SESSION_RUN_PROGRESS_H_

#include <ostream>

#include "scorer/run.h"
#include "session/session.h"

namespace ratchet {

class RunProgress : public RunObserver {
 public:
  RunProgress(ScoringSession* session, std::ostream& out) : session_(session), out_(out) {}

  Status BeforeFirstWindow(const Json* hello) override { return session_->WriteContract(hello); }
  // "  <board>, torch <version>, sandbox on" (or why it is partial).
  void FirstWorker(const Json& hello) override;
  // "  call  3/15: 8.123 ms, scorer's clock 8.456 ms".
  void CallComplete(size_t number, size_t count, const CallRecord& record) override;

 private:
  ScoringSession* session_;
  std::ostream& out_;
};

}  // namespace ratchet

#endif  // RATCHET_SESSION_RUN_PROGRESS_H_
