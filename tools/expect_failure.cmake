# SPDX-License-Identifier: MIT
# Runs PROGRAM with the list ARGS and passes only when it exits with a non-zero status (not a crash: a signal shows
# up as a message instead of a number) and says something on stderr.
#   cmake -DPROGRAM=path -DARGS="demo;--bad" -P expect_failure.cmake
execute_process(COMMAND ${PROGRAM} ${ARGS} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: crashed (${status})\n${err}")
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exited 0, expected a failure\n${out}")
endif()
if(err STREQUAL "")
  message(FATAL_ERROR "${PROGRAM} ${ARGS}: exited ${status} without a message on stderr")
endif()
message(STATUS "${PROGRAM} ${ARGS}: exited ${status} as expected: ${err}")
