# Runs a command that must be refused: a non-zero exit status and a message (standard
# output and error together) matching MESSAGE, a regular expression. One run checks both,
# where PASS_REGULAR_EXPRESSION alone would ignore the exit status.
#   cmake -DMESSAGE=<regex> -P kfvmExpectRefusal.cmake <command> [<argument>...]
if(NOT DEFINED MESSAGE)
  message(FATAL_ERROR "kfvmExpectRefusal: MESSAGE is not set")
endif()
set(command "")
set(after_script OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE ${last})
  if(after_script)
    list(APPEND command "${CMAKE_ARGV${i}}")
  elseif(CMAKE_ARGV${i} MATCHES "kfvmExpectRefusal\\.cmake$")
    set(after_script ON)
  endif()
endforeach()
if(NOT command)
  message(FATAL_ERROR "kfvmExpectRefusal: no command after the script")
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(status EQUAL 0)
  message(FATAL_ERROR "exit status 0 where a refusal was expected:\n${out}")
endif()
if(NOT out MATCHES "${MESSAGE}")
  message(FATAL_ERROR "exit status ${status}, but no '${MESSAGE}' in:\n${out}")
endif()
message(STATUS "refused as expected (exit status ${status}): ${out}")
