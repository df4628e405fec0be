// The rule set of the energy tests: FastRules with every energy window a fraction of a second
// and 64-wide reference matrices, so that a whole measurement takes a few seconds.
#ifndef RATCHET_TESTS_ENERGY_ENERGY_RULES_H_
#define RATCHET_TESTS_ENERGY_ENERGY_RULES_H_

#include "core/canonical_json.h"
#include "support/fast_rules.h"

namespace ratchet {

// `factor` loosens the dispersion check (a CPU's pace is not the timed calls'); `band_prefix`,
// when not empty, gets a reference band no reading can be inside.
inline Json EnergyRulesJson(double factor, const std::string& band_prefix = "") {
  Json rules = FastRulesJson();
  Json& e = rules["energy"];
  e["energy_window_s"] = 0.6;
  e["energy_min_calls"] = 2;
  e["energy_draws"] = 2;
  e["control_window_s"] = 0.2;
  e["settle_s"] = 0.05;
  e["idle_s"] = 0.25;
  e["idle_sample_s"] = 0.05;
  e["reference_s"] = 0.2;
  e["reference_grace_s"] = 30;
  e["reference_dim"] = 64;
  if (!band_prefix.empty()) {
    e["reference_bands"].push_back(
        {{"prefix", band_prefix}, {"j_per_tflop", {0.0, 0.0}}, {"tflops_per_s", {1e6, 1e7}}});
  }
  rules["dispersion"]["factor"] = factor;
  return rules;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_ENERGY_ENERGY_RULES_H_
