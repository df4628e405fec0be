# The judge against the seed's judge(): judge_probe judges cases read from stdin with the embedded
# rule set; judge_diff.py generates the cases, runs both and compares every message.
add_executable(judge_probe ${CMAKE_CURRENT_SOURCE_DIR}/judge_probe.cc)
target_link_libraries(judge_probe PRIVATE ratchet_rules)
ratchet_differential_test(judge_differential judge_diff.py $<TARGET_FILE:judge_probe>)
set_tests_properties(judge_differential PROPERTIES LABELS rules)
