// For black-box tests of ratchet-scorer: the binary beside $RATCHET_BINARY, a run of `serve` fed
// a file of requests, and its answers by kind.
#ifndef RATCHET_TESTS_SESSION_SCORER_BINARY_H_
#define RATCHET_TESTS_SESSION_SCORER_BINARY_H_

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/file.h"
#include "session/request.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {

inline std::string TextOf(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  return text.ok() ? *text : "";
}

inline std::string Request(const std::string& kind, const Json& body) {
  Result<std::string> line = EncodeRequest(kind, body);
  EXPECT_TRUE(line.ok()) << line.status().ToString();
  return line.ok() ? *line : "";
}

inline std::string Scorer() { return DirName(RatchetBinary()) + "/ratchet-scorer"; }

// Runs `ratchet-scorer serve` with `requests` on its stdin.
inline BinaryRun Serve(const TempDir& dir, const std::string& requests) {
  const std::string file = dir / "requests.jsonl";
  EXPECT_TRUE(WriteFileAtomic(file, requests).ok());
  BinaryRun run;
  const std::string command = "'" + Scorer() + "' serve < '" + file + "' > '" + (dir / "answers") +
                              "' 2> '" + (dir / "stderr") + "'";
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = TextOf(dir / "answers");
  run.err = TextOf(dir / "stderr");
  return run;
}

// The answers of a run, by kind.
inline std::map<std::string, std::vector<Json>> Answers(const std::string& out) {
  std::map<std::string, std::vector<Json>> answers;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    Result<Message> message = ParseMessage(line);
    EXPECT_TRUE(message.ok()) << line;
    if (message.ok()) answers[message->kind].push_back(message->body);
  }
  return answers;
}

// The "out" or "err" text of a run's answers, joined.
inline std::string TextAnswers(const std::string& out, const std::string& kind) {
  std::map<std::string, std::vector<Json>> answers = Answers(out);
  std::string text;
  for (const Json& part : answers[kind]) text += part.is_string() ? part.get<std::string>() : "";
  return text;
}

inline Json ReadJson(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  return text.ok() ? Json::parse(*text, nullptr, false) : Json();
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SESSION_SCORER_BINARY_H_
