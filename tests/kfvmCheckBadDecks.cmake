# Runs `kfvm check` on every deck in DECK_DIR: each must be refused (non-zero exit) with
# a message holding the text after "# expect: " on the deck's first line (file, line,
# key, value).
file(GLOB decks "${DECK_DIR}/*.toml")
list(LENGTH decks count)
if(count EQUAL 0)
  message(FATAL_ERROR "no decks in ${DECK_DIR}")
endif()
foreach(deck IN LISTS decks)
  file(STRINGS "${deck}" first LIMIT_COUNT 1)
  string(REGEX REPLACE "^# expect: " "" expected "${first}")
  get_filename_component(name "${deck}" NAME)
  execute_process(COMMAND "${KFVM_COMMAND}" check "${name}"
                  WORKING_DIRECTORY "${DECK_DIR}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(status EQUAL 0)
    message(FATAL_ERROR "${name}: kfvm check accepted a bad deck:\n${out}")
  endif()
  string(FIND "${err}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${name}: expected '${expected}' in:\n${err}")
  endif()
  message(STATUS "${name}: refused as expected: ${err}")
endforeach()
