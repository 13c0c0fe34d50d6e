# kfvm run's levels (-q, normal, -v) and its failure path, on a deck with steps and
# progress_every: quiet prints no progress line, normal one every progress_every steps,
# verbose one every step plus sweep residuals and the files written; a solve that does
# not converge ends the run with exit status 2 and a "kfvm error:" line on stderr.
# Needs -DKFVM_COMMAND=<kfvm> -DDECK=<deck> -DSTEPS=<its steps> -DEVERY=<progress_every>
# -DWORK=<scratch folder>.
get_filename_component(WORK "${WORK}" ABSOLUTE)  # a relative one: in the test's folder
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(count_progress_lines text result)
  string(REGEX MATCHALL "step +[0-9]+  t = " lines "${text}")
  list(LENGTH lines count)
  set(${result} ${count} PARENT_SCOPE)
endfunction()

foreach(level quiet normal verbose)
  set(flag "")
  if(level STREQUAL "quiet")
    set(flag -q)
  elseif(level STREQUAL "verbose")
    set(flag -v)
  endif()
  execute_process(COMMAND "${KFVM_COMMAND}" run ${flag} "${DECK}" --output "${WORK}/${level}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${level}: exit status ${status}:\n${out}${err}")
  endif()
  if(NOT out MATCHES "check +.*: ok")
    message(FATAL_ERROR "${level}: no check result (results print at every level):\n${out}")
  endif()
  count_progress_lines("${out}" count)
  math(EXPR periodic "${STEPS} / ${EVERY}")
  set(expected 0)
  if(level STREQUAL "normal")
    set(expected ${periodic})
  elseif(level STREQUAL "verbose")
    set(expected ${STEPS})
    if(NOT out MATCHES "wrote .*_000000.vtr")
      message(FATAL_ERROR "verbose: no 'wrote' lines:\n${out}")
    endif()
  endif()
  if(NOT count EQUAL expected)
    message(FATAL_ERROR "${level}: ${count} progress lines, expected ${expected}:\n${out}")
  endif()
  message(STATUS "${level}: ${count} progress lines")
endforeach()

file(READ "${DECK}" text)
string(REGEX REPLACE "\nmax_iterations = [0-9]+" "" text "${text}")
string(REPLACE "[solver]" "[solver]\nmax_iterations = 1" text "${text}")
string(REGEX REPLACE "\npreconditioner = \"[a-z0-9]+\"" "\npreconditioner = \"none\"" text
       "${text}")
file(WRITE "${WORK}/failing.toml" "${text}")
execute_process(COMMAND "${KFVM_COMMAND}" run "${WORK}/failing.toml"
                        --output "${WORK}/failing"
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "kfvm error: kfvm run: step 1 \\(t = [^)]+\\) failed: ")
  message(FATAL_ERROR "a run whose solver cannot converge: exit status ${status} "
                      "(expected 2):\n${out}${err}")
endif()
message(STATUS "non-converging run: exit status 2, ${err}")
