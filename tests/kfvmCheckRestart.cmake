# Checkpoint and restart (kfvm run, [output] checkpoint_every): a run killed while
# writing its second checkpoint, and one killed in the middle of a CSV row after it,
# restarted from the last whole checkpoint, end byte for byte as an uninterrupted run:
# every VTK file, the .pvd collection, series.csv and probes.csv (a restart cuts the CSV
# files to the sizes the checkpoint recorded, so no row is doubled or glued).
# Needs -DKFVM_COMMAND=<kfvm> -DDECK=<deck with checkpoint_every> -DWORK=<scratch folder>
# -DCSV_KILL_ROW=<a row after the first checkpoint and before the second>.
get_filename_component(WORK "${WORK}" ABSOLUTE)  # a relative one: in the test's folder
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
file(GLOB whole_files RELATIVE "${WORK}/whole" "${WORK}/whole/*.vtr" "${WORK}/whole/*.pvd"
     "${WORK}/whole/*.csv")
list(LENGTH whole_files count)
if(count LESS 3)
  message(FATAL_ERROR "the whole run wrote only ${whole_files}")
endif()

foreach(kill KFVM_KILL_DURING_CHECKPOINT=2 KFVM_KILL_DURING_CSV=${CSV_KILL_ROW})
  string(REGEX REPLACE "=.*" "" what "${kill}")
  set(killed "${WORK}/${what}")
  kfvm_run(137 ${CMAKE_COMMAND} -E env ${kill} "${KFVM_COMMAND}" run -q "${DECK}"
           --output "${killed}")
  if(NOT EXISTS "${killed}/checkpoint.h5")
    message(FATAL_ERROR "${kill}: the killed run left no checkpoint.h5")
  endif()
  if(what STREQUAL "KFVM_KILL_DURING_CHECKPOINT")
    if(NOT EXISTS "${killed}/checkpoint.h5.tmp")
      message(FATAL_ERROR "${kill}: the killed run left no checkpoint.h5.tmp")
    endif()
    # The half-written temporary is no checkpoint: a restart from it is refused.
    kfvm_run(1 "${KFVM_COMMAND}" run -q "${DECK}" --output "${WORK}/bad"
             --restart "${killed}/checkpoint.h5.tmp")
    if(NOT run_output MATCHES "kfvm error: .*checkpoint.h5.tmp' is not a sealed")
      message(FATAL_ERROR "the restart from a half-written file said:\n${run_output}")
    endif()
  endif()
  kfvm_run(0 "${KFVM_COMMAND}" run "${DECK}" --output "${killed}"
           --restart "${killed}/checkpoint.h5")
  if(NOT run_output MATCHES "restart +from .*checkpoint.h5: step ")
    message(FATAL_ERROR "${kill}: the restart did not say where it started:\n${run_output}")
  endif()
  foreach(name IN LISTS whole_files)
    file(READ "${WORK}/whole/${name}" whole)
    if(NOT EXISTS "${killed}/${name}")
      message(FATAL_ERROR "${kill}: the restarted run has no ${name}")
    endif()
    file(READ "${killed}/${name}" restarted)
    if(NOT whole STREQUAL restarted)
      message(FATAL_ERROR "${kill}: ${name} differs between the whole run and the "
                          "restarted one:\n--- whole\n${whole}\n--- restarted\n${restarted}")
    endif()
  endforeach()
  message(STATUS "${kill}: ${count} files identical after kill + restart: ${whole_files}")
endforeach()
