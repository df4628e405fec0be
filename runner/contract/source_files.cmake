# The files whose bytes make up the harness source hash (docs/contract.md, "Source hash"):
# every file under runner/ and the top-level CMakeLists.txt, as paths relative to the repository
# root, sorted by their bytes. A path with a component that starts with "." (editor and partial
# files) or that is "__pycache__" (bytecode Python writes beside a script) is left out: neither
# is part of a checkout. Used at configure time (the DEPENDS of the hashing command) and by
# source_sha256.cmake at build time, so both see one list.
function(ratchet_source_files root out_var)
  file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${root}" ${ARGN} "${root}/runner/*")
  set(kept "CMakeLists.txt")
  foreach(path IN LISTS found)
    if(path MATCHES "(^|/)(\\.|__pycache__/)")
      continue()
    endif()
    if(path MATCHES "[\n\\\\]")
      message(FATAL_ERROR "ratchet source hash: a path with a newline or backslash: ${path}")
    endif()
    list(APPEND kept "${path}")
  endforeach()
  list(SORT kept COMPARE STRING)
  set(${out_var} "${kept}" PARENT_SCOPE)
endfunction()
