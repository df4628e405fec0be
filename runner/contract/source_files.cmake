# The files whose bytes make up a source hash (docs/contract.md, "Source hash"), as paths relative
# to the repository root, sorted by their bytes. ratchet's sources are split in two:
#   tool:   every file under runner/ of the tool's folders (ratchet_tool_folders below): the
#           commands, the baseline, compare, audit and the sharded run. Its hash is recorded in
#           the contract's `observed` part, where nothing compares it.
#   scorer: every other file under runner/, and the top-level CMakeLists.txt: everything that
#           can move an outcome. Its hash is locked (`locked.scorer.source_sha256`).
# A new folder under runner/ is the scorer's until it is named here: locked by default.
# A path with a component that starts with "." (editor and partial files) or that is
# "__pycache__" (bytecode Python writes beside a script) is left out: neither is part of a
# checkout. Used at configure time (the DEPENDS of the hashing commands) and by
# source_sha256.cmake at build time, so both see one list.
set(ratchet_tool_folders audit baseline cli compare shard)

function(ratchet_source_files root part out_var)
  if(NOT part STREQUAL "scorer" AND NOT part STREQUAL "tool")
    message(FATAL_ERROR "ratchet source hash: the part must be scorer or tool, not ${part}")
  endif()
  file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${root}" ${ARGN} "${root}/runner/*")
  if(part STREQUAL "scorer")
    set(kept "CMakeLists.txt")
  else()
    set(kept "")
  endif()
  foreach(path IN LISTS found)
    if(path MATCHES "(^|/)(\\.|__pycache__/)")
      continue()
    endif()
    if(path MATCHES "[\n\\\\]")
      message(FATAL_ERROR "ratchet source hash: a path with a newline or backslash: ${path}")
    endif()
    set(of_tool FALSE)
    foreach(folder IN LISTS ratchet_tool_folders)
      if(path MATCHES "^runner/${folder}/")
        set(of_tool TRUE)
      endif()
    endforeach()
    if((part STREQUAL "tool" AND of_tool) OR (part STREQUAL "scorer" AND NOT of_tool))
      list(APPEND kept "${path}")
    endif()
  endforeach()
  list(SORT kept COMPARE STRING)
  set(${out_var} "${kept}" PARENT_SCOPE)
endfunction()
