# Checkpoint and restart (kfvm run, [output] checkpoint_every): a run killed while
# writing its second checkpoint leaves the first one readable, and the run restarted from
# it ends with exactly the same final field as an uninterrupted run (the final VTK files,
# 17 significant digits, are byte for byte the same; so is the last line of series.csv).
# Needs -DKFVM_COMMAND=<kfvm> -DDECK=<deck with checkpoint_every> -DWORK=<scratch folder>.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(kfvm_run expected_status)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status STREQUAL expected_status)
    message(FATAL_ERROR "${ARGN}\n exited with ${status}, expected ${expected_status}:\n"
                        "${out}${err}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()

kfvm_run(0 "${KFVM_COMMAND}" run -q "${DECK}" --output "${WORK}/whole")
kfvm_run(137 ${CMAKE_COMMAND} -E env KFVM_KILL_DURING_CHECKPOINT=2
         "${KFVM_COMMAND}" run -q "${DECK}" --output "${WORK}/killed")
foreach(file checkpoint.h5 checkpoint.h5.tmp)
  if(NOT EXISTS "${WORK}/killed/${file}")
    message(FATAL_ERROR "the killed run left no ${file}")
  endif()
endforeach()
kfvm_run(1 "${KFVM_COMMAND}" run -q "${DECK}" --output "${WORK}/bad"
         --restart "${WORK}/killed/checkpoint.h5.tmp")
kfvm_run(0 "${KFVM_COMMAND}" run "${DECK}" --output "${WORK}/killed"
         --restart "${WORK}/killed/checkpoint.h5")
if(NOT run_output MATCHES "restart +from .*checkpoint.h5: step ")
  message(FATAL_ERROR "the restart did not say where it started:\n${run_output}")
endif()

file(GLOB whole_files "${WORK}/whole/*.vtr")
list(SORT whole_files)
list(GET whole_files -1 last)
get_filename_component(name "${last}" NAME)
file(READ "${WORK}/whole/${name}" whole)
file(READ "${WORK}/killed/${name}" restarted)
if(NOT whole STREQUAL restarted)
  message(FATAL_ERROR "${name} differs between the whole run and the restarted one")
endif()
file(STRINGS "${WORK}/whole/series.csv" whole_lines)
file(STRINGS "${WORK}/killed/series.csv" restarted_lines)
list(GET whole_lines -1 whole_last)
list(GET restarted_lines -1 restarted_last)
if(NOT whole_last STREQUAL restarted_last)
  message(FATAL_ERROR "series.csv ends differently:\n${whole_last}\n${restarted_last}")
endif()
message(STATUS "${name} and the last series.csv line are identical after kill + restart")
