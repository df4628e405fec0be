# The release differential test: ratchet's pools, release and relabelling against the seed
# scorer's numpy code on the same inputs, and `ratchet draw` against an independent reading of
# docs/draws.md. Included from tests/differential/CMakeLists.txt.
add_executable(release_probe ${CMAKE_CURRENT_SOURCE_DIR}/release_probe.cc)
target_link_libraries(release_probe PRIVATE ratchet_data)

ratchet_differential_test(differential_release release_diff.py
  $<TARGET_FILE:release_probe> $<TARGET_FILE:ratchet>)
set_tests_properties(differential_release PROPERTIES TIMEOUT 600)
