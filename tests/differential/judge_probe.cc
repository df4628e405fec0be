// Test probe for the judge differential test: `judge_probe RULES`, RULES as --rules takes it (the
// test gives the seed's, mnist-a100/1.2.0). Reads a JSON array of cases from stdin, each
// {"band": BP, "calls": [{"dataset", "ms", "parent_ms", "correct", "total", "overhead_ms"}]},
// judges each with that rule set and writes a JSON array of results: {"problems":
// [{"rule", "message"}], "ranked_ms", "summary", "floored"}, or {"error": MESSAGE}. Doubles are
// written in their shortest round-trip form, so nothing is lost on the way to Python.
// `judge_probe RULES --rules` writes the rule set's document and its sha256 instead.
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "rules/judge.h"
#include "rules/rule_set.h"

namespace ratchet {
namespace {

Json Judged(const Json& input, const RuleSet& rules) {
  std::vector<Call> calls;
  for (const Json& c : input.at("calls")) {
    calls.push_back(Call{c.at("dataset").get<std::string>(), c.at("ms").get<double>(),
                         c.at("parent_ms").get<double>(), c.at("correct").get<int64_t>(),
                         c.at("total").get<int64_t>(), c.at("overhead_ms").get<double>()});
  }
  Result<Judgement> judgement = Judge(calls, input.at("band").get<int64_t>(), rules);
  if (!judgement.ok()) return Json{{"error", judgement.status().message()}};
  Json problems = Json::array();
  for (const Problem& problem : judgement->problems) {
    problems.push_back({{"rule", problem.rule}, {"message", problem.message}});
  }
  return Json{{"problems", problems},
              {"ranked_ms", judgement->ranked_ms},
              {"summary", judgement->summary},
              {"floored", judgement->floored}};
}

int Main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string(argv[2]) != "--rules")) {
    std::cerr << "usage: judge_probe RULES [--rules]\n";
    return 2;
  }
  Result<RuleSet> rules = LoadRuleSet(std::string(argv[1]));
  if (!rules.ok()) {
    std::cerr << "judge_probe: " << rules.status().message() << "\n";
    return 3;
  }
  if (argc == 3) {
    std::cout << Json{{"document", rules->document}, {"sha256", rules->sha256}}.dump() << "\n";
    return 0;
  }
  const std::string text(std::istreambuf_iterator<char>(std::cin), {});
  Result<Json> cases = ParseJson(text, "stdin");
  if (!cases.ok() || !cases->is_array()) {
    std::cerr << "judge_probe: expected a JSON array of cases on stdin\n";
    return 2;
  }
  Json out = Json::array();
  try {
    for (const Json& input : *cases) out.push_back(Judged(input, *rules));
  } catch (const Json::exception& error) {
    std::cerr << "judge_probe: a malformed case: " << error.what() << "\n";
    return 2;
  }
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace ratchet

int main(int argc, char** argv) { return ratchet::Main(argc, argv); }
